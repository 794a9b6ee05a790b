"""Conservative backfilling: every waiting job holds a reservation; none is ever delayed.

Source: Mu'alem & Feitelson 2001; seed 000 ch.4 section 4.5.1 and spec
000-ch4-5 sections 4.1-4.2 (profile, Algorithm 1, reassignment). A new job is
placed at the earliest start where enough processors stay free for its whole
requested time (Algorithm 1 with count-only allocation); jobs start when their
reservation begins, on the lowest free processor ids.

When a job ends before its requested time, its processors are given back over
the rest of that time and the reservations are compressed, in queue order:

* ``compress="full"`` (default): each reservation moves to the earliest start
  the profile now allows, never later than it was;
* ``compress="start-now"``: a reservation moves only if the job can start now
  (the reassignment of seed 000 ch.5 section 5.4: never to an intermediate time).

Guarantee: no reservation ever moves later (tested with hypothesis).
Cost: O(B) per placement for B profile breakpoints; a compression costs
O(B) per waiting job (start-now: O(1) for a job that cannot start now).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort

from schedlab.engine.simulator import Context
from schedlab.errors import InputError
from schedlab.policies.rigid.profile import INF, Profile
from schedlab.policies.rigid.queue import ORDERS, priority_ranks

COMPRESSIONS = ("full", "start-now")


class Conservative:
    """Conservative backfilling over an availability profile.

    Parameters
    ----------
    order : {"fcfs", "sjf"}
        Queue order: placement order of jobs submitted at the same time and compression order.
    compress : {"full", "start-now"}
        How reservations move when jobs end early (see the module docstring).
    """

    name = "conservative"
    clairvoyant = False

    def __init__(self, *, order: str = "fcfs", compress: str = "full") -> None:
        self.order = order
        self.compress = compress

    def describe(self) -> str:
        return f"{self.name}(order={self.order}, compress={self.compress})"

    def reset(self, ctx: Context) -> None:
        if self.order not in ORDERS:
            raise InputError("policy", field="conservative order", value=self.order, expected=f"one of {', '.join(ORDERS)}")
        if self.compress not in COMPRESSIONS:
            raise InputError(
                "policy", field="conservative compress", value=self.compress, expected=f"one of {', '.join(COMPRESSIONS)}"
            )
        jobs = ctx.jobs
        n = len(jobs)
        self.ctx = ctx
        self.free = ctx.free
        self.procs = jobs.procs.tolist()
        self.estimate = jobs.requested_time.tolist()
        self.rank = priority_ranks(jobs.submit, jobs.requested_time, jobs.id, self.order).tolist()
        self.row_of_rank = [0] * n
        for row, r in enumerate(self.rank):
            self.row_of_rank[r] = row
        self.profile = Profile(ctx.n_procs, 0.0)
        self.reserved: list[int] = []  # ranks of waiting jobs with a reservation, sorted
        self.res_start = [INF] * n  # reservation start (waiting) or start (running)
        self.starts: list[tuple[float, int]] = []  # heap of (reservation start, rank), lazily cleaned
        self.waiting = [False] * n  # holds a reservation, not started
        self.new: list[int] = []  # rows submitted in this event, not yet placed
        self.ended_early = False
        self.wakeups: set[float] = set()

    def complete(self, rows: list[int], now: float) -> None:
        profile = self.profile
        profile.trim(now)
        for row in rows:
            expected = self.res_start[row] + self.estimate[row]
            if now < expected:
                profile.release(now, expected, self.procs[row])
                self.ended_early = True

    def submit(self, rows: list[int], now: float) -> None:
        self.new.extend(rows)

    def schedule(self, now: float) -> None:
        self.profile.trim(now)
        self.wakeups.discard(now)
        if self.ended_early:
            self.ended_early = False
            if self.reserved:
                self._compress(now)
        if self.new:
            rank = self.rank
            for row in sorted(self.new, key=rank.__getitem__):
                start = self.profile.earliest(self.procs[row], self.estimate[row])
                self._reserve(row, start, now)
            self.new.clear()
        self._start_due(now)

    def _reserve(self, row: int, start: float, now: float) -> None:
        self.profile.reserve(start, start + self.estimate[row], self.procs[row])
        r = self.rank[row]
        if not self.waiting[row]:
            self.waiting[row] = True
            insort(self.reserved, r)
        self.res_start[row] = start
        heapq.heappush(self.starts, (start, r))
        if start > now and start not in self.wakeups:
            self.wakeups.add(start)
            self.ctx.wake_at(start)

    def _compress(self, now: float) -> None:
        """Move reservations earlier, in queue order (see the module docstring).

        A job can only move to a breakpoint before its start where at least its
        processor count is free, so the maximum free count before its start
        (one C-level ``max`` over a list slice) rules most jobs out cheaply.
        """
        profile, procs, estimate, res_start = self.profile, self.procs, self.estimate, self.res_start
        times, free = profile.times, profile.free
        row_of_rank = self.row_of_rank
        start_now_only = self.compress == "start-now"
        for r in self.reserved:
            row = row_of_rank[r]
            old = res_start[row]
            if old <= now:
                continue
            k = procs[row]
            stop = bisect_left(times, old)  # breakpoints strictly before old (>= 1: old > now = times[0])
            if (free[0] if start_now_only else max(free[:stop])) < k:
                continue
            d = estimate[row]
            new = profile.earliest(k, d, stop)
            if new < old and (new == now or not start_now_only):
                profile.release(old, old + d, k)
                self._reserve(row, new, now)

    def _start_due(self, now: float) -> None:
        starts, res_start, row_of_rank = self.starts, self.res_start, self.row_of_rank
        due = []
        while starts and starts[0][0] <= now:
            start, r = heapq.heappop(starts)
            row = row_of_rank[r]
            if res_start[row] == start and self.waiting[row]:
                self.waiting[row] = False
                due.append(r)
        if not due:
            return
        due.sort()
        reserved = self.reserved
        for r in due:
            row = row_of_rank[r]
            del reserved[bisect_left(reserved, r)]
            self.ctx.start(row, self.free.first(self.procs[row]))
