"""Exact optimal makespan of tiny I/O-aware instances: the test oracle.

Source: the exact solver of the evaluation plan for Bleuse (2017), PhD thesis,
chapters 5-6 (no exact method is given there).

Every job picks one of its convex and local allocations and the jobs are
placed one after another, each as early as the nodes it occupies allow *after*
the jobs placed before it (no insertion into earlier holes). Over all
allocations and all orders this reaches an optimum: in the start order of an
optimal schedule, by induction each job starts no later than there (the jobs
it conflicts with that start before it also end before it).
Occupied nodes are the compute nodes (shared I/O) or the whole allocation
hull (exclusive I/O, I/O nodes included).

Guarantee: exact. Cost: exponential; states ``(jobs left, node availability)``
are explored once, orders of identical jobs are fixed, and a branch stops when
the best completion of its longest remaining job, or the instance's lower
bound, cannot beat the incumbent. Practical for about 7 jobs on 12 nodes.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.offline.io.bounds import io_bounds
from schedlab.offline.io.schedule import io_schedule
from schedlab.platform.io_windows import Window, unpinned_windows
from schedlab.schedule import Schedule
from schedlab.workload.io_jobs import IOInstance

__all__ = ["brute_force_opt", "candidates"]


def candidates(inst: IOInstance, j: int) -> list[Window]:
    """Every convex and local allocation of job ``j`` (pinned windows, or windows with a choice of I/O nodes)."""
    request = inst.io[j]
    if isinstance(request, int):
        return unpinned_windows(inst.platform, int(inst.q[j]), request)
    return inst.windows(j)


def _mask(inst: IOInstance, w: Window) -> tuple[int, ...]:
    plat = inst.platform
    nodes = [v for lo, hi in w.alloc(plat) for v in range(lo, hi)]
    if not plat.exclusive:
        nodes = [v for v in nodes if not plat.is_io[v]]
    return tuple(nodes)


def brute_force_opt(inst: IOInstance, *, cap: float | None = None) -> tuple[float, Schedule | None]:
    """Optimal makespan and one optimal schedule.

    Parameters
    ----------
    cap : float, optional
        Only look for a schedule of makespan at most ``cap`` (a decision
        version, much faster on NO instances); returns ``(inf, None)`` if none.
    """
    n = inst.n
    if n == 0:
        return 0.0, io_schedule(inst, [], [], "brute-force")
    cands = [candidates(inst, j) for j in range(n)]
    masks = [[_mask(inst, w) for w in c] for c in cands]
    p = [float(v) for v in inst.p]
    lower = io_bounds(inst, lp=False).lower
    key = [(p[j], int(inst.q[j]), inst.io[j]) for j in range(n)]
    twin = [max((i for i in range(j) if key[i] == key[j]), default=-1) for j in range(n)]
    best = [math.inf if cap is None else cap * (1 + 1e-12) + 1e-12]  # the incumbent makespan
    best_choice: list[list[tuple[int, float]]] = []  # its (window index, start) per job, once found
    seen: set = set()
    avail = [0.0] * inst.platform.m
    chosen: list[tuple[int, float]] = [(0, 0.0)] * n

    def earliest(j: int, k: int) -> float:
        return max((avail[v] for v in masks[j][k]), default=0.0)

    def dfs(left: frozenset, cur: float) -> None:
        if not left:
            if cur < best[0]:
                best[0] = cur
                best_choice[:] = [list(chosen)]
            return
        state = (left, tuple(avail))
        if state in seen:
            return
        seen.add(state)
        est = {j: min(earliest(j, k) for k in range(len(cands[j]))) for j in left}
        if max(cur, lower, max(est[j] + p[j] for j in left)) >= best[0] - 1e-12:
            return
        for j in sorted(left):
            if twin[j] in left:
                continue  # identical jobs go in index order
            for k in range(len(cands[j])):
                s = earliest(j, k)
                end = s + p[j]
                if max(cur, end) >= best[0] - 1e-12:
                    continue
                saved = [(v, avail[v]) for v in masks[j][k]]
                for v in masks[j][k]:
                    avail[v] = end
                chosen[j] = (k, s)
                dfs(left - {j}, max(cur, end))
                for v, t in saved:
                    avail[v] = t
                if best[0] <= max(lower, cur) + 1e-12:
                    return

    dfs(frozenset(range(n)), 0.0)
    if not best_choice:
        return math.inf, None
    starts = np.array([s for _, s in best_choice[0]])
    windows = [cands[j][k] for j, (k, _) in enumerate(best_choice[0])]
    return float(best[0]), io_schedule(inst, starts, windows, "brute-force")
