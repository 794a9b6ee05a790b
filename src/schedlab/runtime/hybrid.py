"""CPU+GPU task times as a run-time model: one time per CPU count, one GPU time, per task.

Source: Bleuse (2017), ch. 2 section 2.1 and ch. 3 section 3.1 (a task runs
on one GPU for ``p_j`` or on ``l`` CPUs for ``p̄_{j,l}``); Mendonca (2017),
ch. 2 section 2.3 (sequential tasks, ``l = 1``).

On a :class:`~schedlab.platform.hybrid.HybridPlatform` the CPUs are ids
``0 .. m-1`` and the GPUs ``m .. m+k-1``; an allocation must lie in one kind:
exactly one GPU id, or ``l`` CPU ids with ``l`` at most the task's
:attr:`~schedlab.workload.hybrid.HybridInstance.max_cpus`. Tasks are never
killed (they have no walltime).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from schedlab.platform.intervals import Allocation
from schedlab.workload.hybrid import HybridInstance
from schedlab.workload.jobs import JobTable

__all__ = ["HybridTimes", "hybrid_jobs"]


class HybridTimes:
    """The run-time model of a :class:`~schedlab.workload.hybrid.HybridInstance`'s tasks."""

    fixed = False
    __slots__ = ("tasks",)

    def __init__(self, tasks: HybridInstance) -> None:
        self.tasks = tasks

    def describe(self) -> str:
        return "cpu-gpu-times"

    def _time(self, row: int, alloc: Allocation, size: int) -> tuple[float, str | None]:
        tasks = self.tasks
        m = tasks.m
        if alloc[-1][1] <= m:  # CPUs only
            limit = int(tasks.max_cpus[row])
            if size > limit:
                return math.nan, f"runs on {size} CPUs, at most {limit} allowed"
            time = float(tasks.cpu_times[row, size - 1])
            return time, None if math.isfinite(time) else "cannot run on a CPU"
        if alloc[0][0] >= m:  # GPUs only
            if size != 1:
                return math.nan, f"holds {size} GPUs, a task runs on one"
            time = float(tasks.gpu_time[row])
            return time, None if math.isfinite(time) else "cannot run on a GPU"
        return math.nan, "mixes CPUs and GPUs"

    def allocation_problem(self, row: int, alloc: Allocation, size: int) -> str | None:
        return self._time(row, alloc, size)[1]

    def duration(self, row: int, alloc: Allocation) -> tuple[float, bool]:
        size = sum(hi - lo for lo, hi in alloc)
        return self._time(row, alloc, size)[0], False

    def run_times(self, allocs: Sequence[Allocation | None]) -> np.ndarray:
        return np.array([self.duration(i, a)[0] if a else math.nan for i, a in enumerate(allocs)], dtype=np.float64)


def hybrid_jobs(tasks: HybridInstance) -> JobTable:
    """The job table of ``tasks``: ids, all released at 0, one resource at least, no walltime.

    ``run_time`` is each task's fastest time (on all the CPUs it may use, or
    on a GPU); the real length of a run comes from :class:`HybridTimes`.
    """
    n = tasks.n
    return JobTable(
        id=np.asarray(tasks.ids, dtype=np.int64),
        submit=np.zeros(n),
        run_time=np.minimum(tasks.fastest_cpu_time, tasks.usable_gpu_time),
        requested_time=np.full(n, math.inf),
        procs=np.ones(n, dtype=np.int64),
        line=np.zeros(n, dtype=np.int64),
        source=tasks.source,
    )
