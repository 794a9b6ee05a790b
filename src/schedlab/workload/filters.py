"""From an SWF trace to the jobs to simulate: which jobs go, and why, counted.

Every job that is not simulated is counted under the filter that removed it,
so a run can say exactly what it left out (no silently dropped jobs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.errors import InputError
from schedlab.workload.jobs import JobTable
from schedlab.workload.swf import SWF_FIELDS, SwfTrace, _processors, machine_size

__all__ = ["FilterReport", "estimates", "fit_machine", "processors", "scale_times", "to_jobs"]


@dataclass(frozen=True, slots=True)
class FilterReport:
    """What :func:`to_jobs` kept and removed.

    Attributes
    ----------
    total : int
        Jobs in the trace.
    kept : int
        Jobs in the resulting table (``total`` minus the sum of ``dropped``).
    dropped : tuple of (str, int)
        Each filter's description and the number of jobs it removed from those
        the previous filters left, in the order applied; default filters appear
        even when they removed nothing.
    machine_procs : int
        The machine size P.
    machine_how : str
        How P was chosen (see :func:`schedlab.workload.swf.machine_size`).
    """

    total: int
    kept: int
    dropped: tuple[tuple[str, int], ...]
    machine_procs: int
    machine_how: str

    def lines(self) -> list[str]:
        """Human-readable summary, one line per fact: read, machine, each filter, kept."""
        out = [
            f"read {self.total:,} jobs",
            f"machine: {self.machine_procs:,} processors ({self.machine_how})",
        ]
        out += [f"dropped {count:,} jobs: {what}" for what, count in self.dropped]
        out.append(f"kept {self.kept:,} jobs")
        return out

    def require_jobs(self, source: str) -> None:
        """Raise InputError when no job is left: an empty run is a mistake, not a table of dashes. The
        message names every filter that removed jobs, with its count."""
        if self.kept:
            return
        if not self.total:
            raise InputError(source, message="no job to simulate: the file holds no job line")
        removed = "; ".join(f"{count:,} by {what}" for what, count in self.dropped if count)
        raise InputError(source, message=f"no job left to simulate: of {self.total:,} jobs read, {removed}")


def processors(trace: SwfTrace) -> np.ndarray:
    """Processors of each job: requested (field 8) if > 0, else allocated (field 5)."""
    return _processors(trace.columns)


def estimates(trace: SwfTrace) -> np.ndarray:
    """Run-time estimate of each job: requested time (field 9) if > 0, else run time (field 4)."""
    requested = trace.columns["requested_time"]
    return np.where(requested > 0, requested, trace.columns["run_time"])


def to_jobs(
    trace: SwfTrace,
    *,
    procs: int | None = None,
    status: int | None = None,
    window: tuple[float, float] | None = None,
    keep: tuple[str, ...] | list[str] = (),
) -> tuple[JobTable, FilterReport]:
    """The simulable jobs of a trace, and a report of the ones removed.

    Filters, in this order, each counted on the jobs the previous ones left:

    1. ``submit time unknown (< 0)``: field 2 < 0;
    2. ``run time <= 0``: field 4 <= 0 (unknown run times are -1);
    3. ``processors <= 0``: processors (field 8 if > 0, else field 5) <= 0;
    4. ``processors > P (P=...)``: wider than the machine (P from
       :func:`~schedlab.workload.swf.machine_size`);
    5. ``status != S`` when ``status`` is given (field 11; 1 is "completed");
    6. ``submit outside [t0, t1)`` when ``window`` is given.

    Parameters
    ----------
    trace : SwfTrace
    procs : int, optional
        Machine size P; default from the header (see ``machine_size``).
    status : int, optional
        Keep only jobs whose status (field 11) equals it.
    window : (float, float), optional
        Keep only jobs with ``t0 <= submit < t1`` (seconds, same clock as the trace).
    keep : sequence of str
        SWF field names to carry into ``JobTable.extra`` (``("user_id", "status")``).

    Returns
    -------
    jobs : JobTable
        ``id`` = field 1, ``submit`` = field 2 as given (not shifted),
        ``run_time`` = field 4 (may exceed the estimate: the engine kills at
        walltime), ``requested_time`` = field 9 if > 0 else field 4,
        ``procs`` as above, ``line`` = the line in the file; trace order kept.
    report : FilterReport

    Raises
    ------
    InputError
        An unknown name in ``keep``, a bad ``procs`` or ``window``, or (from
        ``JobTable.check``) duplicate job ids among the kept jobs.

    Notes
    -----
    Cost: O(n), vectorised. On RICC-2010-2 with ``status=1`` this keeps the
    431,547 jobs of Table I of Lucarelli, Mendonca and Trystram (2017).
    """
    unknown = [name for name in keep if name not in SWF_FIELDS]
    if unknown:
        raise InputError(trace.source, None, "keep", unknown[0], f"an SWF field name ({', '.join(SWF_FIELDS)})")
    n_procs, how = machine_size(trace, procs)
    columns = trace.columns
    submit = columns["submit_time"]
    run_time = columns["run_time"]
    job_procs = processors(trace)
    rules: list[tuple[str, np.ndarray]] = [
        ("submit time unknown (< 0)", submit < 0),
        ("run time <= 0", run_time <= 0),
        ("processors <= 0", job_procs <= 0),
        (f"processors > P (P={n_procs})", job_procs > n_procs),
    ]
    if status is not None:
        rules.append((f"status != {int(status)}", columns["status"] != status))
    if window is not None:
        t0, t1 = window
        if not t0 < t1:
            raise InputError(trace.source, None, "window", f"[{_number(t0)}, {_number(t1)})", "t0 < t1")
        rules.append((f"submit outside [{_number(t0)}, {_number(t1)})", (submit < t0) | (submit >= t1)))
    alive = np.ones(len(trace), dtype=bool)
    dropped = []
    for what, bad in rules:
        removed = alive & bad
        dropped.append((what, int(removed.sum())))
        alive &= ~removed
    index = np.flatnonzero(alive)
    jobs = JobTable(
        id=columns["job_id"][index],
        submit=submit[index].astype(np.float64),
        run_time=run_time[index].astype(np.float64),
        requested_time=estimates(trace)[index].astype(np.float64),
        procs=job_procs[index].astype(np.int64),
        line=trace.line[index],
        extra={name: columns[name][index] for name in keep},
        source=trace.source,
    )
    jobs.check()
    report = FilterReport(
        total=len(trace), kept=len(jobs), dropped=tuple(dropped), machine_procs=n_procs, machine_how=how
    )
    return jobs, report


def fit_machine(jobs: JobTable, n_procs: int, how: str) -> tuple[JobTable, FilterReport]:
    """The jobs of a workload read whole (Batsim JSON) that fit a machine of ``n_procs`` processors, and the
    report: the same ``processors > P`` filter, counted, as :func:`to_jobs` applies to an SWF trace, so a
    job wider than the machine is dropped and reported whatever the format."""
    wide = jobs.procs > n_procs
    kept = jobs.take(np.flatnonzero(~wide)) if wide.any() else jobs
    report = FilterReport(
        total=len(jobs),
        kept=len(kept),
        dropped=((f"processors > P (P={n_procs})", int(wide.sum())),),
        machine_procs=n_procs,
        machine_how=how,
    )
    return kept, report


def _number(value: float) -> str:
    """``3600`` for 3600.0, ``0.5`` for 0.5: times as a person would write them."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def scale_times(jobs: JobTable, factor: float) -> JobTable:
    """The jobs with run and requested times multiplied by ``factor`` (submissions unchanged).

    Source: Krevat (2003), section 4.1: the load is varied by multiplying every
    job's execution time by ``c`` (0.7 to 1.4); the requested time is scaled
    alike so that estimates keep their ratio to run times.

    Raises
    ------
    InputError
        A factor that is not a finite number > 0.
    """
    if not (isinstance(factor, (int, float)) and 0 < factor < float("inf")):
        raise InputError("--runtime-scale", field="--runtime-scale", value=factor, expected="a finite number > 0")
    if factor == 1:
        return jobs
    return JobTable(
        id=jobs.id,
        submit=jobs.submit,
        run_time=jobs.run_time * factor,
        requested_time=jobs.requested_time * factor,
        procs=jobs.procs,
        line=jobs.line,
        extra=jobs.extra,
        source=jobs.source,
    )
