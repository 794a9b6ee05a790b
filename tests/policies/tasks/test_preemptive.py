"""GSRPT and SRPT, the preemptive references of seed 004 (spec 004-redirections sections 3.2, 3.3, 8)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import IllegalDecision
from schedlab.metrics import job_metrics
from schedlab.policies.tasks.preemptive import delta_flow_preempting
from schedlab.registry import make_policy
from schedlab.validation import validate
from task_cases import paper_example, tasks


def run(instance, name, **params):
    schedule = simulate(instance, make_policy(name, params))
    validate(instance, schedule)
    return schedule


def total_flow(instance, schedule):
    return float(job_metrics(instance, schedule)["response"].sum())


@pytest.mark.parametrize("name", ["gsrpt", "srpt"])
def test_paper_example_on_one_processor(name):
    """Spec section 8, case 1: each unit task preempts T0 and runs over [i, i + 1]; T0 ends at 20: total flow 30.

    T0 runs [0, 1), resumes at each completion and is preempted at once by the next arrival (no trace left),
    and runs its last 9 s from 11."""
    instance = tasks(*paper_example(), m=1)
    schedule = run(instance, name)
    assert total_flow(instance, schedule) == 30
    assert schedule.start.tolist() == [11] + list(range(1, 11))
    assert schedule.end[0] == 20
    assert [(p.job, p.start, p.end, p.kept) for p in schedule.aborted] == [(0, 0, 1, True)]


def test_srpt_exception_value():
    """Spec section 8, case 4: preempting a task with 5 left, queue {6, 8}, p = 3: 3 + 3 * 3 = 12."""
    assert delta_flow_preempting(3, 5, [6, 8]) == 12


@given(
    st.lists(st.tuples(st.integers(0, 10), st.integers(1, 8)), min_size=1, max_size=5),
    st.sampled_from(["gsrpt", "srpt"]),
)
def test_srpt_beats_every_non_preemptive_order_on_one_processor(jobs, name):
    """Spec section 8: on one processor SRPT's total flow is at most that of any non-preemptive schedule
    (each order, every task started as early as possible)."""
    release, p = map(list, zip(*jobs))
    instance = tasks(release, p, 1)
    best = float("inf")
    for order in itertools.permutations(range(len(p))):
        t, flow = 0.0, 0.0
        for j in order:
            t = max(t, release[j]) + p[j]
            flow += t - release[j]
        best = min(best, flow)
    assert total_flow(instance, run(instance, name)) <= best + 1e-9


@given(st.lists(st.tuples(st.integers(0, 10), st.integers(1, 8)), min_size=1, max_size=8), st.integers(2, 3))
def test_gsrpt_never_leaves_a_processor_idle_while_a_task_waits(jobs, m):
    """Work conservation at every event time: a released, unfinished task that is not running means m busy processors."""
    release, p = map(list, zip(*jobs))
    instance = tasks(release, p, m)
    schedule = run(instance, "gsrpt")
    executions = [(x.job, x.start, x.end) for x in schedule.aborted]
    executions += [(j, s, e) for j, (s, e) in enumerate(zip(schedule.start, schedule.end))]
    for t in {x for _, s, e in executions for x in (s, e)} | set(release):
        running = {j for j, s, e in executions if s <= t < e}
        waiting = [j for j in range(len(p)) if release[j] <= t < schedule.end[j] and j not in running]
        if waiting:
            assert len(running) == m


def test_preemption_keeps_the_work_done():
    instance = tasks([0, 2], [10, 1], 1)
    schedule = run(instance, "srpt")
    [piece] = schedule.aborted
    assert (piece.job, piece.start, piece.end, piece.kept) == (0, 0, 2, True)
    assert schedule.start.tolist() == [3, 2] and schedule.end.tolist() == [11, 3]  # 8 s left after the preemption


def test_engine_refuses_to_preempt_a_job_that_is_not_running():
    class Eager:
        name, clairvoyant = "eager", False

        def reset(self, ctx):
            self.ctx = ctx

        def submit(self, rows, now):
            self.ctx.preempt(rows[0])

        def complete(self, rows, now):
            pass

        def schedule(self, now):
            pass

        def describe(self):
            return "eager()"

    with pytest.raises(IllegalDecision, match="cannot preempt job 1: it is queued"):
        simulate(tasks([0], [1], 1), Eager())


def test_metrics_of_a_preempted_task_count_all_its_work_once():
    """Task 0 (p 10) runs [0, 2), is preempted by task 1 (p 1) over [2, 3), resumes [3, 11): its execution is
    10 s (bounded stretch 11 / 10), and the machine is busy 11 s out of 11."""
    from schedlab.metrics import aggregate

    instance = tasks([0, 2], [10, 1], 1)
    schedule = run(instance, "srpt")
    per_job = job_metrics(instance, schedule)
    assert per_job["execution"].tolist() == [10, 1]
    assert per_job["bsld_unclamped"].tolist() == [11 / 10, 1 / 10]
    assert aggregate(instance, schedule)["utilization"] == 1.0
