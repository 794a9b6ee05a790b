"""Jobs on partitions (Krevat 2003): a job runs its run time on any partition at least as large as it asked.

Source: Krevat (2003), chapter 2 and section 4.2: a job's size may be
rounded up to a size some partition has and grown when only a larger
partition is free, its run time does not change with its size or with
migration, and the simulation has no walltime (no job is killed).

Cost: O(1) per question.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schedlab.platform.intervals import Allocation
from schedlab.workload.jobs import JobTable

__all__ = ["PartitionRuntime"]


class PartitionRuntime:
    """A job holds ``run_time`` seconds any allocation of at least ``procs`` ids; never killed.

    Source: Krevat (2003), chapter 2 (rounding, growth; no speed-up from the
    extra nodes) and section 4.2 (no walltimes in the simulation).
    """

    fixed = False  # a job's allocation may be larger than its size
    __slots__ = ("jobs",)

    def __init__(self, jobs: JobTable) -> None:
        self.jobs = jobs

    def describe(self) -> str:
        return "partition"

    def allocation_problem(self, row: int, alloc: Allocation, size: int) -> str | None:
        procs = int(self.jobs.procs[row])
        return None if size >= procs else f"holds {size} nodes, the job needs at least {procs}"

    def duration(self, row: int, alloc: Allocation) -> tuple[float, bool]:
        return float(self.jobs.run_time[row]), False

    def run_times(self, allocs: Sequence[Allocation | None]) -> np.ndarray:
        return self.jobs.run_time.astype(np.float64)
