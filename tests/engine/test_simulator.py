"""The engine: event order, refusal of illegal decisions, walltime kills, abort and restart."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.engine import simulate
from schedlab.errors import IllegalDecision, InputError, SchedlabError
from schedlab.platform import Machine
from schedlab.schedule import Instance, JobStatus
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable


class Scripted:
    """A policy that runs a script: {time: [(action, args...)]} applied in schedule()."""

    name = "scripted"
    clairvoyant = False

    def __init__(self, script, timers=()):
        self.script = script
        self.timers = timers
        self.events = []

    def describe(self):
        return self.name

    def reset(self, ctx):
        self.ctx = ctx
        for t in self.timers:
            ctx.wake_at(t)

    def submit(self, rows, now):
        self.events.append(("submit", now, list(rows)))

    def complete(self, rows, now):
        self.events.append(("complete", now, list(rows)))

    def schedule(self, now):
        self.events.append(("pass", now))
        for action, *args in self.script.get(now, []):
            getattr(self.ctx, action)(*args)


def instance(submit, run_time, procs, n_procs, requested=None):
    jobs = JobTable.from_arrays(submit=submit, run_time=run_time, requested_time=requested, procs=procs)
    return Instance(jobs, Machine(n_procs))


def test_completions_then_submissions_then_one_pass_per_event_time():
    policy = Scripted({0: [("start", 0, ((0, 1),))], 5: [("start", 1, ((0, 1),))]})
    s = simulate(instance([0, 5], [5, 1], [1, 1], 1), policy)
    assert policy.events == [
        ("submit", 0, [0]),
        ("pass", 0),
        ("complete", 5, [0]),
        ("submit", 5, [1]),
        ("pass", 5),
        ("complete", 6, [1]),
        ("pass", 6),
    ]
    validate(instance([0, 5], [5, 1], [1, 1], 1), s)


def test_double_booking_is_refused():
    policy = Scripted({0: [("start", 0, ((0, 2),)), ("start", 1, ((1, 2),))]})
    with pytest.raises(IllegalDecision, match="cannot start job 2 at time 0"):
        simulate(instance([0, 0], [5, 5], [2, 1], 2), policy)


def test_start_before_submit_is_refused():
    policy = Scripted({0: [("start", 1, ((1, 2),))]})
    with pytest.raises(IllegalDecision, match="job 2: it is not submitted"):
        simulate(instance([0, 3], [5, 5], [1, 1], 2), policy)


def test_unknown_job_and_wrong_size_and_missing_processor_are_refused():
    with pytest.raises(IllegalDecision, match="unknown job row 7"):
        simulate(instance([0], [1], [1], 2), Scripted({0: [("start", 7, ((0, 1),))]}))
    with pytest.raises(IllegalDecision, match="needs 1 processors, given 2"):
        simulate(instance([0], [1], [1], 2), Scripted({0: [("start", 0, ((0, 2),))]}))
    with pytest.raises(IllegalDecision, match="processor 4 does not exist"):
        simulate(instance([0], [1], [1], 2), Scripted({0: [("start", 0, ((4, 5),))]}))


def test_walltime_kill_ends_the_job_at_its_requested_time():
    policy = Scripted({0: [("start", 0, ((0, 1),))]})
    s = simulate(instance([0], [100], [1], 1, requested=[30]), policy)
    assert s.end.tolist() == [30] and s.status.tolist() == [JobStatus.KILLED]


def test_abort_frees_processors_and_the_job_restarts_from_scratch():
    """Job 1 starts at 0, is aborted at 4 (timer), job 2 uses its processor 4-6, job 1
    restarts at 6 and runs its full 10 s again."""
    inst = instance([0, 0], [10, 2], [1, 1], 1)
    policy = Scripted(
        {0: [("start", 0, ((0, 1),))], 4: [("abort", 0), ("start", 1, ((0, 1),))], 6: [("start", 0, ((0, 1),))]},
        timers=[4],
    )
    s = simulate(inst, policy)
    assert s.start.tolist() == [6, 4] and s.end.tolist() == [16, 6]
    assert len(s.aborted) == 1 and (s.aborted[0].job, s.aborted[0].start, s.aborted[0].end) == (0, 0, 4)
    assert ("complete", 10, [0]) not in policy.events  # the aborted run's end never fires
    validate(inst, s)


def test_a_policy_that_forgets_jobs_is_an_error():
    with pytest.raises(SchedlabError, match="left 1 job"):
        simulate(instance([0], [1], [1], 1), Scripted({}))


def test_rejected_jobs_are_reported():
    s = simulate(instance([0], [1], [1], 1), Scripted({0: [("reject", 0)]}))
    assert s.status.tolist() == [JobStatus.REJECTED] and np.isnan(s.start[0])


def test_a_job_wider_than_the_machine_is_an_input_error():
    with pytest.raises(InputError, match=r"job 2 processors = 5, expected at most 4 \(the machine size\)"):
        simulate(instance([0, 0], [1, 1], [1, 5], 4), Scripted({}))


def test_timers_must_be_in_the_future():
    with pytest.raises(IllegalDecision, match="not after now"):
        simulate(instance([0], [1], [1], 1), Scripted({0: [("wake_at", 0)]}))
