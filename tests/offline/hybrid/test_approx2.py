"""APPROX-2 (spec 003 section 3.7): 2-dual step against brute force; Garey-Graham list scheduling."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hybrid_strategies import check, moldable_instances, sequential_instances
from schedlab.offline.hybrid import approx2, approx2_step, brute_force_opt
from schedlab.offline.hybrid.lists import garey_graham

EPS = 1 + 1e-12


@settings(max_examples=60, deadline=None)
@given(moldable_instances() | sequential_instances(max_n=6))
def test_accepts_opt_and_ratio(instance):
    opt, _ = brute_force_opt(instance)
    schedule, _ = approx2_step(instance, opt)
    assert schedule is not None, f"rejected λ = OPT = {opt}"
    assert check(instance, schedule) <= 2 * opt * EPS
    assert check(instance, approx2(instance)) <= 2 * 1.01 * opt * EPS


@settings(max_examples=60, deadline=None)
@given(moldable_instances(), st.floats(0.3, 2.0))
def test_sound_at_any_lambda(instance, factor):
    opt, _ = brute_force_opt(instance)
    lam = factor * opt
    schedule, _ = approx2_step(instance, lam)
    if schedule is None:
        assert lam < opt
    else:
        assert check(instance, schedule) <= 2 * lam * EPS


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda m: st.tuples(
            st.just(m), st.lists(st.tuples(st.integers(1, 20), st.integers(1, m)), min_size=1, max_size=10)
        )
    )
)
def test_garey_graham_bound_and_no_overlap(case):
    """Greedy rigid list scheduling: no CPU used twice at once; makespan <= 2 max(W/m, p_max)."""
    m, jobs = case
    times = np.array([t for t, _ in jobs], dtype=float)
    procs = np.array([l for _, l in jobs])
    start, cpus = garey_graham(times, procs, range(len(jobs)), m)
    events = []
    for j in range(len(jobs)):
        assert len(cpus[j]) == procs[j] and len(set(cpus[j])) == procs[j]
        events += [(start[j], start[j] + times[j], c) for c in cpus[j]]
    for c in range(m):
        spans = sorted((s, e) for s, e, cc in events if cc == c)
        assert all(e1 <= s2 for (_, e1), (s2, _) in zip(spans, spans[1:]))
    makespan = max(start[j] + times[j] for j in range(len(jobs)))
    assert makespan <= 2 * max((times * procs).sum() / m, times.max())


@settings(max_examples=60, deadline=None)
@given(moldable_instances(), st.floats(0.3, 2.0))
def test_strict_fill_is_also_two_dual(instance, factor):
    opt, _ = brute_force_opt(instance)
    lam = factor * opt
    schedule, _ = approx2_step(instance, lam, fill="lt")
    if schedule is None:
        assert lam < opt
    else:
        assert check(instance, schedule) <= 2 * lam * EPS
