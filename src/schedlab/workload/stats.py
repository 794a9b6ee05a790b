"""A trace at a glance: size, span, offered load, job-size and run-time distributions.

``trace_summary`` (an SWF trace) and ``workload_summary`` (a file: SWF or Batsim JSON) return plain data (str, int, float, None, lists and flat
dicts of them) so the CLI can print it as a table or ``--json``.
"""

from __future__ import annotations

import os

import numpy as np

from schedlab.platform.homogeneous import Machine
from schedlab.workload.batsim import read_batsim
from schedlab.workload.filters import FilterReport, fit_machine, to_jobs
from schedlab.workload.jobs import JobTable
from schedlab.workload.swf import SwfTrace, read_swf

__all__ = ["trace_summary", "workload_summary"]

_QUANTILES = (("min", 0.0), ("p25", 0.25), ("p50", 0.5), ("p75", 0.75), ("p90", 0.9), ("max", 1.0))


def trace_summary(trace: SwfTrace, *, procs: int | None = None) -> dict:
    """Summary statistics of an SWF trace.

    Parameters
    ----------
    trace : SwfTrace
    procs : int, optional
        Machine size P; default from the header (see ``machine_size``).

    Returns
    -------
    dict
        ``source``; ``jobs`` (lines in the trace); ``machine_procs``,
        ``machine_how``; ``start_submit``, ``end_submit``, ``span_seconds``
        (over jobs with submit >= 0; None when there is none); ``kept_jobs``
        (after the default filters of :func:`to_jobs`); ``load`` = sum of
        run_time * procs over kept jobs / (P * span_seconds) (None when the
        span is 0); ``job_size`` and ``run_time``: min/p25/p50/p75/p90/max over
        kept jobs, plus for sizes ``serial_fraction`` (1 processor) and
        ``power_of_two_fraction``; ``estimate_accuracy``: median, over kept
        jobs that give a requested time (field 9 > 0), of run_time /
        requested_time, with ``jobs`` that count; ``users`` (distinct user
        ids >= 0 over all jobs); ``filters``: ``{description: dropped}`` for
        the default filters, in order (the shape of ``metrics.json``'s
        ``run.filters``).

    Raises
    ------
    InputError
        When the machine size cannot be chosen (see ``machine_size``).

    Notes
    -----
    Quantiles are sample values (numpy's ``inverted_cdf``), None when no job
    is kept. Jobs without a requested time are left out of the estimate
    accuracy, because their estimate falls back to the run time and would
    count as perfect. Cost: O(n log n) (the quantiles).
    """
    jobs, report = to_jobs(trace, procs=procs, keep=("requested_time",))
    users = trace.columns["user_id"]
    return _summary(
        trace.source,
        len(trace),
        jobs,
        report,
        trace.columns["submit_time"],
        jobs.extra["requested_time"] > 0,  # field 9 as given, -1 when unknown
        int(np.unique(users[users >= 0]).size),
    )


def workload_summary(path: str | os.PathLike, *, procs: int | None = None) -> dict:
    """:func:`trace_summary` of an SWF trace (``.swf``, ``.swf.gz``) or of a Batsim JSON workload (``.json``),
    read as ``simulate`` reads it: on ``nb_res`` processors (or ``procs``), wider jobs dropped and counted.
    A JSON workload has no users (``users`` is None); its jobs without a ``walltime`` count as exact estimates.
    """
    source = os.fspath(path)
    if not source.endswith(".json"):
        return trace_summary(read_swf(source), procs=procs)
    everything, nb_res = read_batsim(source)
    n_procs = Machine(procs if procs is not None else nb_res).n_procs  # checks --procs
    jobs, report = fit_machine(everything, n_procs, "--procs" if procs is not None else "nb_res")
    return _summary(source, len(everything), jobs, report, everything.submit, np.ones(len(jobs), dtype=bool), None)


def _summary(
    source: str,
    n_lines: int,
    jobs: JobTable,
    report: FilterReport,
    submit: np.ndarray,
    with_estimate: np.ndarray,
    users: int | None,
) -> dict:
    known = submit[submit >= 0]
    start: float | None = None
    end: float | None = None
    span: float | None = None
    if known.size:
        start, end = float(known.min()), float(known.max())
        span = end - start
    if span and len(jobs):
        load = float(np.sum(jobs.run_time * jobs.procs) / (report.machine_procs * span))
    else:
        load = None

    sizes = jobs.procs
    serial: float | None = None
    power_of_two: float | None = None
    if len(jobs):
        serial = float(np.mean(sizes == 1))
        power_of_two = float(np.mean((sizes & (sizes - 1)) == 0))
    job_size = {**_quantiles(sizes, int), "serial_fraction": serial, "power_of_two_fraction": power_of_two}
    run_time = _quantiles(jobs.run_time, float)

    ratio = jobs.run_time[with_estimate] / jobs.requested_time[with_estimate]
    accuracy = {
        "median": float(np.median(ratio)) if ratio.size else None,
        "jobs": int(ratio.size),
    }
    return {
        "source": source,
        "jobs": n_lines,
        "machine_procs": report.machine_procs,
        "machine_how": report.machine_how,
        "start_submit": start,
        "end_submit": end,
        "span_seconds": span,
        "kept_jobs": report.kept,
        "load": load,
        "job_size": job_size,
        "run_time": run_time,
        "estimate_accuracy": accuracy,
        "users": users,
        "filters": dict(report.dropped),
    }


def _quantiles(values: np.ndarray, kind) -> dict[str, int | float | None]:
    if values.size == 0:
        return {name: None for name, _ in _QUANTILES}
    points = np.quantile(values, [q for _, q in _QUANTILES], method="inverted_cdf")
    return {name: kind(point) for (name, _), point in zip(_QUANTILES, points)}
