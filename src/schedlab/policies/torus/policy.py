"""The torus schedulers of Krevat (2003) as online policies on the engine, and their flat-machine baselines.

Source: Krevat (2003), chapter 2 (Schedulers 1-4), section 4.2 (events,
the one-second start delay) and section 5.2 (the flat machine).

The policy feeds :class:`~schedlab.policies.torus.scheduler.TorusScheduler`
the thesis's events and applies what it decides through the engine's
:class:`~schedlab.engine.simulator.Context`:

* events: at each event time the engine reports all completions, then all
  arrivals, then asks for one pass; the policy replays them one at a time
  (completions in the engine's order, then arrivals in ``(submit, id)``
  order) and invokes the scheduler after each, as the thesis does (with
  ``batch``, once after all of them);
* the start delay: a job scheduled at ``t`` takes its partition at ``t``
  and starts at ``t + start_delay``; the policy keeps the partition for it
  meanwhile (no other job can get it, a migration may move it) and starts it
  on the engine then (``ctx.wake_at``), so the schedule's ``start`` is the
  thesis's start time;
* migration: jobs already started are moved with ``ctx.move`` (all the moves
  of one migration at once).

Cost: the scheduler's (see its module) plus O(log n) per job for the pending starts.
"""

from __future__ import annotations

import heapq
import time

import numpy as np

from schedlab.engine.simulator import Context
from schedlab.errors import InputError
from schedlab.parameters import Param
from schedlab.platform.placement import TIE_BREAKS, FlatPlacement, TorusPlacement
from schedlab.platform.torus import Torus
from schedlab.policies.torus.scheduler import (
    MIGRATION_TIES,
    MIGRATION_TRIGGERS,
    RESERVATIONS,
    Move,
    TorusScheduler,
)

__all__ = ["ESTIMATES", "TorusPolicy"]

ESTIMATES = ("exact", "requested")

_KINDS = {(False, False): "fcfs", (True, False): "backfill", (False, True): "migration", (True, True): "bm"}


class TorusPolicy:
    """FCFS with the largest-free-partition heuristic, with weak backfilling and/or migration, on a torus
    (or, with ``flat``, on a machine where any free nodes will do).

    Guarantee: FCFS and Migration start jobs in arrival order; Backfill never
    schedules the queue's head later than the first reservation made for it
    (exact estimates); an applied migration strictly enlarges the largest
    free partition (tested on the scheduler, and every schedule validated).

    Parameters
    ----------
    backfill, migration : bool
        Which scheduler (bound by the registry: ``torus-fcfs``, ``torus-backfill``,
        ``torus-migration``, ``torus-bm``).
    flat : bool
        The flat-machine baseline (``flat-fcfs``, ``flat-backfill``): no boxes,
        no rounding, no growth; the largest free partition is the number of free nodes.
    grow_limit : int, default 1
        ``I``: a backfilled job may get up to ``I`` more nodes than it asked.
    theta_tor, theta_max : float, default 0.1 and 0.7
        Migration thresholds (free fraction ``>=``, largest free partition's
        share of the free nodes ``<=``); 0 and 1 give the thesis's full migration.
    start_delay : float, default 1.0
        Seconds from a job's schedule (its partition taken) to its start.
    reservation : {"fixed", "flexible"}, default "fixed"
        How backfilling protects the head (see :class:`TorusScheduler`).
    migration_trigger : {"blocked", "always"}
    migration_tie : {"earliest", "latest"}
    tie_break : {"shape-base", "base-shape"}, default "shape-base"
        Candidate order among equal-MFP placements.
    rounding : bool, default True
        Round each size up to the next size a box has, at arrival.
    estimate : {"exact", "requested"}, default "exact"
        What backfilling believes a job's run time is: its run time (the
        policy is then clairvoyant) or its requested time; times ``estimate_factor``.
    estimate_factor : float, default 1.0
    batch : bool, default False
        Invoke the scheduler once per event time instead of after every event.

    Notes
    -----
    On a platform that is not a torus, the torus schedulers see its ids as a
    ring (a ``1 x 1 x N`` torus), where every size fits and nothing grows.
    """

    parameters = {
        "grow_limit": Param("I: how many nodes more than asked a backfilled job may get", low=0),
        "theta_tor": Param("migrate only when at least this fraction of the nodes is free", low=0),
        "theta_max": Param("migrate only when the largest free partition holds at most this share of them", low=0),
        "start_delay": Param("seconds between a job's schedule (partition taken) and its start", low=0),
        "reservation": Param(
            "backfilling: keep the head's box free (fixed) or any box of its size (flexible)", choices=RESERVATIONS
        ),
        "migration_trigger": Param(
            "try migration when FCFS blocks, or at every invocation", choices=MIGRATION_TRIGGERS
        ),
        "migration_tie": Param(
            "among running jobs of one size, re-place first the earliest or latest scheduled", choices=MIGRATION_TIES
        ),
        "tie_break": Param(
            "candidate order among placements leaving the same largest free partition", choices=TIE_BREAKS
        ),
        "rounding": Param("round sizes up to the next size a box has, at arrival"),
        "estimate": Param("the run time backfilling assumes: the actual one or the requested time", choices=ESTIMATES),
        "estimate_factor": Param("multiplies the estimates", low=0, open_low=True),
        "batch": Param("invoke the scheduler once per event time instead of after every event"),
    }

    def __init__(
        self,
        *,
        backfill: bool = False,
        migration: bool = False,
        flat: bool = False,
        grow_limit: int = 1,
        theta_tor: float = 0.1,
        theta_max: float = 0.7,
        start_delay: float = 1.0,
        reservation: str = "fixed",
        migration_trigger: str = "blocked",
        migration_tie: str = "earliest",
        tie_break: str = "shape-base",
        rounding: bool = True,
        estimate: str = "exact",
        estimate_factor: float = 1.0,
        batch: bool = False,
    ) -> None:
        self.backfill = backfill
        self.migration = migration
        self.flat = flat
        self.grow_limit = grow_limit
        self.theta_tor = theta_tor
        self.theta_max = theta_max
        self.start_delay = start_delay
        self.reservation = reservation
        self.migration_trigger = migration_trigger
        self.migration_tie = migration_tie
        self.tie_break = tie_break
        self.rounding = rounding
        self.estimate = estimate
        self.estimate_factor = estimate_factor
        self.batch = batch

    @property
    def name(self) -> str:
        return ("flat-" if self.flat else "torus-") + _KINDS[(bool(self.backfill), bool(self.migration))]

    @property
    def clairvoyant(self) -> bool:
        return self.estimate == "exact"

    def describe(self) -> str:
        parts = [f"start_delay={self.start_delay:g}", f"estimate={self.estimate}"]
        if self.estimate_factor != 1.0:
            parts.append(f"estimate_factor={self.estimate_factor:g}")
        if not self.flat:
            parts += [f"tie_break={self.tie_break}", f"rounding={self.rounding}"]
        if self.backfill:
            parts += [f"I={self.grow_limit}", f"reservation={self.reservation}"]
        if self.migration:
            parts += [
                f"theta_tor={self.theta_tor:g}",
                f"theta_max={self.theta_max:g}",
                f"trigger={self.migration_trigger}",
                f"tie={self.migration_tie}",
            ]
        if self.batch:
            parts.append("batch=True")
        return f"{self.name}({', '.join(parts)})"

    # -- engine callbacks --------------------------------------------------------------
    def reset(self, ctx: Context) -> None:
        jobs = ctx.jobs
        place: FlatPlacement | TorusPlacement
        if self.flat:
            if ctx.platform.shaped:
                raise InputError(
                    "--platform",
                    field=f"{self.name} platform",
                    value=ctx.platform.name,
                    expected="a machine where any free nodes will do (no shape rule), e.g. --procs 128",
                )
            place = FlatPlacement(ctx.n_procs)
        else:
            torus = ctx.platform if isinstance(ctx.platform, Torus) else Torus((1, 1, ctx.n_procs))
            place = TorusPlacement(torus, tie_break=self.tie_break)
        procs = jobs.procs.tolist()
        if self.rounding and not self.flat:
            procs = [place.round_size(p) for p in procs]
        if self.estimate == "exact":
            if jobs.run_time is None:
                raise InputError("policy", field=f"{self.name} estimate", value="exact", expected="a clairvoyant run")
            est = jobs.run_time * self.estimate_factor
        else:
            est = jobs.requested_time * self.estimate_factor
        self.ctx = ctx
        self.placement = place
        self.sizes = procs
        self.estimates = np.asarray(est, dtype=np.float64).tolist()
        self.core = TorusScheduler(
            place,
            backfill=self.backfill,
            migration=self.migration,
            grow_limit=self.grow_limit,
            theta_tor=self.theta_tor,
            theta_max=self.theta_max,
            start_delay=self.start_delay,
            reservation=self.reservation,
            migration_trigger=self.migration_trigger,
            migration_tie=self.migration_tie,
        )
        self._done: list[int] = []
        self._arrived: list[int] = []
        self._pending: list[tuple[float, int]] = []  # (start time, row): scheduled, not started yet
        self._wakes: set[float] = set()
        self._started: set[int] = set()  # started on the engine (a migration moves them with ctx.move)
        n = len(procs)
        self.scheduled = np.full(n, np.nan)  # schedule time (partition taken)
        self.allocated = np.zeros(n, dtype=np.int64)
        self.backfilled = np.zeros(n, dtype=bool)
        self.seconds_total = 0.0  # time spent in the scheduler, over every invocation
        self.seconds_max = 0.0  # the longest invocation that scheduled a job

    def submit(self, rows: list[int], now: float) -> None:
        self._arrived.extend(rows)

    def complete(self, rows: list[int], now: float) -> None:
        self._done.extend(rows)

    def schedule(self, now: float) -> None:
        pending = self._pending
        while pending and pending[0][0] <= now:
            self._start(heapq.heappop(pending)[1])
        core = self.core
        # jobs that ended now are no longer on the engine: a migration replayed before their completion
        # (completions at one time come one by one) moves them in the scheduler only
        self._started.difference_update(self._done)
        events = [(True, row) for row in self._done] + [(False, row) for row in self._arrived]
        self._done.clear()
        self._arrived.clear()
        for done, row in events:
            if done:
                core.finish(row)
            else:
                core.arrive(row, self.sizes[row], self.estimates[row])
            if not self.batch:
                self._invoke(now)
        if self.batch and events:
            self._invoke(now)

    # -- applying the scheduler's decisions --------------------------------------------
    def _invoke(self, now: float) -> None:
        began = time.perf_counter()
        actions = self.core.invoke(now)
        spent = time.perf_counter() - began
        self.seconds_total += spent
        moves: dict[int, tuple] = {}
        scheduled = False
        for act in actions:
            if isinstance(act, Move):
                if act.row in self._started:
                    moves[act.row] = self.placement.allocation(act.placement)
                continue
            if moves:  # a migration's moves land before the jobs FCFS schedules after it
                self.ctx.move(moves)
                moves = {}
            scheduled = True
            self.scheduled[act.row] = now
            self.allocated[act.row] = act.size
            self.backfilled[act.row] = act.backfilled
            if self.start_delay == 0:
                self._start(act.row)
            else:
                at = now + self.start_delay
                heapq.heappush(self._pending, (at, act.row))
                if at not in self._wakes:
                    self._wakes.add(at)
                    self.ctx.wake_at(at)
        if moves:
            self.ctx.move(moves)
        if scheduled:
            self.seconds_max = max(self.seconds_max, spent)

    def _start(self, row: int) -> None:
        """Start a scheduled job on the engine, on the partition it holds now (it may have been moved)."""
        job = self.core.running[row]
        self.ctx.start(row, self.placement.allocation((job.mask, job.box)))
        self._started.add(row)

    def report(self) -> dict:
        """What the run did beyond the schedule, for :attr:`Schedule.info` (deterministic values only):
        the start delay and the sizes the capacity metrics need, and the migration and MFP counters."""
        log = self.core.log
        gaps = np.diff(log.success_times)
        return {
            "start_delay": float(self.start_delay),
            "requested_sizes": np.asarray(self.sizes, dtype=np.int64),
            "n_grown": int(np.count_nonzero(self.allocated > np.asarray(self.sizes))),
            "n_backfilled": int(np.count_nonzero(self.backfilled)),
            "migration_attempts": log.attempts,
            "migration_successes": log.successes,
            "migration_repeats": log.repeats,
            "migration_pinned": log.pinned,
            "migration_moves": log.moves,
            "migration_mean_gap": float(gaps.mean()) if gaps.size else None,
            "mfp_calls": int(self.placement.mfp_calls),
            "mfp_memo_hits": int(self.placement.cache_hits),
        }
