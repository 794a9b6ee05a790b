"""DA-2 (Bleuse) and DUAL2 (Mendonça): dual 2-approximations for ``(Pm,Pk)||Cmax``.

Both fill the GPUs with the tasks of best CPU/GPU ratio and list-schedule the
rest on the CPUs; they differ in the stop rule. On moldable instances both use
one CPU per task (the guarantee is then relative to the one-CPU optimum).
"""

from __future__ import annotations

import numpy as np

from schedlab.offline.hybrid.bisection import CUTOFF, dual_search
from schedlab.offline.hybrid.bounds import one_cpu_upper_bound
from schedlab.offline.hybrid.lists import FILL, check_fill, gpu_open, least_loaded
from schedlab.offline.hybrid.schedule import hybrid_schedule
from schedlab.parameters import declare
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = ["da2", "da2_place", "da2_step", "dual2", "dual2_step"]


def _assemble(instance: HybridInstance, placed: dict[int, tuple[bool, int, float]], name: str) -> Schedule:
    n, cpu_t, gpu_t = instance.n, instance.seq_time, instance.usable_gpu_time
    start, end = np.zeros(n), np.zeros(n)
    on_gpu = np.zeros(n, dtype=bool)
    resources: list[tuple[int, ...]] = [()] * n
    for j, (gpu, machine, s) in placed.items():
        start[j], on_gpu[j], resources[j] = s, gpu, (machine,)
        end[j] = s + float(gpu_t[j] if gpu else cpu_t[j])
    return hybrid_schedule(instance, start, end, on_gpu, resources, name)


def da2_place(
    instance: HybridInstance,
    lam: float,
    todo: np.ndarray,
    cpu_loads: list[float],
    gpu_loads: list[float],
    *,
    fill: str = "le",
) -> dict[int, tuple[bool, int, float]] | None:
    """DA-2's placement of the rows ``todo`` after the given loads (updated in place).

    Returns ``{row: (on_gpu, machine, start)}``, or None when a task fits nowhere within lam.
    """
    cpu_t, gpu_t = instance.seq_time, instance.usable_gpu_time
    if len(todo) and (np.minimum(cpu_t[todo], gpu_t[todo]) > lam).any():
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.isfinite(gpu_t), cpu_t / gpu_t, 0.0)
    order = todo[np.argsort(-ratio[todo], kind="stable")]
    forced_gpu = [int(j) for j in todo if cpu_t[j] > lam]
    placed: dict[int, tuple[bool, int, float]] = {}
    machine, start = least_loaded(gpu_t, forced_gpu, gpu_loads)
    for j in forced_gpu:
        placed[j] = (True, machine[j], start[j])
    cpu_list = []
    for j in order:
        j = int(j)
        if cpu_t[j] > lam:
            continue  # forced GPU, placed above
        if gpu_t[j] <= lam and gpu_open(gpu_loads, lam, fill):
            machine, start = least_loaded(gpu_t, [j], gpu_loads)
            placed[j] = (True, machine[j], start[j])
        else:
            cpu_list.append(j)
    machine, start = least_loaded(cpu_t, cpu_list, cpu_loads)
    for j in cpu_list:
        placed[j] = (False, machine[j], start[j])
    return placed


def da2_step(instance: HybridInstance, lam: float, *, fill: str = "le") -> tuple[Schedule | None, dict]:
    """One DA-2 step at guess ``lam``: a schedule of makespan <= ``2 lam``, or None.

    Source: Bleuse (2017), ch. 2 section 2.4.2 (Bleuse et al. 2015).
    Guarantee: if a schedule of makespan <= lam exists, returns one of
    makespan <= 2 lam (GPU: each task <= lam added to a GPU of load <= lam;
    CPU: fractional-knapsack work <= m lam, then list scheduling).
    Cost: O(n log n).

    Notes
    -----
    Stop rule (reading BH-6, docs/readings.md): a task goes to a GPU while the least
    loaded GPU has load <= lam (literal "until each GPU is loaded more than λ");
    ``fill="lt"`` stops at load >= lam instead (same guarantee, other outputs).
    Forced-GPU tasks (CPU time > lam) go first, in row order, to the least
    loaded GPU. Ratio ties keep row order (stable sort); the CPU list keeps the
    ratio order; least-loaded ties go to the lowest index.
    """
    check_fill(fill)
    placed = da2_place(instance, lam, np.arange(instance.n), [0.0] * instance.m, [0.0] * instance.k, fill=fill)
    if placed is None:
        return None, {"reason": "a task fits nowhere within lambda"}
    schedule = _assemble(instance, placed, "da2")
    if schedule.makespan > 2 * lam:
        return None, {"reason": f"makespan {schedule.makespan} > 2 lambda"}
    return schedule, {}


@declare(
    cutoff=CUTOFF,
    fill=FILL,
)
def da2(instance: HybridInstance, *, cutoff: float = 1.001, fill: str = "le") -> Schedule:
    """DA-2: dual 2-approximation for ``(Pm,Pk)||Cmax``, fill GPUs by ratio while one has load <= λ.

    Source: Bleuse (2017), ch. 2 section 2.4.2 (Bleuse et al. 2015); reading BH-7.
    Guarantee: makespan <= 2 cutoff OPT for sequential tasks (a small instance
    in the tests shows 2 is tight).
    Cost: O(n log n) per step, ``log2(log(UB/LB)/log cutoff)`` steps.

    Parameters
    ----------
    instance : HybridInstance
    cutoff : float, default 1.001
        Bisection stops when ``upper <= cutoff * lower``.
    fill : {"le", "lt"}, default "le"
        GPU filling continues while the least loaded GPU has load <= λ (< λ).

    Returns
    -------
    Schedule
        With ``search`` statistics.
    """
    check_fill(fill)

    def step(inst: HybridInstance, lam: float):
        return da2_step(inst, lam, fill=fill)

    return dual_search(instance, step, cutoff=cutoff, upper=one_cpu_upper_bound(instance), name="da2")


def dual2_step(instance: HybridInstance, lam: float) -> tuple[Schedule | None, dict]:
    """One DUAL2 step (SWDUAL): fill GPU *area* up to ``k lam``, the critical task last.

    Source: Mendonca (2017), ch. 2 section 2.3.
    Guarantee: returns a schedule of makespan <= 2 lam whenever a lam-schedule
    exists (Proposition 1); "NO" when the knapsack CPU work exceeds ``m lam``.
    Cost: O(n log n).

    Notes
    -----
    Reading M2-3 (docs/readings.md): ratio ties by larger CPU time, then row; CPU list in
    LPT order; GPU list LPT with the critical task ``jlast`` placed last.
    """
    n, m, k = instance.n, instance.m, instance.k
    cpu_t, gpu_t = instance.seq_time, instance.usable_gpu_time
    if n and (np.minimum(cpu_t, gpu_t) > lam).any():
        return None, {"reason": "a task fits nowhere within lambda"}
    forced_gpu = cpu_t > lam
    in_gpu = forced_gpu.copy()
    area = float(gpu_t[forced_gpu].sum())
    if area > k * lam:
        return None, {"reason": "forced GPU area > k lambda"}
    free = np.nonzero(~forced_gpu & (gpu_t <= lam))[0]
    with np.errstate(divide="ignore"):
        ratio = cpu_t[free] / gpu_t[free]
    free = free[np.lexsort((free, -cpu_t[free], -ratio))]
    jlast = None
    for j in free.tolist():
        if area >= k * lam:
            break
        in_gpu[j] = True
        area += float(gpu_t[j])
        jlast = j
    cpu_rows = np.nonzero(~in_gpu)[0]
    if float(cpu_t[cpu_rows].sum()) > m * lam:
        return None, {"reason": "CPU work > m lambda"}
    placed: dict[int, tuple[bool, int, float]] = {}
    cpu_order = cpu_rows[np.lexsort((cpu_rows, -cpu_t[cpu_rows]))]
    machine, start = least_loaded(cpu_t, cpu_order, [0.0] * m)
    for j in cpu_order.tolist():
        placed[j] = (False, machine[j], start[j])
    gpu_rows = np.array([j for j in np.nonzero(in_gpu)[0] if j != jlast], dtype=np.int64)
    gpu_order = [int(j) for j in gpu_rows[np.lexsort((gpu_rows, -gpu_t[gpu_rows]))]]
    if jlast is not None:
        gpu_order.append(jlast)
    machine, start = least_loaded(gpu_t, gpu_order, [0.0] * k)
    for j in gpu_order:
        placed[j] = (True, machine[j], start[j])
    schedule = _assemble(instance, placed, "dual2")
    if schedule.makespan > 2 * lam:
        return None, {"reason": f"makespan {schedule.makespan} > 2 lambda"}
    return schedule, {}


@declare(cutoff=CUTOFF)
def dual2(instance: HybridInstance, *, cutoff: float = 1.001) -> Schedule:
    """DUAL2: the SWDUAL dual 2-approximation for ``(Pm,Pk)||Cmax`` (GPU area filled to ``k λ``).

    Source: Mendonca (2017), ch. 2 section 2.3, Prop. 1.
    Guarantee: makespan <= 2 cutoff OPT for sequential tasks.
    Cost: O(n log n) per step.
    """
    return dual_search(instance, dual2_step, cutoff=cutoff, upper=one_cpu_upper_bound(instance), name="dual2")
