"""Conservative backfilling: every waiting job holds a reservation; none is ever delayed.

Source: Mu'alem & Feitelson 2001; Mendonca (2017), ch.4 section 4.5.1 and
ch.5 sections 5.4-5.5 (profile, Algorithm 1, reassignment). A new job is
placed at the earliest start where enough processors stay free for its whole
requested time (Algorithm 1 with count-only allocation); jobs start when their
reservation begins, on the lowest free processor ids.

When a job ends before its requested time, its processors are given back over
the rest of that time and the reservations are compressed, in queue order:

* ``compress="full"`` (default): each reservation moves to the earliest start
  the profile now allows, never later than it was;
* ``compress="start-now"``: a reservation moves only if the job can start now
  (the reassignment of Mendonca 2017, ch.5 section 5.5: never to an intermediate time).

Processors come from an allocator of :mod:`~schedlab.policies.rigid.allocators`
(``allocator="basic"``, the default: lowest free ids, chosen at the start).
A best-effort allocator (``becont``, ``beloc``, ``beplat``) always succeeds,
so reservations keep holding processor counts and it never changes a start
time (tested); it chooses among the processors free when the job starts. A
forced one (``cont``, ``loc``, ``plat``) may refuse a set of processors, so
its reservations hold processor ids (:class:`~schedlab.policies.rigid.profile.SetProfile`,
the slices ``S[i]`` of Algorithm 1, Mendonca 2017, section 4.5.1): Algorithm 1 runs the
allocator on the processors free for the whole window at each slice start
and moves on to the next slice on a refusal; a compression re-chooses the
processors (section 5.5).

Two options serve the offline experiment of Mendonca (2017), ch.4 (sections 4.5-4.6):

* ``profile="sets"``: every allocator, ``basic`` and the best-effort ones
  included, reserves processor ids on the :class:`SetProfile` and chooses its
  processors when the job is placed (the thesis's Algorithm 1 for every
  variant), instead of a count profile with processors chosen at the start
  (``profile="counts"``, the default: forced allocators always use sets);
* ``estimate="exact"``: reservations last the real run time (capped by the
  requested time, as the engine runs the job), the thesis's "real execution
  times"; jobs then never end early and nothing is compressed. The policy is
  then clairvoyant, and needs run times that do not depend on the allocation
  (no run-time penalty).

Guarantee: no reservation ever moves later (tested with hypothesis).
Cost: O(B) per placement for B profile breakpoints; a compression costs
O(B) per waiting job (start-now: O(R + B) numpy work per move, R waiting jobs).
Forced allocators (set profile): O(B) mask ANDs plus one fit test per
candidate start, per placement or attempted move (:meth:`SetProfile.find`).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from typing import Any

import numpy as np

from schedlab.engine.simulator import Context
from schedlab.errors import InputError, SchedlabError
from schedlab.parameters import Param
from schedlab.policies.rigid.allocators import policy_allocator, policy_fit_rule, policy_fit_test, split_name
from schedlab.policies.rigid.compiled import run_compiled
from schedlab.policies.rigid.profile import INF, CompiledSetProfile, Profile, SetProfile
from schedlab.policies.rigid.queue import ORDERS, priority_ranks
from schedlab.schedule import Instance, Schedule

COMPRESSIONS = ("full", "start-now")
PROFILES = ("counts", "sets")
ESTIMATES = ("requested", "exact")


def _lowest(free, size: int):
    """``basic`` on a set profile: the ``size`` lowest ids of the set free over the whole window."""
    return free.first(size)


class Conservative:
    """Conservative backfilling over an availability profile.

    Parameters
    ----------
    order : {"fcfs", "sjf"}
        Queue order: placement order of jobs submitted at the same time and compression order.
    compress : {"full", "start-now"}
        How reservations move when jobs end early (see the module docstring).
    allocator : str, default "basic"
        Allocation step (Mendonca 2017, sections 4.5.2 and 5.6): ``basic``, ``becont[:first_fit|largest_first]``,
        ``cont[:first_fit|best_fit|largest]``, ``beloc``, ``loc``, ``beplat[:index|best_fit|worst_fit]``,
        ``plat[...]``; clusters and levels come from the platform when it is a
        :class:`~schedlab.platform.tree.FatTree` (else one cluster).
    profile : {"counts", "sets"}
        What reservations hold for ``basic`` and best-effort allocators: processor counts (processors chosen
        at the start) or processor ids (chosen at placement, as forced allocators always do).
    estimate : {"requested", "exact"}
        Reservation lengths: the requested times, or the real run times (clairvoyant).

    Notes
    -----
    Best-effort allocators choose processors at the start, from all those
    free then (the profile holds counts), rather than at reservation time as
    in the thesis; start times are the same either way, and the choice sees
    the freshest free set. Forced allocators reserve processor ids when the
    job is placed (as in the thesis), on a profile of bit masks.
    """

    name = "conservative"
    parameters = {
        "order": Param("queue order: by submission, or shortest requested time first", choices=ORDERS),
        "compress": Param(
            "on an early end, move reservations to any earlier time (full) or only to now", choices=COMPRESSIONS
        ),
        "allocator": Param(
            "which free processors a job gets, NAME[:OPTION] (topology-aware allocation)", check=split_name
        ),
        "profile": Param(
            "reservations hold processor counts (processors chosen at the start; forced allocators always use "
            "sets) or processor sets for every allocator (chosen at placement)",
            choices=PROFILES,
        ),
        "estimate": Param(
            "reservation lengths: requested times, or the real run times (exact reservations, clairvoyant)",
            choices=ESTIMATES,
        ),
    }
    clairvoyant = False

    def __init__(
        self,
        *,
        order: str = "fcfs",
        compress: str = "full",
        allocator: str = "basic",
        profile: str = "counts",
        estimate: str = "requested",
    ) -> None:
        self.order = order
        self.compress = compress
        self.allocator = allocator
        self.profile_kind = profile
        self.estimate_kind = estimate
        self.clairvoyant = estimate == "exact"  # reads the run times

    def describe(self) -> str:
        extra = "" if self.allocator == "basic" else f", allocator={self.allocator}"
        extra += "" if self.profile_kind == "counts" else f", profile={self.profile_kind}"
        extra += "" if self.estimate_kind == "requested" else f", estimate={self.estimate_kind}"
        return f"{self.name}(order={self.order}, compress={self.compress}{extra})"

    def compiled_run(self, instance: Instance) -> Schedule | None:
        """The whole run on the compiled core (:mod:`~schedlab.policies.rigid.compiled`), or None where
        it does not apply (another allocator, a set profile, exact reservations, a run-time model, a subclass);
        same schedule as this Python code, its oracle."""
        if type(self) is not Conservative or self.compress not in COMPRESSIONS:
            return None
        if self.profile_kind != "counts" or self.estimate_kind != "requested":  # the core plans on requested times
            return None
        kind = f"conservative-{self.compress}"
        return run_compiled(instance, kind, order=self.order, allocator=self.allocator, describe=self.describe())

    def reset(self, ctx: Context) -> None:
        if self.order not in ORDERS:
            raise InputError(
                "policy", field="conservative order", value=self.order, expected=f"one of {', '.join(ORDERS)}"
            )
        if self.compress not in COMPRESSIONS:
            raise InputError(
                "policy",
                field="conservative compress",
                value=self.compress,
                expected=f"one of {', '.join(COMPRESSIONS)}",
            )
        for field, value, allowed in (
            ("profile", self.profile_kind, PROFILES),
            ("estimate", self.estimate_kind, ESTIMATES),
        ):
            if value not in allowed:
                raise InputError(
                    "policy", field=f"conservative {field}", value=value, expected=f"one of {', '.join(allowed)}"
                )
        self._allocate, forced = policy_allocator(self.allocator, ctx.platform)
        sets = forced or self.profile_kind == "sets"
        if sets and self._allocate is None:
            self._allocate = _lowest  # basic on processor sets
        jobs = ctx.jobs
        n = len(jobs)
        self.ctx = ctx
        self.free = ctx.free
        self.procs = jobs.procs.tolist()
        if self.estimate_kind == "exact":
            runtime = ctx.runtime
            if jobs.run_time is None or runtime is None or not runtime.fixed:
                raise InputError(
                    "policy",
                    field="conservative estimate",
                    value="exact",
                    expected="run times that do not depend on the allocation (no run-time penalty)",
                )
            estimates = np.minimum(jobs.run_time, jobs.requested_time)  # as long as the engine runs the job
        else:
            estimates = jobs.requested_time
        self.estimate = estimates.tolist()
        self.rank = priority_ranks(jobs.submit, estimates, jobs.id, self.order).tolist()
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
        # processor-level reservations, and the allocator's fit test (a rule of numbers on the compiled profile)
        self._sets: SetProfile | CompiledSetProfile | None = None
        self._fits: Any = None
        if sets and ctx.compiled:
            block = getattr(getattr(ctx.platform, "tree", None), "cluster_size", 0)  # counted per cluster
            self._sets = CompiledSetProfile(ctx.n_procs, 0.0, block)
            self._fits = policy_fit_rule(self.allocator, ctx.platform)
        elif sets:
            self._sets, self._fits = SetProfile(ctx.n_procs, 0.0), policy_fit_test(self.allocator, ctx.platform)
        self.res_alloc: list = [None] * n if sets else []  # reserved processors (set profile)
        # start-now compression on counts tests every waiting job at once (numpy mirrors of the job lists)
        self._vector = self.compress == "start-now" and not sets
        if self._vector:
            self._np_rank_row = np.asarray(self.row_of_rank, dtype=np.int64)
            self._np_procs = jobs.procs.astype(np.int64)
            self._np_estimate = np.asarray(estimates, dtype=np.float64)
            self._np_start = np.full(n, INF)

    def complete(self, rows: list[int], now: float) -> None:
        if self._sets is not None:
            self._sets.trim(now)
            for row in rows:
                expected = self.res_start[row] + self.estimate[row]
                if now < expected:
                    self._sets.release(now, expected, self.res_alloc[row])
                    self.ended_early = True
            return
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
        if self._sets is not None:
            self._schedule_sets(self._sets, now)
            return
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
        if self._sets is None:
            self.profile.reserve(start, start + self.estimate[row], self.procs[row])
        else:
            self._sets.reserve(start, start + self.estimate[row], self.res_alloc[row])
        r = self.rank[row]
        if not self.waiting[row]:
            self.waiting[row] = True
            insort(self.reserved, r)
        self.res_start[row] = start
        if self._vector:
            self._np_start[row] = start
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
        if self._vector:
            self._compress_now(now)
            return
        profile, procs, estimate, res_start = self.profile, self.procs, self.estimate, self.res_start
        times, free = profile.times, profile.free
        row_of_rank = self.row_of_rank
        for r in self.reserved:
            row = row_of_rank[r]
            old = res_start[row]
            if old <= now:
                continue
            k = procs[row]
            stop = bisect_left(times, old)  # breakpoints strictly before old (>= 1: old > now = times[0])
            if max(free[:stop]) < k:
                continue
            d = estimate[row]
            new = profile.earliest(k, d, stop)
            if new < old:
                profile.release(old, old + d, k)
                self._reserve(row, new, now)

    def _compress_now(self, now: float) -> None:
        """Start-now compression on counts (Mendonca 2017, section 5.5), every waiting job tested at once.

        Job j can start now iff ``k_j`` processors are free over ``[now, min(now + d_j, old_j))``: from its
        own reservation ``old_j`` on they are its own. With the profile's prefix minima ``low`` and
        ``i_j`` = the breakpoints before that bound, the test is ``low[i_j - 1] >= k_j``: numpy over the
        waiting jobs in queue order. The first job that fits moves to now; the test is repeated, on the
        changed profile, for the jobs after it, exactly as the one-job-at-a-time pass would see them.
        Cost: O(R + B) numpy work per move, plus one pass, for R waiting jobs and B breakpoints.
        """
        profile = self.profile
        rows = self._np_rank_row[np.fromiter(self.reserved, dtype=np.int64, count=len(self.reserved))]
        procs, estimate = self._np_procs[rows], self._np_estimate[rows]
        first = 0
        while first < len(rows):
            old = self._np_start[rows[first:]]
            low = np.minimum.accumulate(np.asarray(profile.free))
            bound = np.minimum(now + estimate[first:], old)
            inside = np.maximum(np.searchsorted(np.asarray(profile.times), bound, side="left"), 1)
            fits = np.flatnonzero((old > now) & (low[inside - 1] >= procs[first:]))
            if not len(fits):
                return
            j = first + int(fits[0])
            start, k, d = float(old[fits[0]]), int(procs[j]), float(estimate[j])
            profile.release(start, start + d, k)
            self._reserve(int(rows[j]), now, now)
            first = j + 1

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
        allocate = self._allocate
        for r in due:
            row = row_of_rank[r]
            del reserved[bisect_left(reserved, r)]
            if allocate is None:
                self.ctx.start(row, self.free.first(self.procs[row]))
            elif self._sets is None:  # best effort: chosen now, among the processors free now
                alloc = allocate(self.free, self.procs[row])
                assert alloc is not None  # only forced allocators refuse a start, and they reserve sets
                self.ctx.start(row, alloc)
            else:  # set profile: the processors reserved
                self.ctx.start(row, self.res_alloc[row])

    # -- set profile (forced allocators, or profile="sets"): processor-level reservations ----
    def _schedule_sets(self, sets: SetProfile | CompiledSetProfile, now: float) -> None:
        """The pass of :meth:`schedule` on the :class:`SetProfile` ``sets`` (forced allocators, profile="sets")."""
        sets.trim(now)
        self.wakeups.discard(now)
        if self.ended_early:
            self.ended_early = False
            if self.reserved:
                self._compress_sets(sets, now)
        if self.new:
            rank, res_alloc = self.rank, self.res_alloc
            for row in sorted(self.new, key=rank.__getitem__):
                start, res_alloc[row] = sets.find(self.procs[row], self.estimate[row], self._allocate, self._fits)
                if start == INF:  # cannot happen: the last slice frees every processor
                    raise SchedlabError(f"conservative: no start for job {int(self.ctx.jobs.id[row])}")
                self._reserve(row, start, now)
            self.new.clear()
        self._start_due(now)

    def _compress_sets(self, sets: SetProfile | CompiledSetProfile, now: float) -> None:
        """:meth:`_compress` with processor sets: Algorithm 1 searches the starts before a job's reservation
        (only now with ``start-now``), its own processors counted free from its start on, and the job
        moves if one fits.

        With ``start-now``, a job whose reservation starts after its window from now would end asks a
        question that only its size and estimate decide (its own processors are not in the window): once
        such a job is refused, the others of the same size and estimate are too, until a job moves (the
        profile changes). Queues of identical jobs are common in real logs, and a busy RICC fortnight
        asks millions of these questions."""
        procs, estimate, res_start, res_alloc = (
            self.procs,
            self.estimate,
            self.res_start,
            self.res_alloc,
        )
        row_of_rank = self.row_of_rank
        start_now_only = self.compress == "start-now"
        earlier, allocate, fits = sets.earlier, self._allocate, self._fits
        refused: set[tuple[int, float]] = set()  # start-now: (size, estimate) refused a window clear of its own
        for r in self.reserved:
            row = row_of_rank[r]
            old = res_start[row]
            if old <= now:
                continue
            k, d, mine = procs[row], estimate[row], res_alloc[row]
            clear = start_now_only and old >= now + d
            if clear and (k, d) in refused:
                continue
            new, alloc = earlier(k, d, allocate, fits, old, mine, start_now_only)
            if new < old:
                sets.release(old, old + d, mine)
                res_alloc[row] = alloc
                self._reserve(row, new, now)
                refused.clear()
            elif clear:
                refused.add((k, d))
