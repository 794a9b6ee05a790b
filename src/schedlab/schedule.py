"""What an algorithm produced: for every job, when it ran, where, and how it ended.

Every online policy (through the engine) and every offline algorithm returns a
:class:`Schedule`; :func:`schedlab.validation.validate` checks it against its
:class:`Instance` and :mod:`schedlab.metrics` measures it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from schedlab.platform.base import Platform
from schedlab.platform.intervals import Allocation, AllocationTable
from schedlab.runtime.base import RigidRuntime, RuntimeModel
from schedlab.workload.jobs import JobTable


class JobStatus(IntEnum):
    """How a job's last execution ended."""

    NOT_STARTED = 0
    COMPLETED = 1
    KILLED = 2  # reached its walltime before its run time
    REJECTED = 3  # refused by the policy, never started


@dataclass(frozen=True, slots=True)
class Piece:
    """One execution of a job that did not finish it: aborted (its work is lost, the job restarts from
    scratch) or, with ``kept``, preempted (its work counts, the job later runs only what is left); or, with
    ``moved`` (and ``kept``), a placement the job left when it was migrated: it ran there from ``start`` to
    ``end`` and went on elsewhere without a pause, so its final execution still starts at its first start."""

    job: int  # row index in the job table
    start: float
    end: float
    alloc: Allocation
    kept: bool = False
    moved: bool = False


@dataclass(frozen=True, eq=False)
class Instance:
    """Jobs, the platform they run on and their run-time model: what a schedule is checked against.

    ``runtime`` defaults to :class:`~schedlab.runtime.base.RigidRuntime` on ``jobs``
    (each job runs ``min(run_time, requested_time)`` on ``procs`` processors).
    """

    jobs: JobTable
    platform: Platform
    runtime: RuntimeModel = None  # type: ignore[assignment]  # set to RigidRuntime(jobs) when None

    def __post_init__(self) -> None:
        if self.runtime is None:
            object.__setattr__(self, "runtime", RigidRuntime(self.jobs))


@dataclass(eq=False)
class Schedule:
    """The outcome for every job of an instance, row-aligned with its job table.

    Attributes
    ----------
    start, end : float64 arrays
        Start and end of each job's final execution (NaN if never started).
    status : int8 array
        :class:`JobStatus` code per job.
    alloc : list of Allocation or None, or AllocationTable
        Processor ranges of each job's final execution (the compiled core gives an
        :class:`~schedlab.platform.intervals.AllocationTable`: flat arrays read as a sequence).
    aborted : list of Piece
        Earlier executions that did not finish their job: aborted (work lost)
        or preempted (``kept``: work kept), and the placements migrated jobs
        left (``moved``); they occupy processors like any execution and the
        validator checks them too.
    policy : str
        Name of the algorithm that produced it, with its parameters.
    info : dict
        What the algorithm reports about its run (an offline search's steps and bounds, ...).
    """

    start: np.ndarray
    end: np.ndarray
    status: np.ndarray
    alloc: list[Allocation | None] | AllocationTable
    aborted: list[Piece] = field(default_factory=list)
    policy: str = ""
    info: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, n_jobs: int, policy: str = "") -> Schedule:
        return cls(
            start=np.full(n_jobs, np.nan),
            end=np.full(n_jobs, np.nan),
            status=np.zeros(n_jobs, dtype=np.int8),
            alloc=[None] * n_jobs,
            policy=policy,
        )

    def __len__(self) -> int:
        return int(self.start.shape[0])

    def __repr__(self) -> str:
        started = np.isfinite(self.start)
        span = f", {np.nanmin(self.start):g} to {np.nanmax(self.end):g}" if started.any() else ""
        return f"Schedule({self.policy or 'unnamed'}: {len(self)} jobs, {int(started.sum())} started{span})"

    @property
    def makespan(self) -> float:
        """Latest end of a final execution (0 when nothing ran); the offline algorithms' objective."""
        ends = np.asarray(self.end, dtype=np.float64)
        return float(np.nanmax(ends)) if np.isfinite(ends).any() else 0.0

    def kept_work(self) -> np.ndarray:
        """Per job, the time run in preempted pieces (``kept``) since the job's last abort (whose work is
        lost): what its final execution did not have to run. Pieces naming no job row are ignored, and so
        are moved pieces (they lie inside the final execution)."""
        n = len(self)
        done = np.zeros(n)
        valid = [p for p in self.aborted if isinstance(p.job, (int, np.integer)) and 0 <= p.job < n and not p.moved]
        if not any(p.kept for p in valid):
            return done
        last_abort = np.full(n, -np.inf)
        for p in valid:
            if not p.kept:
                last_abort[p.job] = max(last_abort[p.job], float(p.end))
        for p in valid:
            if p.kept and p.start >= last_abort[p.job]:
                done[p.job] += p.end - p.start
        return done
