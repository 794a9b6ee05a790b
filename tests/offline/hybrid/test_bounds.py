"""Bounds, brute force and the bisection driver (spec 003 sections 3.0 and 7.3)."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings

from hybrid_strategies import check, moldable_instances, sequential_instances
from schedlab.offline.hybrid import HybridError, bounds, brute_force_opt, da2_step, dual_search, search_of
from schedlab.workload.hybrid import HybridInstance


def naive_sequential_opt(instance) -> float:
    """Every assignment of tasks to processors (l = 1), loads summed: an obvious slow OPT."""
    cpu, gpu = instance.seq_time, instance.usable_gpu_time
    machines = [("c", i) for i in range(instance.m)] + [("g", i) for i in range(instance.k)]
    best = math.inf
    for assign in itertools.product(range(len(machines)), repeat=instance.n):
        loads = [0.0] * len(machines)
        for j, a in enumerate(assign):
            loads[a] += cpu[j] if machines[a][0] == "c" else gpu[j]
        best = min(best, max(loads))
    return best


@settings(max_examples=60, deadline=None)
@given(sequential_instances(max_n=5))
def test_brute_force_matches_naive_sequential(instance):
    opt, schedule = brute_force_opt(instance)
    assert opt == naive_sequential_opt(instance)
    assert check(instance, schedule) == opt


@settings(max_examples=60, deadline=None)
@given(moldable_instances() | sequential_instances())
def test_bounds_bracket_opt(instance):
    opt, schedule = brute_force_opt(instance)
    assert check(instance, schedule) == opt
    b = bounds(instance)
    assert b.lower == max(b.area, b.longest)
    assert b.lower <= opt * (1 + 1e-12) and opt <= b.upper * (1 + 1e-12)


def test_moldable_brute_force_uses_parallelism():
    """One task, 4 CPUs: best on 4 CPUs (time 3) rather than the GPU (5)."""
    inst = HybridInstance.from_tasks(4, 1, [([12, 6, 4, 3], 5)])
    assert brute_force_opt(inst)[0] == 3


def test_dual_search_records_steps_and_eps_rule():
    inst = HybridInstance.from_tasks(2, 1, [(6, 1), (4, 2), (3, 3), (2, 4)])
    result = dual_search(inst, da2_step, eps=0.01, name="da2")
    info = search_of(result)
    assert info.steps[0].lam == bounds(inst).upper and info.steps[0].accepted
    assert info.upper - info.lower <= 0.01
    assert result.makespan == min(s.makespan for s in info.steps if s.accepted)
    assert all(s.accepted == (not math.isnan(s.makespan)) for s in info.steps)
    with pytest.raises(ValueError, match="exactly one"):
        dual_search(inst, da2_step)


def test_dual_search_refuses_a_step_rejecting_the_upper_bound():
    inst = HybridInstance.from_tasks(1, 1, [(2, 2)])
    with pytest.raises(HybridError, match="rejected the upper bound"):
        dual_search(inst, lambda i, lam: (None, {}), cutoff=1.01, name="never")
