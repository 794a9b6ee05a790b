"""SWDUAL baselines (spec 000 section 3.7)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from hybrid_strategies import check, sequential_instances
from schedlab.offline.hybrid import (
    HybridError,
    cpu_only,
    eft,
    equal,
    gpu_only,
    proportional,
    self_scheduling,
    task_kinds,
)
from schedlab.workload.hybrid import HybridInstance

INST = HybridInstance.from_tasks(1, 1, [(8, 2), (6, 3), (4, 4), (2, 6)])


def test_cpu_only_and_gpu_only_are_lpt():
    assert check(INST, cpu_only(INST)) == 20
    assert check(INST, gpu_only(INST)) == 15
    assert not task_kinds(INST, cpu_only(INST)).any() and task_kinds(INST, gpu_only(INST)).all()


def test_equal_splits_by_count():
    """EQUAL: sizes 8, 6, 4, 2 by LPT on 2 identical workers: {8, 2} on the CPU, {6, 4} on the GPU."""
    s = equal(INST)
    assert task_kinds(INST, s).tolist() == [False, True, True, False]
    assert check(INST, s) == 10


def test_proportional_uses_speed():
    """Nominal GPU speed Σp̄/Σp = 4/3, cost (load + c)/s: size 8 -> GPU (6 < 8), 6 -> CPU (6 < 10.5),
    4 -> GPU (9 < 10), 2 -> CPU (8 < 10.5)."""
    s = proportional(INST)
    assert task_kinds(INST, s).tolist() == [True, False, True, False]


def test_self_scheduling_input_order():
    """Idle worker takes the next task: 0 -> CPU (free first, tie CPU), 1 -> GPU, 2 -> GPU at 3, 3 -> GPU at 7."""
    s = self_scheduling(INST)
    assert task_kinds(INST, s).tolist() == [False, True, True, True]
    assert s.start.tolist() == [0, 0, 3, 7]
    largest = self_scheduling(INST, order="largest")
    check(INST, largest)
    with pytest.raises(ValueError):
        self_scheduling(INST, order="random")


def test_only_baselines_need_their_type():
    with pytest.raises(HybridError, match="gpu-only"):
        gpu_only(HybridInstance.from_tasks(2, 0, [(1, 1)]))
    with pytest.raises(HybridError, match="cpu-only"):
        cpu_only(HybridInstance.from_tasks(0, 1, [(None, 1)]))


@settings(max_examples=60, deadline=None)
@given(sequential_instances())
def test_valid(instance):
    for algorithm in (equal, proportional, self_scheduling, eft):
        check(instance, algorithm(instance), contiguous=True)
