"""A deliberately naive event loop written straight from the engine's documented semantics.

It shares no code with the engine (``schedlab.engine.simulator`` on the compiled core's events):
plain lists scanned at every step, no heap, a free set of processor ids. At each event time, all
completions (by end time, then row), then all submissions (by submit, then id), then one pass;
a timer adds a pass; the end a stopped run had scheduled still comes up as an event time, with
nothing ending then. Tests run one policy on both and compare every callback and the schedule.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

WAITING, QUEUED, RUNNING, DONE, REJECTED = range(5)


def ranges(ids) -> tuple[tuple[int, int], ...]:
    """Sorted ids as maximal ranges ``[lo, hi)``."""
    out: list[list[int]] = []
    for p in sorted(ids):
        if out and out[-1][1] == p:
            out[-1][1] = p + 1
        else:
            out.append([p, p + 1])
    return tuple((lo, hi) for lo, hi in out)


class ReferenceContext:
    """The actions a test policy uses: first-fit starts, abort, preempt, reject, timers."""

    def __init__(self, jobs, n_procs: int, rng) -> None:
        n = len(jobs)
        self.jobs = SimpleNamespace(procs=jobs.procs, submit=jobs.submit, id=jobs.id)
        self.n_procs = n_procs
        self.rng = rng
        self.now = -math.inf
        self.free_ids = set(range(n_procs))
        self.free = SimpleNamespace(size=n_procs)
        self.state = [WAITING] * n
        self.attempt = [0] * n
        self.start = [math.nan] * n
        self.end = [math.nan] * n
        self.alloc: list = [None] * n
        self.duration = [float(min(r, q)) for r, q in zip(jobs.run_time.tolist(), jobs.requested_time.tolist())]
        self.remaining = list(self.duration)
        self.ends: list[tuple[float, int, int]] = []  # (end, row, attempt), stale ones included
        self.timers: list[float] = []
        self.pieces: list[tuple] = []

    def _take(self, ids) -> None:
        self.free_ids -= set(ids)
        self.free.size = len(self.free_ids)

    def _give(self, alloc) -> None:
        for lo, hi in alloc:
            self.free_ids |= set(range(lo, hi))
        self.free.size = len(self.free_ids)

    def start_first_fit(self, row: int):
        assert self.state[row] == QUEUED and self.jobs.procs[row] <= self.free.size
        ids = sorted(self.free_ids)[: int(self.jobs.procs[row])]
        self._take(ids)
        self.alloc[row] = ranges(ids)
        self.state[row] = RUNNING
        self.start[row] = self.now
        self.ends.append((self.now + self.remaining[row], row, self.attempt[row]))
        return self.alloc[row]

    def _stop(self, row: int, kept: bool) -> None:
        assert self.state[row] == RUNNING
        if not (kept and self.now == self.start[row]):
            self.pieces.append((row, self.start[row], self.now, self.alloc[row], kept, False))
        self.remaining[row] = self.remaining[row] - (self.now - self.start[row]) if kept else self.duration[row]
        self._give(self.alloc[row])
        self.state[row] = QUEUED
        self.attempt[row] += 1
        self.start[row] = math.nan
        self.alloc[row] = None

    def abort(self, row: int) -> None:
        self._stop(row, kept=False)

    def preempt(self, row: int) -> None:
        self._stop(row, kept=True)

    def reject(self, row: int) -> None:
        assert self.state[row] == QUEUED
        self.state[row] = REJECTED

    def wake_at(self, time: float) -> None:
        assert time > self.now
        self.timers.append(time)


def reference_simulate(instance, policy, rng) -> ReferenceContext:
    """Run ``policy`` on ``instance`` (rigid run times); the context holds the outcome."""
    jobs = instance.jobs
    ctx = ReferenceContext(jobs, instance.platform.n_procs, rng)
    policy.reset(ctx)
    submit = jobs.submit.tolist()
    ids = jobs.id.tolist()
    while True:
        times = [submit[r] for r in range(len(submit)) if ctx.state[r] == WAITING]
        times += [e for e, _, _ in ctx.ends] + ctx.timers
        if not times:
            break
        t = min(times)
        ctx.now = t
        due = sorted(e for e in ctx.ends if e[0] == t)
        ctx.ends = [e for e in ctx.ends if e[0] != t]
        done = []
        for _, row, attempt in due:
            if attempt == ctx.attempt[row] and ctx.state[row] == RUNNING:
                ctx.state[row] = DONE
                ctx.end[row] = t
                ctx._give(ctx.alloc[row])
                done.append(row)
        if done:
            policy.complete(done, t)
        arrived = sorted(
            (r for r in range(len(submit)) if ctx.state[r] == WAITING and submit[r] == t), key=ids.__getitem__
        )
        for row in arrived:
            ctx.state[row] = QUEUED
        if arrived:
            policy.submit(arrived, t)
        ctx.timers = [x for x in ctx.timers if x > t]
        policy.schedule(t)
    ctx.start_a = np.asarray(ctx.start, dtype=float)
    ctx.end_a = np.asarray(ctx.end, dtype=float)
    return ctx
