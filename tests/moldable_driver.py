"""A minimal event loop for the moldable policies until the engine chooses allocation sizes (architecture rework).

Same event semantics as :func:`schedlab.engine.simulate`: at each time, completions, then releases in
(release, id) order, then one scheduling pass. It checks what the engine will check: a task starts once,
after its release, on processors that are free (an IntervalSet refuses double booking).
"""

from __future__ import annotations

import heapq

import numpy as np

from schedlab.platform.intervals import IntervalSet, allocation_size


class DriverContext:
    def __init__(self, tasks, m):
        self.moldable = tasks
        self.n_procs = m
        self.free = IntervalSet.full(m)
        self.now = -np.inf
        n = len(tasks)
        self.start_time = np.full(n, np.nan)
        self.procs = np.zeros(n, dtype=np.int64)
        self.end = np.full(n, np.nan)
        self.alloc = [None] * n
        self.ends: list[tuple[float, int]] = []
        self.timers: list[float] = []
        self.released = np.zeros(n, dtype=bool)

    def start(self, row, alloc):
        assert self.released[row] and np.isnan(self.start_time[row]), f"task row {row} cannot start"
        self.free.remove(alloc)
        k = allocation_size(alloc)
        self.start_time[row], self.procs[row], self.alloc[row] = self.now, k, alloc
        self.end[row] = self.now + self.moldable.times[row, k - 1]
        heapq.heappush(self.ends, (self.end[row], row))

    def wake_at(self, time):
        assert time > self.now
        heapq.heappush(self.timers, time)


def run_moldable(tasks, m, policy):
    """Simulate ``policy`` on ``tasks`` with ``m`` processors; returns the context (start_time, procs, end, alloc)."""
    ctx = DriverContext(tasks, m)
    policy.reset(ctx)
    order = np.lexsort((tasks.id, tasks.release)).tolist()
    i = 0
    while True:
        t = tasks.release[order[i]] if i < len(order) else np.inf
        if ctx.ends:
            t = min(t, ctx.ends[0][0])
        if ctx.timers:
            t = min(t, ctx.timers[0])
        if t == np.inf:
            break
        ctx.now = t
        done = []
        while ctx.ends and ctx.ends[0][0] == t:
            row = heapq.heappop(ctx.ends)[1]
            ctx.free.add(ctx.alloc[row])
            done.append(row)
        if done:
            policy.complete(done, t)
        rows = []
        while i < len(order) and tasks.release[order[i]] == t:
            rows.append(order[i])
            ctx.released[order[i]] = True
            i += 1
        if rows:
            policy.submit(rows, t)
        while ctx.timers and ctx.timers[0] <= t:
            heapq.heappop(ctx.timers)
        policy.schedule(t)
    assert not np.isnan(ctx.end).any(), "a task never ran"
    return ctx
