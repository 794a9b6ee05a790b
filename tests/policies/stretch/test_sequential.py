"""FCFS, DASEDF, reservation and Split on sequential tasks (Saule, Bozdag and Catalyurek 2014, sections 2-4):
the hand-checkable cases, Theorems 3.1 and 3.3, and the invariants of every run."""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import InputError
from schedlab.policies.stretch import DASEDF, Split, StretchFCFS
from schedlab.policies.stretch.edf import edf_order, list_schedule
from schedlab.policies.stretch.planners import dasedf_stretch
from schedlab.policies.stretch.sequential import split_groups
from schedlab.validation import validate
from task_cases import tasks


def run(instance, policy):
    schedule = simulate(instance, policy)
    validate(instance, schedule)
    return schedule


def stretches(instance, schedule):
    jobs = instance.jobs
    return (schedule.end - jobs.submit) / jobs.run_time


def test_fcfs_19_against_dasedf_9():
    """Spec case 1, m = 1: T0 (p 10, r 0) runs first; L (p 10, r 1), s (p 1, r 2).
    FCFS: L over [10, 20] (1.9), s over [20, 21] (19). DASEDF at t = 10: S = 9, s over [10, 11], L over [11, 21] (2.0)."""
    instance = tasks([0, 1, 2], [10, 10, 1], m=1)
    fcfs = run(instance, StretchFCFS())
    assert fcfs.start.tolist() == [0, 10, 20]
    assert stretches(instance, fcfs).tolist() == pytest.approx([1, 1.9, 19])
    dasedf = run(instance, DASEDF())
    assert dasedf.start.tolist() == [0, 11, 10]
    assert stretches(instance, dasedf).tolist() == pytest.approx([1, 2.0, 9])


def test_dasedf_target_is_nine_at_time_ten():
    release, p = np.array([1.0, 2.0]), np.array([10.0, 1.0])
    s = dasedf_stretch(10.0, np.array([10.0]), release, p)
    assert s == pytest.approx(9.0)
    assert edf_order(release, p, s).tolist() == [1, 0]


@pytest.mark.parametrize("policy", [StretchFCFS(), DASEDF()])
def test_adversary_of_theorem_2_1(policy):
    """Spec case 2, m = 1: A (p = Delta) at 0 starts at once, B (p = 1) at eps waits: s_B = Delta + 1 - eps."""
    delta, eps = 20.0, 0.25
    instance = tasks([0, eps], [delta, 1], m=1)
    assert stretches(instance, run(instance, policy))[1] == pytest.approx(delta + 1 - eps)
    assert brute_force_optimum((0, eps), (delta, 1), 1) < 2


def test_split_groups_by_thresholds():
    """Spec case 8: rho = 2, p_min = 1, p_max = 100: threshold 10; p < 10 in group 0, 10 <= p <= 100 in group 1."""
    p = np.array([1, 9.999, 10, 50, 100, 200])
    assert split_groups(p, 2, 1.0, 100.0).tolist() == [0, 0, 1, 1, 1, 1]
    assert split_groups(np.array([0.5, 1, 4.64, 4.65, 21.5, 21.6]), 3, 1.0, 100.0).tolist() == [0, 0, 0, 1, 1, 2]


def test_split_equals_independent_fcfs_runs():
    """Spec case 8: Split(rho = 2) over 2 x 2 processors = FCFS on 2 processors for each group's tasks."""
    rng = np.random.default_rng(3)
    release = np.sort(rng.integers(0, 40, 30)).astype(float)
    p = rng.integers(1, 101, 30).astype(float)
    p[0], p[1] = 1, 100
    split = run(tasks(release, p, m=4), Split(groups=2, p_min=1, p_max=100))
    small = p < 10
    for mask, offset in ((small, 0), (~small, 2)):
        alone = run(tasks(release[mask], p[mask], m=2), StretchFCFS())
        assert split.start[mask].tolist() == alone.start.tolist()
        assert [a[0][0] - offset for a, keep in zip(split.alloc, mask) if keep] == [a[0][0] for a in alone.alloc]


@pytest.mark.parametrize("base", [StretchFCFS, DASEDF])
def test_reservation_reductions(base):
    """Spec case 9: T = inf is the base policy on m - X processors; X = 0 is the base policy."""
    rng = np.random.default_rng(5)
    release = np.sort(rng.integers(0, 30, 40)).astype(float)
    p = rng.integers(1, 20, 40).astype(float)
    reserved = run(tasks(release, p, m=5), base(reserved=2))
    assert reserved.start.tolist() == run(tasks(release, p, m=3), base()).start.tolist()
    assert max(a[0][1] for a in reserved.alloc) <= 3
    plain = run(tasks(release, p, m=5), base())
    assert run(tasks(release, p, m=5), base(reserved=0, threshold=1.5)).start.tolist() == plain.start.tolist()


def test_reservation_sends_a_task_to_the_auxiliary_part():
    """m = 2, X = 1, T = 1.5: the long task holds the main processor; the short one released at 1 would
    wait until 10 there (stretch 10 >= T), so it goes to the auxiliary processor and runs at once."""
    instance = tasks([0, 1], [10, 1], m=2)
    schedule = run(instance, DASEDF(reserved=1, threshold=1.5))
    assert schedule.start.tolist() == [0, 1] and schedule.alloc[1] == ((1, 2),)
    assert run(instance, DASEDF(reserved=1)).start.tolist() == [0, 10]


@pytest.mark.parametrize(
    "policy, match",
    [
        (DASEDF(validity="other"), "validity"),
        (DASEDF(reserved=3), "reserved"),
        (Split(groups=3), "groups"),
        (Split(base="easy"), "base"),
        (DASEDF(eps=0.0), "eps"),
    ],
)
def test_bad_parameters(policy, match):
    with pytest.raises(InputError, match=match):
        simulate(tasks([0], [1], m=2), policy)


@cache
def _one_machine(release: tuple, p: tuple) -> float:
    best = math.inf
    for order in itertools.permutations(range(len(p))):
        time, worst = 0.0, 0.0
        for i in order:
            time = max(time, release[i]) + p[i]
            worst = max(worst, (time - release[i]) / p[i])
        best = min(best, worst)
    return best


def brute_force_optimum(release, p, m) -> float:
    """Optimal maximum stretch: every machine assignment, each machine's best order with starts as soon as possible."""
    n = len(p)
    best = math.inf
    for assignment in itertools.product(range(m), repeat=n):
        worst = 0.0
        for q in range(m):
            mine = [i for i in range(n) if assignment[i] == q]
            if mine:
                worst = max(worst, _one_machine(tuple(release[i] for i in mine), tuple(p[i] for i in mine)))
        best = min(best, worst)
    return best


@st.composite
def small_tasks(draw, max_n=7, max_m=2):
    n = draw(st.integers(1, max_n))
    release = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    return sorted(release), p, draw(st.integers(1, max_m))


@settings(max_examples=40)
@given(small_tasks())
def test_fcfs_within_theorem_3_1_of_brute_force(case):
    """Spec case 12: FCFS max stretch / OPT <= Delta + (1 - 1/m)(Delta + 1) (Theorem 3.1); DASEDF and FCFS >= OPT."""
    release, p, m = case
    instance = tasks(release, p, m=m)
    opt = brute_force_optimum(tuple(map(float, release)), tuple(map(float, p)), m)
    delta = max(p) / min(p)
    fcfs = stretches(instance, run(instance, StretchFCFS())).max()
    assert opt - 1e-9 <= fcfs <= opt * (delta + (1 - 1 / m) * (delta + 1)) + 1e-9
    assert stretches(instance, run(instance, DASEDF())).max() >= opt - 1e-9


@st.composite
def states(draw):
    """A decision state: now = 10, m availabilities >= now, pending tasks released before now in (release, id) order."""
    m = draw(st.integers(1, 4))
    avail = 10.0 + np.array(draw(st.lists(st.integers(0, 15), min_size=m, max_size=m)), dtype=float)
    n = draw(st.integers(1, 9))
    release = np.sort(np.array(draw(st.lists(st.integers(0, 10), min_size=n, max_size=n)), dtype=float))
    p = np.array(draw(st.lists(st.integers(1, 12), min_size=n, max_size=n)), dtype=float)
    return avail, release, p


@given(states())
def test_theorem_3_3_bound_of_a_paper_valid_plan(state):
    """A plan at a target S passing the paper's test has predicted stretch <= S + 1 - 1/m (Lemma 3.2, Theorem 3.3)."""
    avail, release, p = state
    m = avail.shape[0]
    s = dasedf_stretch(10.0, avail, release, p, validity="paper")
    start = list_schedule(avail, edf_order(release, p, s), p)
    assert np.all((start + p - release) / p <= s + 1 - 1 / m + 1e-9)


@given(states())
def test_exact_plan_meets_its_deadlines(state):
    avail, release, p = state
    s = dasedf_stretch(10.0, avail, release, p)
    start = list_schedule(avail, edf_order(release, p, s), p)
    assert np.all(start + p <= release + s * p + 1e-9)
    assert s >= np.max((10.0 - release + p) / p) - 1e-12


def _busy(schedule, t):
    return int(np.count_nonzero((schedule.start <= t) & (t < schedule.end)))


@settings(max_examples=60)
@given(small_tasks(max_n=12, max_m=4), st.sampled_from(["fcfs", "dasedf", "dasedf-paper"]))
def test_invariants_work_conserving(case, name):
    """Every task starts at or after its release and never while a processor idles (FCFS and DASEDF are work-conserving)."""
    release, p, m = case
    instance = tasks(release, p, m=m)
    policy = {"fcfs": StretchFCFS(), "dasedf": DASEDF(), "dasedf-paper": DASEDF(validity="paper")}[name]
    schedule = run(instance, policy)
    assert np.all(schedule.start >= instance.jobs.submit)
    assert np.allclose(schedule.end - schedule.start, p)
    for i in np.flatnonzero(schedule.start > instance.jobs.submit):
        times = [release[i]] + [e for e in schedule.end if release[i] <= e < schedule.start[i]]
        assert all(_busy(schedule, t) == m for t in times)


def test_same_input_same_schedule():
    rng = np.random.default_rng(11)
    release = np.sort(rng.uniform(0, 50, 200))
    p = rng.uniform(1, 20, 200)
    instance = tasks(release, p, m=8)
    a, b = run(instance, DASEDF()), run(instance, DASEDF())
    assert a.start.tobytes() == b.start.tobytes() and a.alloc == b.alloc
