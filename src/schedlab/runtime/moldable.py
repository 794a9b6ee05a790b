"""Moldable tasks as a run-time model: a task runs ``p_{i,j}`` on the j processors a policy gives it.

Source: Saule, Bozdag and Catalyurek (2014), section 5 (the moldable model:
the scheduler picks the allocation size pi_i in 1..m at start, the task then
runs ``p_{i,pi_i}``, known at release); the table of times comes from
:class:`~schedlab.workload.moldable.MoldableTasks` (Downey speed-ups, a tasks
CSV, the SSM-like generator).

Any processor ids will do (the machine is homogeneous); the size is what
matters. Tasks are never killed: their walltime (``requested_time`` in the
job table of :func:`moldable_jobs`) is the one-processor time p_{i,1}, which
no allocation exceeds because the rows of the table never increase.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from schedlab.platform.intervals import Allocation
from schedlab.workload.jobs import JobTable
from schedlab.workload.moldable import MoldableTasks

__all__ = ["MoldableTimes", "moldable_jobs"]


class MoldableTimes:
    """The run-time model of moldable tasks: ``times[row, size - 1]`` on any ``size`` in 1..m processors.

    Attributes
    ----------
    tasks : MoldableTasks
        The tasks; row i of the job table is task i.
    times : float64 array (n, m)
        ``times[i, j - 1] = p_{i,j}``, non-increasing along each row. Clairvoyant moldable policies read it
        through :attr:`schedlab.engine.simulator.Context.runtime` (the times are known at release).
    """

    fixed = False
    __slots__ = ("tasks", "times")

    def __init__(self, tasks: MoldableTasks) -> None:
        self.tasks = tasks
        self.times = tasks.times

    def describe(self) -> str:
        return "moldable"

    def allocation_problem(self, row: int, alloc: Allocation, size: int) -> str | None:
        width = self.times.shape[1]
        if size > width:
            return f"holds {size} processors, the task's run times cover 1 to {width}"
        return None

    def duration(self, row: int, alloc: Allocation) -> tuple[float, bool]:
        size = sum(hi - lo for lo, hi in alloc)
        return float(self.times[row, size - 1]), False

    def run_times(self, allocs: Sequence[Allocation | None]) -> np.ndarray:
        return np.array([self.duration(i, a)[0] if a else math.nan for i, a in enumerate(allocs)], dtype=np.float64)


def moldable_jobs(tasks: MoldableTasks) -> JobTable:
    """The job table of moldable ``tasks``: ids, releases, one processor at least, never killed.

    ``run_time`` and ``requested_time`` are the one-processor time p_{i,1} (what stretch and load are
    measured against, Saule et al. 2014, section 5); the real length of a run comes from :class:`MoldableTimes`.
    """
    p1 = np.ascontiguousarray(tasks.times[:, 0])
    return JobTable(
        id=tasks.id,
        submit=tasks.release,
        run_time=p1,
        requested_time=p1,
        procs=np.ones(len(tasks), dtype=np.int64),
        line=tasks.line,
        source=tasks.source,
    )
