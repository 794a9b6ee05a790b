"""The SWDUAL baselines: EQUAL, PROPORTIONAL, SELF-SCHEDULING, CPU-only, GPU-only (and EFT).

Source: Mendonca (2017), ch. 2 section 2.1; the definitions are schedlab's
(reading M2-10, docs/readings.md): the thesis compares with standalone tools.
All use one CPU per task; the schedules use the true times of the chosen
processor type.
"""

from __future__ import annotations

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.offline.hybrid.heft import heft_like
from schedlab.offline.hybrid.lists import least_loaded
from schedlab.offline.hybrid.schedule import HybridError, hybrid_schedule, renamed
from schedlab.parameters import Param, declare
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = ["cpu_only", "eft", "equal", "gpu_only", "proportional", "self_scheduling"]


def _from_workers(instance: HybridInstance, worker: dict[int, int], start: dict[int, float], name: str) -> Schedule:
    """Workers ``0 .. m-1`` are CPUs, ``m .. m+k-1`` GPUs."""
    n, m = instance.n, instance.m
    cpu_t, gpu_t = instance.seq_time, instance.usable_gpu_time
    s, e = np.zeros(n), np.zeros(n)
    on_gpu = np.zeros(n, dtype=bool)
    resources: list[tuple[int, ...]] = [()] * n
    for j, w in worker.items():
        s[j] = start[j]
        if w < m:
            e[j], resources[j] = start[j] + cpu_t[j], (w,)
        else:
            e[j], resources[j], on_gpu[j] = start[j] + gpu_t[j], (w - m,), True
    return hybrid_schedule(instance, s, e, on_gpu, resources, name)


def _times(instance: HybridInstance) -> np.ndarray:
    """``(n, m + k)`` true time of every task on every worker."""
    return np.concatenate(
        [
            np.repeat(instance.seq_time[:, None], instance.m, axis=1),
            np.repeat(instance.usable_gpu_time[:, None], instance.k, axis=1),
        ],
        axis=1,
    )


def _size(instance: HybridInstance) -> np.ndarray:
    """Task size ``c_j`` for the static splits: the CPU time, or the GPU time without CPUs [choice]."""
    cpu = instance.seq_time
    return np.where(np.isfinite(cpu), cpu, instance.usable_gpu_time)


def _weighted_lpt(instance: HybridInstance, speed: np.ndarray, name: str) -> Schedule:
    """Tasks by decreasing size, each to the worker minimising ``(load + c_j) / speed``
    among those that can run it (ties: lowest worker); loads counted in size units."""
    size = _size(instance)
    times = _times(instance)
    runnable = np.isfinite(times)
    load = np.zeros(instance.m + instance.k)  # nominal (size) load
    real = np.zeros(instance.m + instance.k)  # true busy time
    worker, start = {}, {}
    for j in np.lexsort((np.arange(instance.n), -size)):
        cost = np.where(runnable[j], (load + size[j]) / speed, np.inf)
        w = int(np.argmin(cost))
        worker[int(j)], start[int(j)] = w, float(real[w])
        load[w] += size[j]
        real[w] += times[j, w]
    return _from_workers(instance, worker, start, name)


def equal(instance: HybridInstance) -> Schedule:
    """EQUAL (a baseline of Mendonca 2017, ch. 2): all m + k processing elements treated as equally fast; LPT on identical machines.

    Source: reading M2-10 (Mendonca 2017, section 2.1).
    Guarantee: none (ignores the GPU speed-up). Cost: O(n (m + k)).

    Notes
    -----
    The task size ``c_j`` (cells in SWDUAL) is the one-CPU time here [choice].
    """
    return _weighted_lpt(instance, np.ones(instance.m + instance.k), "equal")


def proportional(instance: HybridInstance) -> Schedule:
    """PROPORTIONAL (a baseline of Mendonca 2017, ch. 2): static split by nominal speed; each task to the worker minimising ``(load + c_j)/s_i``.

    Source: reading M2-10 (Mendonca 2017, section 2.1).
    Guarantee: none. Cost: O(n (m + k)).

    Notes
    -----
    Nominal speeds [choice]: 1 for a CPU and ``Σ p̄ / Σ p`` (the aggregate GPU
    speed-up over tasks runnable on both) for a GPU.
    """
    cpu, gpu = instance.seq_time, instance.usable_gpu_time
    both = np.isfinite(cpu) & np.isfinite(gpu)
    gpu_speed = float(cpu[both].sum() / gpu[both].sum()) if both.any() else 1.0
    speed = np.concatenate([np.ones(instance.m), np.full(instance.k, gpu_speed)])
    return _weighted_lpt(instance, speed, "proportional")


@declare(
    order=Param("order in which idle workers take tasks: input order or largest first", choices=("input", "largest"))
)
def self_scheduling(instance: HybridInstance, *, order: str = "input") -> Schedule:
    """SELF-SCHEDULING (a baseline of Mendonca 2017, ch. 2): one shared queue; the first idle worker takes the next task it can run.

    Source: reading M2-10 (Mendonca 2017, section 2.1).
    Guarantee: none. Cost: O(n (m + k)).

    Parameters
    ----------
    order : {"input", "largest"}, default "input"
        Queue in row order, or by decreasing size (ties by row).

    Notes
    -----
    Simulated as: for each queued task, the worker idle earliest among those
    able to run it (ties: CPUs first, lowest index).
    """
    if order not in ("input", "largest"):
        raise ArgumentError(f"order = {order!r}, expected 'input' or 'largest'")
    rows = np.arange(instance.n) if order == "input" else np.lexsort((np.arange(instance.n), -_size(instance)))
    times = _times(instance)
    free = np.zeros(instance.m + instance.k)
    worker, start = {}, {}
    for j in rows:
        w = int(np.argmin(np.where(np.isfinite(times[j]), free, np.inf)))
        worker[int(j)], start[int(j)] = w, float(free[w])
        free[w] += times[j, w]
    return _from_workers(instance, worker, start, "self-scheduling")


def cpu_only(instance: HybridInstance) -> Schedule:
    """CPU-only (Table 2.2 baseline): LPT of the one-CPU times on the m CPUs.

    Guarantee: (4/3 - 1/(3m)) of the CPU-only optimum (Graham's LPT).
    Raises HybridError if m = 0 or a task cannot run on a CPU.
    """
    return _lpt(instance, instance.seq_time, instance.m, 0, "cpu-only", "a CPU (or m = 0)")


def gpu_only(instance: HybridInstance) -> Schedule:
    """GPU-only (Table 2.2 baseline): LPT of the GPU times on the k GPUs.

    Guarantee: (4/3 - 1/(3k)) of the GPU-only optimum (Graham's LPT).
    Raises HybridError if k = 0 or a task cannot run on a GPU.
    """
    return _lpt(instance, instance.usable_gpu_time, instance.k, instance.m, "gpu-only", "a GPU (or k = 0)")


def _lpt(instance: HybridInstance, times: np.ndarray, count: int, first: int, name: str, where: str) -> Schedule:
    """LPT of ``times`` on the ``count`` workers numbered from ``first`` (ties: lowest task, then worker)."""
    if count == 0 or not np.isfinite(times).all():
        raise HybridError(f"{name}: some task cannot run on {where}")
    order = np.lexsort((np.arange(instance.n), -times))
    machine, start = least_loaded(times, order, [0.0] * count)
    return _from_workers(instance, {j: w + first for j, w in machine.items()}, start, name)


def eft(instance: HybridInstance) -> Schedule:
    """EFT greedy (a baseline of Mendonca 2017, ch. 2): decreasing ``max(p̄, p)``, earliest finish time.

    Identical to the LPT/SEQ heuristic of Table 3.2 (:func:`heft_like`).
    Guarantee: none. Cost: O(n log n + n (m + k)).
    """
    return renamed(heft_like(instance, priority="lpt", alloc="seq"), "eft")
