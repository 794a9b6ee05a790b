"""The independent hybrid validator: each broken rule is caught and names the task."""

from __future__ import annotations

import pytest

from schedlab.errors import ValidationError
from schedlab.offline.hybrid import HybridSchedule, brute_force_opt
from schedlab.platform.hybrid import HybridInstance
from schedlab.validation_hybrid import validate_hybrid

INST = HybridInstance.from_tasks(3, 1, [([6, 4, 3], 2), (5, 1), (2, 8)], ids=[10, 20, 30])


def sched(start, end, gpu, res):
    return HybridSchedule.from_lists(start, end, gpu, res)


def test_valid_schedule_returns_makespan():
    s = sched([0, 0, 4], [3, 1, 6], [False, True, False], [(0, 1, 2), (0,), (1,)])
    assert validate_hybrid(INST, s) == 6


@pytest.mark.parametrize(
    "schedule, message",
    [
        (sched([0, 0], [3, 1], [False, True], [(0, 1, 2), (0,)]), "2/2/2/2 start/end/kind/resource entries for 3"),
        (sched([0, 0, -1], [3, 1, 1], [False, True, False], [(0, 1, 2), (0,), (1,)]), "task 30: start -1"),
        (
            sched([0, 0, 2], [3, 1, 4], [False, True, False], [(0, 1, 2), (0,), (0,)]),
            "task 30 starts at 2.0 on CPU 0 while task 10",
        ),
        (sched([0, 0, 4], [4, 1, 6], [False, True, False], [(0, 1, 2), (0,), (1,)]), "task 10: runs 4.0 on 3 CPU"),
        (
            sched([0, 0, 4], [3, 1, 5], [False, True, False], [(0, 1, 2), (0,), (1, 2)]),
            "task 30: runs on 2 CPUs, at most 1",
        ),
        (sched([0, 0, 4], [3, 1, 6], [False, True, False], [(0, 1, 2), (1,), (1,)]), r"task 20: GPU resources \(1,\)"),
        (sched([0, 0, 4], [3, 1, 6], [False, True, False], [(0, 1, 3), (0,), (1,)]), "task 10: CPU resources"),
        (sched([0, 0, 4], [3, 6, 6], [False, False, False], [(0, 1, 2), (1,), (1,)]), "task 20: runs 6.0 on 1 CPU"),
    ],
)
def test_broken_rules(schedule, message):
    with pytest.raises(ValidationError, match=message):
        validate_hybrid(INST, schedule)


def test_contiguity_only_when_required():
    inst = HybridInstance.from_tasks(3, 0, [([6, 4, 3], None)])
    s = sched([0], [4], [False], [(0, 2)])
    assert validate_hybrid(inst, s) == 4
    with pytest.raises(ValidationError, match="not contiguous"):
        validate_hybrid(inst, s, require_contiguous=True)


def test_gpu_impossible_task():
    inst = HybridInstance.from_tasks(1, 1, [(3, None)])
    with pytest.raises(ValidationError, match="cannot run on a GPU"):
        validate_hybrid(inst, sched([0], [1], [True], [(0,)]))


def test_back_to_back_is_fine():
    inst = HybridInstance.from_tasks(1, 0, [(2, None), (3, None)])
    assert validate_hybrid(inst, sched([0, 2], [2, 5], [False, False], [(0,), (0,)])) == 5
    assert validate_hybrid(inst, brute_force_opt(inst)[1]) == 5
