"""Discrete-event simulation of an online policy on rigid jobs.

The event semantics (comparable with Batsim/batsched):
at each event time, first all completions, then all submissions, then exactly
one scheduling pass. Equal times are never broken by chance: completions go by
(end time, row), submissions by (submit, id).

The event loop is schedlab's compiled core (``rust/src/events.rs`` in the
repository), the one the compiled policies run on too: it owns the clock, the
job states, the start and end times and the pending ends and timers.
:func:`simulate` steps through it, one call per event time, and calls the
policy; the policy's :class:`Context` checks every action (with the messages of
:class:`~schedlab.errors.IllegalDecision`) and passes it on to the core. What
Python policies read stays Python: the free set, the allocations, the run-time
model.

Cost: O((n + e) log n) engine work for n jobs and e timer events, plus the
policy's own work; resources are an :class:`IntervalSet`, so starting or ending a
job costs O(r log F) for r ranges and F free fragments, never a scan of all processors.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from schedlab.errors import IllegalDecision, InputError, SchedlabError
from schedlab.native._core import EventCore
from schedlab.platform.intervals import Allocation, IntervalSet
from schedlab.runtime.base import RuntimeModel
from schedlab.schedule import Instance, JobStatus, Piece, Schedule

if TYPE_CHECKING:
    from schedlab.engine.policy import OnlinePolicy

WAITING, QUEUED, RUNNING, DONE, REJECTED = range(5)
"""Job states, numbered as the core numbers them."""
_STATE_NAMES = ("not submitted", "queued", "running", "finished", "rejected")

ProgressCallback = Callable[[int, int], None]

ENGINES = ("auto", "python", "core")
"""Which implementation of a policy :func:`simulate` runs: ``auto`` (its compiled decisions when the
policy offers them for the instance, else its Python code), ``python`` (always its Python code: the
oracle of the compiled policies), ``core`` (its compiled decisions or an error). Both run on the same
event loop."""


@dataclass(frozen=True, eq=False)
class JobView:
    """What a policy may read about the jobs (numpy columns, rows as in the instance).

    ``run_time`` is None unless the policy is clairvoyant.
    """

    id: np.ndarray
    submit: np.ndarray
    requested_time: np.ndarray
    procs: np.ndarray
    run_time: np.ndarray | None

    def __len__(self) -> int:
        return int(self.id.shape[0])


class Context:
    """The engine as a policy sees it: job view, free processors, clock, and actions.

    Actions are applied at once and refused with :class:`IllegalDecision` when
    illegal; ``free`` must be treated as read-only by policies. ``compiled`` says whether the
    policy may use compiled parts of itself (False under ``engine="python"``, which asks for
    every policy's Python code: the reference of its compiled parts). The
    instance's run-time model gives a job's execution length from its
    allocation when it starts (the policy never sees it) and says which
    allocations a job accepts; a fixed model (rigid jobs) is read from the job
    table's columns at once. A clairvoyant policy may read the model itself
    (:attr:`runtime`), e.g. the run-time table of moldable tasks.
    """

    def __init__(
        self, instance: Instance, policy: OnlinePolicy, rng: np.random.Generator, *, compiled: bool = True
    ) -> None:
        jobs = instance.jobs
        self.compiled = compiled
        self.platform = instance.platform
        self.n_procs = instance.platform.n_procs
        self.rng = rng
        self.jobs = JobView(
            id=jobs.id,
            submit=jobs.submit,
            requested_time=jobs.requested_time,
            procs=jobs.procs,
            run_time=jobs.run_time if policy.clairvoyant else None,
        )
        self.free = IntervalSet.full(self.n_procs)
        self.now = -np.inf
        n = len(jobs)
        self._n = n
        order = np.lexsort((jobs.id, jobs.submit)).astype(np.int64)
        self._core = EventCore(np.ascontiguousarray(jobs.submit, dtype=np.float64), order)
        self._ids = jobs.id.tolist()
        self._procs = jobs.procs.tolist()
        self._duration = np.minimum(jobs.run_time, jobs.requested_time).tolist()
        self._killed = (jobs.run_time > jobs.requested_time).tolist()
        self._remaining = list(self._duration)  # what is left to run: less than the duration after a preemption
        self._runtime = instance.runtime
        self._clairvoyant = bool(policy.clairvoyant)
        self._fixed = instance.runtime.fixed
        self._shaped = instance.platform.shaped
        self._placed = [np.nan] * n  # when the current allocation was taken: the start, or the last move
        self._alloc: list[Allocation | None] = [None] * n
        self._aborted: list[Piece] = []

    @property
    def runtime(self) -> RuntimeModel | None:
        """The instance's run-time model, read-only, for a clairvoyant policy; None for the others.

        What a clairvoyant policy knows of a job at its release beyond ``jobs.run_time``: the run time on
        every allocation it may get (moldable tasks: :class:`~schedlab.runtime.moldable.MoldableTimes`'
        ``times`` table, Saule, Bozdag and Catalyurek 2014, section 5). Lengths of started jobs still come
        from the engine, which asks the same model.
        """
        return self._runtime if self._clairvoyant else None

    # -- actions -----------------------------------------------------------
    def start(self, row: int, alloc: Allocation) -> None:
        """Start queued job ``row`` now on the processor ranges ``alloc``."""
        self._check_row(row)
        state = self._core.state(row)
        if state != QUEUED:
            raise IllegalDecision(f"cannot start job {self._ids[row]}: it is {_STATE_NAMES[state]} at time {self.now}")
        self._check_allocation(row, alloc, self._procs[row] if self._fixed else None)
        try:
            self.free.remove(alloc)
        except ValueError as err:
            raise IllegalDecision(f"cannot start job {self._ids[row]} at time {self.now}: {err}") from None
        self._launch(row, alloc)

    def _check_allocation(self, row: int, alloc: Allocation, size: int | None) -> int:
        """Refuse an allocation that is not normalized ranges of existing ids, not of ``size`` ids (when
        given, else as the run-time model accepts), or not of the platform's shape; return its size."""
        n_alloc = 0
        prev_hi = -1
        for lo, hi in alloc:
            if lo <= prev_hi or hi <= lo:
                raise IllegalDecision(
                    f"job {self._ids[row]}: allocation {alloc!r} is not sorted disjoint non-adjacent ranges"
                )
            n_alloc += hi - lo
            prev_hi = hi
        if size is not None:
            if n_alloc != size:
                raise IllegalDecision(f"job {self._ids[row]} needs {size} processors, given {n_alloc}")
        if not self._fixed:
            problem = self._runtime.allocation_problem(row, alloc, n_alloc)
            if problem is not None:
                raise IllegalDecision(f"job {self._ids[row]}: allocation {alloc!r} {problem}")
        if prev_hi > self.n_procs:
            raise IllegalDecision(f"job {self._ids[row]}: processor {prev_hi - 1} does not exist (P = {self.n_procs})")
        if self._shaped:
            problem = self.platform.allocation_problem(alloc)
            if problem is not None:
                raise IllegalDecision(f"job {self._ids[row]}: allocation {alloc!r} {problem}")
        return n_alloc

    def move(self, moves: Mapping[int, Allocation]) -> None:
        """Migrate running jobs now, all at once: each goes on running, same work and same end, on its new allocation.

        Source: Krevat (2003), chapter 2 (Scheduler 3: running jobs re-placed
        on the torus, no overhead modelled). Every old allocation is released
        before the new ones are taken, so jobs may take each other's places.
        A new allocation must hold as many ids as the job's current one and
        obey the run-time model's and the platform's rules. The placement a
        job leaves is recorded as a moved :class:`~schedlab.schedule.Piece`
        (none when it was taken at this very instant); nothing changes when
        the new allocation is the old one.
        """
        items = sorted(moves.items())
        for row, alloc in items:
            self._check_row(row)
            state = self._core.state(row)
            if state != RUNNING:
                raise IllegalDecision(
                    f"cannot move job {self._ids[row]}: it is {_STATE_NAMES[state]} at time {self.now}"
                )
            size = sum(hi - lo for lo, hi in self._current(row))
            self._check_allocation(row, alloc, size)
        olds = [self._current(row) for row, _ in items]
        for old in olds:
            self.free.add(old)
        taken = []
        try:
            for _, alloc in items:
                self.free.remove(alloc)
                taken.append(alloc)
        except ValueError as err:
            for alloc in taken:
                self.free.add(alloc)
            for old in olds:
                self.free.remove(old)
            raise IllegalDecision(
                f"cannot move job {self._ids[items[len(taken)][0]]} at time {self.now}: {err}"
            ) from None
        for (row, alloc), old in zip(items, olds, strict=True):
            if alloc == old:
                continue
            if self.now > self._placed[row]:
                self._aborted.append(Piece(row, self._placed[row], self.now, old, kept=True, moved=True))
            self._placed[row] = self.now
            self._alloc[row] = alloc

    def start_first_fit(self, row: int) -> Allocation:
        """Start queued job ``row`` now on the lowest free processor ids; return them.

        The homogeneous machine's default allocation, done in one pass over the free set.
        """
        self._check_row(row)
        state = self._core.state(row)
        if state != QUEUED:
            raise IllegalDecision(f"cannot start job {self._ids[row]}: it is {_STATE_NAMES[state]} at time {self.now}")
        if self._procs[row] > self.free.size:
            raise IllegalDecision(
                f"cannot start job {self._ids[row]} at time {self.now}: needs {self._procs[row]} processors, {self.free.size} free"
            )
        alloc = self.free.pop_first(self._procs[row])
        self._launch(row, alloc)
        return alloc

    def _current(self, row: int) -> Allocation:
        """The allocation of running job ``row``."""
        alloc = self._alloc[row]
        if alloc is None:
            raise IllegalDecision(f"job {self._ids[row]} holds no processors")
        return alloc

    def _launch(self, row: int, alloc: Allocation) -> None:
        self._placed[row] = self.now
        self._alloc[row] = alloc
        if self._fixed:
            duration = self._remaining[row]
        else:
            duration, self._killed[row] = self._runtime.duration(row, alloc)
        self._core.launch(row, duration)

    def abort(self, row: int) -> None:
        """Stop running job ``row`` now; its work is lost and it waits to be started again."""
        self._stop(row, kept=False)

    def preempt(self, row: int) -> None:
        """Stop running job ``row`` now, keeping its work: it waits and, started again, runs only what is left.

        Preempt-and-resume, for the preemptive reference policies of Lucarelli, Mendonca and Trystram (2017) (SRPT, GSRPT); not available
        with a run-time model, whose run time depends on the allocation.
        """
        if not self._fixed:
            raise IllegalDecision(
                "preemption is not supported with a run-time model whose lengths depend on the allocation"
            )
        self._stop(row, kept=True)

    def _stop(self, row: int, *, kept: bool) -> None:
        self._check_row(row)
        action = "preempt" if kept else "abort"
        state = self._core.state(row)
        if state != RUNNING:
            raise IllegalDecision(f"cannot {action} job {self._ids[row]}: it is {_STATE_NAMES[state]}")
        if self._placed[row] != self._core.started(row):
            raise IllegalDecision(f"cannot {action} job {self._ids[row]}: it was moved since it started")
        alloc = self._alloc[row]
        assert alloc is not None  # set by start while RUNNING
        started = self._core.stop(row)
        if not (kept and self.now == started):  # a preemption at its start leaves no trace
            self._aborted.append(Piece(row, started, self.now, alloc, kept))
        self._remaining[row] = self._remaining[row] - (self.now - started) if kept else self._duration[row]
        self.free.add(alloc)
        self._alloc[row] = None

    def reject(self, row: int) -> None:
        """Refuse queued job ``row``: it will never run."""
        self._check_row(row)
        state = self._core.state(row)
        if state != QUEUED:
            raise IllegalDecision(f"cannot reject job {self._ids[row]}: it is {_STATE_NAMES[state]}")
        self._core.reject(row)

    def wake_at(self, time: float) -> None:
        """Ask for a scheduling pass at ``time`` (> now) even if no job event happens then."""
        if not time > self.now:
            raise IllegalDecision(f"timer at {time} is not after now ({self.now})")
        self._core.wake_at(time)

    def _check_row(self, row: int) -> None:
        if not 0 <= row < self._n:
            raise IllegalDecision(f"unknown job row {row} (the instance has {self._n} jobs)")


def simulate(
    instance: Instance,
    policy: OnlinePolicy,
    *,
    rng: np.random.Generator | None = None,
    progress: ProgressCallback | None = None,
    engine: str | None = None,
) -> Schedule:
    """Run ``policy`` online on ``instance`` and return the schedule it produced.

    Every policy runs on the one event loop of the compiled core (see the module docstring): a Python
    policy through the calls below, one step per event time. A policy may also offer
    ``compiled_run(instance) -> Schedule | None``: the whole simulation done at once with its decisions
    compiled too, the same schedule as its Python code (the built-in FCFS, EASY and conservative do,
    :mod:`schedlab.policies.rigid.compiled`). ``engine`` (one of :data:`ENGINES`; default: the
    ``SCHEDLAB_ENGINE`` environment variable, else ``auto``) says whether it is used.

    Parameters
    ----------
    instance : Instance
        Jobs and machine. Every job must fit the machine (``procs <= n_procs``).
    policy : OnlinePolicy
        Reset here, so one policy object can run several simulations.
    rng : numpy Generator, optional
        Passed to randomised policies; defaults to ``default_rng(0)`` so runs are reproducible.
    progress : callable(done, total), optional
        Called about a hundred times with the number of jobs finished (once, at the end, for a compiled run).
    engine : {"auto", "python", "core"}, optional
        The policy's Python code or its compiled decisions, see above.

    Raises
    ------
    InputError
        A job needs more processors than the machine has; an unknown ``engine``, or ``core`` for a
        policy or instance the core does not cover.
    IllegalDecision
        The policy asked for something impossible.
    SchedlabError
        The policy left jobs neither started nor rejected when no event remained.
    """
    jobs = instance.jobs
    too_wide = np.flatnonzero(jobs.procs > instance.platform.n_procs)
    if too_wide.size:
        i = int(too_wide[0])
        raise InputError(
            jobs.source,
            int(jobs.line[i]) or None,
            f"job {int(jobs.id[i])} processors",
            int(jobs.procs[i]),
            f"at most {instance.platform.n_procs} (the machine size); {too_wide.size} job(s) too wide",
        )
    n = len(jobs)
    engine, where = _engine(engine)
    schedule = _compiled(instance, policy, engine, where)
    if schedule is not None:
        if progress is not None:
            progress(n, n)
        return schedule
    ctx = Context(instance, policy, rng if rng is not None else np.random.default_rng(0), compiled=engine != "python")
    policy.reset(ctx)

    step, release = ctx._core.step, ctx._core.release
    free, allocs = ctx.free, ctx._alloc
    n_done = 0
    next_report = step_size = max(1, n // 100)
    while (event := step()) is not None:
        t, done, arrived = event
        ctx.now = t
        if done is not None:
            for row in done:
                alloc = allocs[row]
                assert alloc is not None  # set by start while RUNNING
                free.add(alloc)
            n_done += len(done)
            policy.complete(done, t)
            if progress is not None and n_done >= next_report:
                progress(n_done, n)
                next_report = n_done + step_size
        if arrived is not None:
            release()
            policy.submit(arrived, t)
        policy.schedule(t)

    return _collect(ctx, policy, n)


def _engine(engine: str | None) -> tuple[str, str]:
    """The engine asked for (the argument, else ``SCHEDLAB_ENGINE``, else ``auto``; refused unless in
    :data:`ENGINES`) and where it was asked for (for error messages)."""
    where = "engine" if engine is not None else "SCHEDLAB_ENGINE"
    engine = engine if engine is not None else os.environ.get("SCHEDLAB_ENGINE") or "auto"
    if engine not in ENGINES:
        raise InputError(where, field=where, value=engine, expected=f"one of {', '.join(ENGINES)}")
    return engine, where


def _compiled(instance: Instance, policy: OnlinePolicy, engine: str, where: str) -> Schedule | None:
    """The schedule from the policy's compiled run, or None when its Python code must run (see :func:`simulate`)."""
    if engine == "python":
        return None
    compiled_run = getattr(policy, "compiled_run", None)
    schedule = compiled_run(instance) if compiled_run is not None else None
    if schedule is None and engine == "core":
        raise InputError(
            where,
            message=f"the compiled core does not run {policy.describe()} on this instance (engine python or auto does)",
        )
    return schedule


def _collect(ctx: Context, policy: OnlinePolicy, n: int) -> Schedule:
    raw_state, raw_start, raw_end = ctx._core.outcome()
    state_a = np.frombuffer(raw_state, dtype=np.uint8).astype(np.int8)
    left = np.flatnonzero((state_a == QUEUED) | (state_a == RUNNING)).tolist()
    if left:
        ids = ", ".join(str(ctx._ids[r]) for r in left[:5])
        raise SchedlabError(
            f"policy {policy.describe()} left {len(left)} job(s) never started or never ended (job ids {ids}...)"
        )
    status = np.zeros(n, dtype=np.int8)
    killed = np.asarray(ctx._killed, dtype=bool)
    status[state_a == DONE] = JobStatus.COMPLETED
    status[(state_a == DONE) & killed] = JobStatus.KILLED
    status[state_a == REJECTED] = JobStatus.REJECTED
    return Schedule(
        start=np.frombuffer(raw_start, dtype=np.float64).copy(),
        end=np.frombuffer(raw_end, dtype=np.float64).copy(),
        status=status,
        alloc=ctx._alloc,
        aborted=ctx._aborted,
        policy=policy.describe(),
        info=policy.report() if hasattr(policy, "report") else {},
    )


__all__ = ["ENGINES", "Context", "JobView", "simulate"]
