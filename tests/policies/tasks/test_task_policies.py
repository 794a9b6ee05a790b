"""GSPT/SPT families and redirection: the hand-checkable cases, reductions and invariants of
spec 004-redirections section 8 (seed 004)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import InputError
from schedlab.metrics import job_metrics
from schedlab.platform import Machine
from schedlab.policies.tasks.dispatch import delta_flow
from schedlab.registry import make_policy
from schedlab.schedule import Instance
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from task_cases import paper_example, tasks


def run(instance, name, **params):
    schedule = simulate(instance, make_policy(name, params))
    validate(instance, schedule)
    return schedule


def flows(instance, schedule):
    return job_metrics(instance, schedule)["response"]


@pytest.mark.parametrize("name", ["gspt-rd", "spt-rd"])
def test_threshold_redirection_on_the_paper_example(name):
    """T0 is overtaken at t = 1, 2, 3, aborted at 3 (3 units lost) and rerun on the dedicated processor
    over [3, 13]; the short tasks run on the main processor over [i + 2, i + 3]: total flow 43, max 13."""
    instance = tasks(*paper_example(), m=2)
    schedule = run(instance, name, dedicated=1, tau=3)
    f = flows(instance, schedule)
    assert f.sum() == 43 and f.max() == 13
    assert schedule.start.tolist() == [3] + [i + 2 for i in range(1, 11)]
    assert schedule.alloc[0] == ((1, 2),) and all(a == ((0, 1),) for a in schedule.alloc[1:])
    [piece] = schedule.aborted
    assert (piece.job, piece.start, piece.end, piece.alloc) == (0, 0, 3, ((0, 1),))
    stretch = job_metrics(instance, schedule)["bsld_unclamped"]
    assert stretch.sum() == pytest.approx(4.3)


def test_gspt_on_one_processor_runs_the_long_task_first():
    instance = tasks(*paper_example(), m=1)
    assert flows(instance, run(instance, "gspt")).sum() == 110


def test_random_redirection_sends_the_heavy_task_away():
    """Spec section 8, case 2: b = 0.5, c = 1: T0 is potentially heavy and runs on the dedicated pool over
    [0, 10]; every short task has flow 1 (total 20). With c = 0 it is GSPT on the main processor."""
    instance = tasks(*paper_example(), m=2)
    schedule = run(instance, "gspt-rr", dedicated=1, b=0.5, c=1.0)
    assert flows(instance, schedule).sum() == 20 and schedule.alloc[0] == ((1, 2),)
    none = run(instance, "gspt-rr", dedicated=1, b=0.5, c=0.0)
    assert flows(instance, none).sum() == 110


def test_spt_dispatch_by_marginal_flow_increase():
    """Spec section 8, case 3 (m = 2): a (p 4) ties at 4 and goes to M1; b (p 2): 6 vs 2, M2;
    c (r 1, p 1): 3 + 1 = 4 on M1 vs 1 + 1 = 2 on M2, so M2 runs it over [2, 3]. Flows 4, 2, 2."""
    instance = tasks([0, 0, 1], [4, 2, 1], m=2)
    schedule = run(instance, "spt")
    assert [a[0][0] for a in schedule.alloc] == [0, 1, 1]
    assert schedule.start.tolist() == [0, 0, 2]
    assert flows(instance, schedule).tolist() == [4, 2, 2]


def test_delta_flow_values():
    """Spec section 8, case 4: remaining 5, queue {2, 6}, p = 3: general 13; SPT-RD redirect case -2."""
    assert delta_flow(3, 5, [2, 6]) == 13
    assert delta_flow(3, 5, [2, 6], redirects=True) == -2
    assert delta_flow(3, 0, []) == 3


@st.composite
def task_instances(draw, max_tasks=9, max_m=4):
    n = draw(st.integers(1, max_tasks))
    release = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(1, 15), min_size=n, max_size=n))
    return release, p, draw(st.integers(2, max_m))


ALL = [
    ("gspt", {}),
    ("spt", {}),
    ("gspt-rd", {"tau": 1}),
    ("gspt-rd", {"tau": 2}),
    ("spt-rd", {"tau": 1}),
    ("spt-rd", {"tau": 2}),
    ("gspt-rr", {"b": 0.3, "c": 0.5}),
    ("spt-rr", {"b": 0.3, "c": 0.5}),
]


@pytest.mark.parametrize(("name", "params"), ALL)
@given(case=task_instances())
def test_valid_and_pools_never_mix(name, params, case):
    release, p, m = case
    instance = tasks(release, p, m)
    if name.endswith(("-rd", "-rr")):
        params = {**params, "dedicated": 1}
    schedule = run(instance, name, **params)
    main = m - params.get("dedicated", 0)
    redirected = {piece.job for piece in schedule.aborted}
    for row, alloc in enumerate(schedule.alloc):
        on_dedicated = alloc[0][0] >= main
        if name.endswith("-rd"):
            assert on_dedicated == (row in redirected)
        elif not name.endswith("-rr"):
            assert not on_dedicated
    assert all(piece.alloc[0][0] < main for piece in schedule.aborted)  # aborted on the main pool only


@pytest.mark.parametrize(("red", "base"), [("gspt-rd", "gspt"), ("spt-rd", "spt")])
@given(case=task_instances())
def test_threshold_above_n_is_the_base_policy_on_the_main_pool(red, base, case):
    release, p, m = case
    redirected = run(tasks(release, p, m), red, dedicated=1, tau=len(p) + 1)
    plain = run(tasks(release, p, m - 1), base)
    assert redirected.start.tolist() == plain.start.tolist() and not redirected.aborted


@pytest.mark.parametrize(("red", "base"), [("gspt-rr", "gspt"), ("spt-rr", "spt")])
@given(case=task_instances())
def test_probability_zero_is_the_base_policy_on_the_main_pool(red, base, case):
    release, p, m = case
    assert (
        run(tasks(release, p, m), red, dedicated=1, c=0.0).start.tolist()
        == run(tasks(release, p, m - 1), base).start.tolist()
    )


@given(case=task_instances(), tau=st.integers(1, 3))
def test_one_main_and_one_dedicated_processor_make_spt_rd_equal_gspt_rd(case, tau):
    release, p, _ = case
    instance = tasks(release, p, 2)
    assert run(instance, "spt-rd", tau=tau).start.tolist() == run(instance, "gspt-rd", tau=tau).start.tolist()


@given(p=st.lists(st.integers(1, 20), min_size=1, max_size=6), name=st.sampled_from(["gspt", "spt"]))
def test_spt_minimises_total_flow_on_one_processor_without_releases(p, name):
    """With batched arrivals (A2's option); one at a time, the first arrival starts before the others arrive."""
    instance = tasks([0] * len(p), p, 1)
    best = min(sum(itertools.accumulate(order)) for order in itertools.permutations(p))
    assert flows(instance, run(instance, name, batch=True)).sum() == best
    rest = sorted(p[1:])
    assert flows(instance, run(instance, name)).sum() == len(p) * p[0] + sum(itertools.accumulate(rest))


@pytest.mark.parametrize("name", ["gspt", "gspt-rd"])
@given(case=task_instances())
def test_common_queue_keeps_main_processors_busy_while_tasks_wait(name, case):
    release, p, m = case
    instance = tasks(release, p, m)
    params = {"dedicated": 1, "tau": 2} if name == "gspt-rd" else {}
    schedule = run(instance, name, **params)
    main = m - params.get("dedicated", 0)
    executions = [(s, e) for s, e, a in zip(schedule.start, schedule.end, schedule.alloc) if a[0][0] < main]
    executions += [(piece.start, piece.end) for piece in schedule.aborted]
    for r, s, alloc in zip(release, schedule.start, schedule.alloc):
        if alloc[0][0] >= main:
            continue  # redirected: waits for the dedicated pool
        for t in {r} | {e for _, e in executions if r < e < s}:
            if t < s:
                assert sum(a <= t < b for a, b in executions) == main


def test_same_seed_same_random_redirections():
    rng = np.random.default_rng(5)
    instance = tasks(rng.integers(0, 50, 40).tolist(), rng.integers(1, 30, 40).tolist(), 4)
    first = simulate(instance, make_policy("spt-rr", {"dedicated": 2, "c": 0.5}), rng=np.random.default_rng(3))
    second = simulate(instance, make_policy("spt-rr", {"dedicated": 2, "c": 0.5}), rng=np.random.default_rng(3))
    other = simulate(instance, make_policy("spt-rr", {"dedicated": 2, "c": 0.5}), rng=np.random.default_rng(4))
    assert first.alloc == second.alloc and first.alloc != other.alloc


@pytest.mark.parametrize(
    ("name", "params", "field"),
    [
        ("gspt-rd", {"dedicated": 2}, "dedicated"),  # m = 2 leaves no main processor
        ("spt-rd", {"tau": 0}, "tau"),
        ("gspt-rr", {"c": 1.5}, "gspt-rr c"),
    ],
)
def test_bad_parameters_are_input_errors(name, params, field):
    with pytest.raises(InputError, match=field):
        simulate(tasks([0], [1], 2), make_policy(name, params))


def test_bool_parameters_parse_from_strings():
    assert make_policy("gspt-rd", {"count_if_idle": "false"}).count_if_idle is False
    with pytest.raises(InputError, match="count_if_idle"):
        make_policy("gspt-rd", {"count_if_idle": "maybe"})


@given(st.lists(st.tuples(st.integers(0, 10), st.integers(1, 8)), min_size=1, max_size=6))
def test_fcfs_minimises_max_flow_on_one_processor(jobs):
    """Spec section 8: on one processor FCFS has the smallest maximum flow of all non-preemptive schedules
    (each order, every task started as early as possible)."""
    release, p = map(list, zip(*jobs))
    instance = tasks(release, p, 1)
    best = float("inf")
    for order in itertools.permutations(range(len(p))):
        t, worst = 0.0, 0.0
        for j in order:
            t = max(t, release[j]) + p[j]
            worst = max(worst, t - release[j])
        best = min(best, worst)
    assert flows(instance, run(instance, "fcfs")).max() == best


def _full_scan(policy):
    """``policy`` choosing its processor by the plain scan of every processor of the pool (spec 3.3), the
    reference for the pruned search of :meth:`Dispatch._choose`."""

    def choose(p, pool, now, *, threshold):
        best, choice = float("inf"), -1
        redirection = policy.redirection
        for i in policy.pools[pool]:
            k = policy.running[i]
            remaining = policy.end[i] - now if k >= 0 else 0.0
            redirects = threshold and k >= 0 and p < remaining and policy.counter[k] == redirection.tau - 1
            d = delta_flow(p, remaining, policy.lengths[i], redirects=redirects)
            if d < best:
                best, choice = d, i
        return choice

    policy._choose = choose
    return policy


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("spt", {}),
        ("spt-rd", {"tau": 1}),
        ("spt-rd", {"tau": 2}),
        ("spt-rd", {"tau": 3}),
        ("spt-rr", {"b": 0.3, "c": 0.5}),
    ],
)
@given(case=task_instances(max_tasks=14, max_m=6), dedicated=st.integers(1, 2))
def test_pruned_dispatch_chooses_as_the_full_scan(name, params, batch, case, dedicated):
    release, p, m = case
    if name != "spt":
        params = {**params, "dedicated": min(dedicated, m - 1)}
    params = {**params, "batch": batch}
    instance = tasks(release, p, m)
    fast = simulate(instance, make_policy(name, params), rng=np.random.default_rng(5))
    slow = simulate(instance, _full_scan(make_policy(name, params)), rng=np.random.default_rng(5))
    assert fast.start.tolist() == slow.start.tolist() and fast.alloc == slow.alloc
    assert [(a.job, a.start, a.alloc) for a in fast.aborted] == [(a.job, a.start, a.alloc) for a in slow.aborted]


@pytest.mark.parametrize("name", ["gspt", "spt", "gspt-rd", "spt-rd", "gspt-rr", "spt-rr", "gsrpt", "srpt"])
def test_actions_reach_the_engine_in_its_scheduling_pass(name):
    """Decisions are taken at the events, but every start, abort and preemption reaches the engine in
    ``schedule(now)``, the one pass per event time, as for every other policy."""
    from schedlab.engine.simulator import Context

    phase = {"in_schedule": False, "actions": 0}
    policy = make_policy(name, {"dedicated": 1} if name.endswith(("-rd", "-rr")) else {})
    original = policy.schedule

    def schedule(now):
        phase["in_schedule"] = True
        original(now)
        phase["in_schedule"] = False

    policy.schedule = schedule
    calls = {}
    for action in ("start", "abort", "preempt"):
        calls[action] = getattr(Context, action)

        def guarded(self, *args, _action=action):
            assert phase["in_schedule"], f"{_action} outside schedule()"
            phase["actions"] += 1
            return calls[_action](self, *args)

        setattr(Context, action, guarded)
    try:
        jobs = JobTable.from_arrays(submit=[0, 0, 1, 1, 2, 2, 3], run_time=[9, 1, 8, 1, 7, 1, 1], procs=[1] * 7)
        validate(Instance(jobs, Machine(3)), simulate(Instance(jobs, Machine(3)), policy))
    finally:
        for action, original_action in calls.items():
            setattr(Context, action, original_action)
    assert phase["actions"] >= 7


def test_gspt_rd_counts_only_arrivals_that_wait():
    """Three main processors and one dedicated, tau = 1: T0 (p = 100) runs from 0; T1 (p = 1) arrives at 1
    while two main processors are idle and starts at once: it is delayed by nothing and does not count, so T0
    keeps running. T2, T3 (p = 50) fill the main pool at 2; T4 (p = 1) arrives at 3 and waits: it counts
    against T0 (the longest remaining time), which restarts on the dedicated processor at 3.

    The literal reading (count_if_idle) redirects T0 at 1, when T1 arrives; T4 then counts against T2."""
    instance = tasks([0, 1, 2, 2, 3], [100, 1, 50, 50, 1], m=4)
    schedule = run(instance, "gspt-rd", dedicated=1, tau=1)
    assert [(p.job, p.start, p.end) for p in schedule.aborted] == [(0, 0, 3)]
    assert schedule.start[0] == 3 and schedule.alloc[0] == ((3, 4),)
    literal = run(instance, "gspt-rd", dedicated=1, tau=1, count_if_idle=True)
    assert [(p.job, p.start, p.end) for p in literal.aborted] == [(0, 0, 1), (2, 2, 3)]
    assert literal.start[0] == 1 and literal.alloc[0] == ((3, 4),)
    assert make_policy("gspt-rd", {}).count_if_idle is False
    assert (
        make_policy("gspt-rd", {"count_if_idle": True}).describe() == "gspt-rd(dedicated=1, tau=3, count_if_idle=True)"
    )


@pytest.mark.parametrize(
    ("name", "params"), [("spt", {}), ("spt-rd", {"tau": 1}), ("spt-rd", {"tau": 2}), ("spt-rr", {"b": 0.3, "c": 0.5})]
)
@given(case=task_instances(max_tasks=14, max_m=6))
def test_batch_end_starts_the_idle_processors_of_the_plain_scan(name, params, case):
    """When a batch of arrivals ends, the processors read from the busy lists are those the plain scan finds idle
    with a queue, in increasing order."""
    release, p, m = case
    if name != "spt":
        params = {**params, "dedicated": 1}
    policy = make_policy(name, {**params, "batch": True})
    indexed = policy._idle_with_queue
    calls = []

    def checked():
        plain = [i for i, row in enumerate(policy.running) if row < 0 and policy.waiting[i]]
        calls.append((indexed(), plain))
        return calls[-1][0]

    policy._idle_with_queue = checked
    instance = tasks(release, p, m)
    validate(instance, simulate(instance, policy, rng=np.random.default_rng(5)))
    assert calls and all(fast == slow for fast, slow in calls), calls
