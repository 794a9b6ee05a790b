"""Greedy baselines and the relaxations that price the constraints."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from io_strategies import check, io_instances
from schedlab.offline.io.baselines import greedy, relaxed_makespan
from schedlab.offline.io.bounds import io_bounds
from schedlab.platform.io import parse_io_platform
from schedlab.workload.io_jobs import IOInstance


def test_hand_relaxations():
    """line:m=12,io=3 (9 compute nodes), jobs (p, q) = (4, 5), (3, 5), (2, 4), longest first.
    none: (4, 5) on 5 nodes at 0; (3, 5) takes the 4 idle nodes and one freed at 4: 4-7; (2, 4) on the
    other four freed at 4: 4-6.
    convex: (4, 5) on ranks 0-4 at 0; (3, 5) on ranks 0-4 at 4: 7; (2, 4) on ranks 5-8 at 0: 7."""
    inst = IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(4, 5, 1), (3, 5, 1), (2, 4, 1)])
    assert relaxed_makespan(inst, "convex") == 7.0
    assert relaxed_makespan(inst, "none") == 7.0
    with pytest.raises(ValueError):
        relaxed_makespan(inst, "local")
    s = greedy(inst)
    check(inst, s)
    assert s.makespan == 7.0


@settings(max_examples=40)
@given(io_instances(kind="mixed", max_jobs=8, multi=True))
def test_greedy_is_valid_and_relaxations_above_the_area_bound(inst):
    s = greedy(inst)
    check(inst, s)
    b = io_bounds(inst, lp=False)
    for constraints in ("convex", "none"):
        assert relaxed_makespan(inst, constraints) >= max(b.area, b.longest) - 1e-9
