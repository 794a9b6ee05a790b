"""I/O requests as a run-time model, checked by the one validator with the line/ring platform's rules.

The validator sees each rule of Bleuse (2017), section 4.1 and Def. 4.3-4.6:
rigid sizes (or the over-allocation of several pinned I/O nodes), convex and
connected runs of nodes (the platform), locality to the pinned I/O nodes or to
enough I/O nodes (the model), one job per compute node at a time, and one job
per exclusive I/O node (shared ones are a shared kind).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from io_strategies import check, io_instances
from schedlab.errors import InputError, ValidationError
from schedlab.offline.io import io_instance, meets
from schedlab.platform.io import parse_io_platform
from schedlab.registry import ALGORITHMS, IO, names
from schedlab.runtime.io import IORequests, io_jobs
from schedlab.schedule import JobStatus, Schedule
from schedlab.validation import validate
from schedlab.workload.io_jobs import IOInstance


def sched(inst, start, alloc):
    start = np.array(start, dtype=float)
    return Schedule(
        start, start + inst.p, np.full(inst.n, JobStatus.COMPLETED, dtype=np.int8), list(alloc), policy="hand"
    )


SHARED = parse_io_platform("line:m=12,io=3")  # I/O 0, 4, 8
EXCL = SHARED.with_mode("exclusive")


def test_jobs_table_and_model():
    inst = IOInstance.from_jobs(SHARED, [(2.5, 3, (0,)), (4, 2, 1)], ids=[7, 9])
    jobs = io_jobs(inst)
    assert jobs.id.tolist() == [7, 9] and jobs.procs.tolist() == [3, 2] and jobs.run_time.tolist() == [2.5, 4.0]
    assert np.all(jobs.submit == 0) and np.all(np.isinf(jobs.requested_time))
    model = IORequests(inst)
    assert model.duration(1, ((4, 7),)) == (4.0, False) and not model.fixed
    assert model.allocation_problem(0, ((0, 4),), 4) is None
    assert model.allocation_problem(1, ((4, 7),), 3) is None  # nodes 5, 6 next to I/O node 4


def test_shared_io_node_from_both_sides_is_fine_exclusive_is_not():
    jobs = [(2, 2, (4,)), (2, 2, (4,))]
    validate(
        io_instance(IOInstance.from_jobs(SHARED, jobs)),
        sched(IOInstance.from_jobs(SHARED, jobs), [0, 0], [((2, 5),), ((4, 7),)]),
    )
    inst = IOInstance.from_jobs(EXCL, jobs)
    with pytest.raises(ValidationError, match="processor 4 is used by job 0 .* and by job 1 .* at time 0.0"):
        validate(io_instance(inst), sched(inst, [0, 0], [((2, 5),), ((4, 7),)]))


@pytest.mark.parametrize(
    "start, alloc, message",
    [
        ([0, 1], [((0, 4),), ((2, 6),)], r"processor 2 is used by job 0 .* and by job 1"),
        ([0, 2], [((0, 4),), ((2, 6),)], None),  # back to back on nodes 2, 3: fine
        ([0, 0], [((0, 3), (5, 6)), ((4, 8),)], r"job 0: allocation: 0-2 5 is not one run of consecutive nodes"),
        ([0, 0], [((0, 4),), ((8, 12),)], r"job 1: allocation: 8-11 does not reach its pinned I/O nodes \[4\]"),
        ([0, 0], [((0, 3),), ((4, 8),)], "job 0: allocation: 0-2 holds 2 compute nodes, the job needs 3"),
        ([0, 0], [((0, 4),), ((12, 13),)], "outside processors 0..11"),
    ],
)
def test_broken_rules(start, alloc, message):
    inst = IOInstance.from_jobs(SHARED, [(2, 3, (0,)), (2, 3, (4,))])
    if message is None:
        validate(io_instance(inst), sched(inst, start, alloc))
    else:
        with pytest.raises(ValidationError, match=message):
            validate(io_instance(inst), sched(inst, start, alloc))


def test_locality_needs_adjacency():
    """Def. 4.6: a convex run whose only I/O node is reachable through another I/O node only."""
    plat = parse_io_platform("line:layout=CCIIC")
    inst = IOInstance.from_jobs(plat, [(1, 2, (3,))])
    with pytest.raises(ValidationError, match=r"does not reach its pinned I/O nodes \[3\]"):
        validate(io_instance(inst), sched(inst, [0], [((0, 4),)]))
    unpinned = IOInstance.from_jobs(plat, [(1, 2, 1)])
    validate(io_instance(unpinned), sched(unpinned, [0], [((0, 4),)]))  # I/O node 2 is adjacent
    with pytest.raises(ValidationError, match="reaches 0 I/O nodes from its compute nodes, the job needs 1"):
        validate(io_instance(unpinned), sched(unpinned, [0], [((0, 2),)]))


def test_inflated_allocation_is_accepted_only_with_inflate():
    plat = parse_io_platform("line:m=40,io=8")
    inst = IOInstance.from_jobs(plat, [(1, 3, (5, 15))])
    validate(io_instance(inst), sched(inst, [0], [((5, 16),)]))
    with pytest.raises(ValidationError, match=r"does not reach its pinned I/O nodes \[15\]"):
        validate(io_instance(inst), sched(inst, [0], [((5, 9),)]))  # 3 compute nodes, far from 15
    with pytest.raises(InputError, match="multi_io = reject refuses over-allocation"):
        IOInstance(plat, inst.p, inst.q, inst.io, inst.ids, inflate=False)


def test_ring_wrapping_allocation_and_shortest_routing():
    plat = parse_io_platform("ring:m=12,io=3")
    inst = IOInstance.from_jobs(plat, [(1, 3, (0,))])
    validate(io_instance(inst), sched(inst, [0], [((0, 2), (10, 12))]))  # nodes 10, 11, (0), 1
    with pytest.raises(ValidationError, match="not one run of consecutive nodes"):
        validate(io_instance(inst), sched(inst, [0], [((0, 2), (5, 7))]))
    wide = IOInstance.from_jobs(plat, [(1, 6, (4,))])
    validate(io_instance(wide), sched(wide, [0], [((0, 7), (11, 12))]))  # nodes 11, (0), 1-3, (4), 5, 6
    short = wide.with_platform(parse_io_platform("ring:m=12,io=3,routing=shortest"))
    with pytest.raises(ValidationError, match="is not convex"):  # from node 11 to node 6: 7 hops > 12 // 2
        validate(io_instance(short), sched(short, [0], [((0, 7), (11, 12))]))
    validate(io_instance(short), sched(short, [0], [((1, 8),)]))  # nodes 1-7: 6 hops


@settings(max_examples=40, deadline=None)
@given(io_instances(kind="mixed", max_jobs=6, max_p=9, multi=True))
def test_every_applicable_registered_algorithm_passes(inst):
    for name in names(family=IO):
        algorithm = ALGORITHMS[name]
        if meets(algorithm.traits["requires"], inst):
            check(inst, algorithm.build()(inst))
