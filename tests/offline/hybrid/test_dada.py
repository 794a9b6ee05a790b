"""DADA(α) (spec 003 section 3.4): equals DA-2 at α = 0; accepted schedules within (2 + α)λ."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybrid_strategies import check, sequential_instances
from schedlab.offline.hybrid import brute_force_opt, da2, da2_step, dada, dada_step, search_of

EPS = 1 + 1e-12


@st.composite
def with_affinity(draw):
    instance = draw(sequential_instances())
    aff = np.array([[draw(st.integers(0, 3)) for _ in range(1 + instance.k)] for _ in range(instance.n)], dtype=float)
    return instance, aff


@settings(max_examples=60, deadline=None)
@given(with_affinity(), st.floats(0.3, 2.0))
def test_alpha_zero_is_da2(case, factor):
    instance, aff = case
    lam = factor * max(instance.seq_time.min(), 1.0)
    a, _ = da2_step(instance, lam)
    b, _ = dada_step(instance, lam, alpha=0.0, affinity=aff)
    assert (a is None) == (b is None)
    if a is not None:
        assert a.alloc == b.alloc and a.start.tolist() == b.start.tolist()
    assert da2(instance).makespan == dada(instance, alpha=0.0, affinity=aff).makespan


@settings(max_examples=60, deadline=None)
@given(with_affinity(), st.sampled_from([0.25, 0.5, 1.0]), st.booleans())
def test_accepted_within_two_plus_alpha(case, alpha, strict):
    """Every accepted step is valid and <= (2+α)λ; the search result is <= (2+α) upper."""
    instance, aff = case
    opt, _ = brute_force_opt(instance)
    for factor in (0.7, 1.0, 1.5):
        schedule, _ = dada_step(instance, factor * opt, alpha=alpha, affinity=aff, strict=strict)
        if schedule is not None:
            assert check(instance, schedule) <= (2 + alpha) * factor * opt * EPS
    result = dada(instance, alpha=alpha, affinity=aff, strict=strict)
    assert check(instance, result) <= (2 + alpha) * search_of(result).upper * EPS


@settings(max_examples=60, deadline=None)
@given(sequential_instances(), st.sampled_from([0.0, 0.5, 1.0]))
def test_without_affinity_ratio(instance, alpha):
    """No affinity data: the global phase alone, accepted at λ = OPT, final <= (2+α) cutoff OPT."""
    opt, _ = brute_force_opt(instance)
    assert dada_step(instance, opt, alpha=alpha)[0] is not None
    assert check(instance, dada(instance, alpha=alpha)) <= (2 + alpha) * 1.001 * opt * EPS


def test_bad_parameters():
    from schedlab.workload.hybrid import HybridInstance

    instance = HybridInstance.from_tasks(2, 1, [(6, 1), (4, 2)])
    with pytest.raises(ValueError, match="alpha"):
        dada(instance, alpha=1.5)
    with pytest.raises(ValueError, match="affinity shape"):
        dada(instance, affinity=np.zeros((instance.n + 1, 1 + instance.k)))
