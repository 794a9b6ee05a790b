"""HEFT (chapter 2 variant) and the HEFT-like heuristics of Table 3.2: priority order, then earliest finish time.

Source: Bleuse (2017), ch. 2 Algorithm 1 and ch. 3 section 3.6.2 (Table 3.2).
"""

from __future__ import annotations

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.offline.hybrid.schedule import hybrid_schedule
from schedlab.parameters import Param, declare
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = ["PRIORITIES", "ALLOCATIONS", "eft_schedule", "heft", "heft_like"]

PRIORITIES = ("lpt", "spt", "ratio")
ALLOCATIONS = ("seq", "par")


def eft_schedule(instance: HybridInstance, order, cpu_count: np.ndarray, name: str) -> Schedule:
    """Take tasks in ``order``; put each where it finishes first, appended (no insertion).

    A task of ``cpu_count[j] = 1`` may use the earliest free CPU, one of
    ``cpu_count[j] = m`` all CPUs once all are free; or the earliest free GPU.
    Ties go to the CPU side, then the lowest index (reading BH-HEFT, docs/readings.md).
    Cost: O(n (m + k)) numpy work.
    """
    n, m, k = instance.n, instance.m, instance.k
    cpu_avail, gpu_avail = np.zeros(m), np.zeros(k)
    gpu_t = instance.usable_gpu_time
    cpu_t = instance.cpu_time(cpu_count)
    start, end = np.zeros(n), np.zeros(n)
    on_gpu = np.zeros(n, dtype=bool)
    resources: list[tuple[int, ...]] = [()] * n
    for j in order:
        best_cpu: tuple[int, ...] | None = None
        cpu_finish = np.inf
        if m and np.isfinite(cpu_t[j]):
            if cpu_count[j] == 1:
                c = int(np.argmin(cpu_avail))
                best_cpu, cpu_start = (c,), float(cpu_avail[c])
            else:
                best_cpu, cpu_start = tuple(range(m)), float(cpu_avail.max())
            cpu_finish = cpu_start + float(cpu_t[j])
        gpu_finish = np.inf
        if k and np.isfinite(gpu_t[j]):
            g = int(np.argmin(gpu_avail))
            gpu_start = float(gpu_avail[g])
            gpu_finish = gpu_start + float(gpu_t[j])
        if best_cpu is not None and cpu_finish <= gpu_finish:
            start[j], end[j], resources[j] = cpu_start, cpu_finish, best_cpu
            cpu_avail[list(best_cpu)] = cpu_finish
        else:
            start[j], end[j], resources[j], on_gpu[j] = gpu_start, gpu_finish, (g,), True
            gpu_avail[g] = gpu_finish
    return hybrid_schedule(instance, start, end, on_gpu, resources, name)


def _ratio(cpu: np.ndarray, gpu: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = cpu / gpu
    return np.where(np.isnan(r), 0.0, r)  # inf/inf: cannot happen (runnable tasks)


def heft(instance: HybridInstance) -> Schedule:
    """HEFT as in XKaapi: tasks by decreasing speedup ``S_j = p̄_j / p_j``, each to its earliest-finish worker.

    Source: Bleuse (2017), ch. 2 Algorithm 1.
    Guarantee: none; worst case >= m/2 OPT on ``(Pm,P1)||Cmax`` (Lemma 2.1
    [Mon14]). Returns OPT = 3 on Example B (tested).
    Cost: O(n log n + n (m + k)).

    Notes
    -----
    Sequential placement: one CPU per task even for moldable tasks. Ties in
    S_j keep row order (stable sort); finish-time ties go to CPUs, then the
    lowest index; append placement, no insertion into idle gaps; no transfer
    times (independent tasks).
    """
    s = _ratio(instance.seq_time, instance.usable_gpu_time)
    order = np.argsort(-s, kind="stable")
    return eft_schedule(instance, order, np.ones(instance.n, dtype=np.int64), "heft")


@declare(
    priority=Param(
        "task order: longest first (lpt), shortest first (spt), or largest CPU/GPU time ratio first", choices=PRIORITIES
    ),
    alloc=Param("CPUs per task: one (seq) or all it may use (par)", choices=ALLOCATIONS),
)
def heft_like(instance: HybridInstance, *, priority: str = "lpt", alloc: str = "seq") -> Schedule:
    """The HEFT-like heuristics H1-H6 of Table 3.2: a priority order, then earliest finish time.

    Source: Bleuse (2017), ch. 3 section 3.6.2, Table 3.2.
    Guarantee: none proven; returns 12 on Example A with LPT/SEQ (tested).
    Cost: O(n log n + n (m + k)).

    Parameters
    ----------
    priority : {"lpt", "spt", "ratio"}, default "lpt"
        LPT: decreasing ``max(p̄_{j,l}, p_j)``; SPT: increasing; RATIO:
        decreasing ``p̄_{j,l} / p_j``.
    alloc : {"seq", "par"}, default "seq"
        ``l = 1`` (each CPU a machine) or ``l = m`` (all CPUs as one machine);
        sequential tasks always use ``l = 1``.

    Notes
    -----
    Stable sorts (ties by row); an impossible resource is left out of the max
    (k = 0: the CPU time alone).
    """
    if priority not in PRIORITIES:
        raise ArgumentError(f"priority = {priority!r}, expected one of {PRIORITIES}")
    if alloc not in ALLOCATIONS:
        raise ArgumentError(f"alloc = {alloc!r}, expected one of {ALLOCATIONS}")
    count = np.ones(instance.n, dtype=np.int64) if alloc == "seq" else np.maximum(instance.max_cpus, 1)
    cpu = instance.cpu_time(count)
    gpu = instance.usable_gpu_time
    if priority == "ratio":
        key = -_ratio(cpu, gpu)
    else:
        longest = np.fmax(np.where(np.isfinite(cpu), cpu, np.nan), np.where(np.isfinite(gpu), gpu, np.nan))
        key = -longest if priority == "lpt" else longest
    order = np.argsort(key, kind="stable")
    return eft_schedule(instance, order, count, f"{priority}-{alloc}")
