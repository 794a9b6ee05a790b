"""GSRPT and SRPT: the preemptive references of Lucarelli, Mendonca and Trystram (2017) (shortest remaining processing time first).

Source: Lucarelli, Mendonca and Trystram (2017), section IV-A ("lower bounds"); Mendonca (2017), ch.3 section
3.3; readings (docs/readings.md) LMT-A1 (ties), LMT-A2 (events), LMT-A3
(SRPT: the dispatch exception uses ``p < remaining``, preemption ``p <= remaining``).

Preempted tasks keep their work (the engine's ``preempt``) and resume later:
GSRPT anywhere (migratory, one common queue), SRPT on the processor it was
dispatched to. They are references, not proven bounds: global SRPT is not
optimal on m > 1 processors.

Cost: GSRPT O(log n) per event; SRPT O(m log q) per arrival (dispatch).
"""

from __future__ import annotations

import heapq
from bisect import insort

from schedlab.engine.simulator import Context
from schedlab.policies.tasks.dispatch import INF, delta_flow
from schedlab.policies.tasks.pools import Redirection, TaskPolicy


def delta_flow_preempting(p: float, remaining: float, queued: list[float]) -> float:
    """Flow increase when a task of length ``p`` preempts a running task with ``remaining`` time left (section IV-D,
    SRPT exception): ``p`` plus ``p`` for every task of the processor, the preempted one included, that it overtakes."""
    return p + p * (sum(1 for q in queued if q > p) + (remaining > p))


class GSRPT(TaskPolicy):
    """GSRPT: common queue by remaining time; an arrival at least as short as the longest remaining running task
    preempts it (non-strict), the preempted task waits in the queue and resumes on any processor.

    Guarantee: none on m processors; on one processor it is SRPT, optimal for total flow (tested against
    brute force over non-preemptive orders).
    """

    name = "gsrpt"

    def __init__(self, *, batch: bool = False) -> None:
        self._configure(Redirection("none", 0, 1, 0.0, 0.0), batch)

    def reset(self, ctx: Context) -> None:
        self.redirection.check(self.name, ctx.n_procs, ctx.jobs.procs)
        jobs = ctx.jobs
        self._attach(ctx)
        assert jobs.run_time is not None  # clairvoyant: the engine shows run times
        self.remaining = jobs.run_time.tolist()
        self.release = jobs.submit.tolist()
        self.ids = jobs.id.tolist()
        self.idle = list(range(ctx.n_procs))
        self.queue: list[tuple] = []  # (remaining, release, id, row)
        self.processor: dict[int, int] = {}
        self.end: dict[int, float] = {}
        self.by_end: list[tuple[float, int, int]] = []  # (-end, processor, row), lazily cleaned

    def _key(self, row: int) -> tuple:
        return (self.remaining[row], self.release[row], self.ids[row], row)

    def complete(self, rows: list[int], now: float) -> None:
        for row in rows:
            heapq.heappush(self.idle, self.processor.pop(row))
            del self.end[row]
        self._fill(now)

    def submit(self, rows: list[int], now: float) -> None:
        for row in rows:
            if not self.idle:
                self._preempt_for(row, now)
            else:
                heapq.heappush(self.queue, self._key(row))
            if not self.batch:
                self._fill(now)
        self._fill(now)

    def _preempt_for(self, row: int, now: float) -> None:
        by_end, processor_of = self.by_end, self.processor
        while by_end and processor_of.get(by_end[0][2]) != by_end[0][1]:
            heapq.heappop(by_end)
        neg_end, processor, k = by_end[0]
        left = -neg_end - now
        if self.remaining[row] <= left:
            heapq.heappop(by_end)
            self._order_preempt(k)
            self.remaining[k] = left
            del processor_of[k], self.end[k]
            heapq.heappush(self.queue, self._key(k))
            self._start(row, processor, now)
        else:
            heapq.heappush(self.queue, self._key(row))

    def _fill(self, now: float) -> None:
        while self.queue and self.idle:
            row = heapq.heappop(self.queue)[3]
            self._start(row, heapq.heappop(self.idle), now)

    def _start(self, row: int, processor: int, now: float) -> None:
        self._order_start(row, processor)
        self.processor[row] = processor
        self.end[row] = now + self.remaining[row]
        heapq.heappush(self.by_end, (-self.end[row], processor, row))


class SRPT(TaskPolicy):
    """SRPT with immediate dispatch (non-migratory): each processor runs its queue by remaining time; an arrival
    dispatched to a processor whose running task has at least as much time left preempts it.

    Guarantee: none on m processors; on one processor it is optimal for total flow (tested against brute force).
    """

    name = "srpt"

    def __init__(self, *, batch: bool = False) -> None:
        self._configure(Redirection("none", 0, 1, 0.0, 0.0), batch)

    def reset(self, ctx: Context) -> None:
        self.redirection.check(self.name, ctx.n_procs, ctx.jobs.procs)
        jobs = ctx.jobs
        m = ctx.n_procs
        self._attach(ctx)
        assert jobs.run_time is not None  # clairvoyant: the engine shows run times
        self.remaining = jobs.run_time.tolist()
        self.release = jobs.submit.tolist()
        self.ids = jobs.id.tolist()
        self.running = [-1] * m
        self.end = [0.0] * m
        self.lengths: list[list[float]] = [[] for _ in range(m)]
        self.waiting: list[list[tuple]] = [[] for _ in range(m)]
        self.processor_of: dict[int, int] = {}

    def _key(self, row: int) -> tuple:
        return (self.remaining[row], self.release[row], self.ids[row], row)

    def complete(self, rows: list[int], now: float) -> None:
        for row in rows:
            processor = self.processor_of.pop(row)
            self.running[processor] = -1
            self._start_next(processor, now)

    def submit(self, rows: list[int], now: float) -> None:
        for row in rows:
            p = self.remaining[row]
            best = INF
            for i, k in enumerate(self.running):
                left = self.end[i] - now if k >= 0 else 0.0
                if k >= 0 and p < left:
                    d = delta_flow_preempting(p, left, self.lengths[i])
                else:
                    d = delta_flow(p, left, self.lengths[i])
                if d < best:
                    best, processor = d, i
            k = self.running[processor]
            if k >= 0 and p <= self.end[processor] - now:
                self._order_preempt(k)
                self.remaining[k] = self.end[processor] - now
                del self.processor_of[k]
                self._enqueue(k, processor)
                self._start(row, processor, now)
            else:
                self._enqueue(row, processor)
                if k < 0 and not self.batch:
                    self._start_next(processor, now)
        if self.batch:
            for processor, k in enumerate(self.running):
                if k < 0 and self.waiting[processor]:
                    self._start_next(processor, now)

    def _enqueue(self, row: int, processor: int) -> None:
        insort(self.lengths[processor], self.remaining[row])
        insort(self.waiting[processor], self._key(row))

    def _start_next(self, processor: int, now: float) -> None:
        if self.waiting[processor]:
            row = self.waiting[processor].pop(0)[3]
            self.lengths[processor].pop(0)
            self._start(row, processor, now)

    def _start(self, row: int, processor: int, now: float) -> None:
        self._order_start(row, processor)
        self.processor_of[row] = processor
        self.running[processor] = row
        self.end[processor] = now + self.remaining[row]
