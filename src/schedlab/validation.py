"""An independent checker: does a :class:`~schedlab.schedule.Schedule` obey its instance's rules?

One independent validator checks any Schedule against its Instance
(docs/architecture.md); the idea of pybatsim's ``validatingmachine.py`` (no shared
processor, start once, after submit) without its monkey-patching.

This module reads only the data types (:class:`~schedlab.schedule.Instance`,
:class:`~schedlab.schedule.Schedule`, :class:`~schedlab.schedule.Piece`); it
shares no code with the engine or any policy, so an engine bug cannot hide
itself by being checked with its own logic.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from schedlab.errors import ValidationError
from schedlab.platform.intervals import AllocationTable, format_allocation
from schedlab.schedule import Instance, JobStatus, Schedule

try:  # the compiled sweep of rule 9 (Rust, ``rust/src/validate.rs``: no code shared with the engine)
    from schedlab.native import _core
except ImportError:  # a source tree whose extension was not built: the big-integer sweep below runs
    _core = None  # type: ignore[assignment]

__all__ = ["validate"]

_STARTED = (int(JobStatus.COMPLETED), int(JobStatus.KILLED))


def validate(
    instance: Instance,
    schedule: Schedule,
    *,
    allow_rejected: bool = False,
    contiguous: bool = False,
    rtol: float = 1e-9,
) -> None:
    """Check a finished schedule; raise on the first broken rule.

    Source: the rigid-job semantics of Batsim (a job runs ``min(run_time,
    requested_time)`` on its processors and is killed at its walltime), the
    run-time model of the instance for everything else (penalties, CPU+GPU
    task times), and the platform's resource kinds and shapes.

    Rules, checked in this order (within a rule, the lowest job row, or the
    first aborted piece in ``schedule.aborted`` order, is reported first, so
    the message is deterministic):

    1. ``start``, ``end``, ``status`` and ``alloc`` have one entry per job.
    2. Every status is COMPLETED, KILLED, or REJECTED when ``allow_rejected``;
       NOT_STARTED is never valid for a finished schedule.
    3. Started jobs (COMPLETED, KILLED) have finite ``start``, ``end`` and an
       allocation; rejected jobs have NaN ``start`` and ``end`` and no
       allocation (None or ``()``).
    4. ``start >= submit`` (exact comparison, no tolerance).
    5. The status is KILLED iff the run-time model says the job is killed on
       its allocation (rigid jobs: iff ``run_time > requested_time``).
    6. ``end - start`` equals the model's length on the allocation (rigid jobs:
       ``min(run_time, requested_time)``), less the time run in preempted
       pieces (``Piece.kept``, not ``moved``) since the job's last abort,
       within ``min(rtol * max(1, |end|), half that length)`` seconds.
    7. Each allocation is a tuple of integer ranges ``(lo, hi)``, sorted,
       disjoint and non-adjacent, ``0 <= lo < hi <= n_procs``, that the job
       accepts (rigid jobs: exactly ``procs`` processors; other models say
       which), of a shape the platform allows (a torus box...), and one range
       when ``contiguous``. With a model whose lengths depend on the
       allocation, this rule is checked before rules 5 and 6.
    8. Each aborted piece names an existing job row, has finite times with
       ``submit <= start <= end``, an allocation as in rule 7, does not overlap
       in time another piece of the same job, and ends no later than the job's
       final start (when the job has one). The moved pieces of a migrated job
       (``Piece.moved``) instead chain without a gap from its start (each
       starts where the previous placement ended), end before its end, and
       hold as many ids as its final allocation, which is in use from the end
       of its last moved piece.
    9. No resource is used by two executions (final ones, aborted pieces and
       moved pieces) at overlapping times, except the ids of a *shared* kind (shared I/O
       nodes). Intervals are half-open: a job ending at ``t`` and another
       starting at ``t`` on the same processor is fine.

    Cost: O(E log E + R) numpy work for E executions holding R ranges in
    all, plus a sweep over the 2E start and end events in time order keeping
    the busy processors as a bitset (one Python integer of ``n_procs`` bits):
    one big-integer operation per range and per event, O(n_procs / 64)
    machine words each. A few seconds for 450k jobs on 8192 processors. A
    model whose lengths depend on the allocation adds one call per started job.

    Parameters
    ----------
    instance : Instance
        The jobs, the platform and the run-time model.
    schedule : Schedule
        The schedule to check, row-aligned with ``instance.jobs``.
    allow_rejected : bool, default False
        Whether REJECTED jobs are legal (a policy that may refuse jobs).
    contiguous : bool, default False
        Whether every final allocation must be one range of consecutive ids.
    rtol : float, default 1e-9
        Relative tolerance on execution lengths, scaled by ``max(1, |end|)``:
        at time 1e8 s it allows 0.1 s, which covers float rounding of
        ``start + duration`` by any algorithm. It never reaches half the
        expected length (nor goes below 1e-9 s), so a job far out on the clock
        whose end rounded onto its start (30 s at t = 1e23) is refused.

    Raises
    ------
    ValidationError
        On the first broken rule, as one line naming the job id and the rule
        (for double booking: the processor, both jobs and the time).

    Notes
    -----
    Zero-length aborted pieces (aborted at the instant they started) are legal
    and occupy no processor. Aborted pieces of a job later rejected are legal:
    a policy may abort a job and then refuse it.
    """
    jobs = instance.jobs
    n = len(jobs)
    platform = instance.platform
    runtime = instance.runtime
    n_procs = int(platform.n_procs)

    _check_lengths(schedule, n)
    start = np.asarray(schedule.start, dtype=np.float64)
    end = np.asarray(schedule.end, dtype=np.float64)
    status = np.asarray(schedule.status).astype(np.int64)
    ids = jobs.id

    # 2. legal status values
    legal = (status == JobStatus.COMPLETED) | (status == JobStatus.KILLED)
    if allow_rejected:
        legal |= status == JobStatus.REJECTED
    if not legal.all():
        i = _first(~legal)
        raise ValidationError(
            f"job {ids[i]}: status {_status_name(status[i])} is not allowed in a finished schedule"
            + ("" if allow_rejected or status[i] != JobStatus.REJECTED else " (allow_rejected=False)")
        )

    # 3. NaN start/end iff never started; allocation iff started
    started = (status == JobStatus.COMPLETED) | (status == JobStatus.KILLED)
    bad = started & ~(np.isfinite(start) & np.isfinite(end))
    if bad.any():
        i = _first(bad)
        raise ValidationError(
            f"job {ids[i]}: started ({_status_name(status[i])}) but start = {_r(start[i])}, end = {_r(end[i])}; expected finite times"
        )
    bad = ~started & ~(np.isnan(start) & np.isnan(end))
    if bad.any():
        i = _first(bad)
        raise ValidationError(
            f"job {ids[i]}: never started ({_status_name(status[i])}) but start = {_r(start[i])}, end = {_r(end[i])}; expected NaN"
        )
    alloc = schedule.alloc
    unused_rows = np.flatnonzero(~started)
    if isinstance(alloc, AllocationTable):  # flat ranges: no None, and only a range count says "unused"
        unused_rows = unused_rows[alloc.counts[unused_rows] > 0]
    for i in unused_rows.tolist():
        unused = alloc[i]
        if unused is not None and len(unused) != 0:
            raise ValidationError(
                f"job {ids[i]}: never started ({_status_name(status[i])}) but has allocation {_r(unused)}"
            )
    for i in [] if isinstance(alloc, AllocationTable) else np.flatnonzero(started).tolist():
        if alloc[i] is None:
            raise ValidationError(f"job {ids[i]}: started ({_status_name(status[i])}) but has no allocation")

    # 4. start >= submit
    bad = started & (start < jobs.submit)
    if bad.any():
        i = _first(bad)
        raise ValidationError(f"job {ids[i]}: starts at {_r(start[i])}, before its submit time {_r(jobs.submit[i])}")

    rows = np.flatnonzero(started)
    sizes = jobs.procs if runtime.fixed else None
    final = _Allocations(alloc, rows, sizes, instance, lambda k: f"job {ids[rows[k]]}: allocation")
    if runtime.fixed:  # 5-6 from the job table's columns, vectorised; allocations (7) after
        too_long = jobs.run_time > jobs.requested_time
        duration = np.minimum(jobs.run_time, jobs.requested_time)
    else:  # 7 first: the model reads the allocations
        final.check()
        duration = np.full(n, np.nan)
        too_long = np.zeros(n, dtype=bool)
        for i, a in zip(rows.tolist(), final.allocs, strict=True):
            duration[i], too_long[i] = runtime.duration(i, a)

    # 5. KILLED iff the model says so
    bad = started & (too_long != (status == JobStatus.KILLED))
    if bad.any():
        i = _first(bad)
        expected = "KILLED" if too_long[i] else "COMPLETED"
        raise ValidationError(
            f"job {ids[i]}: status {_status_name(status[i])} but run time {_r(jobs.run_time[i])} "
            f"and requested time {_r(jobs.requested_time[i])} make it {expected}"
            + ("" if runtime.fixed else f" (with run-time model {runtime.describe()})")
        )

    # 6. end - start == the model's length, less the work of preemptions since the job's last abort
    done = schedule.kept_work()
    with np.errstate(invalid="ignore"):
        expected_length = duration - done
        error = np.abs((end - start) - expected_length)
        # relative to the clock, but never half the job's own length or more: a 30 s job at t = 1e23
        # (whose end rounds onto its start) is refused, not scaled away
        tolerance = np.minimum(rtol * np.maximum(1.0, np.abs(end)), np.maximum(0.5 * np.abs(expected_length), 1e-9))
        bad = started & ~(error <= tolerance)
    if bad.any():
        i = _first(bad)
        what = "min(run time, requested time)" if runtime.fixed else f"the {runtime.describe()} time"
        before = f" less {_r(done[i])} s run before its preemptions" if done[i] else ""
        raise ValidationError(
            f"job {ids[i]}: runs from {_r(start[i])} to {_r(end[i])} ({_r(end[i] - start[i])} s), expected "
            f"{what} = {_r(duration[i])} s{before}"
        )

    # 7. final allocations
    final.check()
    if contiguous:
        split = np.flatnonzero(final.count > 1)
        if split.size:
            k = int(split[0])
            raise ValidationError(
                f"job {ids[rows[k]]}: allocation {format_allocation(final.allocs[k])} is not contiguous"
            )

    # 8. aborted pieces, and the placements migrated jobs left
    pieces = list(schedule.aborted)
    p_row, p_start, p_end = _check_pieces(pieces, jobs, start, n)
    piece_allocs = _Allocations(
        [p.alloc for p in pieces],
        p_row,
        sizes,
        instance,
        lambda k: f"job {ids[p_row[k]]}: aborted piece {k} allocation",
        rows_are_jobs=False,
    )
    piece_allocs.check()
    placed = _check_moves(pieces, p_row, start, end, started, final.allocs, rows, ids)

    # 9. no double booking
    lo, hi, count = final.lo, final.hi, final.count  # no copy of the (many) final ranges without pieces
    if pieces:
        lo = np.concatenate([final.lo, piece_allocs.lo])
        hi = np.concatenate([final.hi, piece_allocs.hi])
        count = np.concatenate([final.count, piece_allocs.count])
    exec_allocs: Sequence = AllocationTable(np.concatenate([[0], np.cumsum(count)]), lo, hi)
    shared = tuple(r for kind in platform.kinds if kind.shared for r in kind.ids)
    if shared:
        exec_allocs, lo, hi, count = _without(exec_allocs, shared)
    _check_double_booking(
        exec_row=np.concatenate([rows, p_row]),
        exec_start=np.concatenate([placed[rows], p_start]),
        exec_end=np.concatenate([end[rows], p_end]),
        exec_alloc=exec_allocs,
        n_final=rows.shape[0],
        lo=lo,
        hi=hi,
        count=count,
        ids=ids,
        n_procs=n_procs,
    )


class _Allocations:
    """The allocations of some executions (rows of the job table), checked once by :meth:`check` (rule 7).

    After ``check``: ``lo``, ``hi`` (flat ranges), ``count`` (ranges per allocation) and ``allocs`` (with
    Python ``int`` bounds, for the big-integer bitsets).
    """

    def __init__(self, allocs, rows, sizes, instance: Instance, label, *, rows_are_jobs: bool = True) -> None:
        if not rows_are_jobs:
            self.allocs = allocs
        elif isinstance(allocs, AllocationTable):
            self.allocs = allocs.take(rows)
        else:
            self.allocs = [allocs[i] for i in rows.tolist()]
        self.rows = rows
        self.sizes = None if sizes is None else sizes[rows]
        self.instance = instance
        self.label = label
        self.checked = False

    def check(self) -> None:
        if self.checked:
            return
        instance = self.instance
        n_procs = int(instance.platform.n_procs)
        self.lo, self.hi, self.count, self.allocs = _flatten(self.allocs, self.sizes, n_procs, self.label)
        if self.sizes is None:  # the model decides which sizes a job accepts
            size = (
                np.bincount(
                    np.repeat(np.arange(len(self.allocs)), self.count),
                    weights=self.hi - self.lo,
                    minlength=len(self.allocs),
                )
                .astype(np.int64)
                .tolist()
            )
            runtime = instance.runtime
            for k, (row, a) in enumerate(zip(self.rows.tolist(), self.allocs, strict=True)):
                problem = runtime.allocation_problem(row, a, size[k])
                if problem is not None:
                    raise ValidationError(f"{self.label(k)}: {format_allocation(a)} {problem}")
        if instance.platform.shaped:
            for k, a in enumerate(self.allocs):
                problem = instance.platform.allocation_problem(a)
                if problem is not None:
                    raise ValidationError(f"{self.label(k)}: {format_allocation(a)} {problem}")
        self.checked = True


def _without(allocs: Sequence, shared: tuple) -> tuple[list, np.ndarray, np.ndarray, np.ndarray]:
    """The allocations with the ids of shared kinds removed (they may serve several jobs at once)."""
    mask = sum(((1 << (b - a)) - 1) << a for a, b in shared)
    kept = []
    for a in allocs:
        bits = sum(((1 << (hi - lo)) - 1) << lo for lo, hi in a) & ~mask
        ranges = []
        while bits:
            lo = (bits & -bits).bit_length() - 1
            run = bits >> lo
            length = ((run + 1) & ~run).bit_length() - 1
            ranges.append((lo, lo + length))
            bits &= ~(((1 << length) - 1) << lo)
        kept.append(tuple(ranges))
    count = np.fromiter(map(len, kept), dtype=np.int64, count=len(kept))
    flat = np.fromiter((v for a in kept for r in a for v in r), dtype=np.int64, count=2 * int(count.sum()))
    return kept, flat[0::2], flat[1::2], count


# -- helpers -------------------------------------------------------------------


def _r(value) -> str:
    """``repr`` of a value for a message, numpy scalars as Python numbers (``5.0``, not ``np.float64(5.0)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _status_name(code) -> str:
    try:
        return JobStatus(int(code)).name
    except ValueError:
        return f"code {int(code)}"


def _check_lengths(schedule: Schedule, n: int) -> None:
    for name in ("start", "end", "status", "alloc"):
        value = getattr(schedule, name)
        size = len(value)
        if size != n or (isinstance(value, np.ndarray) and value.ndim != 1):
            raise ValidationError(f"schedule.{name} has {size} entries, the job table {n} jobs")


def _alloc_problem(alloc, procs: int | None, n_procs: int) -> str | None:
    """Why ``alloc`` is not a normalized allocation of ``procs`` processors, or None. Slow, exact."""
    if not isinstance(alloc, tuple):
        return f"{_r(alloc)} is a {type(alloc).__name__}, expected a tuple of (lo, hi) ranges"
    total = 0
    prev_hi = None
    for r in alloc:
        if (
            not isinstance(r, tuple)
            or len(r) != 2
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in r)
        ):
            return f"range {_r(r)} is not a pair of integers (lo, hi)"
        lo, hi = int(r[0]), int(r[1])
        if lo >= hi:
            return f"range ({lo}, {hi}) is empty or reversed, expected lo < hi"
        if lo < 0 or hi > n_procs:
            return f"range ({lo}, {hi}) is outside processors 0..{n_procs - 1}"
        if prev_hi is not None and lo <= prev_hi:
            return (
                f"ranges are not sorted, disjoint and non-adjacent at ({lo}, {hi}) (previous range ends at {prev_hi})"
            )
        prev_hi = hi
        total += hi - lo
    if procs is not None and total != procs:
        return f"{format_allocation(alloc) or '(empty)'} holds {total} processors, the job needs {procs}"
    if total == 0:
        return "is empty"
    return None


def _flatten(
    allocs: list, procs: np.ndarray | None, n_procs: int, label
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """Check allocations (rule 7); return flat ``lo``, ``hi`` arrays, per-allocation range counts, and the
    allocations with Python ``int`` bounds (``allocs`` itself when they already are).

    ``procs`` holds the size each allocation must have, or is None when any non-empty size will do (the
    run-time model checks sizes then).

    Fast path: a few C-level passes (type and length sets, ``np.fromiter``)
    then numpy over all ranges; on any doubt, the exact per-allocation check
    :func:`_alloc_problem` finds the first bad one and words the message.
    """
    k = len(allocs)
    empty = np.zeros(0, dtype=np.int64)
    if k == 0:
        return empty, empty, empty, []
    if isinstance(allocs, AllocationTable):  # int64 ranges already: only the values need checking
        count = allocs.counts
        bad_index = _first_bad(allocs.lo, allocs.hi, count, procs, n_procs)
        if bad_index is not None:
            problem = _alloc_problem(allocs[bad_index], _size(procs, bad_index), n_procs)
            raise ValidationError(f"{label(bad_index)}: {problem}")
        return allocs.lo, allocs.hi, count, allocs
    bad_index = None
    value_types: set[type] = {int}
    ranges = list(chain.from_iterable(allocs)) if set(map(type, allocs)) == {tuple} else None
    if ranges is not None and ranges:
        values = list(chain.from_iterable(ranges))
        value_types = set(map(type, values))
        if (
            set(map(type, ranges)) != {tuple}
            or set(map(len, ranges)) != {2}
            or not all(issubclass(t, (int, np.integer)) and t is not bool for t in value_types)
        ):
            ranges = None
    if ranges is None:
        bad_index = next((j for j in range(k) if _alloc_problem(allocs[j], _size(procs, j), n_procs) is not None), None)
        if bad_index is None:  # legal, but not plain tuples (e.g. named-tuple ranges): check plain copies
            return _flatten([tuple((int(lo), int(hi)) for lo, hi in a) for a in allocs], procs, n_procs, label)
    else:
        count = np.fromiter(map(len, allocs), dtype=np.int64, count=k)
        flat = np.fromiter(values, dtype=np.int64, count=len(values)) if ranges else empty
        lo = flat[0::2]
        hi = flat[1::2]
        bad_index = _first_bad(lo, hi, count, procs, n_procs)
    if bad_index is not None:
        problem = _alloc_problem(allocs[bad_index], _size(procs, bad_index), n_procs)
        raise ValidationError(f"{label(bad_index)}: {problem}")
    if value_types != {int}:  # numpy integers: rebuild with Python ints for the big-integer bitsets
        bounds = iter(zip(lo.tolist(), hi.tolist()))
        allocs = [tuple(next(bounds) for _ in range(c)) for c in count.tolist()]
    return lo, hi, count, allocs


def _first_bad(lo: np.ndarray, hi: np.ndarray, count: np.ndarray, procs: np.ndarray | None, n_procs: int) -> int | None:
    """The first allocation (flat ranges, ``count`` per allocation) breaking rule 7, or None."""
    offsets = np.concatenate([[0], np.cumsum(count)])
    held = np.concatenate([[0], np.cumsum(hi - lo)])
    size = held[offsets[1:]] - held[offsets[:-1]]
    bad = size != procs if procs is not None else size == 0
    bad_range = (lo >= hi) | (lo < 0) | (hi > n_procs)
    follows = np.ones(lo.shape[0], dtype=bool)  # whether range k follows a range of the same allocation
    follows[offsets[:-1][count > 0]] = False
    bad_range[1:] |= follows[1:] & (lo[1:] <= hi[:-1])
    if bad_range.any():
        bad[np.searchsorted(offsets, np.flatnonzero(bad_range), side="right") - 1] = True
    return _first(bad) if bad.any() else None


def _size(procs: np.ndarray | None, j: int) -> int | None:
    return None if procs is None else int(procs[j])


def _check_pieces(pieces: list, jobs, final_start: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rule 8 except allocations: rows, times and order of aborted pieces."""
    m = len(pieces)
    rows = np.empty(m, dtype=np.int64)
    for k, piece in enumerate(pieces):
        row = piece.job
        if not isinstance(row, (int, np.integer)) or isinstance(row, bool) or not 0 <= int(row) < n:
            raise ValidationError(f"aborted piece {k}: job row {_r(row)} is not a row of the job table (0..{n - 1})")
        rows[k] = int(row)
    p_start = np.fromiter((p.start for p in pieces), dtype=np.float64, count=m)
    p_end = np.fromiter((p.end for p in pieces), dtype=np.float64, count=m)
    ids = jobs.id

    def fail(mask: np.ndarray, text) -> None:
        if mask.any():
            k = _first(mask)
            raise ValidationError(f"job {ids[rows[k]]}: aborted piece {k} " + text(k))

    fail(
        ~(np.isfinite(p_start) & np.isfinite(p_end)),
        lambda k: f"has start = {_r(p_start[k])}, end = {_r(p_end[k])}; expected finite times",
    )
    fail(
        p_start < jobs.submit[rows],
        lambda k: f"starts at {_r(p_start[k])}, before its submit time {_r(jobs.submit[rows[k]])}",
    )
    fail(p_end < p_start, lambda k: f"ends at {_r(p_end[k])}, before it starts at {_r(p_start[k])}")
    fs = final_start[rows]
    moved = np.fromiter((bool(getattr(p, "moved", False)) for p in pieces), dtype=bool, count=m)
    fail(
        ~moved & np.isfinite(fs) & (p_end > fs),
        lambda k: f"ends at {_r(p_end[k])}, after the job's final start {_r(fs[k])}",
    )
    if m > 1:
        order = np.lexsort((np.arange(m), p_start, rows))
        same = rows[order[1:]] == rows[order[:-1]]
        overlap = same & (p_start[order[1:]] < p_end[order[:-1]])
        if overlap.any():
            # the lowest piece index involved in an overlap, for a deterministic message
            j = np.flatnonzero(overlap)
            pairs = np.stack([order[j], order[j + 1]], axis=1)
            a, b = sorted(pairs[np.argmin(pairs.min(axis=1))].tolist())
            raise ValidationError(
                f"job {ids[rows[a]]}: aborted pieces {a} ({_r(p_start[a])} to {_r(p_end[a])}) and {b} "
                f"({_r(p_start[b])} to {_r(p_end[b])}) overlap in time"
            )
    return rows, p_start, p_end


def _check_moves(pieces, p_row, start, end, started, final_allocs, rows, ids) -> np.ndarray:
    """Rule 8 for migrations: the moved pieces of a job chain without gap from its start and end before its
    end, each of the final allocation's size. Returns, per job, when its final allocation was taken (its
    start, or the end of its last moved piece), the start of that allocation's use in rule 9."""
    placed = np.array(start, dtype=np.float64)
    chains: dict[int, list[int]] = {}
    for k, piece in enumerate(pieces):
        if getattr(piece, "moved", False):
            chains.setdefault(int(p_row[k]), []).append(k)
    if not chains:
        return placed
    size_of = {int(r): sum(hi - lo for lo, hi in a) for r, a in zip(rows.tolist(), final_allocs, strict=True)}
    for row, ks in sorted(chains.items()):
        ks.sort(key=lambda k: (pieces[k].start, k))
        if not started[row]:
            raise ValidationError(f"job {ids[row]}: moved piece {ks[0]} of a job that never ran")
        at = start[row]
        for k in ks:
            piece = pieces[k]
            if piece.start != at:
                raise ValidationError(
                    f"job {ids[row]}: moved piece {k} starts at {_r(piece.start)}, expected {_r(at)} "
                    "(the job's start or the end of its previous placement)"
                )
            size = sum(hi - lo for lo, hi in piece.alloc)
            if size != size_of[row]:
                raise ValidationError(
                    f"job {ids[row]}: moved piece {k} holds {size} processors, its final allocation {size_of[row]}"
                )
            at = piece.end
        if not at < end[row]:
            raise ValidationError(f"job {ids[row]}: moved at {_r(at)}, not before its end {_r(end[row])}")
        placed[row] = at
    return placed


def _check_double_booking(*, exec_row, exec_start, exec_end, exec_alloc, n_final, lo, hi, count, ids, n_procs) -> None:
    """Rule 9: sweep start/end events in (time, releases first, execution) order.

    On the compiled core when it is built (a bitset of machine words, ranges set and cleared word by
    word); else, the same sweep in Python: the busy processors are one Python integer used as a bitset (bit p set
    while processor p runs something): a start checks ``busy & mask`` and sets
    its bits, a release clears them, one big-integer operation each, so the
    cost per event is O(n_procs / 64) machine words, not one Python step per
    processor or per range.
    """
    m = exec_row.shape[0]
    if m == 0:
        return
    live = np.flatnonzero(exec_end > exec_start)  # zero-length pieces occupy nothing
    # event code: e for the release of execution e, m + e for its start; releases sort first at equal times
    times = np.concatenate([exec_end[live], exec_start[live]])
    kind = np.concatenate([np.zeros(live.size, dtype=np.int8), np.ones(live.size, dtype=np.int8)])
    code = np.concatenate([live, live + m])
    events = code[np.lexsort((code, kind, times))]
    if _core is not None:
        offsets = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)
        clash = _core.first_double_booking(
            np.ascontiguousarray(events, dtype=np.int64),
            m,
            offsets,
            np.ascontiguousarray(lo, dtype=np.int64),
            np.ascontiguousarray(hi, dtype=np.int64),
            n_procs,
        )
        if clash is not None:
            _report_double_booking(clash[0], clash[1], exec_row, exec_start, exec_end, n_final, lo, hi, count, ids)
        return
    busy = 0
    running: dict[int, int] = {}
    for ev in events.tolist():
        if ev < m:
            busy ^= running.pop(ev)
        else:
            e = ev - m
            mask = sum([((1 << (b - a)) - 1) << a for a, b in exec_alloc[e]])
            if busy & mask:
                clash = busy & mask
                p = (clash & -clash).bit_length() - 1
                _report_double_booking(p, e, exec_row, exec_start, exec_end, n_final, lo, hi, count, ids)
            busy |= mask
            running[e] = mask


def _report_double_booking(p, e, exec_row, exec_start, exec_end, n_final, lo, hi, count, ids) -> None:
    """Find the execution holding processor ``p`` when ``e`` starts and raise the error naming both."""
    t = exec_start[e]
    owner = np.repeat(np.arange(exec_row.shape[0]), count)
    holds = (lo <= p) & (p < hi)
    candidates = np.unique(owner[holds])
    running = candidates[(exec_start[candidates] <= t) & (t < exec_end[candidates]) & (candidates != e)]
    other = int(running[0]) if running.size else -1

    def describe(x: int) -> str:
        kind = "" if x < n_final else f" (aborted piece {x - n_final})"
        return f"job {ids[exec_row[x]]}{kind} from {_r(exec_start[x])} to {_r(exec_end[x])}"

    first = describe(other) if other >= 0 else "another execution"
    raise ValidationError(f"processor {p} is used by {first} and by {describe(e)} at time {_r(t)}")
