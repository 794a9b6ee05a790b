"""A SCOJO-P-LIKE APPROXIMATION: efficiency-based allocations scaled to keep about 95 % of the machine busy.

Source: Barsanti and Sodan, "Adaptive job scheduling via predictive job
resource allocation", JSSPP 2006, as described by Saule, Bozdag and
Catalyurek (2014), section 5.5. The authors ran Sodan's own Java code; the
description is not enough to re-implement it (its workload prediction model is
missing), so this module is an approximation of the described behaviour, not SCOJO-P:

1. each task's "optimal" count minimises run time over efficiency,
   ``argmin_j j p_{i,j}^2`` (smallest j on ties);
2. it is scaled by ``u m / (busy + demand + j_opt)``, clipped to [1, m]: busy
   processors now, plus the predicted demand of arrivals (the sequential work
   of the last ``window`` releases over their span), so that about a fraction
   u (0.95) of the processors stays busy;
3. tasks are placed by conservative backfilling in FCFS order; a task that
   cannot start now tries fewer processors and keeps the earliest completion.
"""

from __future__ import annotations

import numpy as np

from schedlab.policies.stretch.dbos import MoldablePlan
from schedlab.policies.stretch.jit import njit
from schedlab.policies.stretch.profile import build_profile, copy_profile, earliest_fit, reserve

__all__ = ["efficient_procs", "scojo_like_plan", "scaled_procs"]


def efficient_procs(times: np.ndarray) -> np.ndarray:
    """Per task, the count minimising ``j p_j^2`` (run time over efficiency ``p_1 / (j p_j)``), smallest on ties."""
    j = np.arange(1, times.shape[1] + 1)
    return np.argmin(j * times * times, axis=1) + 1


def scaled_procs(optimal: np.ndarray, m: int, busy: int, demand: float, utilisation: float = 0.95) -> np.ndarray:
    """Step 2: ``optimal * u m / (busy + demand + optimal)``, rounded and clipped to [1, m]."""
    factor = utilisation * m / (busy + demand + optimal)
    return np.clip(np.rint(optimal * factor), 1, m).astype(np.int64)


@njit
def _plan(T0, F0, size0, now, rows, times, target):
    n = rows.shape[0]
    T, F = copy_profile(T0, F0, size0, n)
    size = size0
    start = np.empty(n)
    procs = np.empty(n, dtype=np.int64)
    for k in range(n):
        i = rows[k]
        best_j = target[k]
        best_x, best_run = earliest_fit(T, F, size, best_j, times[i, best_j - 1])
        if best_x > now:
            for j in range(target[k] - 1, 0, -1):
                x, run_end = earliest_fit(T, F, size, j, times[i, j - 1])
                if x + times[i, j - 1] < best_x + times[i, best_j - 1]:
                    best_j, best_x, best_run = j, x, run_end
        start[k] = best_x
        procs[k] = best_j
        size = reserve(T, F, size, best_x, min(best_x + times[i, best_j - 1], best_run), best_j)
    return start, procs


def scojo_like_plan(
    now: float,
    m: int,
    run_end: np.ndarray,
    run_procs: np.ndarray,
    rows: np.ndarray,
    times: np.ndarray,
    target: np.ndarray,
) -> MoldablePlan:
    """Step 3 for the pending ``rows`` (FCFS order) with their scaled counts ``target``.

    Guarantee: none (an approximation of SCOJO-P); every count is in [1, target] (tested).
    Cost: O(n j K) for counts up to j and K profile segments.
    """
    T, F, size = build_profile(now, m, run_end, run_procs, run_end.shape[0] + 1)
    start, procs = _plan(T, F, size, now, rows, times, target)
    return MoldablePlan(start, procs, float("nan"))
