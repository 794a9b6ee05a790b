"""List scheduling shared by the hybrid algorithms: least-loaded assignment, Garey-Graham greedy, left compaction.

Source: Bleuse (2017), ch. 2 section 2.4.2 (list scheduling = EFT on identical
machines), ch. 3 section 3.4 (left compaction, reading BH-9) and section 3.5
(Garey-Graham greedy).
"""

from __future__ import annotations

import heapq

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.parameters import Param

__all__ = ["FILL", "check_fill", "garey_graham", "gpu_open", "least_loaded", "left_compact"]

FILL = Param("GPU filling rule: a GPU takes tasks while its load is <= (le) or < (lt) lambda", choices=("le", "lt"))
"""The ``fill`` parameter of DA-2 and APPROX-2 (checked again by :func:`check_fill`)."""


def check_fill(fill: str) -> None:
    """The GPU filling rule of DA-2 and APPROX-2 (reading BH-6, docs/readings.md): ``le`` or ``lt``."""
    if fill not in ("le", "lt"):
        raise ArgumentError(f"fill = {fill!r}, expected 'le' (load <= lambda) or 'lt' (load < lambda)")


def gpu_open(loads: list[float], lam: float, fill: str) -> bool:
    """Whether GPU filling goes on: some GPU has load <= lam (``le``) or < lam (``lt``)."""
    return bool(loads) and (min(loads) <= lam if fill == "le" else min(loads) < lam)


def least_loaded(times: np.ndarray, order, loads: list[float]) -> tuple[dict[int, int], dict[int, float]]:
    """Put each task of ``order`` on the machine of least load (ties: lowest index), appended.

    ``loads`` (one per machine) is updated in place. Returns machine and start per task.
    Cost: O(len(order) log len(loads)).
    """
    heap = [(load, i) for i, load in enumerate(loads)]
    heapq.heapify(heap)
    machine, start = {}, {}
    for j in order:
        load, i = heapq.heappop(heap)
        machine[j], start[j] = i, load
        loads[i] = load + float(times[j])
        heapq.heappush(heap, (loads[i], i))
    return machine, start


def garey_graham(
    times: np.ndarray, procs: np.ndarray, order, m: int
) -> tuple[dict[int, float], dict[int, tuple[int, ...]]]:
    """Greedy list scheduling of rigid tasks on m CPUs [GG75]: at time 0 and at every completion,
    start, in list order, every waiting task that fits on the free CPUs (lowest ids first).

    Guarantee: makespan <= W/m + ... <= 2 max(W/m, p_max) for rigid tasks with
    ``procs <= m`` (Garey-Graham 1975). CPU sets may be non-contiguous.
    Cost: O(E (|waiting| + m)) for E completion events.
    """
    waiting = list(order)
    free = list(range(m))  # sorted free CPU ids
    running: list[tuple[float, int, tuple[int, ...]]] = []
    start, cpus = {}, {}
    now = 0.0
    while waiting:
        still = []
        for j in waiting:
            l = int(procs[j])
            if l <= len(free):
                chosen, free = tuple(free[:l]), free[l:]
                start[j], cpus[j] = now, chosen
                heapq.heappush(running, (now + float(times[j]), j, chosen))
            else:
                still.append(j)
        waiting = still
        if not waiting:
            break
        now, _, released = heapq.heappop(running)
        back = list(released)
        while running and running[0][0] <= now:
            back.extend(heapq.heappop(running)[2])
        free = sorted(free + back)
    return start, cpus


def left_compact(start: np.ndarray, duration: np.ndarray, on_gpu: np.ndarray, resources) -> np.ndarray:
    """Shift every task as early as its processors allow, keeping per-processor order.

    Tasks are processed by original start (ties by row); the new start is the
    latest new end of the previous tasks on its processors. By induction no
    task starts later than before, so a feasible schedule stays feasible.
    """
    new_start = np.array(start, dtype=float)
    ready: dict[tuple[bool, int], float] = {}
    for j in np.lexsort((np.arange(len(start)), start)):
        kind = bool(on_gpu[j])
        s = max((ready.get((kind, r), 0.0) for r in resources[j]), default=0.0)
        new_start[j] = s
        for r in resources[j]:
            ready[(kind, r)] = s + float(duration[j])
    return new_start
