"""The independent checker rejects every broken rule and accepts what the model allows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from offline.io.io_strategies import io_instances
from schedlab.errors import ValidationError
from schedlab.offline.io import IO_ALGORITHMS
from schedlab.offline.io.check import check_io_schedule
from schedlab.offline.io.schedule import IOSchedule
from schedlab.platform.io import parse_io_platform
from schedlab.workload.io_jobs import IOInstance


def sched(inst, start, alloc, io):
    start = np.array(start, dtype=float)
    return IOSchedule(start, start + inst.p, tuple(alloc), tuple(io), "hand")


SHARED = parse_io_platform("line:m=12,io=3")  # I/O 0, 4, 8
EXCL = SHARED.with_mode("exclusive")


def test_shared_io_node_from_both_sides_is_fine_exclusive_is_not():
    jobs = [(2, 2, (4,)), (2, 2, (4,))]
    for plat, ok in ((SHARED, True), (EXCL, False)):
        inst = IOInstance.from_jobs(plat, jobs)
        s = sched(inst, [0, 0], [((2, 5),), ((4, 7),)], [(4,), (4,)])
        if ok:
            check_io_schedule(inst, s)
        else:
            with pytest.raises(ValidationError, match="exclusive I/O node 4 is used by 2 jobs at time 0.0"):
                check_io_schedule(inst, s)


@pytest.mark.parametrize("start, alloc, io, message", [
    ([0, 1], [((0, 4),), ((2, 6),)], [(0,), (4,)], r"compute node 2 is used by 2 jobs at time 1.0 \(jobs \[0, 1\]\)"),
    ([0, 2], [((0, 4),), ((2, 6),)], [(0,), (4,)], None),  # back to back on nodes 2, 3: fine
    ([0, 0], [((0, 3), (5, 6)), ((8, 11),)], [(0,), (4,)], r"allocation \(\(0, 3\), \(5, 6\)\) is not connected"),
    ([0, 0], [((0, 4),), ((8, 12),)], [(0,), (8,)], r"targets I/O nodes \[8\], it is pinned to \[4\]"),
    ([0, 0], [((0, 4),), ((5, 8),)], [(0,), (4,)], r"targeted I/O nodes \[4\] are not all in its allocation"),
    ([0, 0], [((0, 3),), ((4, 8),)], [(0,), (4,)], "2 compute nodes, it needs 3"),
    ([-1, 0], [((0, 4),), ((4, 8),)], [(0,), (4,)], "start -1.0 is not a time >= 0"),
    ([0, 0], [((0, 4),), ((12, 13),)], [(0,), (4,)], "not sorted disjoint ranges of 0..11"),
])
def test_broken_rules(start, alloc, io, message):
    inst = IOInstance.from_jobs(SHARED, [(2, 3, (0,)), (2, 3, (4,))])
    s = sched(inst, start, alloc, io)
    if message is None:
        check_io_schedule(inst, s)
    else:
        with pytest.raises(ValidationError, match=message):
            check_io_schedule(inst, s)


def test_locality_needs_adjacency():
    """Def. 4.6: a connected, convex allocation whose target is only reachable through another I/O node."""
    plat = parse_io_platform("line:layout=CCIIC")
    inst = IOInstance.from_jobs(plat, [(1, 2, 1)])
    with pytest.raises(ValidationError, match=r"I/O nodes \[3\] are not all adjacent"):
        check_io_schedule(inst, sched(inst, [0], [((0, 4),)], [(3,)]))
    check_io_schedule(inst, sched(inst, [0], [((0, 3),)], [(2,)]))


def test_duration_and_count():
    inst = IOInstance.from_jobs(SHARED, [(2, 3, 1)])
    bad = IOSchedule(np.array([0.0]), np.array([1.0]), (((1, 4),),), ((0,),), "hand")
    with pytest.raises(ValidationError, match="runs 1.0, its processing time is 2.0"):
        check_io_schedule(inst, bad)
    with pytest.raises(ValidationError, match="targets 2 I/O nodes, it asks for 1"):
        check_io_schedule(inst, sched(inst, [0], [((0, 5),)], [(0, 4)]))


def test_inflated_allocation_is_accepted_only_with_inflate():
    plat = parse_io_platform("line:m=40,io=8")
    inst = IOInstance.from_jobs(plat, [(1, 3, (5, 15))])
    check_io_schedule(inst, sched(inst, [0], [((5, 16),)], [(5, 15)]))
    strict = IOInstance(plat, inst.p, np.array([8]), inst.io, inst.ids, inflate=False)
    check_io_schedule(strict, sched(strict, [0], [((5, 16),)], [(5, 15)]))  # q = 8 = k: not an inflation


def test_ring_wrapping_allocation_and_shortest_routing():
    plat = parse_io_platform("ring:m=12,io=3")
    inst = IOInstance.from_jobs(plat, [(1, 3, (0,))])
    check_io_schedule(inst, sched(inst, [0], [((0, 2), (10, 12))], [(0,)]))  # nodes 10, 11, (0), 1
    with pytest.raises(ValidationError, match="not connected"):
        check_io_schedule(inst, sched(inst, [0], [((0, 2), (5, 7))], [(0,)]))
    wide = IOInstance.from_jobs(plat, [(1, 6, (4,))])
    check_io_schedule(wide, sched(wide, [0], [((0, 7), (11, 12))], [(4,)]))  # nodes 11, (0), 1-3, (4), 5, 6
    short = wide.with_platform(parse_io_platform("ring:m=12,io=3,routing=shortest"))
    with pytest.raises(ValidationError, match="not convex"):  # from node 11 to node 6: 7 hops > 12 // 2
        check_io_schedule(short, sched(short, [0], [((0, 7), (11, 12))], [(4,)]))
    check_io_schedule(short, sched(short, [0], [((1, 8),)], [(4,)]))  # nodes 1-7: 6 hops


@settings(max_examples=40, deadline=None)
@given(io_instances(kind="mixed", max_jobs=6, max_p=9, multi=True))
def test_every_applicable_registered_algorithm_passes(inst):
    for name, algo in IO_ALGORITHMS.items():
        if algo.applies(inst):
            check_io_schedule(inst, algo.run(inst))
