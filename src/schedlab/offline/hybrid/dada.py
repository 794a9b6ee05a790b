"""DADA(α): Distributed Affinity Dual Approximation, a local affinity phase then DA-2.

Source: Bleuse (2017), ch. 2 section 2.4.3, Algorithm 2 (Euro-Par 2014);
readings BH-1 to BH-3 (docs/readings.md).
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.offline.hybrid.bisection import CUTOFF, dual_search
from schedlab.offline.hybrid.bounds import one_cpu_upper_bound
from schedlab.offline.hybrid.dual2 import da2_place
from schedlab.offline.hybrid.schedule import hybrid_schedule
from schedlab.parameters import Param, declare
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = ["dada", "dada_step"]


def _check_affinity(instance: HybridInstance, affinity) -> np.ndarray | None:
    if affinity is None:
        return None
    aff = np.asarray(affinity, dtype=float)
    if aff.shape != (instance.n, 1 + instance.k) or not np.isfinite(aff).all() or (aff < 0).any():
        raise ArgumentError(
            f"affinity shape {aff.shape}, expected (n, 1 + k) = ({instance.n}, {1 + instance.k}) finite scores >= 0"
        )
    return aff


def dada_step(
    instance: HybridInstance, lam: float, *, alpha: float = 0.0, affinity=None, strict: bool = False
) -> tuple[Schedule | None, dict]:
    """One DADA(α) step: affinity placement up to about ``α lam`` per processor, then DA-2; accept iff <= (2+α) lam.

    Source: Bleuse (2017), ch. 2 Algorithm 2; readings BH-1 and BH-2.
    Guarantee: an accepted schedule has makespan <= (2 + α) lam. With α = 0
    (or no affinity) it is exactly DA-2's step. Acceptance at lam >= OPT is
    not guaranteed when α > 0 (reading BH-3).
    Cost: O(n log n).

    Parameters
    ----------
    alpha : float in [0, 1]
    affinity : array (n, 1 + k), optional
        Column 0: the host memory (all CPUs), column 1 + g: GPU g. Bytes the
        task writes whose valid copy lives there (reading BH-2).
    strict : bool, default False
        Local phase admits a task only if ``load + time <= α lam`` (no overreach).

    Notes
    -----
    Local phase: tasks with a positive score, by decreasing best score (ties
    by row), to the argmax resource (ties: lowest column; host: least loaded
    CPU, lowest index) if its load is < α lam and the task's time there is <= lam.
    """
    aff = _check_affinity(instance, affinity)
    n, m, k = instance.n, instance.m, instance.k
    cpu_t, gpu_t = instance.seq_time, instance.usable_gpu_time
    cloads, gloads = [0.0] * m, [0.0] * k
    local: dict[int, tuple[bool, int, float]] = {}
    if aff is not None and alpha > 0:
        best = aff.max(axis=1)
        cand = np.nonzero(best > 0)[0]
        for j in cand[np.lexsort((cand, -best[cand]))]:
            col = int(np.argmax(aff[j]))
            if col == 0:
                if m == 0:
                    continue
                i = int(np.argmin(cloads))
                loads, time, to_gpu = cloads, float(cpu_t[j]), False
            else:
                i = col - 1
                loads, time, to_gpu = gloads, float(gpu_t[j]), True
            room = loads[i] + time <= alpha * lam if strict else loads[i] < alpha * lam
            if room and time <= lam:
                local[int(j)] = (to_gpu, i, loads[i])
                loads[i] += time
    todo = np.array([j for j in range(n) if j not in local], dtype=np.int64)
    placed = da2_place(instance, lam, todo, cloads, gloads)
    if placed is None:
        return None, {"reason": "a task fits nowhere within lambda", "local": len(local)}
    placed.update(local)
    start, end = np.zeros(n), np.zeros(n)
    on_gpu = np.zeros(n, dtype=bool)
    resources: list[tuple[int, ...]] = [()] * n
    for j, (gpu, machine, s) in placed.items():
        start[j], on_gpu[j], resources[j] = s, gpu, (machine,)
        end[j] = s + float(gpu_t[j] if gpu else cpu_t[j])
    schedule = hybrid_schedule(instance, start, end, on_gpu, resources, "dada")
    if schedule.makespan > (2 + alpha) * lam:
        return None, {"reason": f"makespan {schedule.makespan} > (2 + alpha) lambda", "local": len(local)}
    return schedule, {"local": len(local)}


@declare(
    alpha=Param("slack of the affinity phase: makespan within (2 + alpha) of the guess", low=0, high=1),
    strict=Param("the affinity phase admits a task only if load + time <= alpha lambda (no overreach)"),
    cutoff=CUTOFF,
)
def dada(
    instance: HybridInstance, *, alpha: float = 0.5, affinity=None, strict: bool = False, cutoff: float = 1.001
) -> Schedule:
    """DADA(α): bisection over DADA steps; DADA(0) is DA-2.

    Source: Bleuse (2017), ch. 2 section 2.4.3, Algorithm 2.
    Guarantee: makespan <= (2 + α) upper, where upper is the smallest
    accepted guess; no ratio to OPT is proven for α > 0 (reading BH-3, docs/readings.md).
    Cost: O(n log n) per step.

    Notes
    -----
    Evaluated at the sequential upper bound first (reading BH-3);
    ratio stop rule ``upper <= cutoff * lower`` instead of Algorithm 2's
    absolute ε (use :func:`~schedlab.offline.hybrid.bisection.dual_search`
    with ``eps`` for that).
    """
    if not (0.0 <= alpha <= 1.0) or math.isnan(alpha):
        raise ArgumentError(f"alpha = {alpha}, expected in [0, 1]")
    _check_affinity(instance, affinity)

    def step(inst: HybridInstance, lam: float):
        return dada_step(inst, lam, alpha=alpha, affinity=affinity, strict=strict)

    return dual_search(instance, step, cutoff=cutoff, upper=one_cpu_upper_bound(instance), name=f"dada({alpha:g})")
