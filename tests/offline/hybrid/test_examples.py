"""The hand-checkable instances of spec 003-part1-hybrid section 7.2, with their exact numbers."""

from __future__ import annotations

import numpy as np
import pytest

from hybrid_strategies import check
from schedlab.offline.hybrid import (
    approx2,
    approx2_step,
    approx32,
    approx32_detail,
    approx32_step,
    bounds,
    brute_force_opt,
    da2,
    da2_step,
    dada,
    dada_step,
    heft,
    heft_like,
    search_of,
    task_kinds,
    task_resources,
)
from schedlab.workload.hybrid import HybridInstance


@pytest.fixture
def example_a() -> HybridInstance:
    """Example A (moldable): m = 4, k = 1; CPU times for l = 1..4, then the GPU time."""
    return HybridInstance.from_tasks(
        4,
        1,
        [
            ([4, 4, 4, 4], 12),
            ([7, 4, 3, 2.5], 3),
            ([12, 6.5, 5, 4], 8),
            ([9, 9, 9, 9], 20),
            ([30, 16, 11, 9], 6),
        ],
        ids=[1, 2, 3, 4, 5],
    )


@pytest.fixture
def example_b() -> HybridInstance:
    """Example B (sequential): m = 2, k = 1; A(6, 1), B(4, 2), C(3, 3), D(2, 4)."""
    return HybridInstance.from_tasks(2, 1, [(6, 1), (4, 2), (3, 3), (2, 4)], ids=[1, 2, 3, 4])


def sets_of(detail) -> dict[int, set[int]]:
    return {j + 1: set(np.nonzero(detail.eligible[j])[0].tolist()) for j in range(detail.eligible.shape[0])}


def test_example_a_opt_and_bounds(example_a):
    """Spec 7.2 A: OPT = 9; the section 3.0 bounds are LB = 9 and UB = 25.5."""
    opt, schedule = brute_force_opt(example_a)
    assert opt == 9
    assert check(example_a, schedule) == 9
    b = bounds(example_a)
    assert (b.lower, b.upper) == (9, 25.5)


def test_example_a_sets_at_10_and_7_5(example_a):
    """Spec 7.2 A: the eligible sets F(j) at λ = 10 and λ = 7.5 (rejected: ILP infeasible)."""
    d10 = approx32_detail(example_a, 10)
    assert sets_of(d10) == {1: {0}, 2: {1, 4, 6}, 3: {2, 3, 4, 5}, 4: {3}, 5: {2, 3, 5}}
    assert d10.work == 25
    assert d10.chosen.tolist() == [0, 6, 2, 3, 5]
    d75 = approx32_detail(example_a, 7.5)
    assert sets_of(d75) == {1: {1}, 2: {3, 4, 6}, 3: {3}, 4: {2}, 5: {2, 5}}
    assert d75.chosen is None and d75.status == "infeasible"
    assert approx32_step(example_a, 7.5)[0] is None


def test_example_a_approx32_accepts_below_opt(example_a):
    """Spec 7.2 A: λ = 8 < OPT is accepted at the C1 boundary, W = 32 = mλ."""
    d8 = approx32_detail(example_a, 8)
    assert d8.work == 32
    assert d8.chosen.tolist() == [0, 3, 2, 2, 5]


@pytest.mark.parametrize("lam", [8, 8.5, 9, 10, 11, 12])
def test_example_a_approx32_returns_12(example_a, lam):
    """Spec 7.2 A: every accepted λ in [8, 12] gives makespan 12 (ratio 4/3), contiguous, <= 3λ/2."""
    schedule, _ = approx32_step(example_a, lam)
    assert schedule is not None
    assert check(example_a, schedule, contiguous=True) == 12
    assert schedule.makespan <= 1.5 * lam


def test_example_a_approx32_search(example_a):
    schedule = approx32(example_a)
    assert schedule.makespan == 12
    assert search_of(schedule).lower <= 9 <= search_of(schedule).upper
    check(example_a, schedule, contiguous=True)


def test_example_a_approx2_returns_17(example_a):
    """Spec 7.2 A: APPROX-2 rejects every λ < 9 and returns 17 for λ in [9, 17)."""
    for lam in (5, 8, 8.99):
        assert approx2_step(example_a, lam)[0] is None
    for lam in (9, 12, 16.9):
        schedule, _ = approx2_step(example_a, lam)
        assert check(example_a, schedule) == 17
    assert approx2(example_a).makespan == 17


def test_example_a_lpt_seq_returns_12(example_a):
    """Spec 7.2 A: heuristic 1 (LPT/SEQ) orders T5, T4, T1, T3, T2; T5 on the GPU; makespan 12."""
    schedule = heft_like(example_a, priority="lpt", alloc="seq")
    assert check(example_a, schedule, contiguous=True) == 12
    assert task_kinds(example_a, schedule).tolist() == [False, False, False, False, True]
    # placement order T5 (GPU), T4, T1, T3, T2 on CPUs 0, 1, 2, 3
    assert task_resources(example_a, schedule) == ((1,), (3,), (2,), (0,), (0,))


def test_example_b_da2_is_tight(example_b):
    """Spec 7.2 B: DA-2 at λ = 3 puts A, B, C on the GPU (6 = 2λ); all λ < 3 rejected; result 6 = 2 OPT."""
    assert brute_force_opt(example_b)[0] == 3
    schedule, _ = da2_step(example_b, 3)
    assert task_kinds(example_b, schedule).tolist() == [True, True, True, False]
    assert check(example_b, schedule) == 6
    for lam in (1, 2.5, 2.999):
        assert da2_step(example_b, lam)[0] is None
    assert da2(example_b).makespan == 6


def test_example_b_heft_is_optimal(example_b):
    """Spec 7.2 B: HEFT (chapter 2) returns 3."""
    assert check(example_b, heft(example_b)) == 3


def test_example_b_dada0_equals_da2(example_b):
    """Spec 7.2 B: DADA(α = 0) returns exactly DA-2's schedule, at every λ and after the search."""
    for lam in (2.5, 3, 4, 5.5, 8):
        a, _ = da2_step(example_b, lam)
        b, _ = dada_step(example_b, lam, alpha=0.0, affinity=np.ones((4, 2)))
        assert (a is None) == (b is None)
        if a is not None:
            assert a.start.tolist() == b.start.tolist() and a.alloc == b.alloc
    x, y = da2(example_b), dada(example_b, alpha=0.0)
    assert x.makespan == y.makespan == 6
    assert x.alloc == y.alloc and x.start.tolist() == y.start.tolist()


def test_strict_fill_rule_changes_outputs(example_a, example_b):
    """Spec 7.2 and ambiguity 6: stopping GPU filling at load >= λ gives 9 on A (APPROX-2) and 3 on B (DA-2)
    at λ = OPT exactly. The bisection only probes λ > OPT (LB = OPT here), where the rules agree: 17 and 6."""
    schedule, _ = approx2_step(example_a, 9, fill="lt")
    assert check(example_a, schedule) == 9
    assert approx2(example_a, fill="lt").makespan == 17
    schedule, _ = da2_step(example_b, 3, fill="lt")
    assert check(example_b, schedule) == 3
    assert da2(example_b, fill="lt").makespan == 6
    with pytest.raises(ValueError, match="fill"):
        da2(example_b, fill="ge")
