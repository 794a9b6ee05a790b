"""Unpinned I/O: the meta-algorithm, small jobs by P||Cmax over the I/O nodes, big ones by strip packing.

Source: Bleuse (2017), PhD thesis, section 5.2.2: Lemma 5.2 (jobs with
``q < delta`` on the ``m_IO`` I/O nodes as ``P||Cmax``), Lemma 5.3 (jobs with
``q >= delta`` by strip packing, automatically local), Theorem 5.4 (the two
shelves one after the other: a ``rho + rho'``-approximation); Graham (1969)
for LPT.

The I/O nodes must be spread uniformly, ``delta = m / m_IO`` apart, with I/O
node ``k`` at ``k delta`` (ambiguity A7): a small job runs on I/O node ``k``'s
machine and takes the ``q`` nodes right of it, so small jobs of different I/O
nodes never meet. Big jobs are rectangles of width ``q`` in a strip of width
``m_c`` (compute ranks, ambiguity A1); each targets the lowest I/O node inside
its hull (there is one since ``q >= delta``; ambiguity A8).

Guarantee (line, exclusive I/O): ``Cmax <= (rho + rho') OPT`` with
``rho = 4/3 - 1/(3 m_IO)`` for LPT (1 for the exact solver) and ``rho'`` the
strip packer's ratio (3 for NFDH, 2.7 for FFDH). With shared I/O an optimum may
run two small jobs on one I/O node at once, so only ``2 rho + rho'`` is proven
(ambiguity A7); on a ring the windows do not wrap, which costs another
``rho'`` (``rho + 2 rho'``, A9). :func:`unpinned_ratio` returns the bound that applies.
Cost: O(n log n) plus the strip packer.
"""

from __future__ import annotations

import heapq

import numpy as np

from schedlab.errors import InputError
from schedlab.offline.io.schedule import io_schedule
from schedlab.offline.io.strip import STRIP_PACKERS, STRIP_RATIOS, shelf_pack
from schedlab.parameters import Param, declare
from schedlab.platform.io_windows import EMPTY_WINDOW, Window, window
from schedlab.schedule import Schedule
from schedlab.workload.io_jobs import IOInstance

__all__ = ["PCMAX_SOLVERS", "exact_pcmax", "lpt", "unpinned_meta", "unpinned_ratio"]

PCMAX_SOLVERS = ("lpt", "exact")


def lpt(times, machines: int) -> tuple[np.ndarray, np.ndarray]:
    """Graham's LPT: longest first (ties by index), each on the least loaded machine (ties: lowest index).

    Returns ``(machine, start)`` per job. Guarantee: ``<= (4/3 - 1/(3 machines)) OPT``.
    """
    t = np.asarray(times, dtype=float)
    machine, start = np.zeros(t.size, dtype=np.int64), np.zeros(t.size)
    heap = [(0.0, k) for k in range(machines)]
    for j in np.lexsort((np.arange(t.size), -t)).tolist():
        load, k = heapq.heappop(heap)
        machine[j], start[j] = k, load
        heapq.heappush(heap, (load + float(t[j]), k))
    return machine, start


def exact_pcmax(times, machines: int) -> tuple[np.ndarray, np.ndarray]:
    """An optimal ``P||Cmax`` assignment by depth-first branch and bound (tiny instances only).

    Jobs longest first; a job never goes to a second machine of equal load
    (identical machines); LPT's makespan is the first upper bound.
    Returns ``(machine, start)`` per job, jobs in index order on each machine.
    """
    t = np.asarray(times, dtype=float)
    n = t.size
    order = np.lexsort((np.arange(n), -t)).tolist()
    m0, s0 = lpt(t, machines)
    best_value = [float((s0 + t).max(initial=0.0))]
    best_assign = [m0.copy()]
    lower = max(float(t.max(initial=0.0)), float(t.sum()) / machines)
    loads = [0.0] * machines
    assign = np.zeros(n, dtype=np.int64)

    def dfs(i: int, cur: float) -> None:
        if cur >= best_value[0] - 1e-12 or best_value[0] <= lower + 1e-12:
            return
        if i == n:
            best_value[0], best_assign[0] = cur, assign.copy()
            return
        j = order[i]
        tried = set()
        for k in range(machines):
            if loads[k] in tried:
                continue
            tried.add(loads[k])
            loads[k] += t[j]
            assign[j] = k
            dfs(i + 1, max(cur, loads[k]))
            loads[k] -= t[j]

    dfs(0, 0.0)
    machine = best_assign[0]
    start = np.zeros(n)
    acc = [0.0] * machines
    for j in range(n):
        start[j] = acc[machine[j]]
        acc[machine[j]] += t[j]
    return machine, start


def unpinned_ratio(platform, *, pcmax: str = "lpt", strip: str = "nfdh") -> float:
    """The proven ratio of :func:`unpinned_meta` on ``platform`` (see the module docstring)."""
    rho = 1.0 if pcmax == "exact" else 4 / 3 - 1 / (3 * platform.m_io)
    rho_strip = STRIP_RATIOS[strip]
    if not platform.exclusive:
        rho *= 2
    if platform.ring:
        rho_strip *= 2
    return rho + rho_strip


@declare(
    pcmax=Param("P||Cmax solver for the small jobs (exact: exponential, tiny instances)", choices=PCMAX_SOLVERS),
    strip=Param("strip packer for the big jobs", choices=STRIP_PACKERS),
)
def unpinned_meta(inst: IOInstance, *, pcmax: str = "lpt", strip: str = "nfdh") -> Schedule:
    """Schedule unpinned one-I/O jobs in two shelves: small jobs (``q < delta``), then big ones.

    Parameters
    ----------
    pcmax : {"lpt", "exact"}
        ``P||Cmax`` solver for the small jobs (``exact`` is exponential: tiny instances).
    strip : {"nfdh", "ffdh"}
        Strip packer for the big jobs.

    Returns
    -------
    Schedule
        ``info``: ``c1`` and ``c2`` (the two shelves' heights), ``n_small``,
        ``n_big`` and ``ratio`` (:func:`unpinned_ratio`).

    Raises
    ------
    InputError
        I/O nodes not uniformly spread (``m / m_IO`` apart from node 0, at
        least 2 apart), or a job that is pinned or wants other than one I/O node.
    """
    plat = inst.platform
    if pcmax not in PCMAX_SOLVERS:
        raise InputError("unpinned", field="pcmax", value=pcmax, expected=" or ".join(PCMAX_SOLVERS))
    if strip not in STRIP_PACKERS:
        raise InputError("unpinned", field="strip", value=strip, expected=" or ".join(STRIP_PACKERS))
    if plat.delta is None or plat.delta < 2:
        raise InputError(
            inst.source,
            field="platform",
            value=plat.name,
            expected="I/O nodes uniformly spread, m / m_IO >= 2 apart from node 0 (e.g. line:m=32,io=4)",
        )
    bad = [j for j in range(inst.n) if inst.io[j] != 1]
    if bad:
        j = bad[0]
        raise InputError(
            inst.source,
            field=f"jobs[{j}].io",
            value=inst.io[j],
            expected="1 (unpinned schedules jobs that each want any one I/O node)",
        )
    delta = plat.delta
    small = np.flatnonzero(inst.q < delta)
    big = np.flatnonzero(inst.q >= delta)
    start = np.zeros(inst.n)
    windows: list[Window] = [EMPTY_WINDOW] * inst.n
    solver = lpt if pcmax == "lpt" else exact_pcmax
    c1 = 0.0
    if small.size:
        machine, s = solver(inst.p[small], plat.m_io)
        for j, k, t in zip(small.tolist(), machine.tolist(), s.tolist()):
            io = int(plat.io_nodes[k])
            windows[j] = window(plat, int(plat.rank[io + 1]), int(inst.q[j]), (io,))
            start[j] = t
        c1 = float((start[small] + inst.p[small]).max())
    c2 = 0.0
    if big.size:
        x, y, c2 = shelf_pack(inst.q[big], inst.p[big], plat.m_c, method=strip)
        for j, a, t in zip(big.tolist(), x.tolist(), y.tolist()):
            first = int(plat.compute[a])
            io = int(plat.io_nodes[np.searchsorted(plat.io_nodes, first)])  # lowest I/O node inside the hull
            windows[j] = window(plat, a, int(inst.q[j]), (io,))
            start[j] = c1 + t  # io lies inside the hull: q >= delta compute ranks cross an I/O node
    info = {
        "c1": c1,
        "c2": float(c2),
        "n_small": int(small.size),
        "n_big": int(big.size),
        "ratio": unpinned_ratio(plat, pcmax=pcmax, strip=strip),
    }
    return io_schedule(inst, start, windows, f"unpinned[{pcmax},{strip}]", info)
