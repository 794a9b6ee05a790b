"""Iterative and Improved Iterative allocation for moldable tasks (the competitors of DBOS).

Source: Sabin, Lang and Sadayappan, "Moldable parallel job scheduling using
job efficiency: an iterative approach", JSSPP 2006, as re-implemented by
Saule, Bozdag and Catalyurek (2014), section 5.4, with their improvement.

At each decision, from scratch over the pending tasks: every task gets one
processor and the tasks are placed by conservative backfilling in FCFS order
(release, id); the score is their mean flow time. Then, repeatedly, the task
whose run time drops most with more processors gets them; the new allocation
is kept only if the score strictly improves, otherwise it is undone and that
task is never tried again. The original adds one processor, and stops when
the best drop is <= 0; the improved variant adds the k >= 1 processors
maximising ``(p_{i,x} - p_{i,x+k}) / k`` (smallest k on ties), skipping flat
steps of the speed-up.
"""

from __future__ import annotations

import numpy as np

from schedlab.policies.stretch.dbos import MoldablePlan
from schedlab.policies.stretch.jit import njit
from schedlab.policies.stretch.profile import build_profile, copy_profile, earliest_fit, reserve

__all__ = ["backfill", "iterative_plan"]


@njit
def backfill(T0, F0, size0, rows, release, times, procs):
    """Conservative backfilling of ``rows`` in order on ``procs`` processors each: (start, mean flow time)."""
    n = rows.shape[0]
    T, F = copy_profile(T0, F0, size0, n)
    size = size0
    start = np.empty(n)
    flow = 0.0
    for k in range(n):
        i = rows[k]
        d = times[i, procs[k] - 1]
        x, run_end = earliest_fit(T, F, size, procs[k], d)
        start[k] = x
        flow += x + d - release[i]
        size = reserve(T, F, size, x, min(x + d, run_end), procs[k])
    return start, flow / n


@njit
def _gain(row, x, improved):
    """Best drop of run time from ``x`` processors, and the step k it takes (0 when x = m)."""
    m = row.shape[0]
    if x >= m:
        return 0.0, 0
    if not improved:
        return row[x - 1] - row[x], 1
    best, step = -np.inf, 0
    for k in range(1, m - x + 1):
        rate = (row[x - 1] - row[x + k - 1]) / k
        if rate > best:
            best, step = rate, k
    return best, step


@njit
def _iterate(T, F, size, rows, release, times, improved):
    n = rows.shape[0]
    procs = np.ones(n, dtype=np.int64)
    gain = np.empty(n)
    step = np.empty(n, dtype=np.int64)
    active = np.ones(n, dtype=np.bool_)
    for k in range(n):
        gain[k], step[k] = _gain(times[rows[k]], 1, improved)
        active[k] = step[k] > 0
    start, score = backfill(T, F, size, rows, release, times, procs)
    while True:
        pick = -1
        for k in range(n):
            if active[k] and (pick < 0 or gain[k] > gain[pick]):
                pick = k
        if pick < 0 or gain[pick] <= 0:
            break
        procs[pick] += step[pick]
        trial, trial_score = backfill(T, F, size, rows, release, times, procs)
        if trial_score < score - 1e-12 * abs(score):
            start, score = trial, trial_score
            gain[pick], step[pick] = _gain(times[rows[pick]], procs[pick], improved)
            active[pick] = step[pick] > 0
        else:
            procs[pick] -= step[pick]
            active[pick] = False
    return start, procs


def iterative_plan(
    now: float,
    m: int,
    run_end: np.ndarray,
    run_procs: np.ndarray,
    rows: np.ndarray,
    release: np.ndarray,
    times: np.ndarray,
    *,
    improved: bool = False,
) -> MoldablePlan:
    """The Iterative (or Improved Iterative) plan of the pending ``rows``, in (release, id) order.

    Source: Sabin et al. (2006); Saule, Bozdag and Catalyurek (2014), section 5.4.
    Guarantee: none proven; the final plan's mean flow time is at most that of
    one processor per task (tested), and a flat speed-up step stops the
    original but not the improved variant (tested).
    Cost: one conservative backfilling, O(n K), per tried allocation; at most
    n + (number of kept increments) tries.

    Notes
    -----
    Choices where the papers are silent: the loop runs at every decision from
    one processor per task, over the pending tasks only, whose mean flow time
    must improve strictly; drop ties go to the earlier task (release, id).
    """
    T, F, size = build_profile(now, m, run_end, run_procs, run_end.shape[0] + 1)
    start, procs = _iterate(T, F, size, rows, release, times, improved)
    return MoldablePlan(start, procs, float("nan"))
