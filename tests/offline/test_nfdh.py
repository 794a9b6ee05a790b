"""NFDH + list scheduling (seed 000 ch.4 Theorem 4; spec 000-ch4-5 section 3): valid, contiguous, local, bounded."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.metrics import topology_metrics
from schedlab.offline.nfdh import nfdh_local
from schedlab.platform.tree import FatTree
from schedlab.schedule import Instance
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable


def instance(p, size, k, ell):
    jobs = JobTable.from_arrays(submit=[0] * len(p), run_time=p, procs=size)
    return Instance(jobs, FatTree.clusters(k * ell, ell))


def test_theorem_2_instance_by_hand():
    """2 clusters of 3, three unit jobs of size 2: one job per batch, makespan 2 = C^L (the tight case)."""
    inst = instance([1, 1, 1], [2, 2, 2], 2, 3)
    schedule = nfdh_local(inst)
    validate(inst, schedule)
    assert schedule.start.tolist() == [0, 0, 1] and schedule.alloc == [((0, 2),), ((3, 5),), ((0, 2),)]


def test_batches_are_next_fit_by_decreasing_height():
    """Heights 5, 4, 3, 2 with sizes 2, 1, 2, 1 on one cluster of 3: batches {5, 4} (width 3), {3, 2} -> makespan 8."""
    inst = instance([3, 5, 2, 4], [2, 2, 1, 1], 1, 3)
    schedule = nfdh_local(inst)
    validate(inst, schedule)
    assert schedule.start.tolist() == [5, 0, 5, 0] and float(np.max(schedule.end)) == 8


@given(
    st.lists(st.tuples(st.integers(1, 30), st.integers(1, 4)), min_size=1, max_size=25),
    st.integers(1, 4),
    st.integers(4, 6),
)
def test_contiguous_local_and_within_theorem_4(jobs, k, ell):
    p, size = map(list, zip(*jobs))
    inst = instance(p, size, k, ell)
    schedule = nfdh_local(inst)
    validate(inst, schedule)
    topo = topology_metrics(inst, schedule)
    assert topo["contiguity_factor"] == 1 and topo["locality_factor"] == 1
    area = sum(a * b for a, b in jobs)
    assert float(np.max(schedule.end)) <= 2 * area / (k * ell) + max(p) + 1e-9


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"submit": [1, 0]}, "submit"),
        ({"procs": [5, 1]}, "processors"),
    ],
)
def test_refuses_what_the_theorem_excludes(kw, field):
    args = {"submit": [0, 0], "run_time": [1, 1], "procs": [1, 1], **kw}
    with pytest.raises(InputError, match=field):
        nfdh_local(Instance(JobTable.from_arrays(**args), FatTree.clusters(8, 4)))


@given(
    st.lists(st.tuples(st.integers(1, 20), st.integers(1, 4)), min_size=1, max_size=15),
    st.integers(1, 3),
    st.sampled_from(["basic", "becont", "cont", "beloc", "loc"]),
)
def test_backfilling_makespans_against_the_area_bound_and_nfdh(jobs, k, allocator):
    """Spec section 8: every schedule's makespan >= max(A/m, p_max) (ch.4's lower bound), hence NFDH's makespan
    is at most 3 times conservative backfilling's, whatever the allocator (two independent implementations)."""
    from schedlab.engine import simulate
    from schedlab.registry import make_policy

    p, size = map(list, zip(*jobs))
    inst = instance(p, size, k, 4)
    schedule = simulate(inst, make_policy("conservative", {"allocator": allocator}))
    validate(inst, schedule)
    makespan = float(np.max(schedule.end))
    area = sum(a * b for a, b in jobs)
    assert makespan >= max(area / (4 * k), max(p)) - 1e-9
    assert float(np.max(nfdh_local(inst).end)) <= 3 * makespan + 1e-9
