"""APPROX-2: the polynomial dual 2-approximation for ``(Pm,Pk)|mold|Cmax``.

Source: Bleuse (2017), ch. 3 section 3.5.
"""

from __future__ import annotations

import numpy as np

from schedlab.offline.hybrid.bisection import CUTOFF, dual_search
from schedlab.offline.hybrid.lists import FILL, check_fill, garey_graham, gpu_open, least_loaded
from schedlab.offline.hybrid.schedule import hybrid_schedule
from schedlab.parameters import declare
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = ["approx2", "approx2_step"]


def approx2_step(instance: HybridInstance, lam: float, *, fill: str = "le") -> tuple[Schedule | None, dict]:
    """One APPROX-2 step: canonical allotments ``γ(j, lam)``, GPUs filled by work ratio, CPUs list-scheduled.

    Source: Bleuse (2017), ch. 3 section 3.5, Lemmas 3.8-3.9.
    Guarantee: if a lam-schedule exists, returns a schedule of makespan
    <= 2 lam; a rejection proves OPT > lam.
    Cost: O(n m) for the allotments (vectorised), O(n log n) for the sort and
    the Garey-Graham greedy.

    Notes
    -----
    Readings BH-6 and BH-12 (docs/readings.md): tasks go to the least loaded GPU while its
    load is <= lam (``fill="lt"``: < lam); forced-GPU tasks first (row order). CPU list: forced-CPU
    tasks first, then decreasing CPU time (LPT), ties by row; the greedy may
    give non-contiguous CPU sets. Final check: reject if makespan > 2 lam.
    """
    check_fill(fill)
    n, m, k = instance.n, instance.m, instance.k
    g = instance.gamma(lam)
    cpu_t = instance.cpu_time(g)  # inf where g = 0
    gpu_t = instance.usable_gpu_time
    if n and ((g == 0) & (gpu_t > lam)).any():
        return None, {"reason": "a task fits nowhere within lambda"}
    forced_gpu = np.nonzero(g == 0)[0]
    forced_cpu = np.nonzero((g > 0) & (gpu_t > lam))[0]
    free = np.nonzero((g > 0) & (gpu_t <= lam))[0]
    ratio = g[free] * cpu_t[free] / gpu_t[free]
    free = free[np.argsort(-ratio, kind="stable")]
    gloads = [0.0] * k
    gpu_machine, gpu_start = least_loaded(gpu_t, forced_gpu, gloads)
    cpu_rest = []
    for j in free.tolist():
        if gpu_open(gloads, lam, fill):
            machine, at = least_loaded(gpu_t, [j], gloads)
            gpu_machine[j], gpu_start[j] = machine[j], at[j]
        else:
            cpu_rest.append(j)
    rest = np.array(cpu_rest, dtype=np.int64)
    order = list(forced_cpu) + list(rest[np.lexsort((rest, -cpu_t[rest]))])
    cpu_start, cpu_sets = garey_graham(cpu_t, g, order, m)
    start, end = np.zeros(n), np.zeros(n)
    on_gpu = np.zeros(n, dtype=bool)
    resources: list[tuple[int, ...]] = [()] * n
    for j, s in gpu_start.items():
        start[j], end[j], on_gpu[j], resources[j] = s, s + gpu_t[j], True, (gpu_machine[j],)
    for j, s in cpu_start.items():
        start[j], end[j], resources[j] = s, s + cpu_t[j], cpu_sets[j]
    schedule = hybrid_schedule(instance, start, end, on_gpu, resources, "approx2")
    if schedule.makespan > 2 * lam:
        return None, {"reason": f"makespan {schedule.makespan} > 2 lambda"}
    return schedule, {}


@declare(
    cutoff=CUTOFF,
    fill=FILL,
)
def approx2(instance: HybridInstance, *, cutoff: float = 1.01, fill: str = "le") -> Schedule:
    """APPROX-2: dual 2-approximation for moldable-on-CPU tasks, by bisection on λ.

    Source: Bleuse (2017), ch. 3 section 3.5; reading BH-7.
    Guarantee: makespan <= 2 cutoff OPT (OPT over non-contiguous CPU sets).
    Cost: O(n (m + log n)) per step; 10-17 steps with cutoff 1.01.

    Parameters
    ----------
    cutoff : float, default 1.01
        Bisection stops when ``upper <= cutoff * lower`` (section 3.6.3).
    fill : {"le", "lt"}, default "le"
        GPU filling continues while the least loaded GPU has load <= λ (< λ).
    """
    check_fill(fill)

    def step(inst: HybridInstance, lam: float):
        return approx2_step(inst, lam, fill=fill)

    return dual_search(instance, step, cutoff=cutoff, name="approx2")
