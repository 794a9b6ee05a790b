"""GSPT and its redirection variants GSPT-RD and GSPT-RR: one common queue per pool.

Source: Lucarelli, Mendonca and Trystram (2017), section IV (GSPT, threshold and random
redirection); Mendonca (2017), ch.3 sections 3.3-3.4; readings (docs/readings.md)
LMT-A1 (ties), LMT-A2 (events), LMT-A5 (counting while a processor is idle), LMT-A20.

Threshold counting (GSPT-RD): an arrival counts against the running main task
with the longest remaining time only when it is delayed, i.e. no main
processor is idle at its arrival (so it waits in the queue). The paper's
motivation is that heavy tasks delay short ones (Lucarelli, Mendonca and
Trystram 2017, section IV-B); an arrival that starts at once on an idle
processor is delayed by nothing. ``count_if_idle=True`` keeps the literal
reading of the paper's rule (count every shorter arrival while the task runs).
With ``batch=True`` "delayed" is judged at the arrival: an idle main processor
then means it is not counted, even if earlier arrivals of the same batch take
that processor.

Events at one time: completions first (freed processors take queued tasks at
once), then arrivals one by one in (release, id) order, each followed by
idle processors taking tasks (reading LMT-A2); with ``batch=True`` the arrivals
of one time are all queued before idle processors take any (A2's option). An idle processor takes the
queued task with the smallest processing time (ties: release, id); among idle
processors the lowest index goes first.

Cost: O(log n) per event (heaps for the queues, the idle processors and the
running tasks by end time), never a scan of the processors.
"""

from __future__ import annotations

import heapq

from schedlab.engine.simulator import Context
from schedlab.policies.tasks.pools import RandomRedirector, Redirection, TaskPolicy


class CommonQueue(TaskPolicy):
    """Shortest processing time first from a common queue, with optional redirection of heavy tasks.

    Subclasses fix the name and which parameters a user sets; this class does the work.
    """

    def reset(self, ctx: Context) -> None:
        r = self.redirection
        r.check(self.name, ctx.n_procs, ctx.jobs.procs)
        jobs = ctx.jobs
        self._attach(ctx)
        assert jobs.run_time is not None  # clairvoyant: the engine shows run times
        self.p = jobs.run_time.tolist()
        self.key = list(zip(self.p, jobs.submit.tolist(), jobs.id.tolist(), range(len(jobs))))
        self.n_main = ctx.n_procs - r.dedicated
        self.idle = [list(range(self.n_main)), list(range(self.n_main, ctx.n_procs))]  # sorted lists are heaps
        self.queue: list[list[tuple]] = [[], []]  # main, dedicated: heaps of (p, release, id, row)
        self.processor: dict[int, int] = {}  # running row -> processor
        self.by_end: list[tuple[float, int, int]] = []  # main pool: (-end, processor, row), lazily cleaned
        self.counter = [0] * len(jobs)
        self.random = RandomRedirector(r.b, r.c, ctx.rng) if r.mode == "random" else None

    def complete(self, rows: list[int], now: float) -> None:
        for row in rows:
            processor = self.processor.pop(row)
            heapq.heappush(self.idle[processor >= self.n_main], processor)
        self._fill(now)

    def submit(self, rows: list[int], now: float) -> None:
        for row in rows:
            if self.redirection.mode == "threshold":
                self._count(row, now)
            pool = 1 if self.random is not None and self.random.redirects(self.p[row]) else 0
            heapq.heappush(self.queue[pool], self.key[row])
            if not self.batch:
                self._fill(now)
        self._fill(now)

    def _fill(self, now: float) -> None:
        """Idle processors of each pool take the shortest queued tasks of that pool."""
        for pool in (0, 1):
            queue, idle = self.queue[pool], self.idle[pool]
            while queue and idle:
                row = heapq.heappop(queue)[3]
                processor = heapq.heappop(idle)
                self._order_start(row, processor)
                self.processor[row] = processor
                if pool == 0:
                    self.counter[row] = 0
                    heapq.heappush(self.by_end, (-(now + self.p[row]), processor, row))

    def _count(self, row: int, now: float) -> None:
        """Threshold redirection (section IV-B, reading LMT-A5): the arrival counts against the main task with the longest
        remaining time if it is strictly shorter and (unless ``count_if_idle``) no main processor is idle;
        at ``tau`` that task restarts on the dedicated pool."""
        by_end, processor_of = self.by_end, self.processor
        while by_end and processor_of.get(by_end[0][2]) != by_end[0][1]:
            heapq.heappop(by_end)  # finished or redirected since
        if not by_end or (not self.count_if_idle and self.idle[0]):
            return
        neg_end, processor, k = by_end[0]
        if self.p[row] < -neg_end - now:
            self.counter[k] += 1
            if self.counter[k] == self.redirection.tau:
                heapq.heappop(by_end)
                self._order_abort(k)  # the work done so far is lost
                del processor_of[k]
                heapq.heappush(self.idle[0], processor)
                heapq.heappush(self.queue[1], self.key[k])


class GSPT(CommonQueue):
    """GSPT: an idle processor takes the queued task with the smallest processing time (Lucarelli, Mendonca and Trystram 2017, section IV-A).

    Guarantee: none proven on m processors; on one processor with all tasks
    released at 0 it minimises total flow (tested against brute force).
    """

    name = "gspt"

    def __init__(self, *, batch: bool = False) -> None:
        self._configure(Redirection("none", 0, 1, 0.0, 0.0), batch)


class GSPTRD(CommonQueue):
    """GSPT-RD: GSPT on m - m_d main processors; a running task overtaken by ``tau`` shorter arrivals
    restarts from scratch on the m_d dedicated processors, which run GSPT (Lucarelli, Mendonca and Trystram 2017, section IV-B).

    Only arrivals that wait count (no main processor idle); ``count_if_idle=True`` also counts those that
    start at once (the literal reading; see the module docstring).

    Guarantee: none proven; equals GSPT on m - m_d processors when tau > n (tested).
    """

    name = "gspt-rd"

    def __init__(self, *, dedicated: int = 1, tau: int = 3, count_if_idle: bool = False, batch: bool = False) -> None:
        self._configure(Redirection("threshold", dedicated, tau, 0.0, 0.0), batch, count_if_idle)


class GSPTRR(CommonQueue):
    """GSPT-RR: at arrival a task with p >= b * p_max goes to the dedicated processors with probability c
    (Lucarelli, Mendonca and Trystram 2017, section IV-C); both pools run GSPT.

    Guarantee: none proven; equals GSPT on m - m_d processors when c = 0 (tested).
    """

    name = "gspt-rr"

    def __init__(self, *, dedicated: int = 1, b: float = 0.02, c: float = 0.8, batch: bool = False) -> None:
        self._configure(Redirection("random", dedicated, 1, b, c), batch)
