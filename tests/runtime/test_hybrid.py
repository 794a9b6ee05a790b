"""CPU+GPU task times as a run-time model: the one validator checks hybrid schedules through it.

Each broken rule of a hybrid schedule (wrong length for the CPU count, a task
on two GPUs, CPUs mixed with GPUs, a task on a kind it cannot use, a double
booking of a CPU or a GPU, non-contiguous CPUs when contiguity is required) is
caught by :func:`schedlab.validation.validate` and names the task.
"""

from __future__ import annotations

import pytest

from schedlab.errors import ValidationError
from schedlab.offline.hybrid import brute_force_opt, hybrid_instance, hybrid_schedule
from schedlab.validation import validate
from schedlab.workload.hybrid import HybridInstance

TASKS = HybridInstance.from_tasks(3, 1, [([6, 4, 3], 2), (5, 1), (2, 8)], ids=[10, 20, 30])
COMMON = hybrid_instance(TASKS)  # CPUs are ids 0..2, the GPU id 3


def sched(start, end, gpu, res, tasks=TASKS):
    return hybrid_schedule(tasks, start, end, gpu, res)


def test_valid_schedule_passes_and_ids_are_shared():
    s = sched([0, 0, 4], [3, 1, 6], [False, True, False], [(0, 1, 2), (0,), (1,)])
    validate(COMMON, s)
    assert s.alloc == [((0, 3),), ((3, 4),), ((1, 2),)] and s.makespan == 6


@pytest.mark.parametrize(
    "schedule, message",
    [
        (sched([0, 0], [3, 1], [False, True], [(0, 1, 2), (0,)]), "schedule.start has 2 entries, the job table 3"),
        (sched([0, 0, -1], [3, 1, 1], [False, True, False], [(0, 1, 2), (0,), (1,)]), "job 30: starts at -1.0"),
        (
            sched([0, 0, 2], [3, 1, 4], [False, True, False], [(0, 1, 2), (0,), (0,)]),
            "processor 0 is used by job 10 from 0.0 to 3.0 and by job 30",
        ),
        (sched([0, 0, 4], [4, 1, 6], [False, True, False], [(0, 1, 2), (0,), (1,)]), "job 10: runs from 0.0 to 4.0"),
        (
            sched([0, 0, 4], [3, 1, 5], [False, True, False], [(0, 1, 2), (0,), (1, 2)]),
            "job 30: .* on 2 CPUs, at most 1",
        ),
        (sched([0, 0, 4], [3, 1, 6], [False, True, False], [(0, 1, 2), (1,), (1,)]), "job 20: .* outside processors"),
        (sched([0, 0, 4], [3, 6, 6], [False, False, False], [(0, 1, 2), (1,), (1,)]), "job 20: runs from 0.0 to 6.0"),
    ],
)
def test_broken_rules(schedule, message):
    with pytest.raises(ValidationError, match=message):
        validate(COMMON, schedule)


def test_a_task_on_cpus_and_a_gpu_at_once_is_refused():
    s = sched([0, 0, 4], [3, 1, 6], [False, True, False], [(0, 1, 2), (0,), (1,)])
    s.alloc[2] = ((2, 4),)  # CPU 2 and the GPU
    with pytest.raises(ValidationError, match="job 30: allocation: 2-3 mixes CPUs and GPUs"):
        validate(COMMON, s)


def test_contiguity_only_when_required():
    tasks = HybridInstance.from_tasks(3, 0, [([6, 4, 3], None)])
    s = sched([0], [4], [False], [(0, 2)], tasks)
    validate(hybrid_instance(tasks), s)
    with pytest.raises(ValidationError, match="not contiguous"):
        validate(hybrid_instance(tasks), s, contiguous=True)


def test_gpu_impossible_task():
    tasks = HybridInstance.from_tasks(1, 1, [(3, None)])
    with pytest.raises(ValidationError, match="cannot run on a GPU"):
        validate(hybrid_instance(tasks), sched([0], [1], [True], [(0,)], tasks))


def test_back_to_back_is_fine():
    tasks = HybridInstance.from_tasks(1, 0, [(2, None), (3, None)])
    validate(hybrid_instance(tasks), sched([0, 2], [2, 5], [False, False], [(0,), (0,)], tasks))
    opt, best = brute_force_opt(tasks)
    validate(hybrid_instance(tasks), best)
    assert opt == best.makespan == 5
