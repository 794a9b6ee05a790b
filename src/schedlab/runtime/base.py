"""The :class:`RuntimeModel` protocol: how long a job runs on a given allocation, and which allocations it takes.

The engine asks a model for a job's length when it starts it, and the
validator asks the same model when it checks the schedule, so a policy never
computes run times itself and a schedule is always checked against the rule
that produced it. A model is bound to one job table (row ``i`` is job ``i``).

Models:

* :class:`RigidRuntime` (the default): a rigid job runs ``min(run_time,
  requested_time)`` on exactly ``procs`` processors and is killed at its
  walltime when its run time is longer;
* :class:`~schedlab.runtime.penalty.TopologyPenalty`: rigid jobs lengthened by
  the fat-tree levels their allocation crosses (Mendonca 2017, ch. 5);
* :class:`~schedlab.runtime.hybrid.HybridTimes`: tasks with one time per CPU
  count and one GPU time (Bleuse 2017, ch. 2-3);
* :class:`~schedlab.runtime.io.IORequests`: rigid jobs that must reach their
  pinned I/O nodes, or enough I/O nodes, from their compute nodes on a line or
  ring (Bleuse 2017, ch. 4-5);
* :class:`~schedlab.runtime.moldable.MoldableTimes`: moldable tasks with one
  time per processor count, the size chosen by the policy (Saule, Bozdag and
  Catalyurek 2014, section 5).

``fixed`` models (the rigid one) do not depend on the allocation, which lets
the engine and the validator take vectorised fast paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from schedlab.platform.intervals import Allocation
from schedlab.workload.jobs import JobTable

__all__ = ["WALLTIMES", "RigidRuntime", "RuntimeModel", "UncappedRuntime"]

WALLTIMES = ("kill", "ignore")
"""What happens to a rigid job that reaches its requested time: killed (Batsim's and Slurm's rule, the
default), or left to run to completion (AccaSim's and Alea's rule): :class:`UncappedRuntime`."""


@runtime_checkable
class RuntimeModel(Protocol):
    """What the engine, the validator and ``jobs.csv`` ask of a run-time model."""

    fixed: bool
    """True when lengths and sizes do not depend on the allocation: the job table's columns say everything."""

    def describe(self) -> str:
        """The model and its parameters as one word (``none``, ``quadratic:2``), recorded in outputs."""
        ...

    def allocation_problem(self, row: int, alloc: Allocation, size: int) -> str | None:
        """Why job ``row`` cannot run on ``alloc`` (``size`` ids), or None when it can."""
        ...

    def duration(self, row: int, alloc: Allocation) -> tuple[float, bool]:
        """``(length, killed)``: how long job ``row`` holds ``alloc``, and whether it ends killed at its walltime."""
        ...

    def run_times(self, allocs: Sequence[Allocation | None]) -> np.ndarray:
        """Per job, the run time its allocation gives before any walltime cap (``run_time`` when fixed)."""
        ...


class RigidRuntime:
    """Rigid jobs: ``procs`` processors for ``min(run_time, requested_time)``, killed when ``run_time`` is longer.

    Source: the rigid-job semantics of Batsim and of the Parallel Workloads
    Archive's logs (a job is killed when it reaches its requested time).
    """

    fixed = True
    __slots__ = ("jobs",)

    def __init__(self, jobs: JobTable) -> None:
        self.jobs = jobs

    def describe(self) -> str:
        return "none"

    def allocation_problem(self, row: int, alloc: Allocation, size: int) -> str | None:
        procs = int(self.jobs.procs[row])
        return None if size == procs else f"holds {size} processors, the job needs {procs}"

    def duration(self, row: int, alloc: Allocation) -> tuple[float, bool]:
        run_time, walltime = float(self.jobs.run_time[row]), float(self.jobs.requested_time[row])
        return (walltime, True) if run_time > walltime else (run_time, False)

    def run_times(self, allocs: Sequence[Allocation | None]) -> np.ndarray:
        return self.jobs.run_time.astype(np.float64)


class UncappedRuntime(RigidRuntime):
    """Rigid jobs that run their whole ``run_time`` on ``procs`` processors: a requested time is an estimate
    the policy sees, never a limit (``--walltime ignore``; the rule of the AccaSim and Alea simulators).

    Not ``fixed``: the engine and the validator ask :meth:`duration` instead of capping at the requested
    time. A policy then sees running jobs outlive their estimates, as on a machine that does not kill them.
    """

    fixed = False
    __slots__ = ()

    def describe(self) -> str:
        return "walltime-ignored"

    def duration(self, row: int, alloc: Allocation) -> tuple[float, bool]:
        return float(self.jobs.run_time[row]), False
