"""Hybrid CPU+GPU schedules as the common :class:`~schedlab.schedule.Schedule`, and the search records.

Source: Bleuse (2017), ch. 3 section 3.1 (a schedule gives each task a start,
a kind and its processors). The algorithms build, per task, a start, an end,
whether it runs on a GPU and its processor numbers *within its kind* (CPU
``0 .. m-1`` or GPU ``0 .. k-1``); :func:`hybrid_schedule` turns them into
allocations of the platform's one id space (GPU ``g`` is id ``m + g``, see
:class:`~schedlab.platform.hybrid.HybridPlatform`), so every hybrid schedule
is checked by :func:`schedlab.validation.validate` against
:func:`hybrid_instance` (the tasks' :class:`~schedlab.runtime.hybrid.HybridTimes`
model gives each allocation's length).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from schedlab.errors import SchedlabError
from schedlab.platform.intervals import Allocation, normalize
from schedlab.runtime.hybrid import HybridTimes, hybrid_jobs
from schedlab.schedule import Instance, JobStatus, Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = [
    "HybridError",
    "SearchInfo",
    "SearchStep",
    "hybrid_instance",
    "hybrid_schedule",
    "renamed",
    "schedule_to_json",
    "search_of",
    "task_kinds",
    "task_resources",
]


class HybridError(SchedlabError):
    """An algorithm cannot produce a schedule for this instance (e.g. GPU-only with k = 0)."""


@dataclass(frozen=True, slots=True)
class SearchStep:
    """One evaluated guess of a dual-approximation search."""

    lam: float
    accepted: bool
    makespan: float  # nan when rejected
    seconds: float
    info: dict = field(default_factory=dict)  # per-algorithm statistics (ILP status, mean |F(j)|...)


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """How the bisection ended: the returned guess, the final bounds and every step."""

    lam: float  # guess whose schedule is returned
    lower: float  # <= OPT (every rejection is sound)
    upper: float  # smallest accepted guess
    steps: tuple[SearchStep, ...]

    @property
    def n_steps(self) -> int:
        return len(self.steps)


def hybrid_instance(tasks: HybridInstance) -> Instance:
    """The common instance of ``tasks``: their job table, the hybrid platform and the CPU+GPU time model."""
    return Instance(hybrid_jobs(tasks), tasks.platform, HybridTimes(tasks))


def hybrid_schedule(tasks: HybridInstance, start, end, on_gpu, resources, name: str = "") -> Schedule:
    """The :class:`Schedule` of tasks placed by an algorithm; every task COMPLETED.

    ``resources[j]`` holds task ``j``'s processor numbers within its kind
    (one GPU number when ``on_gpu[j]``, else its CPU numbers).
    """
    m = tasks.m
    n = len(resources)
    allocs: list[Allocation | None] = [
        normalize([(m + r, m + r + 1) if gpu else (r, r + 1) for r in ids])
        for gpu, ids in zip(np.asarray(on_gpu, dtype=bool).tolist(), resources, strict=True)
    ]
    return Schedule(
        start=np.asarray(start, dtype=np.float64),
        end=np.asarray(end, dtype=np.float64),
        status=np.full(n, JobStatus.COMPLETED, dtype=np.int8),
        alloc=allocs,
        policy=name,
    )


def task_kinds(tasks: HybridInstance, schedule: Schedule) -> np.ndarray:
    """Per task, whether it runs on a GPU (its allocation's ids are GPU ids)."""
    m = tasks.m
    return np.array([bool(a and a[0][0] >= m) for a in schedule.alloc], dtype=bool)


def task_resources(tasks: HybridInstance, schedule: Schedule) -> tuple[tuple[int, ...], ...]:
    """Per task, its processor numbers within its kind (CPU ``0 .. m-1``, GPU ``0 .. k-1``), sorted."""
    m = tasks.m
    out = []
    for a in schedule.alloc:
        ids = [i for lo, hi in (a or ()) for i in range(lo, hi)]
        out.append(tuple(i - m for i in ids) if ids and ids[0] >= m else tuple(ids))
    return tuple(out)


def renamed(schedule: Schedule, name: str, search: SearchInfo | None = None) -> Schedule:
    """``schedule`` under the algorithm name ``name``, with its search record when given."""
    info = dict(schedule.info) if search is None else {**schedule.info, "search": search}
    return replace(schedule, policy=name, info=info)


def search_of(schedule: Schedule) -> SearchInfo | None:
    """The dual-approximation search record of ``schedule``, or None for a one-shot algorithm."""
    return schedule.info.get("search")


def _ranges(ids: tuple[int, ...]) -> str:
    """``(0, 1, 2, 5)`` -> ``"0-2 5"`` (evalys' allocated_resources style)."""
    parts, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(parts)


def schedule_to_json(tasks: HybridInstance, schedule: Schedule) -> list[dict]:
    """One object per task: id, kind (``cpu``/``gpu``), processor numbers within the kind as ranges, start, end."""
    gpu = task_kinds(tasks, schedule)
    ids = task_resources(tasks, schedule)
    return [
        {
            "id": int(tasks.ids[j]),
            "kind": "gpu" if gpu[j] else "cpu",
            "resources": _ranges(ids[j]),
            "start": float(schedule.start[j]),
            "end": float(schedule.end[j]),
        }
        for j in range(len(schedule.start))
    ]
