"""Special cases of I/O-aware scheduling with better guarantees, and the one-after-another schedule.

Source: Bleuse (2017), PhD thesis, Table 5.1 (unit jobs with pinned I/O: a
2-approximation; the derivation is ours) and Theorem 5.1's remarks (one
exclusive I/O node: ``1||Cmax``; I/O nodes farther apart than the widest job:
independent problems per I/O node).

* :func:`unit_pinned`: equal processing times, pinned I/O, a line. After the
  LP rounding (Lemma 5.7) the footprints are intervals; colouring them greedily
  by left end (interval partitioning) uses exactly as many colours as the
  largest number of footprints over one position, so
  ``Cmax = Lambda_round <= 2 Lambda_LP <= 2 OPT``.
* :func:`per_io_node`: every job pinned to one I/O node with room for it on
  that node's right before the next I/O node; the jobs of each I/O node run
  one after another there. ``Cmax = max_k sum_{j -> k} p_j``, optimal with
  exclusive I/O (and only feasible, not optimal, with shared I/O: two jobs
  may then use one I/O node from both sides; ambiguity A15).
* :func:`sequential`: every job alone, one after another, on its first
  allocation: ``Cmax = sum p_j``, optimal when every job needs the one
  exclusive I/O node there is.

Cost: :func:`unit_pinned` one LP plus O(n log n); the others O(n) windows.
"""

from __future__ import annotations

import heapq

import numpy as np

from schedlab.errors import InputError
from schedlab.offline.io.lp import dedicate, footprints
from schedlab.offline.io.pinned import require_pinned
from schedlab.offline.io.schedule import io_schedule
from schedlab.parameters import Param, declare
from schedlab.platform.io_windows import Window, first_unpinned_window, window
from schedlab.schedule import Schedule
from schedlab.workload.io_jobs import IOInstance

__all__ = ["first_window", "per_io_node", "right_window", "sequential", "unit_pinned"]


@declare(formulation=Param("how the dedication LP is written (same optimum)", choices=("differences", "windows")))
def unit_pinned(inst: IOInstance, *, formulation: str = "differences") -> Schedule:
    """Pinned jobs of equal processing time on a line: LP rounding, then interval partitioning.

    Raises
    ------
    InputError
        Unequal processing times, a ring, or a job that is not pinned.
    """
    require_pinned(inst, "unit-pinned")
    if inst.platform.ring:
        raise InputError(inst.source, field="platform", value=inst.platform.name, expected="a line (unit-pinned)")
    if inst.n == 0:
        return io_schedule(inst, [], [], "unit-pinned", {"lp": 0.0, "rounded": 0.0})
    if np.any(inst.p != inst.p[0]):
        j = int(np.argmax(inst.p != inst.p[0]))
        raise InputError(
            inst.source,
            field=f"jobs[{j}].p",
            value=float(inst.p[j]),
            expected=f"{float(inst.p[0])} like every job (unit-pinned needs equal processing times)",
        )
    ded = dedicate(inst, formulation=formulation)
    lows, highs, _ = footprints(inst)
    low = np.array([lows[j][ded.chosen[j]] for j in range(inst.n)])
    high = np.array([highs[j][ded.chosen[j]] for j in range(inst.n)])
    colour = np.zeros(inst.n, dtype=np.int64)
    busy: list[tuple[int, int]] = []  # (right end of the colour's last footprint, colour)
    free: list[int] = []
    n_colours = 0
    for j in np.lexsort((np.arange(inst.n), low)).tolist():
        while busy and busy[0][0] < low[j]:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            c = heapq.heappop(free)
        else:
            c, n_colours = n_colours, n_colours + 1
        colour[j] = c
        heapq.heappush(busy, (int(high[j]), c))
    windows = [inst.windows(j)[ded.chosen[j]] for j in range(inst.n)]
    info = {"lp": ded.lp.value, "rounded": ded.rounded, "colours": n_colours}
    return io_schedule(inst, colour * inst.p[0], windows, "unit-pinned", info)


def per_io_node(inst: IOInstance) -> Schedule:
    """Each job right of its one pinned I/O node; the jobs of one I/O node one after another (index order).

    Raises
    ------
    InputError
        A job not pinned to exactly one I/O node, or with fewer than ``q``
        compute nodes between its I/O node and the next I/O node (or the end).
    """
    require_pinned(inst, "per-io-node")
    start = np.zeros(inst.n)
    windows = []
    clock: dict[int, float] = {}
    for j in range(inst.n):
        w = right_window(inst, j)
        if w is None:
            raise InputError(
                inst.source,
                field=f"jobs[{j}].io",
                value=list(inst.io[j]),
                expected=f"one I/O node followed by q = {int(inst.q[j])} compute nodes (per-io-node)",
            )
        windows.append(w)
        s = w.io[0]
        start[j] = clock.get(s, 0.0)
        clock[s] = start[j] + float(inst.p[j])
    return io_schedule(inst, start, windows, "per-io-node")


def right_window(inst: IOInstance, j: int) -> Window | None:
    """The ``q`` compute nodes right after job ``j``'s one pinned I/O node, if they exist before the next I/O
    node (or the end of the line); else None."""
    plat, request, q = inst.platform, inst.io[j], int(inst.q[j])
    if isinstance(request, int) or len(request) != 1:
        return None
    s = request[0]
    right = [(s + d) % plat.m for d in range(1, q + 1)] if plat.ring else list(range(s + 1, s + q + 1))
    if any(v >= plat.m or plat.is_io[v] for v in right):
        return None
    r = int(plat.rank[right[0]]) + (plat.m_c if right[0] < s else 0)  # one turn on when it wraps past m - 1
    return window(plat, r, q, (s,), origin=s)


def first_window(inst: IOInstance, j: int) -> Window:
    """Job ``j``'s allocation of lowest start rank (and, unpinned, its lowest local I/O nodes)."""
    request = inst.io[j]
    if not isinstance(request, int):
        return inst.windows(j)[0]
    w = first_unpinned_window(inst.platform, int(inst.q[j]), request)
    if w is not None:
        return w
    raise InputError(inst.source, field=f"jobs[{j}].io", value=request, expected="a count some allocation can meet")


def sequential(inst: IOInstance) -> Schedule:
    """Every job on its first allocation, one after another in index order (``Cmax = sum p_j``)."""
    start = np.concatenate([[0.0], np.cumsum(inst.p)[:-1]]) if inst.n else np.zeros(0)
    return io_schedule(inst, start, [first_window(inst, j) for j in range(inst.n)], "sequential")
