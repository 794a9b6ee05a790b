"""Objectives measured on a schedule: per-job arrays and their aggregates.

One module computes every objective from a Schedule (docs/architecture.md):
free functions in the spirit of evalys's ``metrics.py``.

Every function reads an :class:`~schedlab.schedule.Instance` and a
:class:`~schedlab.schedule.Schedule` and nothing else, so online policies and
offline algorithms are measured the same way. Times are in seconds.

References
----------
.. [1] D. G. Feitelson, L. Rudolph, U. Schwiegelshohn, K. C. Sevcik and
   P. Wong, "Theory and practice in parallel job scheduling", JSSPP 1997,
   LNCS 1291, pp. 1-34. DOI: 10.1007/3-540-63574-2_14 (bounded slowdown).
.. [2] G. Lucarelli, F. Mendonca, D. Trystram and F. Wagner, "Contiguity and
   locality in backfilling scheduling", CCGrid 2015, pp. 586-595.
   DOI: 10.1109/CCGrid.2015.143 (and F. Mendonca, PhD thesis, Univ. Grenoble
   Alpes, 2017, ch. 4-5: contiguity, locality and platform-level factors).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.platform.tree import MEASURES
from schedlab.schedule import Instance, JobStatus, Schedule

__all__ = [
    "AGGREGATED",
    "FAIRNESS_BINS",
    "PARTITION_COUNTERS",
    "STRETCH_TOLERANCE",
    "aggregate",
    "allocation_sizes",
    "capacity",
    "fairness_shares",
    "flow_stretch",
    "job_metrics",
    "partition_metrics",
    "processor_load",
    "stretch_metrics",
    "topology_metrics",
]

AGGREGATED = ("wait", "response", "slowdown", "bsld", "bsld_unclamped")
"""The per-job metrics :func:`aggregate` summarizes by mean, max and L2 norm."""


def _started(schedule: Schedule) -> np.ndarray:
    status = np.asarray(schedule.status)
    return (status == JobStatus.COMPLETED) | (status == JobStatus.KILLED)


def allocation_sizes(instance: Instance, allocs: Sequence) -> np.ndarray:
    """Resources held by each allocation (0 for None); the job table's ``procs`` column for rigid jobs.

    Cost: O(1) for a fixed run-time model (the sizes are the job table's), else O(r) for r ranges.
    """
    if instance.runtime.fixed and len(allocs) == len(instance.jobs):
        return instance.jobs.procs
    return np.array([sum(hi - lo for lo, hi in a) if a else 0 for a in allocs], dtype=np.int64)


def job_metrics(instance: Instance, schedule: Schedule, *, tau: float = 10.0) -> dict[str, np.ndarray]:
    """Per-job waiting time, response time, slowdown and bounded slowdowns.

    Source: bounded slowdown as defined by Feitelson et al. [1]_ (the PWA
    convention); the unclamped variant is the one of Mendonca (2017) ch.5 and
    Lucarelli, Mendonca and Trystram (2017) ("bounded stretch").
    Cost: O(n) numpy operations.

    For job ``i`` with submit ``r``, final start ``s`` and final end ``e``:

    - ``wait = s - r``
    - ``response = e - r`` (flow time, turnaround time)
    - ``execution = e - s`` of the final execution, plus the pieces it resumed after preemptions
      (aborted pieces are not counted: their work was lost)
    - ``slowdown = response / execution`` (Batsim's ``stretch``)
    - ``bsld = max(1, response / max(execution, tau))`` (Feitelson et al. [1]_)
    - ``bsld_unclamped = response / max(execution, tau)`` (Mendonca 2017; Lucarelli, Mendonca and Trystram 2017):
      below 1 for jobs shorter than ``tau`` that barely wait.

    Parameters
    ----------
    instance : Instance
        Jobs (``submit``) and platform.
    schedule : Schedule
        A schedule of the instance (see :func:`schedlab.validation.validate`).
    tau : float, default 10.0
        Bounded-slowdown threshold in seconds, > 0.

    Returns
    -------
    dict of str to float64 array
        Keys ``wait``, ``response``, ``execution``, ``slowdown``, ``bsld``,
        ``bsld_unclamped``, each row-aligned with the job table; NaN for jobs
        never started (REJECTED, NOT_STARTED).

    Raises
    ------
    ValueError
        If ``tau`` is not > 0.
    """
    if not tau > 0:
        raise ArgumentError(f"tau = {tau!r}, expected a time > 0")
    started = _started(schedule)
    submit = instance.jobs.submit
    start = np.where(started, np.asarray(schedule.start, dtype=np.float64), np.nan)
    end = np.where(started, np.asarray(schedule.end, dtype=np.float64), np.nan)
    wait = start - submit
    response = end - submit
    execution = end - start + schedule.kept_work()  # preempted jobs: all the work, not only the last piece
    with np.errstate(divide="ignore", invalid="ignore"):
        slowdown = response / execution
        bsld_unclamped = response / np.maximum(execution, tau)
    bsld = np.maximum(1.0, bsld_unclamped)  # NaN stays NaN
    return {
        "wait": wait,
        "response": response,
        "execution": execution,
        "slowdown": slowdown,
        "bsld": bsld,
        "bsld_unclamped": bsld_unclamped,
    }


def aggregate(instance: Instance, schedule: Schedule, *, tau: float = 10.0) -> dict[str, float | int | None]:
    """Summary numbers of a schedule, as plain JSON-able values.

    The numbers of ``metrics.json``; bounded slowdown per
    Feitelson et al. [1]_, its unclamped variant per Mendonca (2017) ch.5 and
    Lucarelli, Mendonca and Trystram (2017).
    Cost: O(n + a) for n jobs and a aborted pieces.

    The per-job metrics of :func:`job_metrics` are aggregated over the
    **started jobs only** (COMPLETED and KILLED; rejected jobs have no times):
    for each ``m`` in ``wait``, ``response``, ``slowdown``, ``bsld``,
    ``bsld_unclamped``:

    - ``m_mean`` = arithmetic mean,
    - ``m_max`` = maximum,
    - ``m_l2`` = L2 norm, ``sqrt(sum(m_i ** 2))`` (not divided by n).

    Schedule-wide values:

    - ``first_submit`` = min submit over **all** jobs of the instance,
    - ``last_end`` = max end over final executions and aborted pieces,
    - ``makespan`` = ``last_end - first_submit``,
    - ``utilization`` = ``sum(procs * length)`` over final executions and
      aborted pieces (lost work counts: the processors were busy), divided by
      ``n_procs * makespan``,
    - ``n_jobs``, ``n_completed``, ``n_killed``, ``n_rejected`` (job counts by
      status), ``n_aborted`` (pieces whose work was lost), ``n_preempted``
      (pieces whose work was kept), ``tau``.

    Parameters
    ----------
    instance : Instance
        Jobs and platform (``n_procs``).
    schedule : Schedule
        A schedule of the instance.
    tau : float, default 10.0
        Bounded-slowdown threshold in seconds, > 0.

    Returns
    -------
    dict
        Python ``float``/``int`` values; ``None`` where a value is undefined
        (no started job, or a zero makespan), so that ``json.dumps`` writes
        valid JSON.
    """
    per_job = job_metrics(instance, schedule, tau=tau)
    started = _started(schedule)
    status = np.asarray(schedule.status)
    jobs = instance.jobs
    out: dict[str, float | int | None] = {}
    for name in AGGREGATED:
        values = per_job[name][started]
        if values.size:
            out[f"{name}_mean"] = float(np.mean(values))
            out[f"{name}_max"] = float(np.max(values))
            out[f"{name}_l2"] = float(np.sqrt(np.sum(values * values)))
        else:
            out[f"{name}_mean"] = out[f"{name}_max"] = out[f"{name}_l2"] = None

    pieces = [p for p in schedule.aborted if not p.moved]  # moved pieces lie inside final executions
    p_rows = np.fromiter((p.job for p in pieces), dtype=np.int64, count=len(pieces))
    p_start = np.fromiter((p.start for p in pieces), dtype=np.float64, count=len(pieces))
    p_end = np.fromiter((p.end for p in pieces), dtype=np.float64, count=len(pieces))
    end = np.asarray(schedule.end, dtype=np.float64)[started]
    ends = np.concatenate([end, p_end])
    final = (np.asarray(schedule.end, dtype=np.float64) - np.asarray(schedule.start, dtype=np.float64))[started]
    sizes = allocation_sizes(instance, schedule.alloc)
    p_sizes = jobs.procs[p_rows] if instance.runtime.fixed else allocation_sizes(instance, [p.alloc for p in pieces])
    busy = float(np.sum(sizes[started] * final) + np.sum(p_sizes * (p_end - p_start)))

    first_submit = float(np.min(jobs.submit)) if len(jobs) else None
    last_end = float(np.max(ends)) if ends.size else None
    makespan = last_end - first_submit if last_end is not None and first_submit is not None else None
    n_procs = instance.platform.n_procs
    out["first_submit"] = first_submit
    out["last_end"] = last_end
    out["makespan"] = makespan
    out["utilization"] = busy / (n_procs * makespan) if makespan else None
    out["n_jobs"] = len(jobs)
    out["n_completed"] = int(np.count_nonzero(status == JobStatus.COMPLETED))
    out["n_killed"] = int(np.count_nonzero(status == JobStatus.KILLED))
    out["n_rejected"] = int(np.count_nonzero(status == JobStatus.REJECTED))
    out["n_aborted"] = sum(1 for p in pieces if not p.kept)
    out["n_preempted"] = sum(1 for p in pieces if p.kept)
    out["tau"] = float(tau)
    for key, value in out.items():
        if isinstance(value, float) and not math.isfinite(value):
            out[key] = None
    return out


def topology_metrics(
    instance: Instance, schedule: Schedule, *, stretch_bound: float = 10.0
) -> dict[str, float | int | None]:
    """Contiguity, locality, platform level and success of a schedule on a fat tree, JSON-able.

    Source: Mendonca (2017), ch. 4 section 4.6 (counts, locality ratio) and
    ch. 5 section 5.7 (factors, success rate) [2]_.
    Cost: that of the platform's
    :meth:`~schedlab.platform.base.Platform.allocation_measures` (O(r + n D) on a fat tree).

    Over the started jobs (COMPLETED and KILLED), from the per-job measures of
    the platform (``blocks`` b_j, ``clusters`` K_j, ``min_clusters`` K*_j,
    ``level`` L, ``min_level`` L_min):

    - ``n_contiguous`` (``b_j = 1``), ``n_local`` (``K_j = K*_j``), ``n_min_level`` (``L = L_min``);
    - ``contiguity_factor`` = mean ``b_j`` (1 is best);
    - ``locality_factor`` = mean ``K_j / K*_j`` (ch.5, mean of ratios);
    - ``locality_ratio`` = ``sum K_j / sum K*_j`` (ch.4, ratio of sums);
    - ``platform_level_factor`` = mean ``L / L_min``;
    - ``n_success`` = jobs not killed (``T' <= w_j``), ``success_rate`` = ``n_success / n_started``;
    - ``sum_flow`` = ``sum (C_j - r_j)``; ``sum_stretch`` = ``sum (C_j - r_j) / max(p_j, B)``
      with the *original* ``p_j = min(run_time, requested_time)`` and ``B = stretch_bound``.

    Values are None when no job started; the result is empty on a platform without these measures
    (a plain machine).
    """
    shape = instance.platform.allocation_measures(schedule.alloc, instance.jobs.procs)
    if not set(MEASURES) <= set(shape):
        return {}
    started = _started(schedule)
    status = np.asarray(schedule.status)
    jobs = instance.jobs
    n_started = int(np.count_nonzero(started))
    out: dict[str, float | int | None] = {}
    b, k, k_min = shape["blocks"][started], shape["clusters"][started], shape["min_clusters"][started]
    level, level_min = shape["level"][started], shape["min_level"][started]
    out["n_contiguous"] = int(np.count_nonzero(b == 1))
    out["n_local"] = int(np.count_nonzero(k == k_min))
    out["n_min_level"] = int(np.count_nonzero(level == level_min))
    n_success = int(np.count_nonzero(status == JobStatus.COMPLETED))
    out["n_success"] = n_success
    if n_started:
        out["contiguity_factor"] = float(np.mean(b))
        out["locality_factor"] = float(np.mean(k / k_min))
        out["locality_ratio"] = float(np.sum(k) / np.sum(k_min))
        out["platform_level_factor"] = float(np.mean(level / level_min))
        out["success_rate"] = n_success / n_started
        flow = np.asarray(schedule.end, dtype=np.float64)[started] - jobs.submit[started]
        p = np.minimum(jobs.run_time, jobs.requested_time)[started]
        out["sum_flow"] = float(np.sum(flow))
        out["sum_stretch"] = float(np.sum(flow / np.maximum(p, stretch_bound)))
    else:
        for key in (
            "contiguity_factor",
            "locality_factor",
            "locality_ratio",
            "platform_level_factor",
            "success_rate",
            "sum_flow",
            "sum_stretch",
        ):
            out[key] = None
    return out


def flow_stretch(instance: Instance, schedule: Schedule, *, bound: float = 10.0) -> dict[str, float | None]:
    """Flow and bounded stretch of independent tasks: max, total and L2 norm of each, and the work lost.

    Source: Lucarelli, Mendonca and Trystram (2017), section II (flow
    ``F = C - r``, bounded stretch ``S = F / max(p, B)`` with ``B = bound``).
    ``p`` is the task's processing time ``min(run_time, requested_time)``, so
    ``S`` equals the unclamped bounded slowdown for non-preemptive policies and
    stays ``F / max(p, B)`` for preemptive ones (a redirected task keeps its
    original release and processing time). ``wasted_work`` is the length of
    the aborted pieces (work lost to redirections), not of the preempted ones.
    Cost: O(n).

    Returns
    -------
    dict
        ``flow_max``, ``flow_sum``, ``flow_l2``, ``stretch_max``, ``stretch_sum``,
        ``stretch_l2`` (None when no task ran) and ``wasted_work``.
    """
    jobs = instance.jobs
    flow = job_metrics(instance, schedule, tau=bound)["response"]
    done = ~np.isnan(flow)
    flow = flow[done]
    p = np.minimum(jobs.run_time, jobs.requested_time)[done]
    stretch = flow / np.maximum(p, bound)
    out: dict[str, float | None] = {
        "wasted_work": float(sum(piece.end - piece.start for piece in schedule.aborted if not piece.kept))
    }
    for name, values in (("flow", flow), ("stretch", stretch)):
        empty = values.size == 0
        out[f"{name}_max"] = None if empty else float(np.max(values))
        out[f"{name}_sum"] = None if empty else float(np.sum(values))
        out[f"{name}_l2"] = None if empty else float(np.sqrt(np.sum(values * values)))
    return out


def capacity(
    arrival: np.ndarray,
    taken: np.ndarray,
    end: np.ndarray,
    allocated: np.ndarray,
    requested: np.ndarray,
    run_time: np.ndarray,
    n_procs: int,
) -> dict[str, float]:
    """Capacity utilized, unused and lost: where a machine's node-seconds went.

    Source: Krevat (2003), section 4.3. Over the span ``T = max end - min arrival``
    of a run on ``N`` nodes: utilized ``w_util = sum_j s_j t_j / (T N)`` with
    ``t_j`` the execution time; unused ``w_unused = (1 / (T N)) integral of
    max(0, f(t) - q(t)) dt``, where ``f(t)`` is the number of free nodes and
    ``q(t)`` the nodes requested by the jobs waiting at ``t`` (free capacity no
    waiting job could have used); lost ``w_lost = 1 - w_util - w_unused``
    (capacity lost to fragmentation, free nodes while jobs wait, and to nodes
    held before a job starts).
    Cost: O(n log n) for n jobs (one sort of the 4n step changes, then cumulative sums).

    Parameters
    ----------
    arrival : float array
        When each job joined the queue.
    taken : float array
        When it took its nodes (on a torus: its schedule time, one start delay before its start).
    end : float array
        When it released them.
    allocated : int array
        Nodes it held (``f(t)``).
    requested : int array
        Nodes it asked for while waiting (``q(t)``) and the ``s_j`` of ``w_util``.
    run_time : float array
        Its execution time ``t_j``.
    n_procs : int
        ``N``.

    Returns
    -------
    dict
        ``w_util``, ``w_unused``, ``w_lost`` (fractions of ``T N``) and ``span`` (``T``, seconds).
    """
    arrival = np.asarray(arrival, dtype=np.float64)
    taken = np.asarray(taken, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    alloc = np.asarray(allocated, dtype=np.float64)
    req = np.asarray(requested, dtype=np.float64)
    if len(arrival) == 0:
        return {"w_util": 0.0, "w_unused": 0.0, "w_lost": 0.0, "span": 0.0}
    t0 = float(arrival.min())
    span = float(end.max()) - t0
    area = span * n_procs
    if not area > 0:
        return {"w_util": 0.0, "w_unused": 0.0, "w_lost": 0.0, "span": span}
    util = float(np.dot(req, np.asarray(run_time, dtype=np.float64))) / area
    # step changes of f (free nodes) and q (queued demand)
    times = np.concatenate([taken, end, arrival, taken])
    df = np.concatenate([-alloc, alloc, np.zeros_like(req), np.zeros_like(req)])
    dq = np.concatenate([np.zeros_like(alloc), np.zeros_like(alloc), req, -req])
    order = np.argsort(times, kind="stable")
    times, df, dq = times[order], df[order], dq[order]
    f = n_procs + np.cumsum(df)
    q = np.cumsum(dq)
    widths = np.diff(times, append=times[-1])  # the value after each change holds until the next one
    unused = float(np.dot(np.maximum(0.0, f - q), widths)) / area
    return {"w_util": util, "w_unused": unused, "w_lost": 1.0 - util - unused, "span": span}


PARTITION_COUNTERS = (
    "n_grown",
    "n_backfilled",
    "migration_attempts",
    "migration_successes",
    "migration_repeats",
    "migration_pinned",
    "migration_moves",
    "migration_mean_gap",
    "mfp_calls",
    "mfp_memo_hits",
)
"""What a partition scheduler (Krevat 2003) reports in :attr:`Schedule.info`, copied by :func:`partition_metrics`."""


def partition_metrics(instance: Instance, schedule: Schedule) -> dict[str, float | int | None]:
    """Capacity utilized, unused and lost (:func:`capacity`) and the counters of a partition scheduler, JSON-able.

    Source: Krevat (2003), section 4.3 (capacity) and section 5.3 (migrations).
    Reads what the scheduler reported in ``schedule.info``: ``start_delay`` (a
    job held its nodes that long before its start) and ``requested_sizes``
    (the sizes it asked for after rounding: ``q(t)`` and ``s_j``), and the
    counters of :data:`PARTITION_COUNTERS`. Empty when the schedule has no
    such report (any other policy). Cost: that of :func:`capacity`.
    """
    info = schedule.info
    if "requested_sizes" not in info:
        return {}
    started = _started(schedule)
    jobs = instance.jobs
    start = np.asarray(schedule.start, dtype=np.float64)[started]
    end = np.asarray(schedule.end, dtype=np.float64)[started]
    out: dict[str, float | int | None] = dict(
        capacity(
            jobs.submit[started],
            start - float(info["start_delay"]),
            end,
            allocation_sizes(instance, schedule.alloc)[started],
            np.asarray(info["requested_sizes"])[started],
            end - start,
            instance.platform.n_procs,
        )
    )
    out.update({key: info.get(key) for key in PARTITION_COUNTERS})
    return out


FAIRNESS_BINS = (("seconds", 60.0), ("minutes", 3600.0), ("hours", 86400.0), ("days", 604800.0), ("weeks", math.inf))
"""Size classes of the one-processor time for the fairness histogram: below 1 min, 1 h, 1 day, 1 week, and
beyond (upper bounds in seconds; Saule, Bozdag and Catalyurek 2014, section 7.1)."""


STRETCH_TOLERANCE = 1e-9
"""A task's stretch counts as above 1 when its flow exceeds p_{i,1} by more than ``STRETCH_TOLERANCE * max(1,
|C_i|)`` seconds: a task started at its release on one processor ends at ``r + p`` in floating point, whose
stretch ``(r + p - r) / p`` may round above 1 (by 4e-9 for r = 3e7 s, p = 1 s)."""


def processor_load(release: np.ndarray, work: np.ndarray) -> float:
    """``sum_i p_i / (max_i r_i - min_i r_i)``: how many processors the work keeps busy over the release span.

    Source: Saule, Bozdag and Catalyurek (2014), section 4.1 (for moldable tasks, ``p_i`` is the one-processor
    time p_{i,1}). Infinite when every task is released at once. Cost: O(n).
    """
    span = float(np.max(release) - np.min(release)) if len(release) else 0.0
    return float(np.sum(work)) / span if span > 0 else math.inf


def stretch_metrics(instance: Instance, schedule: Schedule) -> dict[str, float | int | None]:
    """The max-stretch objectives of independent tasks: stretch and flow (max, mean), load, Delta, fairness.

    Source: Saule, Bozdag and Catalyurek (2014): stretch ``s_i = (C_i - r_i) / p_{i,1}``
    (section 2.1; for moldable tasks relative to the one-processor time, section 5, so it may be below 1),
    flow ``C_i - r_i``, load (section 4.1, :func:`processor_load`), ``Delta = max p_{i,1} / min p_{i,1}``,
    and the fairness histogram of section 7.1 (per size class of :data:`FAIRNESS_BINS`, the number of
    tasks and of tasks with a stretch above 1, up to :data:`STRETCH_TOLERANCE`; :func:`fairness_shares` turns
    them into percentages).
    Cost: O(n).

    ``p_{i,1}`` is the job table's ``run_time``: the processing time of a sequential task, the
    one-processor time of a moldable one (:func:`schedlab.runtime.moldable.moldable_jobs`).

    Returns
    -------
    dict
        ``max_stretch``, ``mean_stretch``, ``max_flow``, ``mean_flow`` (over started tasks; None when none
        started), ``load``, ``delta`` (None when undefined), and for each size class ``b``
        ``fairness_<b>_tasks`` and ``fairness_<b>_above_1`` (counts over started tasks).
    """
    jobs = instance.jobs
    started = _started(schedule)
    p1 = jobs.run_time
    flow = np.asarray(schedule.end, dtype=np.float64)[started] - jobs.submit[started]
    stretch = flow / p1[started]
    empty = flow.size == 0
    out: dict[str, float | int | None] = {
        "max_stretch": None if empty else float(np.max(stretch)),
        "mean_stretch": None if empty else float(np.mean(stretch)),
        "max_flow": None if empty else float(np.max(flow)),
        "mean_flow": None if empty else float(np.mean(flow)),
        "load": processor_load(jobs.submit, p1) if len(jobs) else None,
        "delta": float(np.max(p1) / np.min(p1)) if len(jobs) else None,
    }
    size = p1[started]
    end = np.asarray(schedule.end, dtype=np.float64)[started]
    above = flow - size > STRETCH_TOLERANCE * np.maximum(1.0, np.abs(end))
    low = 0.0
    for name, high in FAIRNESS_BINS:
        inside = (size >= low) & (size < high)
        out[f"fairness_{name}_tasks"] = int(np.count_nonzero(inside))
        out[f"fairness_{name}_above_1"] = int(np.count_nonzero(above[inside]))
        low = high
    for key, value in out.items():
        if isinstance(value, float) and not math.isfinite(value):
            out[key] = None
    return out


def fairness_shares(counts: dict) -> dict[str, float | None]:
    """Per size class, the percentage of tasks whose stretch exceeds 1, from :func:`stretch_metrics`'s counts
    (or their sums over several runs, to pool instances as the paper's Figs. 3(e), 4(e) and 5(e) do); None
    for an empty class."""
    out = {}
    for name, _ in FAIRNESS_BINS:
        n = counts[f"fairness_{name}_tasks"]
        out[name] = 100.0 * counts[f"fairness_{name}_above_1"] / n if n else None
    return out
