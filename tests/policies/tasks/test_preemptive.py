"""GSRPT and SRPT, the preemptive references of seed 004 (spec 004-redirections sections 3.2, 3.3, 8)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import IllegalDecision
from schedlab.metrics import job_metrics
from schedlab.policies.tasks.dispatch import INF, delta_flow
from schedlab.policies.tasks.preemptive import LatestEnd, delta_flow_preempting
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


def _scan_choice(policy, p, now):
    """The plain scan of every processor as SRPT dispatched before its index (reading LMT-A3), the reference for
    ``SRPT._choose``: the first processor with the strictly smallest increase, the preempting increase counting
    the overtaken queued tasks one by one."""
    best, choice = float("inf"), -1
    for i, k in enumerate(policy.running):
        left = policy.end[i] - now if k >= 0 else 0.0
        if k >= 0 and p < left:
            d = p + p * (sum(1 for q in policy.lengths[i] if q > p) + (left > p))
        else:
            d = delta_flow(p, left, policy.lengths[i])
        if d < best:
            best, choice = d, i
    return choice


# Lengths and release times whose sums round (0.1 + 0.2), or vanish beside a long task (1e7 + 1e-10 == 1e7):
# the increases of different processors tie often, exactly or by rounding.
AWKWARD = [1e-10, 0.1, 0.2, 0.3, 1 / 3, 1e7]


@st.composite
def awkward_tasks(draw):
    n = draw(st.integers(1, 16))
    times = st.one_of(st.integers(0, 4).map(float), st.sampled_from(AWKWARD[:-1]))
    release = draw(st.lists(times, min_size=n, max_size=n))
    p = draw(st.lists(st.one_of(st.integers(1, 5).map(float), st.sampled_from(AWKWARD)), min_size=n, max_size=n))
    return sorted(release), p, draw(st.integers(1, 6))


@pytest.mark.parametrize("batch", [False, True])
@settings(max_examples=300)
@given(case=awkward_tasks())
def test_srpt_dispatch_chooses_as_the_plain_scan(batch, case):
    """At every arrival the indexed choice is the plain scan's, ties included, and so is the schedule."""
    instance = tasks(*case)
    policy = make_policy("srpt", {"batch": batch})
    indexed = policy._choose
    calls = []

    def checked(p, now):
        calls.append((indexed(p, now), _scan_choice(policy, p, now)))
        return calls[-1][0]

    policy._choose = checked
    schedule = simulate(instance, policy)
    validate(instance, schedule)
    assert len(calls) == len(case[1])
    assert all(fast == slow for fast, slow in calls), calls
    reference = make_policy("srpt", {"batch": batch})
    reference._choose = lambda p, now: _scan_choice(reference, p, now)
    plain = simulate(instance, reference)
    assert schedule.start.tolist() == plain.start.tolist() and schedule.alloc == plain.alloc
    assert [(a.job, a.start, a.end, a.alloc) for a in schedule.aborted] == [
        (a.job, a.start, a.end, a.alloc) for a in plain.aborted
    ]


@pytest.mark.parametrize("batch", [False, True])
def test_srpt_tie_by_rounding_goes_to_the_first_processor(batch):
    """At time 0 a task of 1e7 s costs 1e7 on the free processor 1 and 1e7 + 1e-10 == 1e7 on processor 0, which
    holds the task of 1e-10 s (running, or queued until the batch ends): the tie goes to processor 0, the first,
    where the long task waits for 1e-10 s."""
    instance = tasks([0, 0], [1e-10, 1e7], 2)
    schedule = run(instance, "srpt", batch=batch)
    assert schedule.start.tolist() == [0, 1e-10]
    assert schedule.alloc == [((0, 1),), ((0, 1),)]


def test_srpt_tie_between_preempting_and_waiting_goes_to_the_first_processor():
    """At time 1 the task of 1 s costs 1 + 1 = 2 behind task 1 (1 s left, no preemption: 1 < 1 fails) on
    processor 1, and 1 + 1 = 2 preempting task 0 (4 s left) on processor 0: it goes to processor 0 and preempts."""
    instance = tasks([0, 0, 1], [5, 2, 1], 2)
    schedule = run(instance, "srpt")
    assert schedule.alloc == [((0, 1),), ((1, 2),), ((0, 1),)]
    assert schedule.start.tolist() == [2, 0, 1]
    assert [(a.job, a.start, a.end) for a in schedule.aborted] == [(0, 0, 1)]


@settings(max_examples=300)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.sampled_from([-INF, 0.0, 0.1, 0.3, 1.0, 2.0, 3.0])), max_size=30),
    st.integers(1, 7),
    st.sampled_from([1e-10, 0.2, 1.0, 2.0]),
    st.sampled_from([0.0, 0.1, 1.0]),
)
def test_latest_end_finds_the_first_processor_ending_later(updates, m, p, now):
    """The segment tree's answer is the lowest processor with ``p < end - now``, after any updates."""
    ends = [-INF] * m
    tree = LatestEnd(m)
    for processor, end in updates:
        if processor < m:
            ends[processor] = end
            tree.set(processor, end)
        expected = next((i for i, e in enumerate(ends) if p < e - now), -1)
        assert tree.first_over(p, now) == expected
