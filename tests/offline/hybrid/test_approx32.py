"""APPROX-3/2 (spec 003 section 3.6): soundness against brute-force OPT and the section 7.3 invariants."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hybrid_strategies import check, moldable_instances, sequential_instances
from schedlab.offline.hybrid import approx32, approx32_detail, brute_force_opt, search_of, task_resources
from schedlab.workload.hybrid import generate_hybrid

# Fig. 3.2 intersection graph: pairs of sets a task may belong to at once
ALLOWED_PAIRS = {(1, 4), (2, 3), (2, 4), (3, 4)}


def check_invariants(instance, d) -> None:
    """Section 7.3 structural invariants of one step."""
    F = d.eligible
    cpu_sets, gpu_sets = F[:, :5], F[:, 5:]
    assert (F.sum(axis=1) <= 4).all()
    assert (gpu_sets.sum(axis=1) <= 1).all()  # (5) and (6) exclusive
    for j in range(instance.n):
        members = np.nonzero(cpu_sets[j])[0].tolist()
        for a in members:
            for b in members:
                if a < b:
                    assert (a, b) in ALLOWED_PAIRS, (j, members)
    if d.chosen is None:
        return
    c = d.chosen
    assert (c >= 0).all() and F[np.arange(instance.n), c].all()  # C6, chosen set eligible
    assert 0 <= d.left - d.right <= 1  # C8
    assert (c == 1).sum() == d.left + d.right  # C7
    assert (c == 5).sum() <= instance.k  # C5
    g = d.allot[np.arange(instance.n), c]
    mu2, mu3, mu4 = (int(g[c == i].sum()) for i in (2, 3, 4))
    assert mu2 + mu3 + d.left <= instance.m and mu2 + mu4 + d.right <= instance.m  # C2, C3
    lam = d.lam
    latest, final = d.latest, d.schedule
    check(instance, latest, contiguous=True)
    assert latest.makespan <= 1.5 * lam * (1 + 1e-12)
    assert (final.start <= latest.start).all()  # compaction never delays a task
    # the blocks used exactly the CPUs the ILP counted: bottom shelf at time 0
    cpus_bottom = {
        r
        for j in np.nonzero(np.isin(c, (1, 2, 3)) & (latest.start == 0))[0]
        for r in task_resources(instance, latest)[j]
    }
    assert len(cpus_bottom) == mu2 + mu3 + d.left


@settings(max_examples=60, deadline=None)
@given(moldable_instances())
def test_accepts_opt_and_ratio_moldable(instance):
    """Thm 3.7: λ = OPT is accepted; every accepted step is <= 3λ/2; the search ends <= 1.5 cutoff OPT."""
    opt, _ = brute_force_opt(instance)
    d = approx32_detail(instance, opt)
    check_invariants(instance, d)
    assert d.schedule is not None, f"rejected λ = OPT = {opt}"
    assert check(instance, d.schedule, contiguous=True) <= 1.5 * opt * (1 + 1e-12)
    result = approx32(instance)
    assert check(instance, result, contiguous=True) <= 1.5 * 1.01 * opt * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(sequential_instances(max_n=6))
def test_accepts_opt_sequential(instance):
    opt, _ = brute_force_opt(instance)
    d = approx32_detail(instance, opt)
    check_invariants(instance, d)
    assert d.schedule is not None
    assert approx32(instance).makespan <= 1.5 * 1.01 * opt * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(moldable_instances(), st.floats(0.2, 1.5))
def test_every_step_is_sound_or_short(instance, factor):
    """At any λ: a rejection implies OPT > λ; an acceptance gives a valid schedule <= 3λ/2.
    (Acceptance is not assumed monotone in λ.)"""
    opt, _ = brute_force_opt(instance)
    lam = factor * opt
    d = approx32_detail(instance, lam)
    check_invariants(instance, d)
    if d.schedule is None:
        assert lam < opt
    else:
        assert check(instance, d.schedule, contiguous=True) <= 1.5 * lam * (1 + 1e-12)


def test_generated_instance_statistics():
    """Generated Table 3.1 instance: valid contiguous result, 10-17-like step count, mean |F(j)| reported."""
    instance = generate_hybrid(50, 16, 4, rng=np.random.default_rng(3))
    result = approx32(instance)
    check(instance, result, contiguous=True)
    steps = search_of(result).steps
    assert all("mean_sets" in s.info for s in steps)
    assert search_of(result).upper <= 1.01 * search_of(result).lower
    assert result.makespan <= 1.5 * search_of(result).upper * (1 + 1e-12)


def test_no_gpu_and_no_cpu_edge_cases():
    """Spec 003 ambiguity 14: k = 0 (pure moldable) and m = 0 (P||Cmax on GPUs) both work."""
    from schedlab.workload.hybrid import HybridInstance

    only_cpu = HybridInstance.from_tasks(3, 0, [([6, 3, 2], None), ([4, 2, 2], None), (5, 7)])
    r = approx32(only_cpu)
    assert check(only_cpu, r, contiguous=True) <= 1.5 * 1.01 * brute_force_opt(only_cpu)[0]
    only_gpu = HybridInstance.from_tasks(0, 2, [(None, 3), (None, 3), (None, 2), (None, 2), (None, 2)])
    r = approx32(only_gpu)
    assert check(only_gpu, r) <= 1.5 * 1.01 * brute_force_opt(only_gpu)[0]
