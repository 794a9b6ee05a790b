"""FCFS, EASY and conservative on the compiled core: the whole simulation in one call, on the job table's columns.

The core (``schedlab.native._core``, Rust, in ``rust/`` of the repository) runs, on the event
loop every policy of :func:`~schedlab.engine.simulator.simulate` runs on, the decisions of
:class:`~schedlab.policies.rigid.fcfs.FCFS`, :class:`~schedlab.policies.rigid.fcfs.EASY` and
:class:`~schedlab.policies.rigid.conservative.Conservative` (both compressions; the same O(B)
profile operations, at compiled speed) with first-fit (``basic``) allocation, for rigid jobs whose run time is read from the table
(:class:`~schedlab.runtime.base.RigidRuntime`). Anything else (another allocator, a run-time
model, a subclass) is left to the Python policies: :func:`run_compiled` then returns None. The
Python policies are the oracles: the core is tested against them job for job.

Cost: O((n + r) log n) for n jobs and r allocated ranges, no Python object per job: the
:class:`~schedlab.schedule.Schedule` holds the allocations as the core's flat ranges
(:class:`~schedlab.platform.intervals.AllocationTable`).
"""

from __future__ import annotations

import numpy as np

from schedlab.native import _core  # built by every install: the engine's event loop runs on it too
from schedlab.platform.intervals import AllocationTable
from schedlab.policies.rigid.queue import ORDERS, priority_ranks
from schedlab.runtime.base import RigidRuntime
from schedlab.schedule import Instance, JobStatus, Schedule

KINDS = ("fcfs", "easy", "conservative-full", "conservative-start-now")
"""The policies the core runs: FCFS, EASY, conservative with full or start-now compression."""


def run_compiled(instance: Instance, kind: str, *, order: str, allocator: str, describe: str) -> Schedule | None:
    """Simulate policy ``kind`` (one of :data:`KINDS`) on the core; None when the core does not cover this run.

    ``order``, ``allocator`` and ``describe`` are the policy's. Covered: the ``basic`` allocator,
    either queue order, jobs whose run-time model is the table's
    own (no penalty, no partition model), on any platform (first fit ignores its shape, as the
    Python path's ``start_first_fit`` does). Every job fits the machine (the engine checked).
    """
    if kind not in KINDS or allocator != "basic" or order not in ORDERS:
        return None
    if type(instance.runtime) is not RigidRuntime:
        return None
    jobs = instance.jobs
    n = len(jobs)
    submit = np.ascontiguousarray(jobs.submit, dtype=np.float64)
    requested = np.ascontiguousarray(jobs.requested_time, dtype=np.float64)
    duration = np.minimum(jobs.run_time, jobs.requested_time).astype(np.float64)
    procs = np.ascontiguousarray(jobs.procs, dtype=np.int64)
    rank = priority_ranks(jobs.submit, jobs.requested_time, jobs.id, order).astype(np.int64)
    by_submit = np.lexsort((jobs.id, jobs.submit)).astype(np.int64)
    raw = _core.simulate_rigid(
        kind, int(instance.platform.n_procs), submit, procs, requested, duration, rank, by_submit
    )
    start, end = (np.frombuffer(b, dtype=np.float64).copy() for b in raw[:2])
    offsets, los, his = (np.frombuffer(b, dtype=np.int64) for b in raw[2:])
    status = np.full(n, JobStatus.COMPLETED, dtype=np.int8)
    status[jobs.run_time > jobs.requested_time] = JobStatus.KILLED
    return Schedule(
        start=start,
        end=end,
        status=status,
        alloc=AllocationTable(offsets, los, his),
        policy=describe,
    )
