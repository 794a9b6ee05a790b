"""GSRPT and SRPT: the preemptive references of Lucarelli, Mendonca and Trystram (2017) (shortest remaining processing time first).

Source: Lucarelli, Mendonca and Trystram (2017), section IV-A ("lower bounds"); Mendonca (2017), ch.3 section
3.3; readings (docs/readings.md) LMT-A1 (ties), LMT-A2 (events), LMT-A3
(SRPT: the dispatch exception uses ``p < remaining``, preemption ``p <= remaining``).

Preempted tasks keep their work (the engine's ``preempt``) and resume later:
GSRPT anywhere (migratory, one common queue), SRPT on the processor it was
dispatched to. They are references, not proven bounds: global SRPT is not
optimal on m > 1 processors.

Cost: GSRPT O(log n) per event. SRPT dispatches in O(log m) comparisons per
arrival (the sorted lists below move O(m) pointers in C on insertion), plus, per
processor with a queue, O(1) for its lower bound and O(log q) where that bound
can still win (2.7 queued processors per arrival on a 60-day Curie window).
Processors are filed as free (idle, empty queue: increase exactly ``p``), lone (running, empty queue: ``p + p`` when the
arrival would preempt, else ``p + left``) or queued (computed exactly, only where
its bound ``p + p`` or ``p + left`` can still win). Lone processors are kept by the
end of their task (a sorted list, walked while ``p + left`` can win) and in a max
segment tree over processor indices (the first one the arrival would preempt).
Rounding is monotone, so every bound holds for the computed floats and the
choice is the plain scan's, ties to the first processor included (tested against
it). A pure-Python index rather than numpy (per-call overhead on m ~ 100
processors, and numpy's pairwise sums differ from Python's ``sum`` in the last
bit) or the Rust core (the sorted per-processor queues would have to live there,
and the engine's own work now costs more than the dispatch).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right, insort

from schedlab.engine.simulator import Context
from schedlab.policies.tasks.dispatch import INF, delta_flow
from schedlab.policies.tasks.pools import Redirection, TaskPolicy


def delta_flow_preempting(p: float, remaining: float, queued: list[float]) -> float:
    """Flow increase when a task of length ``p`` preempts a running task with ``remaining`` time left (section IV-D,
    SRPT exception): ``p`` plus ``p`` for every task of the processor, the preempted one included, that it overtakes.

    ``queued`` is sorted: the tasks overtaken in the queue are those after ``bisect_right(queued, p)``."""
    return p + p * (len(queued) - bisect_right(queued, p) + (remaining > p))


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
        # Each processor is filed under exactly one of: free (idle, empty queue), lone (running, empty queue:
        # its end in ``lone`` and ``lone_ends``), queued (a non-empty queue).
        self.kind = [FREE] * m
        self.free = list(range(m))  # sorted
        self.lone: list[tuple[float, int]] = []  # sorted (end of the running task, processor)
        self.lone_ends = LatestEnd(m)
        self.filed_end = [0.0] * m  # the end a lone processor is filed under
        self.queued: set[int] = set()

    def _key(self, row: int) -> tuple:
        return (self.remaining[row], self.release[row], self.ids[row], row)

    def complete(self, rows: list[int], now: float) -> None:
        for row in rows:
            processor = self.processor_of.pop(row)
            self.running[processor] = -1
            self._start_next(processor, now)
            self._file(processor)

    def submit(self, rows: list[int], now: float) -> None:
        for row in rows:
            p = self.remaining[row]
            processor = self._choose(p, now)
            k = self.running[processor]
            if k >= 0 and p <= self.end[processor] - now:
                self._order_preempt(k)
                self.remaining[k] = self.end[processor] - now
                del self.processor_of[k]
                self._enqueue(k, processor)
                self._start(row, processor, now)
            elif k < 0 and not self.batch and not self.waiting[processor]:
                self._start(row, processor, now)  # the arrival would be queued alone, then started
            else:
                self._enqueue(row, processor)
                if k < 0 and not self.batch:
                    self._start_next(processor, now)
            self._file(processor)
        if self.batch:
            for processor in sorted(i for i in self.queued if self.running[i] < 0):
                self._start_next(processor, now)
                self._file(processor)

    def _choose(self, p: float, now: float) -> int:
        """The first processor with the smallest flow increase for an arrival of length ``p``: ``delta_flow``, or
        ``delta_flow_preempting`` where the running task has more than ``p`` left (reading LMT-A3).

        The same choice as computing both for every processor, ties included, without visiting every processor:
        a free processor costs exactly ``p``; a lone one ``p + p`` when the arrival would preempt, else
        ``p + left``, which grows with its end; a queued one at least as much as a lone one in the same state
        (rounding is monotone), so it is computed only when that bound can still win.
        """
        free, running, end, lengths = self.free, self.running, self.end, self.lengths
        best, choice = (p, free[0]) if free else (INF, -1)
        for finish, i in self.lone:  # by increasing end: p + left, while the arrival would not preempt
            left = finish - now
            if p < left or p + left > best:
                break
            if p + left < best or i < choice:
                best, choice = p + left, i
        twice = p + p
        if twice <= best:
            i = self.lone_ends.first_over(p, now)
            if i >= 0 and (twice < best or i < choice):
                best, choice = twice, i
        for i in self.queued:
            left = end[i] - now if running[i] >= 0 else 0.0
            preempting = running[i] >= 0 and p < left
            bound = twice if preempting else p + left
            if bound > best or (bound == best and i > choice):
                continue
            d = delta_flow_preempting(p, left, lengths[i]) if preempting else delta_flow(p, left, lengths[i])
            if d < best or (d == best and i < choice):
                best, choice = d, i
        return choice

    def _file(self, processor: int) -> None:
        """File ``processor`` under its current state (free, lone with its end, or queued)."""
        if self.lengths[processor]:
            kind = QUEUED
        else:
            kind = LONE if self.running[processor] >= 0 else FREE
        old = self.kind[processor]
        if old == kind and (kind != LONE or self.end[processor] == self.filed_end[processor]):
            return
        if old == LONE:
            del self.lone[bisect_left(self.lone, (self.filed_end[processor], processor))]
            self.lone_ends.set(processor, -INF)
        elif old == FREE:
            del self.free[bisect_left(self.free, processor)]
        else:
            self.queued.remove(processor)
        self.kind[processor] = kind
        if kind == LONE:
            end = self.filed_end[processor] = self.end[processor]
            insort(self.lone, (end, processor))
            self.lone_ends.set(processor, end)
        elif kind == FREE:
            insort(self.free, processor)
        else:
            self.queued.add(processor)

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


FREE, LONE, QUEUED = 0, 1, 2
"""How :class:`SRPT` files a processor: idle with an empty queue, running with an empty queue, a non-empty queue."""


class LatestEnd:
    """Per processor, the end of its running task (``-inf`` for none), in a max segment tree: the first
    processor whose task ends more than ``p`` after ``now`` in O(log m).

    Updates wait in ``pending`` until the next query: most arrivals find a free processor and never ask.
    """

    __slots__ = ("size", "tree", "pending")

    def __init__(self, m: int) -> None:
        self.size = 1 << max(m - 1, 0).bit_length()
        self.tree = [-INF] * (2 * self.size)
        self.pending: dict[int, float] = {}

    def set(self, processor: int, end: float) -> None:
        self.pending[processor] = end

    def first_over(self, p: float, now: float) -> int:
        """The lowest processor with ``p < end - now`` (its running task has more than ``p`` left), or -1.

        ``end - now`` grows with ``end`` (rounding is monotone), so a subtree holds such a processor exactly
        when its latest end qualifies."""
        tree, size = self.tree, self.size
        for processor, end in self.pending.items():
            i = processor + size
            tree[i] = end
            i >>= 1
            while i:
                latest = max(tree[2 * i], tree[2 * i + 1])
                if tree[i] == latest:
                    break  # the ancestors hold the same maxima
                tree[i] = latest
                i >>= 1
        self.pending.clear()
        if not p < tree[1] - now:
            return -1
        i = 1
        while i < size:
            i *= 2
            if not p < tree[i] - now:
                i += 1
        return i - size
