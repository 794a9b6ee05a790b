"""MoldableEDF, DBOS, Iterative, Improved Iterative, the SCOJO-P-like approximation and FCFS-sequential on
moldable tasks (Saule, Bozdag and Catalyurek 2014, sections 5-7): hand cases, invariants, brute-force checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import InputError
from schedlab.policies.stretch.dbos import dbos_plan, moldable_edf
from schedlab.policies.stretch.iterative import backfill, iterative_plan
from schedlab.policies.stretch.moldable import DBOS, ImprovedIterative, Iterative, MoldableFCFS, ScojoLike
from schedlab.policies.stretch.profile import build_profile, earliest_fit, smallest_fit
from schedlab.policies.stretch.scojo import efficient_procs, scaled_procs
from schedlab.validation import validate
from stretch_cases import moldable_instance, moldable_tables, table
from task_cases import tasks as sequential_tasks

NONE_RUNNING = (np.empty(0), np.empty(0, dtype=np.int64))


def run_moldable(tasks, m, policy):
    """Simulate ``policy`` on the engine with the moldable run-time model; the schedule passes the validator."""
    instance = moldable_instance(tasks, m)
    schedule = simulate(instance, policy)
    validate(instance, schedule)
    return schedule


def sizes(schedule):
    return np.array([sum(hi - lo for lo, hi in a) for a in schedule.alloc])


EIGHT = [8 / j for j in range(1, 5)]


@pytest.mark.parametrize("stretch, procs", [(0.5, 2), (0.375, 3), (0.25, 4), (1.0, 1)])
def test_moldable_edf_takes_the_smallest_count(stretch, procs):
    """Spec case 3: m = 4, p_j = 8 / j, r = 0: S = 0.5 gives D = 4 and j = 2; S = 0.375, D = 3, j = 3."""
    tasks = table(EIGHT)
    ok, start, count = moldable_edf(0.0, 4, *NONE_RUNNING, np.array([0]), tasks.release, tasks.times, stretch)
    assert ok and count.tolist() == [procs] and start.tolist() == [0.0]


@pytest.mark.parametrize("rho, procs", [(1.0, 4), (1.5, 3), (2.0, 2)])
def test_dbos_online_factor(rho, procs):
    """Spec case 3: the search's LB = 0.25 is feasible on 4 processors (S = 0.25); rho = 1.5 relaxes to
    D = 3 (3 processors, 8/3 <= 3), rho = 2 to D = 4 (2 processors)."""
    tasks = table(EIGHT)
    plan = dbos_plan(0.0, 4, *NONE_RUNNING, np.array([0]), tasks.release, tasks.times, rho=rho)
    assert plan.procs.tolist() == [procs] and plan.start.tolist() == [0.0]
    assert plan.stretch == pytest.approx(0.25 * rho)


def test_step_speedup_takes_four():
    """Spec case 4: p = (8, 8, 8, 2), D = 3: 1 to 3 processors miss, 4 meet it."""
    tasks = table([8, 8, 8, 2])
    ok, start, count = moldable_edf(0.0, 4, *NONE_RUNNING, np.array([0]), tasks.release, tasks.times, 3 / 8)
    assert ok and count.tolist() == [4]


def test_profile_backfilling():
    """Spec case 5: m = 2, one processor busy until 10. X (5 on 1 or 2 processors), D = 5: one processor at 0.

    The spec's "later task needing 2 processors" is made moldable here, since MoldableEDF chooses counts: a task
    (8 on 1 processor, 2 on 2) whose deadline 12 (S = 1.5) one processor misses (free at 5, ends at 13) takes
    both processors, which are free together only from 10, and ends at 12."""
    tasks = table([5, 5], [8, 2], release=[0, 0])
    running = (np.array([10.0]), np.array([1]))
    ok, start, count = moldable_edf(0.0, 2, *running, np.array([0]), tasks.release, tasks.times, 1.0)
    assert ok and count.tolist() == [1] and start.tolist() == [0.0]
    ok, start, count = moldable_edf(0.0, 2, *running, np.array([0, 1]), tasks.release, tasks.times, 1.5)
    assert ok and count.tolist() == [1, 2] and start.tolist() == [0.0, 10.0]
    T, F, size = build_profile(0.0, 2, *running, 4)
    assert earliest_fit(T, F, size, 2, 1.0)[0] == 10.0 and earliest_fit(T, F, size, 1, 100.0)[0] == 0.0


def test_iterative_keeps_one_processor_each():
    """Spec case 6, m = 2: a (4 on 1, 2 on 2), b (4, 3) at 0. Start at mean flow 4; a on 2: a 0-2, b 2-6, still 4,
    not strictly better; b on 2: 5.5, worse. Both stay on one processor."""
    tasks = table([4, 2], [4, 3])
    for improved in (False, True):
        plan = iterative_plan(0.0, 2, *NONE_RUNNING, np.array([0, 1]), tasks.release, tasks.times, improved=improved)
        assert plan.procs.tolist() == [1, 1] and plan.start.tolist() == [0.0, 0.0]


def test_improved_iterative_skips_a_flat_step():
    """Spec case 7: p = (8, 8, 8, 2): the original stops (no gain from 1 to 2); the improved one adds k = 3."""
    tasks = table([8, 8, 8, 2])
    original = iterative_plan(0.0, 4, *NONE_RUNNING, np.array([0]), tasks.release, tasks.times)
    improved = iterative_plan(0.0, 4, *NONE_RUNNING, np.array([0]), tasks.release, tasks.times, improved=True)
    assert original.procs.tolist() == [1] and improved.procs.tolist() == [4]


def test_scojo_like_steps():
    """Step 1: j p_j^2 is (64, 32, 36.75, 40.96) and (64, 128, 192, 16); step 2 scales by u m / (busy + demand + j)."""
    times = np.array([[8, 4, 3.5, 3.2], [8, 8, 8, 2]])
    assert efficient_procs(times).tolist() == [2, 4]
    assert scaled_procs(np.array([2, 4]), 100, 0, 0.0).tolist() == [95, 95]
    assert scaled_procs(np.array([2, 4]), 100, 90, 10.0).tolist() == [2, 4]
    assert scaled_procs(np.array([2, 40]), 100, 150, 40.0).tolist() == [1, 17]  # 40 x 95 / 230 = 16.5


def naive_earliest(reservations, now, m, procs, duration):
    """Oracle: try now and every reservation end as a start; check the free count at every breakpoint inside."""
    points = sorted({now} | {e for _, e, _ in reservations if e > now})
    for x in points:
        inside = [x] + [b for s, e, _ in reservations for b in (s, e) if x < b < x + duration]
        if all(m - sum(k for s, e, k in reservations if s <= t < e) >= procs for t in inside):
            return x
    raise AssertionError("no fit")


@st.composite
def decision_states(draw, max_m=5, max_n=6):
    m, tasks = draw(moldable_tables(max_m=max_m, max_n=max_n))
    n_run = draw(st.integers(0, m))
    run_procs = np.array([1] * n_run, dtype=np.int64)
    run_end = 10.0 + np.array(draw(st.lists(st.integers(1, 12), min_size=n_run, max_size=n_run)), dtype=float)
    return m, run_end, run_procs, tasks, draw(st.floats(0.05, 6.0))


@settings(max_examples=150)
@given(decision_states())
def test_moldable_edf_meets_deadlines_with_minimal_counts(state):
    """A feasible MoldableEDF plan meets every deadline, never uses more than m processors at once, and each
    count is the smallest that met its deadline when the task was placed (against a naive profile)."""
    m, run_end, run_procs, tasks, stretch = state
    rows = np.arange(len(tasks))
    ok, start, procs = moldable_edf(10.0, m, run_end, run_procs, rows, tasks.release, tasks.times, stretch)
    deadline = tasks.release + stretch * tasks.p1
    reservations = [(10.0, e, k) for e, k in zip(run_end.tolist(), run_procs.tolist())]
    for i in np.argsort(deadline, kind="stable"):
        fits = [
            j
            for j in range(1, m + 1)
            if naive_earliest(reservations, 10.0, m, j, tasks.times[i, j - 1]) + tasks.times[i, j - 1]
            <= deadline[i] + 1e-9
        ]
        if not fits:
            assert not ok
            return
        j = fits[0]
        x = naive_earliest(reservations, 10.0, m, j, tasks.times[i, j - 1])
        assert (procs[i], start[i]) == (j, x)
        reservations.append((x, x + tasks.times[i, j - 1], j))
    assert ok


@settings(max_examples=60)
@given(decision_states())
def test_dbos_plan_is_feasible_and_at_least_the_lower_bound(state):
    m, run_end, run_procs, tasks, _ = state
    rows = np.arange(len(tasks))
    for rho in (1.0, 1.5):
        plan = dbos_plan(10.0, m, run_end, run_procs, rows, tasks.release, tasks.times, rho=rho)
        end = plan.start + tasks.times[rows, plan.procs - 1]
        assert np.all(plan.start >= 10.0) and np.all(end <= tasks.release + plan.stretch * tasks.p1 + 1e-6)
        lower = np.max((10.0 - tasks.release + tasks.times[:, -1]) / tasks.p1)
        assert plan.stretch >= lower - 1e-9


POLICIES = [lambda: DBOS(rho=1.0), lambda: DBOS(rho=1.5), Iterative, ImprovedIterative, ScojoLike, MoldableFCFS]


@settings(max_examples=40, deadline=None)
@given(moldable_tables(max_m=4, max_n=8), st.sampled_from(range(len(POLICIES))))
def test_invariants_of_every_moldable_policy(case, which):
    """On the engine, checked by the validator (sigma_i >= r_i, C_i = sigma_i + p_{i,pi_i} from the model, no
    processor used twice, every task completes): stretch >= p_{i,m} / p_{i,1}; FCFS-sequential uses one processor."""
    m, tasks = case
    schedule = run_moldable(tasks, m, POLICIES[which]())
    rows = np.arange(len(tasks))
    procs = sizes(schedule)
    assert np.all((1 <= procs) & (procs <= m))
    assert np.allclose(schedule.end, schedule.start + tasks.times[rows, procs - 1])
    stretch = (schedule.end - tasks.release) / tasks.p1
    assert np.all(stretch >= tasks.times[:, m - 1] / tasks.p1 - 1e-12)
    if which == len(POLICIES) - 1:
        assert np.all(procs == 1)


def test_dbos_run_on_the_hand_case():
    """One task alone (spec case 3) under the online policy: DBOS(1.5) starts it at 0 on 3 processors, ends at 8/3."""
    schedule = run_moldable(table(EIGHT), 4, DBOS(rho=1.5))
    assert sizes(schedule).tolist() == [3] and schedule.end.tolist() == [8 / 3] and schedule.alloc[0] == ((0, 3),)


def test_same_input_same_run():
    rng = np.random.default_rng(2)
    rows = [np.minimum.accumulate(rng.uniform(1, 30) / np.arange(1, 9) ** rng.uniform(0, 1)) for _ in range(40)]
    tasks = table(*rows, release=np.sort(rng.uniform(0, 40, 40)))
    a, b = run_moldable(tasks, 8, DBOS()), run_moldable(tasks, 8, DBOS())
    assert a.start.tobytes() == b.start.tobytes() and a.alloc == b.alloc


@pytest.mark.parametrize(
    "policy, match",
    [
        (DBOS(rho=0.0), "rho"),
        (DBOS(rho=-1.0), "rho"),
        (DBOS(eps=2.0), "eps"),
        (ScojoLike(utilisation=1.5), "utilisation"),
        (ScojoLike(window=1), "window"),
    ],
)
def test_bad_parameters(policy, match):
    with pytest.raises(InputError, match=match):
        run_moldable(table(EIGHT), 4, policy)


def test_table_narrower_than_the_machine():
    with pytest.raises(InputError, match="machine size 8"):
        run_moldable(table(EIGHT), 8, DBOS())


@pytest.mark.parametrize("policy", [DBOS, Iterative, ScojoLike, MoldableFCFS])
def test_rigid_jobs_are_refused(policy):
    """Without a run-time table (rigid sequential jobs) a moldable policy cannot choose sizes: one-line error."""
    with pytest.raises(InputError, match="moldable tasks"):
        simulate(sequential_tasks([0, 1], [3, 4], m=2), policy())


def test_smallest_fit_when_nothing_fits():
    T, F, size = build_profile(0.0, 2, np.array([5.0]), np.array([2]), 4)
    assert smallest_fit(T, F, size, np.array([3.0, 2.0]), 4.0)[0] == 0
    assert smallest_fit(T, F, size, np.array([3.0, 2.0]), 7.0)[:2] == (2, 5.0)


@st.composite
def convex_rows(draw, max_m=6, max_n=5):
    m = draw(st.integers(2, max_m))
    n = draw(st.integers(1, max_n))
    rows = []
    for _ in range(n):
        drops = sorted(draw(st.lists(st.integers(0, 6), min_size=m - 1, max_size=m - 1)), reverse=True)
        rows.append(np.concatenate([[50.0], 50.0 - np.cumsum(drops)]))
    release = np.sort(np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=float))
    return m, table(*rows, release=release)


@settings(max_examples=60)
@given(convex_rows())
def test_improved_iterative_equals_iterative_on_convex_speedups(case):
    """Saule et al. (2014), section 5.4: with decreasing run-time drops the best k is 1, so both variants agree."""
    m, tasks = case
    rows = np.arange(len(tasks))
    a = iterative_plan(5.0, m, *NONE_RUNNING, rows, tasks.release, tasks.times)
    b = iterative_plan(5.0, m, *NONE_RUNNING, rows, tasks.release, tasks.times, improved=True)
    assert a.procs.tolist() == b.procs.tolist() and a.start.tolist() == b.start.tolist()
    T, F, size = build_profile(5.0, m, *NONE_RUNNING, 1)
    _, one_each = backfill(T, F, size, rows, tasks.release, tasks.times, np.ones(len(tasks), dtype=np.int64))
    assert np.mean(a.start + tasks.times[rows, a.procs - 1] - tasks.release) <= one_each + 1e-9
