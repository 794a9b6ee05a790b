"""The scheduling adapter: every scheduler's plan is valid, DUAL2's within 2 lambda and 2 OPT (spec 7, check 4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.offline.hybrid import brute_force_opt
from schedlab.swdual.scheduling import SCHEDULERS, make_plan, worker_names
from schedlab.workload.hybrid import HybridInstance

TOL = 1 + 1e-9


@st.composite
def task_sets(draw, max_n: int = 8):
    cpus = draw(st.integers(0, 2))
    gpus = draw(st.integers(0 if cpus else 1, 2))
    n = draw(st.integers(0, max_n))
    times = st.floats(0.1, 10.0, allow_nan=False)
    return (
        np.array(draw(st.lists(times, min_size=n, max_size=n))),
        np.array(draw(st.lists(times, min_size=n, max_size=n))),
        cpus,
        gpus,
    )


def _usable(scheduler: str, cpus: int, gpus: int) -> bool:
    return not ((scheduler == "cpu-only" and cpus == 0) or (scheduler == "gpu-only" and gpus == 0))


@settings(max_examples=60, deadline=None)
@given(task_sets(), st.sampled_from(SCHEDULERS))
def test_each_task_once_no_overlap(tasks, scheduler):
    cpu, gpu, cpus, gpus = tasks
    if not _usable(scheduler, cpus, gpus):
        with pytest.raises(InputError, match="some task cannot run"):
            make_plan(cpu, gpu, cpus=cpus, gpus=gpus, scheduler=scheduler)
        return
    plan = make_plan(cpu, gpu, cpus=cpus, gpus=gpus, scheduler=scheduler)
    queues = plan.queues()
    assert sorted(j for q in queues for j in q) == list(range(len(cpu)))
    for w, queue in enumerate(queues):
        expected = cpu if w < cpus else gpu
        for a, b in zip(queue, queue[1:]):
            assert plan.end[a] <= plan.start[b] * TOL + 1e-12  # no overlap, in start order
        for j in queue:
            assert plan.end[j] - plan.start[j] == pytest.approx(expected[j])
    assert plan.makespan >= plan.lower_bound / TOL


@settings(max_examples=60, deadline=None)
@given(task_sets(max_n=7), st.sampled_from(["dual2", "da2"]))
def test_dual_guarantees_against_brute_force(tasks, scheduler):
    """makespan <= 2 lambda, the bisection's lower bound <= OPT, and makespan <= 2 (1 + 0.001) OPT."""
    cpu, gpu, cpus, gpus = tasks
    plan = make_plan(cpu, gpu, cpus=cpus, gpus=gpus, scheduler=scheduler)
    if len(cpu) == 0:
        assert plan.makespan == 0
        return
    instance = HybridInstance.from_tasks(
        cpus, gpus, [(c if cpus else None, g if gpus else None) for c, g in zip(cpu, gpu)]
    )
    opt, _ = brute_force_opt(instance)
    assert plan.makespan <= 2 * plan.lam * TOL
    assert plan.lower <= opt * TOL
    assert plan.makespan <= 2 * 1.001 * opt * TOL
    assert plan.makespan <= 2 * plan.upper * TOL and plan.upper <= 1.001 * plan.lower * TOL


def test_hand_instance_one_cpu_one_gpu():
    """CPU times 4, 4, 4, 1 and GPU times 1, 2, 3, 4 on 1 CPU + 1 GPU (OPT = 5, e.g. tasks 0, 1 on the GPU).

    Below λ = 4 tasks 0-2 are forced on the GPU (CPU time > λ) with area 6 > kλ: NO. At λ = 4 the
    ratio order 0, 1, 2, 3 fills the GPU area to 1, 3, then 6 >= 4 with task 2 critical (last);
    task 3 goes to the CPU: makespan 6 <= 2λ. The bounds are max(longest 3, area 7/2) = 3.5.
    """
    plan = make_plan([4, 4, 4, 1], [1, 2, 3, 4], cpus=1, gpus=1, scheduler="dual2")
    assert plan.worker.tolist() == [1, 1, 1, 0] and plan.makespan == 6
    assert plan.end[2] == 6  # the critical task goes last on the GPU
    assert 3.99 < plan.lower < 4 <= plan.lam <= 4 * 1.001
    assert plan.names == ("cpu0", "gpu0")
    assert plan.describe()["scheduler"] == "dual2" and plan.steps >= 2
    assert plan.lower_bound == pytest.approx(3.5)


def test_self_scheduling_is_dynamic_and_input_ordered():
    plan = make_plan([3, 1, 2], [1, 1, 1], cpus=2, gpus=0, scheduler="self-scheduling")
    assert plan.dynamic and not make_plan([1], [1], cpus=1, gpus=0).dynamic
    assert plan.queues() == [[0], [1, 2]]  # cpu0 takes task 0; cpu1 tasks 1 then 2


def test_worker_names_and_errors():
    assert worker_names(2, 1) == ("cpu0", "cpu1", "gpu0")
    with pytest.raises(InputError, match="scheduler = fifo, expected dual2"):
        make_plan([1], [1], cpus=1, gpus=0, scheduler="fifo")
    with pytest.raises(InputError, match="gpu-only: some task cannot run on a GPU"):
        make_plan([1], [1], cpus=1, gpus=0, scheduler="gpu-only")
