"""Sequential-task instances shared by the task-policy tests (seed 004)."""

from __future__ import annotations

from schedlab.platform import Machine
from schedlab.schedule import Instance
from schedlab.workload.jobs import JobTable


def tasks(release, p, m) -> Instance:
    """Tasks released at ``release`` with processing times ``p`` (known: requested = run) on ``m`` processors."""
    jobs = JobTable.from_arrays(submit=release, run_time=p, requested_time=p, procs=[1] * len(p))
    return Instance(jobs, Machine(m))


def paper_example():
    """Spec 004 section 8, case 1: T0 (r = 0, p = 10) then T_i (r = i, p = 1), i = 1..10."""
    return list(range(11)), [10] + [1] * 10
