"""MoldableEDF and DBOS: deadline-based online scheduling of moldable tasks for the maximum stretch.

Source: Saule, Bozdag and Catalyurek (2014), section 6, Algorithm 2.

MoldableEDF(S) gives every pending task the deadline ``D_i = r_i + S p_{i,1}``
and, by non-decreasing deadline (ties: release, id), the smallest processor
count that meets it, started as early as possible, without moving the tasks
placed before it (later tasks may fill earlier holes). DBOS finds the
smallest S for which MoldableEDF meets every deadline by binary search, then
relaxes the plan's maximum stretch by the online factor rho when that stays feasible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.policies.stretch.jit import njit
from schedlab.policies.stretch.profile import build_profile, copy_profile, reserve, smallest_fit
from schedlab.policies.stretch.search import smallest_valid

__all__ = ["MoldablePlan", "dbos_plan", "moldable_edf"]


@dataclass(frozen=True)
class MoldablePlan:
    """Planned start and processor count of each pending task (in the order given), and the target stretch."""

    start: np.ndarray
    procs: np.ndarray
    stretch: float


@njit
def _moldable_edf(T0, F0, size0, rows, release, p1, times, stretch):
    n = rows.shape[0]
    T, F = copy_profile(T0, F0, size0, n)
    size = size0
    deadline = np.empty(n)
    for k in range(n):
        deadline[k] = release[rows[k]] + stretch * p1[rows[k]]
    start = np.full(n, np.nan)
    procs = np.zeros(n, dtype=np.int64)
    for k in np.argsort(deadline, kind="mergesort"):
        i = rows[k]
        j, x, run_end = smallest_fit(T, F, size, times[i], deadline[k])
        if j == 0:
            return False, start, procs
        start[k] = x
        procs[k] = j
        size = reserve(T, F, size, x, min(x + times[i, j - 1], run_end), j)
    return True, start, procs


def moldable_edf(
    now: float,
    m: int,
    run_end: np.ndarray,
    run_procs: np.ndarray,
    rows: np.ndarray,
    release: np.ndarray,
    times: np.ndarray,
    stretch: float,
) -> tuple[bool, np.ndarray, np.ndarray]:
    """MoldableEDF(S): ``(feasible, start, procs)`` for the pending ``rows`` (in (release, id) order).

    Source: Saule, Bozdag and Catalyurek (2014), Algorithm 2, lines 9-19 (its
    "exit inner for loop" belongs inside the ``if``).
    Guarantee: a feasible plan meets every deadline and each task's count is
    the smallest that met its deadline when it was placed (tested against a scan of every count).
    Cost: O(n (K + W log W + log m)) for K profile segments; stops at the first missed deadline.

    Parameters
    ----------
    now, m : decision time and machine size.
    run_end, run_procs : arrays
        End time and processor count of each running task.
    rows : int array
        Pending tasks (rows of ``release`` and ``times``).
    release : float array (N,)
    times : float array (N, m)
        ``times[i, j - 1] = p_{i,j}``, rows non-increasing.
    stretch : float
        S.
    """
    T, F, size = build_profile(now, m, run_end, run_procs, run_end.shape[0] + 1)
    return _moldable_edf(T, F, size, rows, release, times[:, 0], times, stretch)


def dbos_plan(
    now: float,
    m: int,
    run_end: np.ndarray,
    run_procs: np.ndarray,
    rows: np.ndarray,
    release: np.ndarray,
    times: np.ndarray,
    *,
    rho: float = 1.5,
    eps: float = 1e-3,
) -> MoldablePlan:
    """DBOS(rho): the plan of MoldableEDF at the smallest feasible S, relaxed to rho times its maximum stretch.

    Source: Saule, Bozdag and Catalyurek (2014), Algorithm 2, lines 1-7.
    Guarantee: the plan meets every deadline ``r_i + S' p_{i,1}`` of its
    target S' (tested); no ratio is proven.
    Cost: O(log log(UB / LB) + log(1 / eps)) MoldableEDF calls, plus one for rho.

    Notes
    -----
    Choices where the paper is silent: the S that rho relaxes is the plan's
    realised maximum stretch ``max_i (sigma_i + p_{i,pi_i} - r_i) / p_{i,1}``
    (the wording "maximum stretch of (pi*, sigma*)"); the search runs between
    LB = max_i (now - r_i + p_{i,m}) / p_{i,1} (every task starting now on m
    processors) and UB = max_i (now + R + sum_k p_{k,1} - r_i) / p_{i,1}, with
    R the time until the last running task ends, where one processor each,
    one after the other, always fits; rho = 1 skips the relaxation.
    """
    T, F, size = build_profile(now, m, run_end, run_procs, run_end.shape[0] + 1)
    p1 = times[:, 0]
    r, q1 = release[rows], p1[rows]
    lower = float(np.max((now - r + times[rows, m - 1]) / q1))
    horizon = float(run_end.max()) - now if run_end.shape[0] else 0.0
    upper = float(np.max((now + max(horizon, 0.0) + q1.sum() - r) / q1))

    def plan(s: float):
        return _moldable_edf(T, F, size, rows, release, p1, times, s)

    s = smallest_valid(lower, upper, lambda s: plan(s)[0], eps=eps)
    feasible, start, procs = plan(s)
    while not feasible:  # only through rounding at UB
        s *= 2.0
        feasible, start, procs = plan(s)
    if rho != 1.0:
        realised = float(np.max((start + times[rows, procs - 1] - r) / q1))
        relaxed, start_rho, procs_rho = plan(rho * realised)
        if relaxed:
            return MoldablePlan(start_rho, procs_rho, rho * realised)
    return MoldablePlan(start, procs, s)
