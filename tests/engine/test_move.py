"""The engine's move action (migration): checked like every action, recorded as moved pieces, validated.

Source: Krevat (2003), chapter 2 (Scheduler 3 re-places running jobs; no
overhead, so a job's end does not change).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from schedlab.engine import simulate
from schedlab.errors import IllegalDecision, ValidationError
from schedlab.metrics import aggregate, job_metrics
from schedlab.platform import Machine
from schedlab.platform.torus import Torus
from schedlab.runtime.partition import PartitionRuntime
from schedlab.schedule import Instance, Piece
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable


class Scripted:
    """A policy that runs a script: {time: [(action, args...)]} applied in schedule()."""

    name = "scripted"
    clairvoyant = False

    def __init__(self, script, timers=()):
        self.script = script
        self.timers = timers

    def describe(self):
        return self.name

    def reset(self, ctx):
        self.ctx = ctx
        for t in self.timers:
            ctx.wake_at(t)

    def submit(self, rows, now):
        pass

    def complete(self, rows, now):
        pass

    def schedule(self, now):
        for action, *args in self.script.get(now, []):
            getattr(self.ctx, action)(*args)


def ring(submit, run_time, procs, n=8):
    """Jobs on a 1x1xn torus (boxes are cyclic intervals) with the partition run-time model."""
    jobs = JobTable.from_arrays(submit=submit, run_time=run_time, procs=procs)
    return Instance(jobs, Torus((1, 1, n)), PartitionRuntime(jobs))


def test_move_keeps_the_end_and_records_the_left_placement():
    """A on {0,1} and B on {4,5} from 0; at 3 B moves to {2,3}, at 6 to {6,7}: B still ends at 10; its
    pieces are {4,5} over [0, 3) and {2,3} over [3, 6); the final allocation {6,7} is used from 6."""
    script = {
        0: [("start", 0, ((0, 2),)), ("start", 1, ((4, 6),))],
        3: [("move", {1: ((2, 4),)})],
        6: [("move", {1: ((6, 8),)})],
    }
    inst = ring([0, 0], [10, 10], [2, 2])
    s = simulate(inst, Scripted(script, timers=(3, 6)))
    assert s.start.tolist() == [0, 0] and s.end.tolist() == [10, 10]
    assert s.alloc[1] == ((6, 8),)
    assert s.aborted == [Piece(1, 0, 3, ((4, 6),), True, True), Piece(1, 3, 6, ((2, 4),), True, True)]
    validate(inst, s)
    m = aggregate(inst, s)
    assert m["n_preempted"] == 0 and m["n_aborted"] == 0
    assert m["utilization"] == pytest.approx(40 / 80)  # moved pieces are not counted twice
    assert job_metrics(inst, s)["execution"].tolist() == [10, 10]


def test_jobs_may_swap_places_at_once():
    script = {0: [("start", 0, ((0, 4),)), ("start", 1, ((4, 8),))], 2: [("move", {0: ((4, 8),), 1: ((0, 4),)})]}
    inst = ring([0, 0], [5, 5], [4, 4])
    s = simulate(inst, Scripted(script, timers=(2,)))
    assert s.alloc == [((4, 8),), ((0, 4),)]
    validate(inst, s)


@pytest.mark.parametrize(
    "moves,match",
    [
        ({1: ((2, 4),)}, "cannot move job 2: it is not submitted at time 2"),
        ({0: ((2, 5),)}, "needs 2 processors, given 3"),
        ({0: ((4, 6),)}, "cannot move job 1 at time 2"),  # taken by job 3
        ({0: ((0, 1), (3, 4))}, "is not a box"),
    ],
)
def test_illegal_moves_are_refused(moves, match):
    script = {0: [("start", 0, ((0, 2),)), ("start", 2, ((4, 6),))], 2: [("move", moves)]}
    inst = ring([0, 5, 0], [5, 5, 5], [2, 2, 2])
    with pytest.raises(IllegalDecision, match=match):
        simulate(inst, Scripted(script, timers=(2,)))


def test_a_moved_job_cannot_be_aborted():
    script = {0: [("start", 0, ((0, 2),))], 1: [("move", {0: ((2, 4),)})], 2: [("abort", 0)]}
    jobs = JobTable.from_arrays(submit=[0], run_time=[5], procs=[2])
    with pytest.raises(IllegalDecision, match="it was moved since it started"):
        simulate(Instance(jobs, Machine(8)), Scripted(script, timers=(1, 2)))


def test_validator_checks_moved_pieces():
    script = {0: [("start", 0, ((0, 2),)), ("start", 1, ((4, 6),))], 3: [("move", {1: ((2, 4),)})]}
    inst = ring([0, 0], [10, 10], [2, 2])
    good = simulate(inst, Scripted(script, timers=(3,)))
    validate(inst, good)

    def tampered(*pieces):
        return replace(good, aborted=list(pieces))

    with pytest.raises(ValidationError, match=r"moved piece 0 starts at 1.0, expected 0.0"):
        validate(inst, tampered(Piece(1, 1.0, 3.0, ((4, 6),), True, True)))
    with pytest.raises(ValidationError, match="moved piece 0 holds 3 processors, its final allocation 2"):
        validate(inst, tampered(Piece(1, 0.0, 3.0, ((4, 7),), True, True)))
    with pytest.raises(ValidationError, match="moved at 10.0, not before its end 10.0"):
        validate(inst, tampered(Piece(1, 0.0, 10.0, ((4, 6),), True, True)))
    with pytest.raises(ValidationError, match="processor 0 is used by job 1"):  # the left placement overlaps A
        validate(inst, tampered(Piece(1, 0.0, 3.0, ((0, 2),), True, True)))
    with pytest.raises(ValidationError, match="processor 2 is used by job 2 from 3.0 to 10.0 and by job 3"):
        # a third job on {2,3} over [5, 7) clashes with B's final box, in use from its move at 3
        jobs = JobTable.from_arrays(submit=[0, 0, 0], run_time=[10, 10, 2], procs=[2, 2, 2])
        three = Instance(jobs, Torus((1, 1, 8)), PartitionRuntime(jobs))
        validate(
            three,
            replace(
                good,
                start=np.array([0, 0, 5.0]),
                end=np.array([10, 10, 7.0]),
                status=np.array([1, 1, 1], dtype=np.int8),
                alloc=[*good.alloc, ((2, 4),)],
            ),
        )
    assert np.array_equal(good.kept_work(), [0.0, 0.0])
