"""FCFS and EASY: hand-checked schedules, a naive reference, and properties.

Semantics: issue 2, "Exact semantics for FCFS and EASY".
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from rigid_reference import reference_starts
from schedlab.engine import simulate
from schedlab.platform import Machine
from schedlab.registry import make_policy
from schedlab.schedule import Instance, JobStatus
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import rigid_instances


def run(policy, *, submit, run_time, requested, procs, n_procs, ids=None, **params):
    jobs = JobTable.from_arrays(submit=submit, run_time=run_time, requested_time=requested, procs=procs, id=ids)
    instance = Instance(jobs, Machine(n_procs))
    schedule = simulate(instance, make_policy(policy, params))
    validate(instance, schedule)
    return schedule


def test_easy_backfills_a_short_job_before_the_blocked_head():
    """Head (job 2, 3 procs) waits for job 1 (ends at 10): shadow 10, extra 1.
    Job 3 (1 proc, ends at 4 <= 10) backfills at 1; strict FCFS makes it wait until 10."""
    kw = dict(submit=[0, 0, 1], run_time=[10, 5, 3], requested=[10, 8, 3], procs=[2, 3, 1], n_procs=4)
    easy = run("easy", **kw)
    assert easy.start.tolist() == [0, 10, 1]
    assert easy.alloc[2] == ((2, 3),)
    fcfs = run("fcfs", **kw)
    assert fcfs.start.tolist() == [0, 10, 10]
    assert fcfs.alloc[1] == ((0, 3),) and fcfs.alloc[2] == ((3, 4),)


def test_easy_refuses_a_backfill_that_would_delay_the_head():
    """Job 3 fits now (1 proc free) but by its estimate ends at 21 > shadow 10,
    and extra = 4 - 4 = 0 processors: it must wait until the head has started."""
    s = run("easy", submit=[0, 1, 1], run_time=[10, 5, 5], requested=[10, 5, 20], procs=[3, 4, 1], n_procs=4)
    assert s.start.tolist() == [0, 10, 15]


def test_easy_backfills_a_long_job_on_extra_processors_and_uses_them_up():
    """Head needs 3 of 6 at shadow 10 (job 1 frees 4, 1 free now): extra = 5 - 3 = 2.
    Job 3 (2 procs, long) takes the extra; job 4 (1 proc, long) then exceeds extra 0
    although a processor is still free, so it waits."""
    s = run(
        "easy",
        submit=[0, 1, 2, 3],
        run_time=[10, 5, 50, 50],
        requested=[10, 5, 50, 50],
        procs=[3, 5, 2, 1],
        n_procs=6,
    )
    # t=0: job1 on 3, free 3. t=1: head job2 (5) blocked; shadow 10, extra 6-5=1... recomputed below
    assert s.start[0] == 0
    # At t=2: free 3, head needs 5; at 10 job1 frees 3 -> 6 free, extra 1; job3 (2 procs) > extra 1
    # and ends at 52 > 10: refused. At t=3: job4 (1 proc) <= extra 1: backfilled.
    assert s.start.tolist() == [0, 10, 15, 3]


def test_job_killed_at_walltime_frees_its_processors_then():
    """Job 1 runs 100 s but asked for 5: killed at 5, job 2 starts at 5."""
    s = run("fcfs", submit=[0, 0], run_time=[100, 3], requested=[5, 3], procs=[2, 2], n_procs=2)
    assert s.start.tolist() == [0, 5]
    assert s.end.tolist() == [5, 8]
    assert s.status.tolist() == [JobStatus.KILLED, JobStatus.COMPLETED]


def test_ties_completion_before_submission_and_submit_then_id():
    """At t=4 job 1 ends and jobs with ids 7 and 3 arrive: the completion frees the
    processors first, and the two arrivals go by id (3 before 7)."""
    s = run(
        "fcfs", submit=[0, 4, 4], run_time=[4, 2, 2], requested=[4, 2, 2], procs=[2, 2, 2], n_procs=2, ids=[1, 7, 3]
    )
    assert s.start.tolist() == [0, 6, 4]


def test_easy_shadow_counts_every_job_ending_exactly_then():
    """Jobs 1 and 2 both end at 10 (1 proc each); the head needs 2, 1 is free.
    extra counts both: 3 - 2 = 1, so a long 1-proc job backfills on it; the next
    one (which would end exactly at the shadow) finds no free processor left."""
    s = run(
        "easy",
        submit=[0, 0, 1, 1, 1],
        run_time=[10, 10, 5, 100, 9],
        requested=[10, 10, 5, 100, 9],
        procs=[1, 1, 2, 1, 1],
        n_procs=3,
    )
    # t=0: jobs 1,2 start (1 free). t=1: head job3 needs 2, shadow 10, extra = 3 - 2 = 1.
    # job4 (1 proc, long) uses the extra; job5 then has no free processor.
    assert s.start.tolist() == [0, 0, 10, 1, 15]


def test_easy_backfills_a_job_ending_exactly_at_the_shadow():
    """Head needs all 3 processors at shadow 10 (extra 0); a 1-proc job submitted at 1
    with estimate 9 ends exactly at 10, which is allowed."""
    s = run(
        "easy", submit=[0, 0, 1, 1], run_time=[10, 10, 5, 9], requested=[10, 10, 5, 9], procs=[1, 1, 3, 1], n_procs=3
    )
    assert s.start.tolist() == [0, 0, 10, 1]


def test_sjf_order_starts_the_shortest_estimate_first():
    s = run("fcfs", submit=[0, 1, 1], run_time=[5, 9, 2], requested=[5, 9, 2], procs=[1, 1, 1], n_procs=1, order="sjf")
    assert s.start.tolist() == [0, 7, 5]


@pytest.mark.parametrize("easy", [False, True])
@pytest.mark.parametrize("order", ["fcfs", "sjf"])
@settings(max_examples=150)
@given(instance=rigid_instances())
def test_matches_the_naive_reference(instance, easy, order):
    jobs = instance.jobs
    schedule = simulate(instance, make_policy("easy" if easy else "fcfs", {"order": order}))
    validate(instance, schedule)
    expected = reference_starts(
        jobs.submit.tolist(),
        jobs.run_time.tolist(),
        jobs.requested_time.tolist(),
        jobs.procs.tolist(),
        jobs.id.tolist(),
        instance.platform.n_procs,
        easy=easy,
        order=order,
    )
    assert schedule.start.tolist() == expected


def _used_at(schedule, procs, t):
    active = (schedule.start <= t) & (t < schedule.end)
    return int(procs[active].sum())


@settings(max_examples=150)
@given(instance=rigid_instances())
def test_fcfs_keeps_order_and_starts_the_head_as_soon_as_it_fits(instance):
    jobs = instance.jobs
    s = simulate(instance, make_policy("fcfs"))
    validate(instance, s)
    order = np.lexsort((jobs.id, jobs.submit))
    starts = s.start[order]
    assert (np.diff(starts) >= 0).all(), "a job started before an earlier-submitted one"
    event_times = np.unique(np.concatenate([jobs.submit, s.end]))
    prev_start = -np.inf
    for j in order:
        became_head = max(jobs.submit[j], prev_start)
        for t in event_times[(event_times >= became_head) & (event_times < s.start[j])]:
            free = instance.platform.n_procs - _used_at(s, jobs.procs, t)
            assert free < jobs.procs[j], f"job {jobs.id[j]} fitted at {t} but started at {s.start[j]}"
        prev_start = s.start[j]


@settings(max_examples=150)
@given(instance=rigid_instances())
def test_easy_never_starts_the_head_after_its_reservation(instance):
    """Whenever a job is the head, its start is no later than the shadow time computed
    then from the running jobs' estimated ends (an independent recomputation)."""
    jobs = instance.jobs
    s = simulate(instance, make_policy("easy"))
    validate(instance, s)
    order = np.lexsort((jobs.id, jobs.submit)).tolist()
    est_end = s.start + jobs.requested_time
    event_times = np.unique(np.concatenate([jobs.submit, s.end, s.start]))
    for k, j in enumerate(order):
        earlier = order[:k]
        for t in event_times[(event_times >= jobs.submit[j]) & (event_times < s.start[j])]:
            if any(s.start[e] > t for e in earlier):
                continue  # not the head at t
            running = np.flatnonzero((s.start <= t) & (t < s.end))
            free = instance.platform.n_procs - int(jobs.procs[running].sum())
            for end in sorted(est_end[running]):
                if free + int(jobs.procs[running][est_end[running] <= end].sum()) >= jobs.procs[j]:
                    assert s.start[j] <= end, f"head {jobs.id[j]} reserved at {end}, started {s.start[j]}"
                    break
