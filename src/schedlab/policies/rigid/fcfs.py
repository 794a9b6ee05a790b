"""Strict FCFS and EASY backfilling for rigid jobs on a homogeneous machine.

Exact semantics for FCFS and EASY (the classic EASY of
Lifka 1995 / Mu'alem & Feitelson 2001, pinned down so results compare across
tools). Processors are chosen first-fit (lowest free ids), or by the
``allocator`` (:mod:`~schedlab.policies.rigid.allocators`). A forced allocator
(``cont``, ``loc``, ``plat``) may refuse to start a job that fits by count: the
job then waits as if it did not fit (a refused FCFS/EASY head blocks the queue;
EASY then protects it until the next estimated end of a running job and
backfills only jobs ending by then; a refused backfill candidate is skipped).

Cost per pass: O(log n) to find the head and each job started; EASY computes its
reservation (:class:`~schedlab.policies.rigid.running.RunningByEnd`) only when
some waiting job could be backfilled, and finds candidates with
:class:`~schedlab.policies.rigid.queue.RankQueue` instead of scanning the queue.
"""

from __future__ import annotations

import heapq

from schedlab.engine.simulator import Context
from schedlab.errors import InputError
from schedlab.parameters import Param
from schedlab.policies.rigid.allocators import policy_allocator, split_name
from schedlab.policies.rigid.compiled import run_compiled
from schedlab.policies.rigid.queue import ORDERS, RankQueue, priority_ranks
from schedlab.policies.rigid.running import RunningByEnd
from schedlab.schedule import Instance, Schedule


class FCFS:
    """Strict first-come first-served: start queue heads while they fit, stop at the first that does not.

    Guarantee: never starts a job before an earlier one in queue order (tested).

    Parameters
    ----------
    order : {"fcfs", "sjf"}
        Queue order: (submit, id), or shortest requested time first (ties by submit, id).
    allocator : str, default "basic"
        Allocation step (see :class:`~schedlab.policies.rigid.conservative.Conservative`).
    """

    name = "fcfs"
    parameters = {
        "order": Param("queue order: by submission, or shortest requested time first", choices=ORDERS),
        "allocator": Param(
            "which free processors a job gets, NAME[:OPTION] (topology-aware allocation)", check=split_name
        ),
    }
    clairvoyant = False

    def __init__(self, *, order: str = "fcfs", allocator: str = "basic") -> None:
        self.order = order
        self.allocator = allocator

    def describe(self) -> str:
        extra = "" if self.allocator == "basic" else f", allocator={self.allocator}"
        return f"{self.name}(order={self.order}{extra})"

    def compiled_run(self, instance: Instance) -> Schedule | None:
        """The whole run on the compiled core (:mod:`~schedlab.policies.rigid.compiled`), or None where
        it does not apply (another allocator, a run-time model, a subclass); same schedule as this Python code, its oracle."""
        if type(self) not in (FCFS, EASY):
            return None
        kind = "easy" if type(self) is EASY else "fcfs"
        return run_compiled(instance, kind, order=self.order, allocator=self.allocator, describe=self.describe())

    def reset(self, ctx: Context) -> None:
        if self.order not in ORDERS:
            raise InputError(
                "policy", field=f"{self.name} order", value=self.order, expected=f"one of {', '.join(ORDERS)}"
            )
        self._allocate, _ = policy_allocator(self.allocator, ctx.platform)
        jobs = ctx.jobs
        self.ctx = ctx
        self.free = ctx.free
        self.procs = jobs.procs.tolist()
        self.estimate = jobs.requested_time.tolist()
        self.rank = priority_ranks(jobs.submit, jobs.requested_time, jobs.id, self.order).tolist()
        self.queue = RankQueue()
        self.heads: list[int] = []  # heap of waiting ranks; ranks started by backfilling are skipped lazily
        self.arrived: list[int] = []  # submitted at this event time, not yet queued

    def submit(self, rows: list[int], now: float) -> None:
        self.arrived.extend(rows)

    def complete(self, rows: list[int], now: float) -> None:
        """Nothing to do: the free processors are read from the engine."""

    def schedule(self, now: float) -> None:
        if self.arrived:
            self._enqueue_arrivals(now)
        if self.queue.count and self.free.size >= self.queue.min_procs():
            self._start_heads(now)

    def _head(self) -> int:
        """Rank of the first waiting job, -1 if none."""
        heads, queue = self.heads, self.queue
        while heads and queue.row_at(heads[0]) < 0:
            heapq.heappop(heads)
        return heads[0] if heads else -1

    def _enqueue_arrivals(self, now: float) -> None:
        """Queue the jobs submitted at ``now``.

        When nothing was waiting, the arrivals that start at once as queue heads
        are started here without ever entering the queue structures (the common
        case on a lightly loaded machine); this is the head phase of the pass, unchanged.
        """
        arrived = self.arrived
        rank, procs, estimate, queue = self.rank, self.procs, self.estimate, self.queue
        if len(arrived) > 1:
            arrived.sort(key=rank.__getitem__)
        i = 0
        if not queue.count:
            free = self.free
            while i < len(arrived) and procs[arrived[i]] <= free.size:
                if not self._start_row(arrived[i], now):
                    break
                i += 1
        for row in arrived[i:]:
            r = rank[row]
            queue.push(r, row, procs[row], estimate[row])
            heapq.heappush(self.heads, r)
        arrived.clear()

    def _start(self, r: int, now: float) -> int:
        """Start the queued job of rank r; return its row, or -1 if a forced allocator refused it."""
        row = self.queue.row_at(r)
        if not self._start_row(row, now):
            return -1
        self.queue.remove(r)
        return row

    def _start_row(self, row: int, now: float) -> bool:
        """Start job ``row`` now (it fits by count); False if a forced allocator refuses the free processors."""
        if self._allocate is None:
            self.ctx.start_first_fit(row)
            return True
        alloc = self._allocate(self.free, self.procs[row])
        if alloc is None:
            return False
        self.ctx.start(row, alloc)
        return True

    def _start_heads(self, now: float) -> int:
        """Start queue heads while they fit (the FCFS pass); return the blocked head's rank or -1."""
        procs, free, queue = self.procs, self.free, self.queue
        head = self._head()
        while head >= 0 and procs[queue.row_at(head)] <= free.size:
            if self._start(head, now) < 0:
                break  # refused by a forced allocator: the head blocks
            heapq.heappop(self.heads)
            head = self._head()
        return head


class EASY(FCFS):
    """EASY backfilling: FCFS heads, then one backfill scan protecting the head's reservation.

    If the head does not fit, its reservation is computed from the *estimated* end
    times of the running jobs (including those just started): the shadow time is
    the earliest estimated end at which enough processors are free, and ``extra``
    the processors free then beyond the head's need. The rest of the queue is
    scanned once in order; a job starts iff it fits now and either ends (by its
    estimate) no later than the shadow or uses at most ``extra`` processors, in
    which case ``extra`` decreases. The shadow is not recomputed during the scan.

    Guarantee: the head never starts later than its reservation (tested).
    """

    name = "easy"

    def reset(self, ctx: Context) -> None:
        super().reset(ctx)
        self.running = RunningByEnd(self.procs)
        self.expected_end = [0.0] * len(self.procs)

    def _start_row(self, row: int, now: float) -> bool:
        if not super()._start_row(row, now):
            return False
        end = now + self.estimate[row]
        self.expected_end[row] = end
        self.running.add(end, row)
        return True

    def complete(self, rows: list[int], now: float) -> None:
        running, expected_end = self.running, self.expected_end
        for row in rows:
            running.remove(expected_end[row], row)

    def schedule(self, now: float) -> None:
        queue, free = self.queue, self.free
        if self.arrived:
            self._enqueue_arrivals(now)
        if not queue.count or free.size < queue.min_procs():
            return  # nothing waiting can start now
        head = self._start_heads(now)
        if head < 0:
            return
        n_free = free.size
        candidate = queue.first(head + 1, n_free)
        if candidate < 0:
            return
        need = self.procs[queue.row_at(head)]
        if need <= n_free:  # fits by count, refused by a forced allocator: protect it until the next end
            shadow, extra = self.running.blocks[0][0][0], 0
        else:
            shadow, extra = self.running.reservation(need, n_free)
        limit = shadow - now
        procs, estimate = self.procs, self.estimate
        while True:
            candidate = queue.first(candidate, n_free, limit, min(n_free, extra))
            if candidate < 0:
                return
            row = self._start(candidate, now)
            if row < 0:  # refused by a forced allocator: try the next candidate
                candidate += 1
                continue
            n_free -= procs[row]
            if estimate[row] > limit:
                extra -= procs[row]
            candidate += 1
