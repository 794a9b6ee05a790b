"""Cut a workload into time windows: consecutive periods, random windows, runs of periods, shifted to zero.

Random windows (e.g. 20 windows of 7 days), shared with the experiments
that replay parts of a trace (Mendonca 2017, ch.5; Lucarelli, Mendonca and Trystram 2017). :func:`period_runs` is
the instance of Mendonca (2017), section 5.7: a random run of contiguous 7-day periods.

A window is a half-open interval ``[start, end)`` of submit times, in the clock
of the job table (SWF traces keep their own clock; see
:func:`schedlab.workload.filters.to_jobs`). A job belongs to the window its
submit time falls in; it may run past ``end``.

Every function is pure numpy; the random ones take a required
``rng: numpy.random.Generator`` and never touches global state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.workload.jobs import JobTable

__all__ = [
    "Window",
    "cut",
    "job_sample",
    "describe_windows",
    "offered_load",
    "period_runs",
    "periods",
    "random_windows",
    "shift_to_zero",
]


@dataclass(frozen=True, slots=True)
class Window:
    """One window of a workload and what it holds.

    Attributes
    ----------
    start, end : float
        Submit-time bounds ``[start, end)`` in seconds, trace clock.
    n_jobs : int
        Jobs submitted in the window.
    load : float
        Offered load of the window (see :func:`offered_load`).
    """

    start: float
    end: float
    n_jobs: int
    load: float


def _span(jobs: JobTable) -> tuple[float, float]:
    if len(jobs) == 0:
        raise ArgumentError("no jobs: a window needs a workload with at least one job")
    return float(np.min(jobs.submit)), float(np.max(jobs.submit))


def _check_length(length: float) -> float:
    length = float(length)
    if not (np.isfinite(length) and length > 0):
        raise ArgumentError(f"length = {length!r}, expected a duration > 0 (seconds)")
    return length


def periods(jobs: JobTable, length: float, *, origin: float | None = None) -> list[tuple[float, float]]:
    """Consecutive windows ``[origin + k L, origin + (k+1) L)`` covering every submit time.

    Cost: O(n) for the span, plus one tuple per period.

    Parameters
    ----------
    jobs : JobTable
        At least one job.
    length : float
        Period length L in seconds (one week: ``7 * 86400``), > 0.
    origin : float, optional
        Start of the first period; default the first submit time. Jobs
        submitted before ``origin`` fall in no period.

    Returns
    -------
    list of (float, float)
        In time order; the last period contains the last submit time (it may
        extend past it). Periods may be empty of jobs.
    """
    length = _check_length(length)
    first, last = _span(jobs)
    origin = first if origin is None else float(origin)
    if last < origin:
        return []
    count = int((last - origin) // length) + 1
    return [(origin + k * length, origin + (k + 1) * length) for k in range(count)]


def random_windows(
    jobs: JobTable, length: float, count: int, *, rng: np.random.Generator, whole_seconds: bool = True
) -> list[tuple[float, float]]:
    """``count`` windows of ``length`` seconds with starts drawn uniformly over the trace.

    Each start is drawn independently from ``U[first, last - length]`` where
    ``first`` and ``last`` are the first and last submit times, so every window
    lies inside the trace's span; windows may overlap. When the trace is
    shorter than ``length``, every window starts at ``first``.

    Guarantee: the same ``rng`` state gives the same windows (one
    ``rng.uniform`` call of size ``count``).
    Cost: O(n + count).

    Parameters
    ----------
    jobs : JobTable
        At least one job.
    length : float
        Window length in seconds, > 0.
    count : int
        Number of windows, >= 0.
    rng : numpy.random.Generator
        Source of the draws (required; see STYLE.md "Data and randomness").
    whole_seconds : bool, default True
        Round starts down to whole seconds, so that windows print and hash
        the same everywhere.

    Returns
    -------
    list of (float, float)
        In the order drawn (not sorted).
    """
    length = _check_length(length)
    if int(count) != count or count < 0:
        raise ArgumentError(f"count = {count!r}, expected an integer >= 0")
    first, last = _span(jobs)
    high = max(first, last - length)
    starts = rng.uniform(first, high, size=int(count)) if high > first else np.full(int(count), first)
    if whole_seconds:
        starts = np.maximum(np.floor(starts), np.floor(first))
    return [(float(s), float(s) + length) for s in starts]


def period_runs(
    jobs: JobTable, length: float, runs: int, count: int, *, rng: np.random.Generator
) -> list[tuple[float, float]]:
    """``count`` windows, each ``runs`` consecutive periods of :func:`periods`, with uniform random starts.

    Source: Mendonca (2017), ch.5 section 5.7 (Table 5.2): the trace is
    cut into periods of ``length`` aligned on the first submission; an instance
    is a random run of ``runs`` contiguous periods, its start period chosen
    uniformly, without replacement where possible.

    Window ``k`` is ``[origin + k L, origin + (k + runs) L)``, ``origin`` the
    first submit time, so every window starts and ends on period boundaries.
    The valid start periods are ``k = 0 .. n - runs`` (``n`` periods), except
    those whose run holds no job, which are never drawn; a trace of fewer than
    ``runs`` periods has the single start ``k = 0`` (the window extends past
    the trace). Starts are drawn without replacement: a permutation of the
    valid starts, its first ``count``; when ``count`` exceeds their number,
    further permutations follow, so each start is used once per round.

    Guarantee: the same ``rng`` state gives the same windows (one
    ``rng.permutation`` call per round). Cost: O(n + count) plus one draw per valid start and round.

    Parameters
    ----------
    jobs : JobTable
        At least one job.
    length : float
        Period length L in seconds (one week: ``7 * 86400``), > 0.
    runs : int
        Consecutive periods per window, >= 1.
    count : int
        Number of windows, >= 0.
    rng : numpy.random.Generator
        Source of the draws (required; see STYLE.md "Data and randomness").

    Returns
    -------
    list of (float, float)
        In the order drawn (not sorted); never empty of jobs.
    """
    length = _check_length(length)
    for name, value, low in (("runs", runs, 1), ("count", count, 0)):
        if int(value) != value or value < low:
            raise ArgumentError(f"{name} = {value!r}, expected an integer >= {low}")
    origin, _ = _span(jobs)
    starts = _run_starts(jobs.submit - origin, length, int(runs))
    rounds = -(-int(count) // len(starts))
    drawn = np.concatenate([starts[rng.permutation(len(starts))] for _ in range(rounds)] or [starts[:0]])
    return [(origin + k * length, origin + (k + runs) * length) for k in drawn[: int(count)].tolist()]


def _run_starts(offsets: np.ndarray, length: float, runs: int) -> np.ndarray:
    """Start periods ``k`` whose run of ``runs`` periods holds a submit ``offset`` (>= 0); never empty, as 0 does."""
    per_period = np.bincount((offsets // length).astype(np.int64))
    if len(per_period) < runs:
        return np.zeros(1, dtype=np.int64)
    total = np.concatenate(([0], np.cumsum(per_period)))
    return np.flatnonzero(total[runs:] - total[:-runs])


def cut(jobs: JobTable, window: tuple[float, float]) -> JobTable:
    """The jobs submitted in ``[start, end)``, in table order. Cost: O(n)."""
    start, end = float(window[0]), float(window[1])
    if not start < end:
        raise ArgumentError(f"window = [{start}, {end}), expected start < end")
    return jobs.take((jobs.submit >= start) & (jobs.submit < end))


def job_sample(
    jobs: JobTable, size: int, index: int, *, seed: int, replacement: bool = False, block: bool = False
) -> JobTable:
    """Sample ``index`` of a job table: ``size`` jobs, all released at 0, ids 1..size in draw order.

    Source: Mendonca (2017), ch. 4 section 4.6 (300-job samples scheduled
    offline) and section 1.2.3 ("subsets of jobs taken from random starting
    points", ``block``). Drawn with ``default_rng([seed, index])``: one by one
    uniformly (without replacement unless ``replacement``), or with ``block`` as
    one run of ``size`` consecutive jobs from a uniform random start. The draw
    order is the queue order.

    Raises
    ------
    ArgumentError
        A block drawn with replacement, or more jobs than the table holds without replacement.
    """
    if block and replacement:
        raise ArgumentError("a block of consecutive jobs cannot be drawn with replacement")
    if size > len(jobs) and not replacement:
        raise ArgumentError(f"size = {size}, more than the {len(jobs)} jobs to draw from without replacement")
    rng = np.random.default_rng([seed, index])
    if block:
        first = int(rng.integers(0, len(jobs) - size + 1))
        rows = np.arange(first, first + size)
    else:
        rows = rng.choice(len(jobs), size=size, replace=replacement)
    picked = jobs.take(rows)
    return JobTable.from_arrays(
        submit=np.zeros(size),
        run_time=picked.run_time,
        requested_time=picked.requested_time,
        procs=picked.procs,
        id=np.arange(1, size + 1),
        source=jobs.source,
    )


def shift_to_zero(jobs: JobTable, *, origin: float | None = None) -> JobTable:
    """The same jobs with ``origin`` (default: the first submit time) subtracted from every submit time.

    Run times, estimates, sizes and ids are unchanged, so a schedule of the
    shifted table is the schedule of the original shifted by ``origin``.
    Raises ValueError when a submit time would become negative.
    """
    if len(jobs) == 0:
        return jobs
    origin = float(np.min(jobs.submit)) if origin is None else float(origin)
    submit = jobs.submit - origin
    if np.any(submit < 0):
        raise ArgumentError(f"origin = {origin!r} is after the first submit time {float(np.min(jobs.submit))!r}")
    return JobTable(
        id=jobs.id,
        submit=submit,
        run_time=jobs.run_time,
        requested_time=jobs.requested_time,
        procs=jobs.procs,
        line=jobs.line,
        extra=dict(jobs.extra),
        source=jobs.source,
    )


def offered_load(jobs: JobTable, n_procs: int, window: tuple[float, float] | None = None) -> float:
    """Offered load: work submitted divided by the machine's capacity over the window.

    ``sum(procs * run_time) / (n_procs * (end - start))`` over the jobs
    submitted in ``[start, end)``; with no window, over the whole table from
    its first to its last submit time (the convention of
    :func:`schedlab.workload.stats.trace_summary`). Run times are the actual
    ones (a job killed at its walltime offers more than it gets).

    Returns NaN when the span is zero (one job, or all submitted at once).
    """
    if n_procs < 1:
        raise ArgumentError(f"n_procs = {n_procs!r}, expected an integer >= 1")
    if window is None:
        if len(jobs) == 0:
            return float("nan")
        start, end = _span(jobs)
        inside = jobs
    else:
        start, end = float(window[0]), float(window[1])
        inside = cut(jobs, window)
    span = end - start
    if span <= 0:
        return float("nan")
    return float(np.sum(inside.procs * inside.run_time) / (n_procs * span))


def describe_windows(jobs: JobTable, n_procs: int, windows: list[tuple[float, float]]) -> list[Window]:
    """Each window with its job count and offered load. Cost: O(n log n + w log n)."""
    rank = np.argsort(jobs.submit, kind="stable")
    order = jobs.submit[rank]
    work = (jobs.procs * jobs.run_time)[rank]
    out = []
    for start, end in windows:
        lo, hi = np.searchsorted(order, [start, end], side="left")
        span = end - start
        load = float(np.sum(work[lo:hi]) / (n_procs * span)) if span > 0 else float("nan")
        out.append(Window(start=float(start), end=float(end), n_jobs=int(hi - lo), load=load))
    return out
