"""SPT with immediate dispatch, and its redirection variants SPT-RD and SPT-RR.

Source: Lucarelli, Mendonca and Trystram (2017), section IV (dispatching by marginal
increase of the flow, threshold and random redirection); Mendonca (2017),
ch.3 section 3.4; readings (docs/readings.md) LMT-A1 (ties to the lowest
processor), LMT-A2 (events), LMT-A4 (an idle processor), LMT-A6 (tau = 1), LMT-A20.

Events follow reading LMT-A2 as the common-queue policies do (``batch=True``: the
arrivals of one time are all dispatched before idle processors start).
Each task is sent at its release, irrevocably (except by redirection), to the
processor whose flow increase ``delta_flow`` is smallest; each processor runs
its queue shortest task first. The dedicated pool dispatches redirected tasks
the same way with the general formula and never redirects again.

Cost: per arrival O(log m) when the pool has a free processor and no running
task is one overtaking away from redirection; otherwise the pool's non-free
processors are visited in order of their running task's end, and the visit
stops as soon as ``remaining + p`` (a lower bound of the general increase)
exceeds the best increase found, so processors whose task ends far away are
never examined. Processors whose running task would be redirected by the
arrival (SPT-RD, increase possibly negative) are kept in a set and always
examined. Each examined processor costs O(log q) (sorted queue, bisection,
one C-level sum). The choice equals the full scan's, ties included (tested
against it). The end of a batch (``batch=True``) starts only the processors
filed idle with a queue, read from the front of the busy lists, not all m.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right, insort

from schedlab.engine.simulator import Context
from schedlab.policies.tasks.pools import RandomRedirector, Redirection, TaskPolicy

INF = float("inf")


def delta_flow(p: float, remaining: float, queued: list[float], *, redirects: bool = False) -> float:
    """Increase of the total flow if a task of length ``p`` joins a processor (section IV-D).

    ``remaining`` is the remaining time of the running task (0 when idle, LMT-A4),
    ``queued`` the sorted lengths of the tasks waiting there. The general case is
    ``remaining + sum(q <= p) + p + p * #(q > p)``; when the arrival would make
    the running task reach its redirection threshold (``redirects``, SPT-RD) the
    running task's time leaves the arrival's flow and every queued task's wait:
    ``sum(q <= p) + p + p * #(q > p) - len(queued) * remaining``, which can be negative.
    """
    j = bisect_right(queued, p)
    increase = sum(queued[:j]) + p + p * (len(queued) - j)
    return increase - len(queued) * remaining if redirects else increase + remaining


class Dispatch(TaskPolicy):
    """Immediate dispatch by marginal flow increase, SPT on each processor, optional redirection.

    Subclasses fix the name and which parameters a user sets; this class does the work.
    """

    def reset(self, ctx: Context) -> None:
        r = self.redirection
        r.check(self.name, ctx.n_procs, ctx.jobs.procs)
        jobs = ctx.jobs
        m = ctx.n_procs
        self._attach(ctx)
        assert jobs.run_time is not None  # clairvoyant: the engine shows run times
        self.p = jobs.run_time.tolist()
        self.key = list(zip(self.p, jobs.submit.tolist(), jobs.id.tolist(), range(len(jobs))))
        self.pools = (range(0, m - r.dedicated), range(m - r.dedicated, m))
        self.free = [
            list(self.pools[0]),
            list(self.pools[1]),
        ]  # heaps: idle with an empty queue (stale entries skipped lazily)
        self.busy: list[list[tuple[float, int]]] = [
            [],
            [],
        ]  # sorted (end of the running task, or -inf if idle, processor)
        self.key_of: list[float | None] = [None] * m  # each processor's entry in busy, None while free
        self.armed: list[set[int]] = [set(), set()]  # processors whose running task the next shorter arrival redirects
        self.running = [-1] * m  # row running on each processor
        self.end = [0.0] * m
        self.lengths: list[list[float]] = [[] for _ in range(m)]  # sorted queued lengths
        self.waiting: list[list[tuple]] = [[] for _ in range(m)]  # sorted queued (p, release, id, row)
        self.counter = [0] * len(jobs)
        self.processor_of: dict[int, int] = {}
        self.random = RandomRedirector(r.b, r.c, ctx.rng) if r.mode == "random" else None

    def complete(self, rows: list[int], now: float) -> None:
        for row in rows:
            processor = self.processor_of.pop(row)
            self.running[processor] = -1
            self._start_next(processor, now)

    def submit(self, rows: list[int], now: float) -> None:
        threshold = self.redirection.mode == "threshold"
        for row in rows:
            if self.random is not None and self.random.redirects(self.p[row]):
                self._dispatch(row, 1, now, threshold=False)
                continue
            processor = self._dispatch(row, 0, now, threshold=threshold)
            k = self.running[processor]
            if threshold and k >= 0 and k != row and self.p[row] < self.end[processor] - now:
                self.counter[k] += 1
                if self.counter[k] == self.redirection.tau:
                    self._order_abort(k)  # the work done so far is lost
                    del self.processor_of[k]
                    self.running[processor] = -1
                    self._dispatch(k, 1, now, threshold=False)
                    if self.batch:
                        self._place(processor)  # idle with a queue until the batch ends
                    else:
                        self._start_next(processor, now)
                elif self.counter[k] == self.redirection.tau - 1:
                    self.armed[0].add(processor)  # the next shorter arrival redirects k
        if self.batch:
            for processor in self._idle_with_queue():
                self._start_next(processor, now)

    def _idle_with_queue(self) -> list[int]:
        """The processors left idle with a queue by the arrivals of a batch, in increasing order: those filed
        at the front of the busy lists (key -inf), the main pool's before the dedicated pool's."""
        idle = []
        for busy in self.busy:
            for key, processor in busy:
                if key != -INF:
                    break
                idle.append(processor)
        return idle

    def _dispatch(self, row: int, pool: int, now: float, *, threshold: bool) -> int:
        """Send ``row`` to the processor of ``pool`` chosen by :meth:`_choose`; start it if that processor
        is idle. Return the processor."""
        processor = self._choose(self.p[row], pool, now, threshold=threshold)
        insort(self.lengths[processor], self.p[row])
        insort(self.waiting[processor], self.key[row])
        if self.running[processor] < 0 and not self.batch:
            self._start_next(processor, now)
        elif self.key_of[processor] is None:
            self._place(processor)  # free until now: it has a queue
        return processor

    def _choose(self, p: float, pool: int, now: float, *, threshold: bool) -> int:
        """The processor of ``pool`` with the smallest flow increase for a task of length ``p`` (lowest
        index on ties): the first free one (increase exactly p), the armed ones (SPT-RD exception), then
        the others by increasing end of their running task while ``remaining + p`` can still win."""
        free, running, end, lengths = self.free[pool], self.running, self.end, self.lengths
        while free and (running[free[0]] >= 0 or lengths[free[0]]):
            heapq.heappop(free)  # busy or queued since it became free
        best, choice = (p, free[0]) if free else (INF, -1)
        armed = self.armed[pool] if threshold else ()
        for i in armed:
            remaining = end[i] - now
            if p < remaining:
                d = delta_flow(p, remaining, lengths[i], redirects=True)
                if d < best or (d == best and i < choice):
                    best, choice = d, i
        for key, i in self.busy[pool]:
            remaining = key - now if running[i] >= 0 else 0.0
            if remaining + p > best:
                break  # the general increase is at least remaining + p here and on every later entry
            if i in armed and p < remaining:
                continue  # examined above
            d = delta_flow(p, remaining, lengths[i])
            if d < best or (d == best and i < choice):
                best, choice = d, i
        return choice

    def _place(self, processor: int) -> None:
        """File ``processor`` under its current state: the free heap, or the busy list keyed by the end of
        its running task (-inf when idle with a queue, batch arrivals only); and the armed set."""
        pool = processor >= self.pools[1].start
        old = self.key_of[processor]
        if old is not None:
            busy = self.busy[pool]
            del busy[bisect_left(busy, (old, processor))]
        row = self.running[processor]
        if row < 0 and not self.lengths[processor]:
            self.key_of[processor] = None
            heapq.heappush(self.free[pool], processor)
        else:
            key = self.end[processor] if row >= 0 else -INF
            self.key_of[processor] = key
            insort(self.busy[pool], (key, processor))
        if row >= 0 and self.redirection.mode == "threshold" and self.counter[row] == self.redirection.tau - 1:
            self.armed[pool].add(processor)
        else:
            self.armed[pool].discard(processor)

    def _start_next(self, processor: int, now: float) -> None:
        """An idle processor starts its shortest queued task, or becomes free."""
        waiting = self.waiting[processor]
        if waiting:
            row = waiting.pop(0)[3]
            self.lengths[processor].pop(0)
            self._order_start(row, processor)
            self.processor_of[row] = processor
            self.running[processor] = row
            self.end[processor] = now + self.p[row]
            self.counter[row] = 0
        self._place(processor)


class SPT(Dispatch):
    """SPT: immediate dispatch by marginal flow increase, shortest task first on each processor
    (Lucarelli, Mendonca and Trystram 2017, sections IV-A and IV-D).

    Guarantee: none proven on m processors; on one processor with all tasks
    released at 0 it minimises total flow (tested against brute force).
    """

    name = "spt"

    def __init__(self, *, batch: bool = False) -> None:
        self._configure(Redirection("none", 0, 1, 0.0, 0.0), batch)


class SPTRD(Dispatch):
    """SPT-RD: SPT dispatch on m - m_d main processors; a running task overtaken by ``tau`` shorter
    arrivals restarts from scratch on the dedicated processors, dispatched there by SPT (Lucarelli, Mendonca and Trystram 2017, section IV-B).

    Guarantee: none proven; equals SPT on m - m_d processors when tau > n (tested).
    """

    name = "spt-rd"

    def __init__(self, *, dedicated: int = 1, tau: int = 3, batch: bool = False) -> None:
        self._configure(Redirection("threshold", dedicated, tau, 0.0, 0.0), batch)


class SPTRR(Dispatch):
    """SPT-RR: at arrival a task with p >= b * p_max goes to the dedicated processors with probability c
    (Lucarelli, Mendonca and Trystram 2017, section IV-C); both pools dispatch by SPT.

    Guarantee: none proven; equals SPT on m - m_d processors when c = 0 (tested).
    """

    name = "spt-rr"

    def __init__(self, *, dedicated: int = 1, b: float = 0.02, c: float = 0.8, batch: bool = False) -> None:
        self._configure(Redirection("random", dedicated, 1, b, c), batch)
