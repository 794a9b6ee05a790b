"""The four torus schedulers of Krevat (2003) as one state machine: FCFS, Backfill, Migration and B+M.

Source: Krevat (2003), chapter 2 (Schedulers 1-4) and section 4.2 (events:
arrival, schedule, start one second later, completion; the scheduler runs
after every arrival and every completion).

The machine state is an occupancy bitmask and the running jobs' placements;
where a job goes is asked of a placement object
(:class:`~schedlab.platform.placement.TorusPlacement` on a torus,
:class:`~schedlab.platform.placement.FlatPlacement` for the flat baselines),
so the same code runs the torus schedulers and the flat-machine baselines.
A driver (:class:`~schedlab.policies.torus.policy.TorusPolicy` on the
engine) feeds it arrivals and completions and
applies what :meth:`TorusScheduler.invoke` returns: jobs to schedule now and
running jobs to move (migration).

Cost per invocation: one MFP lookup for the blocked head (memoised per
occupancy); the reservation is computed once per machine state and head
(at most one MFP per distinct estimated end); backfilling looks at each
waiting job once, with one memoised MFP bound before any placement search;
a migration re-places every running job (placements on a partly filled torus
repeat and hit the memo).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from schedlab.errors import ArgumentError
from schedlab.platform.placement import Placement
from schedlab.platform.torus import Box

__all__ = ["MIGRATION_TRIGGERS", "Move", "RESERVATIONS", "Running", "Start", "TorusScheduler"]

RESERVATIONS = ("fixed", "flexible")
MIGRATION_TRIGGERS = ("blocked", "always")
MIGRATION_TIES = ("earliest", "latest")


@dataclass(frozen=True, slots=True)
class Start:
    """Schedule job ``row`` now on ``placement`` with ``size`` nodes (>= its requested size when grown)."""

    row: int
    size: int
    placement: Placement
    backfilled: bool


@dataclass(frozen=True, slots=True)
class Move:
    """Migrate running job ``row`` to ``placement`` (same size, any shape)."""

    row: int
    placement: Placement


@dataclass(slots=True)
class Running:
    """A job holding nodes: from its schedule time, through its start one delay later, to its end."""

    row: int
    size: int
    mask: int
    box: Box | None
    scheduled: float
    est_end: float  # scheduled + start delay + estimate


@dataclass(slots=True)
class _Reservation:
    shadow: float
    mask: int  # the head's reserved box
    occ_at_shadow: int  # nodes still held at the shadow time by jobs running now
    head: int
    version: int


@dataclass
class MigrationLog:
    """Migration counters (Krevat 2003, section 5.1.2): attempts (thresholds met), successes (MFP strictly
    improved and the new layout applied), the times of the successes, the number of jobs moved, and the
    number of times a job that no longer fitted was kept in place (re-placement started over), and the
    failed attempts made on an unchanged machine state (``repeats``, included in ``attempts``)."""

    attempts: int = 0
    successes: int = 0
    success_times: list[float] = field(default_factory=list)
    moves: int = 0
    pinned: int = 0
    repeats: int = 0


class TorusScheduler:
    """FCFS with the MFP heuristic, plus weak backfilling and/or migration.

    Source: Krevat (2003), chapter 2. Scheduler 1 (FCFS): waiting jobs in
    arrival order, each placed where it leaves the largest free partition,
    grown by the least amount when only a larger partition is free; stop at the
    first job that cannot be placed. Scheduler 2 adds weak (EASY-like)
    backfilling with one reservation for the head, candidates grown by at most
    ``grow_limit`` nodes. Scheduler 3 adds migration when FCFS blocks, the free
    fraction is ``>= theta_tor`` and the largest free partition holds
    ``<= theta_max`` of the free nodes: every running job is re-placed, largest
    first, into an empty torus; a job that no longer fits keeps its place and
    the re-placement starts over; the new layout is applied only if it
    strictly enlarges the largest free partition; then FCFS runs again.
    Scheduler 4 (B+M): FCFS, migration, FCFS, backfilling.

    Guarantee: FCFS and Migration schedule jobs in arrival order; the Backfill
    scheduler with exact estimates schedules the head no later than the first
    reservation made for it; an applied migration strictly increases the MFP
    and keeps every job's size (all tested).
    Cost: see the module docstring.

    Parameters
    ----------
    placement : TorusPlacement or FlatPlacement
        Geometry and search; its memos persist across invocations.
    backfill, migration : bool
        Which of Schedulers 1-4 (neither: FCFS).
    grow_limit : int, default 1
        ``I``: a backfilled job may be scheduled with ``p .. p + I`` nodes.
    theta_tor, theta_max : float, default 0.1 and 0.7
        Migration thresholds on ``FN_tor = F / N`` (``>=``) and
        ``FN_max = MFP / F`` (``<=``); 0 and 1 is the thesis's full migration.
    start_delay : float, default 1.0
        Seconds between a job's schedule and its start; its nodes are held from its schedule.
    reservation : {"fixed", "flexible"}, default "fixed"
        How backfilling protects the head. ``fixed``: a candidate ending after
        the shadow time must miss the head's reserved box. ``flexible``: it
        may go anywhere that still leaves a free partition of the head's size
        at the shadow time (on a flat machine, EASY's "extra" nodes).
    migration_trigger : {"blocked", "always"}, default "blocked"
        Consider migration only when FCFS blocks (the thesis), or at every invocation.
    migration_tie : {"earliest", "latest"}, default "earliest"
        Among running jobs of equal size, which is re-placed first: the earliest or latest scheduled.

    Notes
    -----
    Choices where the thesis is silent: the reservation is computed by releasing running
    jobs in order of estimated end (``schedule + start_delay + estimate``,
    never before now) until the head fits, then placing it there with the
    FCFS rule; migration is tried at most once per invocation, not when no
    node is free, re-places jobs in their 1 s pre-start window too, never grows
    a job, keeps an enlarged job at its enlarged size, and is not applied when
    the MFP is unchanged; a migration may delay the head's reservation.
    """

    def __init__(  # where the thesis is silent: readings K-1, K-8, K-9 (docs/readings.md)
        self,
        placement,
        *,
        backfill: bool = False,
        migration: bool = False,
        grow_limit: int = 1,
        theta_tor: float = 0.1,
        theta_max: float = 0.7,
        start_delay: float = 1.0,
        reservation: str = "fixed",
        migration_trigger: str = "blocked",
        migration_tie: str = "earliest",
    ) -> None:
        for name, value, choices in (
            ("reservation", reservation, RESERVATIONS),
            ("migration_trigger", migration_trigger, MIGRATION_TRIGGERS),
            ("migration_tie", migration_tie, MIGRATION_TIES),
        ):
            if value not in choices:
                raise ArgumentError(f"{name} {value!r}: expected one of {', '.join(choices)}")
        if not (isinstance(grow_limit, int) and grow_limit >= 0):
            raise ArgumentError(f"grow_limit {grow_limit!r}: expected an integer >= 0")
        if not start_delay >= 0:
            raise ArgumentError(f"start_delay {start_delay!r}: expected a number >= 0")
        self.placement = placement
        self.n_procs = placement.n_procs
        self.backfill = backfill
        self.migration = migration
        self.grow_limit = grow_limit
        self.theta_tor = theta_tor
        self.theta_max = theta_max
        self.start_delay = start_delay
        self.flexible = reservation == "flexible"
        self.migrate_always = migration_trigger == "always"
        self.tie_sign = 1 if migration_tie == "earliest" else -1
        self.occ = 0
        self.queue: deque[int] = deque()
        self.size: dict[int, int] = {}  # requested (rounded) size of each waiting job
        self.estimate: dict[int, float] = {}
        self.running: dict[int, Running] = {}
        self.first_shadow: dict[int, float] = {}  # first reservation time computed for each head
        self.log = MigrationLog()
        self._version = 0  # bumped whenever the running set or a placement changes
        self._reservation: _Reservation | None = None
        self._failed_version = -1  # machine state of the last failed migration attempt

    # -- events --------------------------------------------------------------
    def arrive(self, row: int, size: int, estimate: float) -> None:
        """Job ``row`` joins the end of the waiting queue with ``size`` nodes and an estimated run time."""
        if not 1 <= size <= self.n_procs:
            raise ArgumentError(f"job row {row}: size {size} outside 1..{self.n_procs}")
        self.queue.append(row)
        self.size[row] = size
        self.estimate[row] = estimate

    def finish(self, row: int) -> None:
        """Running job ``row`` completed: its nodes are free."""
        job = self.running.pop(row)
        self.occ &= ~job.mask
        self._version += 1

    def invoke(self, now: float) -> list[Start | Move]:
        """One scheduler invocation at ``now``; returns the jobs scheduled and moved, in order."""
        actions: list[Start | Move] = []
        blocked = self._fcfs(now, actions)
        if self.migration and (blocked or self.migrate_always) and self._migration_wanted():
            if self._migrate(now, actions):
                blocked = self._fcfs(now, actions)
        if blocked and self.backfill:
            self._backfill(now, actions)
        return actions

    # -- phases --------------------------------------------------------------
    def _schedule(self, row: int, size: int, placement: Placement, now: float, backfilled: bool, actions) -> None:
        mask, box = placement
        self.occ |= mask
        self.running[row] = Running(row, size, mask, box, now, now + self.start_delay + self.estimate.pop(row))
        del self.size[row]
        self._version += 1
        actions.append(Start(row, size, placement, backfilled))

    def _fcfs(self, now: float, actions) -> bool:
        """Schedule queue heads while the largest free partition holds them; True if the head is blocked."""
        queue, place = self.queue, self.placement
        while queue:
            head = queue[0]
            p = self.size[head]
            if place.mfp(self.occ) < p:
                return True
            q, placement = place.place_grow(self.occ, p, self.n_procs)
            queue.popleft()
            self._schedule(head, q, placement, now, False, actions)
        return False

    def _migration_wanted(self) -> bool:
        free = self.n_procs - self.occ.bit_count()
        if free == 0 or not self.running:
            return False
        return free / self.n_procs >= self.theta_tor and self.placement.mfp(self.occ) / free <= self.theta_max

    def _migrate(self, now: float, actions) -> bool:
        """Re-place every running job, largest first, into an empty torus; apply if the MFP grows.

        An attempt on the machine state of the previous failed attempt fails again (the re-placement
        is deterministic): it is counted, in ``attempts`` and ``repeats``, without being recomputed.
        """
        if self._failed_version == self._version:
            self.log.attempts += 1
            self.log.repeats += 1
            return False
        place = self.placement
        before = place.mfp(self.occ)
        order = sorted(
            self.running.values(), key=lambda j: (-j.size, self.tie_sign * j.scheduled, self.tie_sign * j.row)
        )
        pinned = 0
        todo = order
        while True:
            occ = pinned
            layout: list[tuple[Running, Placement]] = []
            for job in todo:
                found = place.best_placement(occ, job.size)
                if found is None:
                    pinned |= job.mask  # keeps its place; start over with the others
                    self.log.pinned += 1
                    todo = [j for j in todo if j is not job]
                    break
                occ |= found[0]
                layout.append((job, found))
            else:
                break
        self.log.attempts += 1
        if place.mfp(occ) <= before:
            self._failed_version = self._version
            return False
        self.log.successes += 1
        self.log.success_times.append(now)
        for job, (mask, box) in layout:
            if mask != job.mask:
                job.mask, job.box = mask, box
                self.log.moves += 1
                actions.append(Move(job.row, (mask, box)))
        self.occ = occ
        self._version += 1
        return True

    def _reserve(self, head: int, now: float) -> _Reservation:
        """The head's reservation: the earliest estimated end at which it fits, and its box there."""
        res = self._reservation
        if res is not None and res.head == head and res.version == self._version and res.shadow >= now:
            return res
        place, p = self.placement, self.size[head]
        occ = self.occ
        ends = sorted(self.running.values(), key=lambda j: (max(j.est_end, now), j.row))
        i = 0
        found = None
        while i < len(ends):
            t = max(ends[i].est_end, now)
            while i < len(ends) and max(ends[i].est_end, now) == t:
                occ &= ~ends[i].mask
                i += 1
            if place.fits(occ, p):
                found = place.place_grow(occ, p, self.n_procs)
                break
        if found is None:  # cannot happen: the empty machine holds every job size
            raise RuntimeError(f"job row {head} fits nowhere even on an empty machine")
        res = _Reservation(t, found[1][0], occ, head, self._version)
        self._reservation = res
        self.first_shadow.setdefault(head, t)
        return res

    def _backfill(self, now: float, actions) -> None:
        """Weak backfilling: schedule later jobs now when they do not delay the head's reservation."""
        queue, place = self.queue, self.placement
        head = queue[0]
        res = self._reserve(head, now)
        need = self.size[head]
        shadow_occ = res.occ_at_shadow
        started = []
        for row in list(queue)[1:]:
            p = self.size[row]
            largest = place.mfp(self.occ)
            if largest < p:
                if largest == 0:
                    break
                continue
            late = now + self.start_delay + self.estimate[row] > res.shadow
            if not late:
                found = place.place_grow(self.occ, p, p + self.grow_limit)
            elif self.flexible:
                found = place.place_grow(self.occ, p, p + self.grow_limit, shadow=shadow_occ, need=need)
            else:
                found = place.place_grow(self.occ, p, p + self.grow_limit, forbid=res.mask)
            if found is None:
                continue
            q, placement = found
            if late:
                shadow_occ |= placement[0]
            self._schedule(row, q, placement, now, True, actions)
            started.append(row)
        if started:
            gone = set(started)
            self.queue = deque(r for r in queue if r not in gone)
