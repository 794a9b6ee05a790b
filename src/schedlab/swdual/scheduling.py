"""Which worker runs which query: the registered CPU+GPU algorithms on the calibrated task times.

Source: Mendonca (2017), chapter 2, section 2.3 (DUAL2 and its bisection)
and section 2.1 (the equal, proportional and self-scheduling strategies it is
compared with). The algorithms live in :mod:`schedlab.offline.hybrid` and are
looked up in :mod:`schedlab.registry`; this module is the only place the
SWDUAL runtime touches them.

The predicted task times are a CPU+GPU task table
(:class:`~schedlab.workload.hybrid.HybridInstance`, one CPU time and one GPU
time per query) whose run-time model is
:class:`~schedlab.runtime.hybrid.HybridTimes`; every plan is the common
:class:`~schedlab.schedule.Schedule`, checked by
:func:`schedlab.validation.validate` against that model. Workers are the
platform's ids: CPUs ``0 .. m-1``, then GPUs ``m .. m+k-1``, named
``cpu0 ..`` and ``gpu0 ..``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab import registry
from schedlab.errors import InputError
from schedlab.offline.hybrid import HybridError, bounds, hybrid_instance, search_of
from schedlab.schedule import Instance, Schedule
from schedlab.validation import validate
from schedlab.workload.hybrid import HybridInstance

__all__ = ["DYNAMIC", "SCHEDULERS", "Plan", "make_plan", "search_tasks", "worker_names"]

SCHEDULERS = ("dual2", "da2", "equal", "proportional", "self-scheduling", "eft", "cpu-only", "gpu-only")
"""Schedulers a search accepts: DUAL2, the strategies of section 2.1 (equal, proportional,
self-scheduling), EFT, CPU-only and GPU-only, and DA-2 (Bleuse et al. 2015)."""

DYNAMIC = frozenset({"self-scheduling"})
"""Schedulers whose workers pull the next query at run time instead of following the plan."""


def worker_names(cpus: int, gpus: int) -> tuple[str, ...]:
    """``("cpu0", ..., "gpu0", ...)`` in worker id order."""
    return tuple(f"cpu{i}" for i in range(cpus)) + tuple(f"gpu{i}" for i in range(gpus))


@dataclass(frozen=True, eq=False)
class Plan:
    """A validated assignment of tasks to workers with predicted times.

    ``worker[j]`` is task ``j``'s worker id, ``start``/``end`` its predicted
    interval. ``lam``, ``lower`` and ``upper`` come from a dual-approximation
    bisection (None otherwise): the guess of the returned schedule, the largest
    rejected guess (<= OPT) and the smallest accepted one. ``lower_bound`` is
    ``max(area, longest task)``, valid for every scheduler. ``instance`` and
    ``schedule`` are the common types the plan was validated as.
    """

    scheduler: str
    cpus: int
    gpus: int
    worker: np.ndarray
    start: np.ndarray
    end: np.ndarray
    lower_bound: float
    instance: Instance
    schedule: Schedule
    lam: float | None = None
    lower: float | None = None
    upper: float | None = None
    steps: int = 0

    @property
    def dynamic(self) -> bool:
        """Whether workers pull tasks at run time (self-scheduling) rather than follow :meth:`queues`."""
        return self.scheduler in DYNAMIC

    @property
    def makespan(self) -> float:
        return float(self.end.max()) if len(self.end) else 0.0

    @property
    def names(self) -> tuple[str, ...]:
        return worker_names(self.cpus, self.gpus)

    def queues(self) -> list[list[int]]:
        """Per worker id, its tasks by predicted start (ties by task)."""
        out: list[list[int]] = [[] for _ in range(self.cpus + self.gpus)]
        for j in np.lexsort((np.arange(len(self.worker)), self.start)).tolist():
            out[int(self.worker[j])].append(j)
        return out

    def describe(self) -> dict:
        """JSON-ready summary: scheduler, predicted makespan, λ and bounds."""
        return {
            "scheduler": self.scheduler,
            "predicted_makespan": self.makespan,
            "lambda": self.lam,
            "lambda_lower": self.lower,
            "lambda_upper": self.upper,
            "lower_bound": self.lower_bound,
            "bisection_steps": self.steps,
        }

    def report(self, task_names) -> dict:
        """:meth:`describe` plus the workers and, per task, its planned worker and predicted interval."""
        names = self.names
        tasks = [
            {
                "query": str(task_names[j]),
                "planned_worker": names[int(self.worker[j])],
                "predicted_start": float(self.start[j]),
                "predicted_end": float(self.end[j]),
                "predicted_time": float(self.end[j] - self.start[j]),
            }
            for j in range(len(self.worker))
        ]
        return {
            **self.describe(),
            "cpus": self.cpus,
            "gpus": self.gpus,
            "workers": [{"name": name, "kind": name[:3]} for name in names],
            "tasks": tasks,
        }


def search_tasks(cpu_time, gpu_time, *, cpus: int, gpus: int, names=None) -> HybridInstance:
    """The task table of a search: task ``j`` takes ``cpu_time[j]`` on one CPU core or ``gpu_time[j]`` on a GPU.

    Times of a kind without workers are left out (``None``: impossible).

    Raises
    ------
    InputError
        On bad worker counts or a time that is not a finite number > 0.
    """
    cpu_time = np.asarray(cpu_time, dtype=float)
    gpu_time = np.asarray(gpu_time, dtype=float)
    tasks = [(float(c) if cpus else None, float(g) if gpus else None) for c, g in zip(cpu_time, gpu_time, strict=True)]
    return HybridInstance.from_tasks(cpus, gpus, tasks, source="tasks")


def make_plan(cpu_time, gpu_time, *, cpus: int, gpus: int, scheduler: str = "dual2") -> Plan:
    """Schedule independent tasks with CPU times ``cpu_time`` and GPU times ``gpu_time`` on ``cpus + gpus`` workers.

    Source: section 2.3 of Mendonca (2017) for ``dual2``; the baselines as in
    :mod:`schedlab.offline.hybrid.baselines`.
    Guarantee: the schedule passes :func:`schedlab.validation.validate`;
    ``dual2`` and ``da2`` are within ``2 (1 + 0.001)`` of the optimum for these times.
    Cost: that of the scheduler (O(n log n) per bisection step for dual2).

    Parameters
    ----------
    cpu_time, gpu_time : array of float
        Predicted seconds of each task on one CPU core and on one GPU (> 0;
        ignored for a kind with no worker).
    cpus, gpus : int
        Workers of each kind (not both 0).
    scheduler : str, default "dual2"
        One of :data:`SCHEDULERS`.

    Raises
    ------
    InputError
        On an unknown scheduler, bad worker counts or times, or a scheduler that
        cannot use this platform (``cpu-only`` without CPUs).
    """
    if scheduler not in SCHEDULERS:
        raise InputError("schedule", field="scheduler", value=scheduler, expected=", ".join(SCHEDULERS))
    tasks = search_tasks(cpu_time, gpu_time, cpus=cpus, gpus=gpus)
    try:
        schedule = registry.get(scheduler, kind="offline").build()(tasks)
    except HybridError as error:
        raise InputError("schedule", field="scheduler", value=scheduler, message=str(error)) from None
    instance = hybrid_instance(tasks)
    validate(instance, schedule)
    worker = np.array([alloc[0][0] for alloc in schedule.alloc], dtype=np.int64)
    search = search_of(schedule)
    return Plan(
        scheduler,
        cpus,
        gpus,
        worker,
        np.asarray(schedule.start, dtype=float),
        np.asarray(schedule.end, dtype=float),
        bounds(tasks).lower,
        instance,
        schedule,
        None if search is None else float(search.lam),
        None if search is None else float(search.lower),
        None if search is None else float(search.upper),
        0 if search is None else search.n_steps,
    )
