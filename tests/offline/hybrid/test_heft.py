"""HEFT (chapter 2 variant) and the Table 3.2 heuristics (spec 003 sections 3.1 and 3.8)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybrid_strategies import check, moldable_instances, sequential_instances
from schedlab.offline.hybrid import heft, heft_like, task_kinds, task_resources
from schedlab.workload.hybrid import HybridInstance


def test_heft_ties_go_to_cpu_then_lowest_index():
    """Spec 003 section 3.1 [choice]: equal finish times go to the CPU side, then the lowest index."""
    inst = HybridInstance.from_tasks(2, 2, [(2, 2), (2, 2), (2, 2), (2, 2)])
    s = heft(inst)
    assert task_kinds(inst, s).tolist() == [False, False, True, True]
    assert task_resources(inst, s) == ((0,), (1,), (0,), (1,))


def test_par_allocation_uses_all_cpus():
    """PAR (l = m): a moldable task waits for all CPUs and runs on the whole block."""
    inst = HybridInstance.from_tasks(2, 1, [([4, 2], 10), ([6, 3], 10)])
    s = heft_like(inst, priority="lpt", alloc="par")
    assert task_resources(inst, s) == ((0, 1), (0, 1)) and s.start.tolist() == [0, 2]  # equal keys: row order
    assert check(inst, s, contiguous=True) == 5


def test_priorities():
    """SPT takes the shortest max(p̄, p) first; RATIO the largest p̄/p first."""
    inst = HybridInstance.from_tasks(1, 1, [(5, 5), (1, 1), (4, 1)])
    spt = heft_like(inst, priority="spt")
    assert spt.start.tolist() == [1, 0, 0]  # order 1, 2, 0: task 2 on GPU at 0, task 0 on CPU after task 1
    ratio = heft_like(inst, priority="ratio")
    assert task_kinds(inst, ratio)[2] and ratio.start[2] == 0


def test_bad_names():
    inst = HybridInstance.from_tasks(1, 1, [(1, 1)])
    with pytest.raises(ValueError, match="priority"):
        heft_like(inst, priority="edf")
    with pytest.raises(ValueError, match="alloc"):
        heft_like(inst, alloc="half")


@settings(max_examples=60, deadline=None)
@given(
    moldable_instances(max_n=8) | sequential_instances(),
    st.sampled_from(["lpt", "spt", "ratio"]),
    st.sampled_from(["seq", "par"]),
)
def test_valid_and_contiguous(instance, priority, alloc):
    check(instance, heft_like(instance, priority=priority, alloc=alloc), contiguous=True)
    check(instance, heft(instance), contiguous=True)
