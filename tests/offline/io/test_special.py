"""Special cases (spec section 3.6 on Bleuse 2017, Table 5.1): unit pinned jobs, per-I/O-node, sequential."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from io_strategies import check, io_instances
from schedlab.errors import InputError
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.offline.io.special import per_io_node, sequential, unit_pinned
from schedlab.platform.io import parse_io_platform
from schedlab.workload.io_jobs import IOInstance


@settings(max_examples=50)
@given(io_instances(topology="line", unit=True, max_jobs=10, multi=True))
def test_unit_pinned_reaches_the_rounded_load(inst):
    """Interval partitioning by left end: Cmax = Lambda_round <= 2 Lambda_LP."""
    s = unit_pinned(inst)
    check(inst, s)
    assert s.makespan == s.info["rounded"] == s.info["colours"]
    assert s.makespan <= 2 * s.info["lp"] + 1e-7


@settings(max_examples=30, deadline=None)
@given(io_instances(topology="line", unit=True, max_jobs=5, max_m=9))
def test_unit_pinned_within_twice_opt(inst):
    assert unit_pinned(inst).makespan <= 2 * brute_force_opt(inst)[0]


def test_unit_pinned_hand_instance():
    """Three unit jobs of 3 nodes on I/O node 4: intervals coloured greedily, makespan = rounded load."""
    inst = IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(2, 3, (4,))] * 3 + [(2, 2, (8,))])
    s = unit_pinned(inst)
    check(inst, s)
    assert s.makespan == 2 * s.info["colours"] and s.info["rounded"] == s.makespan


def test_unit_pinned_preconditions():
    plat = parse_io_platform("line:m=12,io=3")
    with pytest.raises(InputError, match=r"jobs\[1\]\.p = 2.0, expected 1.0"):
        unit_pinned(IOInstance.from_jobs(plat, [(1, 1, (0,)), (2, 1, (0,))]))
    with pytest.raises(InputError, match="a line"):
        unit_pinned(IOInstance.from_jobs(parse_io_platform("ring:m=12,io=3"), [(1, 1, (0,))]))


@settings(max_examples=30, deadline=None)
@given(io_instances(kind="pinned", uniform=True, mode="exclusive", max_jobs=5, max_q=1, max_m=10))
def test_per_io_node_is_optimal_with_exclusive_io(inst):
    """Pinned, exclusive, every job fits right of its I/O node: OPT = max_k sum_{j -> k} p_j."""
    s = per_io_node(inst)
    check(inst, s)
    sums = {}
    for j, request in enumerate(inst.io):
        sums[request[0]] = sums.get(request[0], 0.0) + inst.p[j]
    assert s.makespan == max(sums.values()) == brute_force_opt(inst)[0]


def test_per_io_node_in_shared_mode_is_feasible_but_not_optimal():
    """A15: with shared I/O two jobs use one I/O node from both sides."""
    plat = parse_io_platform("line:m=12,io=3")
    inst = IOInstance.from_jobs(plat, [(3, 2, (4,)), (3, 2, (4,))])
    s = per_io_node(inst)
    check(inst, s)
    assert s.makespan == 6.0 and brute_force_opt(inst)[0] == 3.0


def test_per_io_node_ring_wrap_and_refusal():
    ring = parse_io_platform("ring:layout=CCI")
    inst = IOInstance.from_jobs(ring, [(1, 1, (2,)), (2, 1, (2,))])
    s = per_io_node(inst)
    check(inst, s)
    assert s.alloc == [((0, 1), (2, 3)), ((0, 1), (2, 3))] and s.makespan == 3.0
    with pytest.raises(InputError, match=r"jobs\[0\]\.io = \[4\], expected one I/O node followed by q = 4"):
        per_io_node(IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(1, 4, (4,))]))


@settings(max_examples=40)
@given(io_instances(kind="mixed", max_jobs=6))
def test_sequential_is_the_sum(inst):
    s = sequential(inst)
    check(inst, s)
    assert s.makespan == pytest.approx(float(np.sum(inst.p)))
