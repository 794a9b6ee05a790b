"""An independent checker for hybrid CPU+GPU schedules.

Source: spec 003-part1-hybrid section 7.1 ("Validator"); DESIGN.md's one
independent validator. This module reads only the raw columns of
:class:`~schedlab.platform.hybrid.HybridInstance` and of
:class:`~schedlab.offline.hybrid.schedule.HybridSchedule`; it uses none of the
instance's helper methods and no code of the algorithms.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.errors import ValidationError

__all__ = ["validate_hybrid"]


def validate_hybrid(instance, schedule, *, require_contiguous: bool = False, rtol: float = 1e-9) -> float:
    """Check a hybrid schedule; return its makespan or raise on the first broken rule.

    Rules, checked task by task in row order, then per processor:

    1. The schedule has one start, end, kind and resource tuple per task.
    2. Start and end are finite, ``start >= 0``.
    3. A GPU task has exactly one resource, a GPU id in ``0 .. k-1``, and
       ``end - start = gpu_time``.
    4. A CPU task has ``l >= 1`` distinct CPU ids in ``0 .. m-1``, ``l <= m``
       when moldable and ``l = 1`` when sequential, and
       ``end - start = cpu_times[j, l-1]``; with ``require_contiguous`` the ids
       are consecutive.
    5. No processor runs two tasks at overlapping times (half-open intervals;
       a tolerance of ``rtol * max(1, |t|)`` absorbs float rounding).

    Cost: O(n l log n) for n tasks on l processors each.

    Raises
    ------
    ValidationError
        Naming the task id (and the processor for overlaps).
    """
    n = len(instance.gpu_time)
    m, k = instance.platform.m, instance.platform.k
    start = np.asarray(schedule.start, dtype=float)
    end = np.asarray(schedule.end, dtype=float)
    on_gpu = np.asarray(schedule.on_gpu, dtype=bool)
    resources = schedule.resources
    if not (len(start) == len(end) == len(on_gpu) == len(resources) == n):
        raise ValidationError(
            f"schedule has {len(start)}/{len(end)}/{len(on_gpu)}/{len(resources)} "
            f"start/end/kind/resource entries for {n} tasks"
        )
    ids = instance.ids
    busy: dict[tuple[str, int], list[tuple[float, float, int]]] = {}
    for j in range(n):
        name = f"task {ids[j]}"
        s, e = float(start[j]), float(end[j])
        if not (math.isfinite(s) and math.isfinite(e)) or s < 0:
            raise ValidationError(f"{name}: start {s}, end {e}: expected finite times with start >= 0")
        res = tuple(resources[j])
        if on_gpu[j]:
            if len(res) != 1 or not (0 <= res[0] < k):
                raise ValidationError(f"{name}: GPU resources {res}, expected one GPU id in 0..{k - 1}")
            expected = float(instance.gpu_time[j])
            kind = "gpu"
        else:
            l = len(res)
            if l == 0 or len(set(res)) != l or any(not (0 <= r < m) for r in res):
                raise ValidationError(f"{name}: CPU resources {res}, expected distinct CPU ids in 0..{m - 1}")
            limit = m if instance.moldable[j] else 1
            if l > limit:
                raise ValidationError(f"{name}: runs on {l} CPUs, at most {limit} allowed")
            if require_contiguous and max(res) - min(res) + 1 != l:
                raise ValidationError(f"{name}: CPUs {res} are not contiguous")
            expected = float(instance.cpu_times[j, l - 1])
            kind = "cpu"
        if not math.isfinite(expected):
            raise ValidationError(f"{name}: cannot run on a {kind.upper()}")
        tol = rtol * max(1.0, abs(e))
        if abs((e - s) - expected) > tol:
            raise ValidationError(f"{name}: runs {e - s} on {len(res)} {kind.upper()}(s), expected {expected}")
        for r in res:
            busy.setdefault((kind, int(r)), []).append((s, e, j))
    for (kind, r), intervals in sorted(busy.items()):
        intervals.sort()
        for (s1, e1, j1), (s2, e2, j2) in zip(intervals, intervals[1:]):
            if s2 < e1 - rtol * max(1.0, abs(e1)):
                raise ValidationError(
                    f"task {ids[j2]} starts at {s2} on {kind.upper()} {r} while task {ids[j1]} runs there until {e1}"
                )
    return float(end.max()) if n else 0.0
