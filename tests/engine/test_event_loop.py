"""The one event loop (the compiled core's events, stepped by ``simulate``) against a naive transcription
of its semantics (``tests/event_reference.py``): a random policy that starts, aborts, preempts, rejects
and sets timers sees the same callbacks in the same order on both, and leaves the same schedule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from event_reference import reference_simulate
from schedlab.engine import simulate
from schedlab.errors import IllegalDecision
from schedlab.platform import Machine
from schedlab.schedule import Instance
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import rigid_instances


class Chaos:
    """Random legal decisions from what the callbacks said: its log and choices depend only on them.

    Each pass may preempt or abort running jobs (at most twice per job), reject a queued job, start
    queued jobs that fit in random order, and set a timer; when nothing runs, the first queued job
    starts, so every job ends.
    """

    name = "chaos"
    clairvoyant = False

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def describe(self) -> str:
        return self.name

    def reset(self, ctx) -> None:
        self.ctx = ctx
        self.choice = np.random.default_rng(self.seed)
        self.queued: list[int] = []
        self.running: list[int] = []
        self.stops = [0] * len(ctx.jobs.procs)
        self.log: list[tuple] = []
        if self.choice.random() < 0.3:
            ctx.wake_at(float(self.choice.integers(0, 10)))

    def complete(self, rows, now) -> None:
        self.log.append(("complete", now, list(rows)))
        self.running = [r for r in self.running if r not in rows]

    def submit(self, rows, now) -> None:
        self.log.append(("submit", now, list(rows)))
        self.queued += rows

    def schedule(self, now) -> None:
        self.log.append(("pass", now, ctx_free(self.ctx)))
        pick = self.choice
        for row in list(self.running):
            if self.stops[row] < 2 and pick.random() < 0.15:
                self.stops[row] += 1
                (self.ctx.preempt if pick.random() < 0.5 else self.ctx.abort)(row)
                self.running.remove(row)
                self.queued.append(row)
        if self.queued and pick.random() < 0.05:
            self.ctx.reject(self.queued.pop(int(pick.integers(len(self.queued)))))
        for row in [self.queued[i] for i in pick.permutation(len(self.queued))]:
            if self.ctx.jobs.procs[row] <= ctx_free(self.ctx) and pick.random() < 0.7:
                self.start(row)
        if self.queued and not self.running:
            self.start(self.queued[0])
        if pick.random() < 0.2:
            self.ctx.wake_at(now + float(pick.integers(1, 6)))

    def start(self, row: int) -> None:
        self.log.append(("start", row, self.ctx.start_first_fit(row)))
        self.queued.remove(row)
        self.running.append(row)


def ctx_free(ctx) -> int:
    return int(ctx.free.size)


@settings(max_examples=300, deadline=None)
@given(rigid_instances(max_jobs=10, max_procs=6, max_time=12), st.integers(0, 2**32 - 1))
def test_the_event_loop_matches_its_naive_transcription(inst, seed):
    engine_policy, reference_policy = Chaos(seed), Chaos(seed)
    schedule = simulate(inst, engine_policy, engine="python")
    reference = reference_simulate(inst, reference_policy, None)
    assert engine_policy.log == reference_policy.log
    np.testing.assert_array_equal(schedule.start, reference.start_a)
    np.testing.assert_array_equal(schedule.end, reference.end_a)
    assert list(schedule.alloc) == reference.alloc
    got = [(p.job, p.start, p.end, p.alloc, p.kept, p.moved) for p in schedule.aborted]
    assert got == reference.pieces
    validate(inst, schedule, allow_rejected=True)


def test_a_stopped_run_cannot_be_stopped_or_started_twice():
    """The core keeps the states the checks read: after an abort the job is queued, once restarted it runs."""

    class AbortTwice(Chaos):
        def schedule(self, now):
            if now == 0:
                self.ctx.start_first_fit(0)
                self.ctx.abort(0)
                with pytest.raises(IllegalDecision, match="cannot abort job 1: it is queued"):
                    self.ctx.abort(0)
                self.ctx.start_first_fit(0)
                with pytest.raises(IllegalDecision, match="cannot start job 1: it is running at time 0"):
                    self.ctx.start_first_fit(0)

    one = Instance(JobTable.from_arrays(submit=[0], run_time=[3], requested_time=[5], procs=[1]), Machine(1))
    schedule = simulate(one, AbortTwice(0))
    assert schedule.start.tolist() == [0] and schedule.end.tolist() == [3]
    assert [(p.start, p.end, p.kept) for p in schedule.aborted] == [(0, 0, False)]
