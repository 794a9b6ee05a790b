"""Independent sequential tasks from parallel-job traces: the conversions of Lucarelli, Mendonca and Trystram (2017).

Source: Lucarelli, Mendonca and Trystram (2017), section V-A; readings (docs/readings.md)
LMT-A7 (processor count rounding), LMT-A8 (processors: allocated first), LMT-A9 (windows),
LMT-A10 (filters: status 1, run time > 0, processors > 0; on RICC exactly 431,547 jobs).

Three conversions keep the total work divided by the number of processors:

* ``A``: job j becomes q_j tasks of length e_j, on the m processors;
* ``B``: one task of length q_j e_j, on the m processors;
* ``C`` (the seed's choice, default): with Q the mean q_j of the instance,
  one task of length (q_j / Q) e_j on m / Q processors, rounded (LMT-A7).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from schedlab.errors import InputError
from schedlab.workload.filters import FilterReport, to_jobs
from schedlab.workload.jobs import JobTable
from schedlab.workload.swf import read_swf
from schedlab.workload.windows import cut, random_windows, shift_to_zero

CONVERSIONS = ("A", "B", "C")
ROUNDINGS: dict[str, Callable[[float], int]] = {"round": round, "floor": math.floor, "ceil": math.ceil}


@dataclass(frozen=True)
class TaskWorkload:
    """Sequential tasks on ``n_procs`` processors, and how they were made.

    ``jobs`` are one-processor jobs whose run and requested times are the
    processing times p_j; ``parent`` the trace job id of each task; ``mean_procs``
    is Q (conversion C); ``load`` the total work over ``n_procs`` x the release span.
    """

    jobs: JobTable
    n_procs: int
    parent: np.ndarray
    conversion: str
    mean_procs: float
    load: float
    window: tuple[float, float] | None


def job_processors(jobs: JobTable) -> np.ndarray:
    """q_j: allocated processors (SWF field 5) when known, else requested (field 8): reading LMT-A8.

    Uses the ``allocated_procs`` column kept by :func:`schedlab.workload.filters.to_jobs` when present.
    """
    allocated = jobs.extra.get("allocated_procs")
    return jobs.procs if allocated is None else np.where(allocated > 0, allocated, jobs.procs)


def convert(jobs: JobTable, n_procs: int, *, conversion: str = "C", rounding: str = "round") -> TaskWorkload:
    """Turn parallel jobs (run time e_j, processors q_j) into sequential tasks by conversion A, B or C.

    Source: Lucarelli, Mendonca and Trystram (2017), section V-A; reading LMT-A7.
    Guarantee: the total work divided by the number of processors is kept, exactly
    before rounding m / Q (tested).
    Cost: O(n) numpy (conversion A: O(sum q_j)).

    Tasks keep the job's release time; task ids are 1..N in job order, ``parent`` gives the job id.
    """
    if conversion not in CONVERSIONS:
        raise InputError(
            "--conversion", field="conversion", value=conversion, expected=f"one of {', '.join(CONVERSIONS)}"
        )
    if rounding not in ROUNDINGS:
        raise InputError("--rounding", field="rounding", value=rounding, expected=f"one of {', '.join(ROUNDINGS)}")
    if len(jobs) == 0:
        raise InputError(jobs.source, message="no job left to convert (check the filters and the window)")
    q = job_processors(jobs).astype(np.int64)
    e = jobs.run_time
    mean_q = float(q.mean())
    if conversion == "A":
        index = np.repeat(np.arange(len(jobs)), q)
        p, m = e[index], n_procs
    elif conversion == "B":
        index = np.arange(len(jobs))
        p, m = q * e, n_procs
    else:
        index = np.arange(len(jobs))
        p, m = (q / mean_q) * e, max(1, int(ROUNDINGS[rounding](n_procs / mean_q)))
    submit = jobs.submit[index]
    table = JobTable.from_arrays(
        submit=submit, run_time=p, requested_time=p, procs=np.ones(len(p), dtype=np.int64), source=jobs.source
    )
    span = float(submit.max() - submit.min()) if len(submit) else 0.0
    load = float(p.sum() / (m * span)) if span > 0 else float("inf")
    return TaskWorkload(table, m, jobs.id[index], conversion, mean_q, load, None)


def load_tasks(
    path: str | os.PathLike,
    *,
    window: float | None = None,
    seed: int = 0,
    conversion: str = "C",
    rounding: str = "round",
    procs: int | None = None,
    status: int | None = 1,
    span: tuple[float, float] | None = None,
) -> tuple[TaskWorkload, FilterReport]:
    """Read an SWF trace, keep the jobs of ``status`` (default 1, completed: Lucarelli, Mendonca and Trystram
    2017, section V-A) submitted in ``span`` (``(start, end)`` on the trace clock, as ``simulate --window``),
    optionally cut one random window of ``window`` seconds drawn with ``seed`` (redrawn while empty, releases
    shifted to 0), and convert.

    Raises
    ------
    InputError
        A malformed trace, or no job left after the filters (the message names them).
    """
    jobs, report = to_jobs(read_swf(path), procs=procs, status=status, window=span, keep=("allocated_procs",))
    report.require_jobs(os.fspath(path))
    chosen = None
    if window is not None:
        rng = np.random.default_rng(seed)
        for _ in range(1000):
            chosen = random_windows(jobs, window, 1, rng=rng)[0]
            part = cut(jobs, chosen)
            if len(part):
                break
        else:
            raise InputError(os.fspath(path), message=f"no job in 1000 random windows of {window:g} s")
        jobs = shift_to_zero(part, origin=chosen[0])
    tasks = convert(jobs, report.machine_procs, conversion=conversion, rounding=rounding)
    return replace(tasks, window=chosen), report


__all__ = ["CONVERSIONS", "TaskWorkload", "convert", "job_processors", "load_tasks"]
