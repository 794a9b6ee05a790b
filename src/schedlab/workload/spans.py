"""A span of consecutive jobs of an SWF log, mapped as in Krevat (2003), section 4.1.

Source: Krevat (2003), section 4.1: 10,000-job spans of the NASA Ames
iPSC/860 and SDSC SP2 logs, each log node one BlueGene/L supernode (sizes
1..128 kept as they are). The thesis does not say which fields it read or
which span it took; the choices below are written down in
:func:`span_jobs`'s Notes.

Cost: O(n), vectorised.
"""

from __future__ import annotations

import numpy as np

from schedlab.errors import InputError
from schedlab.workload.filters import FilterReport
from schedlab.workload.jobs import JobTable
from schedlab.workload.swf import SwfTrace

__all__ = ["span_jobs"]


def span_jobs(
    trace: SwfTrace, n_procs: int, *, skip: int = 0, count: int | None = 10_000
) -> tuple[JobTable, FilterReport]:
    """``count`` consecutive valid jobs of ``trace`` after the first ``skip``, with times shifted to 0.

    Parameters
    ----------
    trace : SwfTrace
    n_procs : int
        The machine's nodes; a wider job is dropped and counted.
    skip : int, default 0
        Valid jobs left out before the span.
    count : int or None, default 10000
        Jobs in the span (None: all the rest); fewer when the log ends first.

    Returns
    -------
    jobs : JobTable
        ``submit`` = field 2 minus the span's first submission, ``run_time`` =
        field 4, ``procs`` = field 5 (allocated processors), or field 8
        (requested) where field 5 is unknown, ``requested_time`` = field 9
        where known, else the run time; trace order kept.
    report : FilterReport
        The jobs dropped by each rule and those outside the span.

    Raises
    ------
    InputError
        A negative ``skip`` or a ``count`` < 1.

    Notes
    -----
    Reimplementation choices (the thesis is silent): a job is valid when its
    submission is known (field 2 >= 0), its run time is known and positive
    (field 4 > 0: schedlab's job table has no zero-length jobs; 10 of the
    first 10,000 SDSC SP2 jobs and 173 NASA jobs are dropped, counted), its
    size is known and at most ``n_procs``; the default span is the first
    10,000 valid jobs, whose size mean and deviation on SDSC SP2 (9.7 and
    14.8) are those of the thesis's Table 4.1.
    """
    if skip < 0:
        raise InputError(trace.source, field="skip", value=skip, expected="an integer >= 0")
    if count is not None and count < 1:
        raise InputError(trace.source, field="count", value=count, expected="an integer >= 1")
    columns = trace.columns
    submit = columns["submit_time"].astype(np.float64)
    run_time = columns["run_time"].astype(np.float64)
    size = np.where(columns["allocated_procs"] > 0, columns["allocated_procs"], columns["requested_procs"])
    rules = [
        ("submit time unknown (< 0)", submit < 0),
        ("run time unknown or 0 (<= 0)", run_time <= 0),
        ("size unknown (fields 5 and 8 <= 0)", size <= 0),
        (f"size > {n_procs} nodes", size > n_procs),
    ]
    alive = np.ones(len(trace), dtype=bool)
    dropped = []
    for what, bad in rules:
        removed = alive & bad
        dropped.append((what, int(removed.sum())))
        alive &= ~removed
    valid = np.flatnonzero(alive)
    end = len(valid) if count is None else min(len(valid), skip + count)
    index = valid[skip:end]
    dropped.append(
        (f"outside the span (skip {skip:,}, count {count if count is None else f'{count:,}'})", len(valid) - len(index))
    )
    requested = columns["requested_time"][index].astype(np.float64)
    runs = run_time[index]
    times = submit[index]
    jobs = JobTable(
        id=columns["job_id"][index],
        submit=times - times.min() if len(times) else times,
        run_time=runs,
        requested_time=np.where(requested > 0, requested, runs),
        procs=size[index].astype(np.int64),
        line=trace.line[index],
        source=trace.source,
    )
    jobs.check()
    report = FilterReport(
        total=len(trace),
        kept=len(jobs),
        dropped=tuple(dropped),
        machine_procs=n_procs,
        machine_how="the platform's nodes",
    )
    return jobs, report
