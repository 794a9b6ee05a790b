"""DA-2 and DUAL2 (spec 003 section 3.2, spec 000 section 3.1): 2-dual steps checked against brute force."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hybrid_strategies import check, sequential_instances
from schedlab.offline.hybrid import brute_force_opt, da2, da2_step, dual2, dual2_step, search_of, task_kinds
from schedlab.workload.hybrid import HybridInstance

EPS = 1 + 1e-12


@settings(max_examples=80, deadline=None)
@given(sequential_instances(), st.sampled_from([da2_step, dual2_step]))
def test_step_accepts_opt(instance, step):
    """Every 2-dual step accepts λ = OPT with a valid schedule <= 2 OPT."""
    opt, _ = brute_force_opt(instance)
    schedule, _ = step(instance, opt)
    assert schedule is not None, f"rejected λ = OPT = {opt}"
    assert check(instance, schedule, contiguous=True) <= 2 * opt * EPS


@settings(max_examples=80, deadline=None)
@given(sequential_instances(), st.sampled_from([da2_step, dual2_step]), st.floats(0.3, 2.0))
def test_step_sound_at_any_lambda(instance, step, factor):
    """Rejection proves OPT > λ; acceptance gives <= 2λ (not assuming monotone acceptance)."""
    opt, _ = brute_force_opt(instance)
    lam = factor * opt
    schedule, _ = step(instance, lam)
    if schedule is None:
        assert lam < opt
    else:
        assert check(instance, schedule) <= 2 * lam * EPS


@settings(max_examples=60, deadline=None)
@given(sequential_instances(), st.sampled_from([da2, dual2]))
def test_search_ratio(instance, algorithm):
    opt, _ = brute_force_opt(instance)
    result = algorithm(instance)
    assert check(instance, result, contiguous=True) <= 2 * 1.001 * opt * EPS
    assert search_of(result).lower <= opt * EPS


def test_dual2_puts_critical_task_last():
    """Spec 000 section 3.1: GPU area filled until >= kλ; the critical task goes last on the GPUs."""
    inst = HybridInstance.from_tasks(1, 1, [(4, 1), (4, 2), (4, 3), (1, 4)])
    schedule, _ = dual2_step(inst, 4)
    # ratios 4, 2, 4/3, 1/4: GPU area 1, 3 (< 4), then task 2 (area 6 >= 4, critical, last)
    assert task_kinds(inst, schedule).tolist() == [True, True, True, False]
    assert schedule.start.tolist() == [2, 0, 3, 0]  # LPT of {0, 1}, then the critical task
    assert check(inst, schedule) == 6


def test_da2_rejects_task_fitting_nowhere():
    inst = HybridInstance.from_tasks(2, 1, [(5, 6)])
    assert da2_step(inst, 4.9)[0] is None and dual2_step(inst, 4.9)[0] is None
    assert da2(inst).makespan == 5


@settings(max_examples=60, deadline=None)
@given(sequential_instances(), st.floats(0.3, 2.0))
def test_strict_fill_is_also_two_dual(instance, factor):
    opt, _ = brute_force_opt(instance)
    lam = factor * opt
    schedule, _ = da2_step(instance, lam, fill="lt")
    if schedule is None:
        assert lam < opt
    else:
        assert check(instance, schedule) <= 2 * lam * EPS
