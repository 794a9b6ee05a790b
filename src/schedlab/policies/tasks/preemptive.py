"""GSRPT and SRPT: the preemptive references of Lucarelli, Mendonca and Trystram (2017) (shortest remaining processing time first).

Source: Lucarelli, Mendonca and Trystram (2017), section IV-A ("lower bounds"); Mendonca (2017), ch.3 section
3.3; readings (docs/readings.md) LMT-A1 (ties), LMT-A2 (events), LMT-A3
(SRPT: the dispatch exception uses ``p < remaining``, preemption ``p <= remaining``).

Preempted tasks keep their work (the engine's ``preempt``) and resume later:
GSRPT anywhere (migratory, one common queue), SRPT on the processor it was
dispatched to. They are references, not proven bounds: global SRPT is not
optimal on m > 1 processors.

Cost: GSRPT O(log n) per event. SRPT dispatches in O(log m) comparisons per
arrival (sorted lists move O(m) pointers in C on insertion) when a processor is
free and no running task ends within rounding of now (84 % of the arrivals on a
60-day Curie window): the first free processor then wins outright. Otherwise it
walks the running processors by end while ``p + left`` can still win (a lone one,
running with an empty queue, costs exactly that; a queued one at least
``p + min(q, p) + left``, computed only where that can win, in O(log q)), takes
the first lone processor the arrival would preempt (``p + p``) from a max
segment tree, and checks the queued processors it would preempt up to that
one. Rounding is monotone, so every bound holds for the computed floats and the
choice is the plain scan's, ties to the first processor included (tested against
it). A pure-Python index rather than numpy (per-call overhead on m ~ 100
processors, and numpy's pairwise sums differ from Python's ``sum`` in the last
bit) or the Rust core (the sorted per-processor queues would have to live there):
on that window the engine alone, replaying SRPT's actions, costs more CPU time
than SRPT's own decisions (``benchmarks/bench_tasks.py --floor``).
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
        self.running = [-1] * m  # row running on each processor, -1 when idle
        self.end = [0.0] * m  # end of each processor's running task
        self.lengths: list[list[float]] = [[] for _ in range(m)]  # sorted remaining times of the queue
        self.waiting: list[list[tuple]] = [[] for _ in range(m)]  # the queue: sorted (remaining, release, id, row)
        self.processor_of = [-1] * len(jobs)  # where each running task runs
        # The index of _choose. free: the idle processors with an empty queue, sorted. ends, by_end: the ends of
        # the running tasks, sorted, and their processors in the same order (two lists: floats compare faster
        # than tuples). lone_ends: the ends of the running processors with an empty queue. queued: the
        # processors with a non-empty queue, sorted; stalled: those of them idle (batch arrivals only).
        self.free = list(range(m))
        self.ends: list[float] = []
        self.by_end: list[int] = []
        self.lone_ends = LatestEnd(m)
        self.queued: list[int] = []
        self.stalled: set[int] = set()

    def complete(self, rows: list[int], now: float) -> None:
        processor_of, waiting, running, free = self.processor_of, self.waiting, self.running, self.free
        for row in rows:
            processor = processor_of[row]
            self._unfile(processor)
            if waiting[processor]:
                self._start_next(processor, now)
            else:
                running[processor] = -1
                insort(free, processor)
                self.lone_ends.set(processor, -INF)

    def submit(self, rows: list[int], now: float) -> None:
        remaining, running, end = self.remaining, self.running, self.end
        for row in rows:
            p = remaining[row]
            processor = self._choose(p, now)
            k = running[processor]
            if k < 0:
                if self.waiting[processor]:  # stalled: batch arrivals only
                    self._enqueue(row, processor)
                    continue
                del self.free[0]  # the first free processor is the only one chosen
                if self.batch:
                    self._enqueue(row, processor)
                    self.stalled.add(processor)
                else:
                    self._start(row, processor, now)
                    self.lone_ends.set(processor, end[processor])
                continue
            left = end[processor] - now
            if p <= left:  # the arrival preempts k, which waits on the same processor
                self._order_preempt(k)
                remaining[k] = left
                self._unfile(processor)
                self._enqueue(k, processor)
                self._start(row, processor, now)
            else:
                self._enqueue(row, processor)
        if self.batch and self.stalled:
            for processor in sorted(self.stalled):
                self._start_next(processor, now)
            self.stalled.clear()

    def _choose(self, p: float, now: float) -> int:
        """The first processor with the smallest flow increase for an arrival of length ``p``: ``delta_flow``, or
        ``delta_flow_preempting`` where the running task has more than ``p`` left (reading LMT-A3).

        The same choice as computing both for every processor, ties included, without visiting every processor
        (rounding is monotone, so every bound below holds for the computed values). A free processor costs
        exactly ``p``; a running one at least ``p + min(left, p)``, so when the earliest end leaves
        ``p + left > p`` the first free processor wins outright. Otherwise the running processors are walked by
        increasing end while ``p + left`` can still win: a lone one costs exactly that, a queued one at least
        ``p + min(q, p) + left`` for the head ``q`` of its queue, computed only when that can win. Past
        ``left > p`` the arrival would preempt: ``p + p`` on a lone processor (the first one from
        ``lone_ends``) and on a queued one whose queue is all ``<= p``, at least ``p + 2 p`` on the others.
        """
        free, ends = self.free, self.ends
        twice = p + p
        if free and twice > p and not self.stalled and (not ends or p + (ends[0] - now) > p):
            return free[0]
        lengths = self.lengths
        best, choice = (p, free[0]) if free else (INF, -1)
        for finish, i in zip(ends, self.by_end):
            left = finish - now
            if p < left or p + left > best:
                break
            queue = lengths[i]
            if not queue:
                d = p + left
            else:
                d = (p + queue[0] if queue[0] < p else twice) + left  # p + min(q, p) + left: exact for one task
                if len(queue) > 1:
                    if d > best:
                        continue
                    d = delta_flow(p, left, queue)
            if d < best or (d == best and i < choice):
                best, choice = d, i
        if twice <= best:
            i = self.lone_ends.first_over(p, now)
            if i >= 0 and (twice < best or i < choice):
                best, choice = twice, i
            end, running, thrice = self.end, self.running, p + p * 2
            for i in self.queued:
                if best < twice or (best == twice and i > choice):
                    break  # sorted: no later processor can win
                if running[i] < 0 or not p < end[i] - now:
                    continue
                queue = lengths[i]
                if queue[-1] <= p:
                    d = twice  # no queued task overtaken: p + p * 1
                elif thrice <= best:
                    d = delta_flow_preempting(p, end[i] - now, queue)
                else:
                    continue
                if d < best or (d == best and i < choice):
                    best, choice = d, i
        for i in self.stalled:
            if p > best or (p == best and i > choice):
                continue
            d = delta_flow(p, 0.0, lengths[i])
            if d < best or (d == best and i < choice):
                best, choice = d, i
        return choice

    def _enqueue(self, row: int, processor: int) -> None:
        """Queue ``row`` on ``processor``, which leaves the lone ones when its queue was empty."""
        if not self.lengths[processor]:
            insort(self.queued, processor)
            self.lone_ends.set(processor, -INF)
        insort(self.lengths[processor], self.remaining[row])
        insort(self.waiting[processor], (self.remaining[row], self.release[row], self.ids[row], row))

    def _start_next(self, processor: int, now: float) -> None:
        """Start the head of ``processor``'s queue (idle, the queue not empty); lone again if it empties."""
        row = self.waiting[processor].pop(0)[3]
        lengths = self.lengths[processor]
        lengths.pop(0)
        self._start(row, processor, now)
        if not lengths:
            del self.queued[bisect_left(self.queued, processor)]
            self.lone_ends.set(processor, self.end[processor])

    def _start(self, row: int, processor: int, now: float) -> None:
        """Start ``row`` on ``processor`` (idle) and file its end."""
        self._actions.append(("start", row, self._single[processor] or self._allocation(processor)))
        self.processor_of[row] = processor
        self.running[processor] = row
        end = self.end[processor] = now + self.remaining[row]
        j = bisect_right(self.ends, end)
        self.ends.insert(j, end)
        self.by_end.insert(j, processor)

    def _unfile(self, processor: int) -> None:
        """Remove the end of ``processor``'s running task (which stops now) from ``ends``."""
        ends, by_end = self.ends, self.by_end
        j = bisect_left(ends, self.end[processor])
        while by_end[j] != processor:
            j += 1  # another processor's task ends at the same time
        del ends[j], by_end[j]


class LatestEnd:
    """Per processor, the end of its running task (``-inf`` for none), in a max segment tree: the first
    processor whose task ends more than ``p`` after ``now`` in O(log m).

    Updates wait in ``pending`` until the next query: most arrivals find a free processor and never ask.
    """

    __slots__ = ("size", "tree", "pending", "set")

    def __init__(self, m: int) -> None:
        self.size = 1 << max(m - 1, 0).bit_length()
        self.tree = [-INF] * (2 * self.size)
        self.pending: dict[int, float] = {}
        self.set = self.pending.__setitem__
        """``set(processor, end)``: record a processor's end (``-inf`` for none); the dict's own method, the
        commonest call."""

    def first_over(self, p: float, now: float) -> int:
        """The lowest processor with ``p < end - now`` (its running task has more than ``p`` left), or -1.

        ``end - now`` grows with ``end`` (rounding is monotone), so a subtree holds such a processor exactly
        when its latest end qualifies."""
        tree, size = self.tree, self.size
        for processor, end in self.pending.items():
            i = processor + size
            tree[i] = end
            while i > 1:
                sibling = tree[i ^ 1]
                if sibling > end:
                    end = sibling
                i >>= 1
                if tree[i] == end:
                    break  # the ancestors hold the same maxima
                tree[i] = end
        self.pending.clear()
        if not p < tree[1] - now:
            return -1
        i = 1
        while i < size:
            i *= 2
            if not p < tree[i] - now:
                i += 1
        return i - size
