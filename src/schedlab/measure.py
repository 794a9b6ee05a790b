"""The one measuring path: the metrics of a schedule in memory, or of any Batsim-style ``jobs.csv``.

``simulate`` measures its schedule with :func:`measure`; ``schedlab metrics``
and ``schedlab compare`` rebuild the instance and schedule a ``jobs.csv``
describes (:func:`read_run`) and measure them with the same function, so a
metric means the same thing whichever way it was obtained.

What a ``jobs.csv`` gives back (ours, or one written by Batsim):

- jobs: ``job_id`` (integers kept; other ids, or ids repeated across Batsim
  workloads, become 1..n in file order), ``submission_time``,
  ``requested_number_of_resources``, ``requested_time`` (a missing or
  non-positive one becomes the run time, as the SWF reader does), and the run
  time: our ``run_time`` column, else Batsim's ``execution_time``;
- schedule: ``starting_time``, ``finish_time``, ``allocated_resources``
  (interval notation; a job may hold more resources than it asked, as on
  partitions, and utilization then counts what it held), and the status: ``final_state`` when present
  (``COMPLETED_SUCCESSFULLY`` is completed, another ``COMPLETED_*`` word, a job
  that ran and did not complete, counts as killed, ``REJECTED*`` as rejected),
  else ``success`` and whether the job started;
- a preempted job (our ``n_preempted`` > 0) ran ``execution_time`` in all,
  more than its final execution: the difference becomes one kept piece just
  before its final start, so its slowdowns and the utilization are those of the run;
- the machine: ``procs`` if given, else the run's ``metrics.json`` beside the
  file (its ``n_procs``, and its platform, whose allocation measures give the
  topology metrics), else the largest allocated id + 1 (a lower bound, said in
  the result's ``n_procs_from``); ``tau`` likewise (default 10 s).

What ``jobs.csv`` does not hold, and so no metric from it can count: the work
lost in aborted executions (a redirected task's earlier tries; the count
``n_aborted`` is kept), and what a scheduler reported about itself (the
partition counters of Krevat 2003). :func:`read_run`'s notes say so when it
matters.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from schedlab.errors import InputError
from schedlab.metrics import aggregate, partition_metrics, stretch_metrics, topology_metrics
from schedlab.output import read_jobs_csv
from schedlab.platform.base import Platform
from schedlab.platform.homogeneous import Machine
from schedlab.platform.intervals import parse_allocation
from schedlab.platform.registry import parse_platform
from schedlab.runtime.partition import PartitionRuntime
from schedlab.schedule import Instance, JobStatus, Piece, Schedule
from schedlab.workload.jobs import JobTable

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RunFiles", "jobs_csv_path", "measure", "read_run"]


def measure(instance: Instance, schedule: Schedule, *, tau: float = 10.0, stretch: bool = False) -> dict:
    """Every metric of a schedule, as ``metrics.json`` holds them: :func:`~schedlab.metrics.aggregate`, the
    platform's :func:`~schedlab.metrics.topology_metrics`, a partition scheduler's
    :func:`~schedlab.metrics.partition_metrics`, and with ``stretch`` the max-stretch objectives of
    independent tasks (:func:`~schedlab.metrics.stretch_metrics`)."""
    metrics = aggregate(instance, schedule, tau=tau)
    metrics.update(topology_metrics(instance, schedule))
    metrics.update(partition_metrics(instance, schedule))
    if stretch:
        metrics.update(stretch_metrics(instance, schedule))
    return metrics


def jobs_csv_path(path: str | os.PathLike) -> Path:
    """The ``jobs.csv`` of a run folder, or the file itself; InputError when there is none."""
    path = Path(path)
    if path.is_dir():
        path = path / "jobs.csv"
    if not path.is_file():
        raise InputError(str(path), message="no such file (expected a run folder or a jobs.csv file)")
    return path


@dataclass(eq=False)
class RunFiles:
    """A finished run read back from its files.

    ``instance`` and ``schedule`` are rebuilt from ``frame`` (the ``jobs.csv`` as read); ``stored`` is the
    ``metrics.json`` beside it (empty when absent) and ``info`` its run information; ``n_procs_from`` says
    where the machine size came from; ``notes`` what the file could not say.
    """

    path: Path
    frame: pd.DataFrame
    instance: Instance
    schedule: Schedule
    stored: dict
    n_procs_from: str
    notes: list[str]

    @property
    def info(self) -> dict:
        return dict(self.stored.get("run", {}))

    def __repr__(self) -> str:
        return f"RunFiles({self.path}: {len(self.frame)} jobs, {self.instance.platform.n_procs} processors)"

    def metrics(self, *, tau: float | None = None) -> dict:
        """Every metric :func:`measure` gives, with ``tau`` from the argument, else the run's, else 10 s;
        with the max-stretch objectives when the run's ``metrics.json`` had them."""
        stored_tau = self.stored.get("tau")
        tau = float(tau if tau is not None else stored_tau if isinstance(stored_tau, (int, float)) else 10.0)
        out = measure(self.instance, self.schedule, tau=tau, stretch="max_stretch" in self.stored)
        for count in ("n_aborted", "n_preempted"):  # the file counts pieces; the rebuilt schedule has fewer
            if count in self.frame.columns:
                out[count] = int(self.frame[count].sum())
        return out


def read_run(path: str | os.PathLike, *, procs: int | None = None) -> RunFiles:
    """Read a run folder or a ``jobs.csv`` file (ours or Batsim's) back into an instance and a schedule.

    See the module docstring for what each column gives. Cost: one ``pandas.read_csv``, one parse per allocation.

    Raises
    ------
    InputError
        No such file, a missing column, an unreadable value, a job that ends before it starts or starts
        before its submission, an allocation wider than ``procs`` or of another size than the job asked.
    """
    csv_path = jobs_csv_path(path)
    source = str(csv_path)
    frame = read_jobs_csv(csv_path)
    stored = _beside(csv_path)
    run_info = stored.get("run", {}) if isinstance(stored.get("run"), dict) else {}
    notes: list[str] = []
    n = len(frame)
    if n == 0:
        raise InputError(source, message="no jobs")

    ids = frame["job_id"]
    if ids.dtype == np.int64 and not ids.duplicated().any():
        job_ids = ids.to_numpy()
    else:
        job_ids = np.arange(1, n + 1, dtype=np.int64)
        notes.append("job ids are not unique integers: jobs are numbered 1..n in file order")
    submit = frame["submission_time"].to_numpy(np.float64)
    start = frame["starting_time"].to_numpy(np.float64)
    end = frame["finish_time"].to_numpy(np.float64)
    execution = frame["execution_time"].to_numpy(np.float64)
    procs_col = frame["requested_number_of_resources"].to_numpy(np.int64)
    status = _statuses(frame, start)
    started = (status == JobStatus.COMPLETED) | (status == JobStatus.KILLED)
    for label, bad, expected in (
        ("submission_time", ~np.isfinite(submit), "a finite time"),
        ("requested_number_of_resources", procs_col < 1, "an integer >= 1"),
        ("starting_time", started & ~(start >= submit), "a time >= submission_time for a started job"),
        ("finish_time", started & ~(end >= start), "a time >= starting_time for a started job"),
    ):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            value = frame[label].iloc[i]
            raise InputError(
                source, i + 2, label, "(empty)" if value is None or value != value else f"{value:g}", expected
            )
    run_time = (
        frame["run_time"].to_numpy(np.float64) if "run_time" in frame.columns else np.where(started, execution, 0.0)
    )
    run_time = np.where(np.isfinite(run_time), run_time, 0.0)
    requested = frame["requested_time"].to_numpy(np.float64)
    requested = np.where(np.isfinite(requested) & (requested > 0), requested, np.maximum(run_time, 1e-9))

    allocs: list = [None] * n
    texts = frame["allocated_resources"].tolist()
    widest = 0
    larger = False  # a job on more resources than it asked: a partition (Krevat 2003)
    parsed: dict[str, tuple] = {}  # the same texts recur (a 240-processor machine has few allocations)
    for i in np.flatnonzero(started).tolist():
        known = parsed.get(texts[i])
        if known is None:
            try:
                alloc = parse_allocation(texts[i])
            except ValueError:
                raise InputError(source, i + 2, "allocated_resources", texts[i], "Batsim's interval notation") from None
            known = parsed[texts[i]] = (alloc, sum(hi - lo for lo, hi in alloc))
        alloc, size = known
        if size < procs_col[i]:
            raise InputError(
                source,
                i + 2,
                "allocated_resources",
                texts[i],
                f"at least {procs_col[i]} resources (requested_number_of_resources), it has {size}",
            )
        larger |= size > procs_col[i]
        allocs[i] = alloc
        widest = max(widest, alloc[-1][1])

    platform = _platform(source, procs, run_info, widest)
    if platform.n_procs < widest:
        i = next(i for i, a in enumerate(allocs) if a and a[-1][1] > platform.n_procs)
        raise InputError(
            source, i + 2, "allocated_resources", texts[i], f"ids below the machine size {platform.n_procs}"
        )
    how = _procs_how(procs, run_info)
    if how.startswith("the largest"):
        notes.append(f"machine size {platform.n_procs} is the largest allocated id + 1 (give --procs for the real one)")

    aborted = []
    if "n_preempted" in frame.columns:
        kept = execution - (end - start)
        for i in np.flatnonzero(started & (frame["n_preempted"].to_numpy() > 0) & (kept > 0)).tolist():
            aborted.append(Piece(i, float(start[i] - kept[i]), float(start[i]), allocs[i], kept=True))
    if "n_aborted" in frame.columns and int(frame["n_aborted"].sum()) > 0:
        notes.append(
            f"{int(frame['n_aborted'].sum()):,} aborted executions: jobs.csv does not record their times, "
            "so utilization leaves out the work they lost"
        )
    jobs = JobTable(
        id=job_ids,
        submit=submit,
        run_time=run_time,
        requested_time=requested,
        procs=procs_col,
        line=np.arange(2, n + 2, dtype=np.int64),
        source=source,
    )
    schedule = Schedule(
        start=np.where(started, start, np.nan),
        end=np.where(started, end, np.nan),
        status=status,
        alloc=allocs,
        aborted=aborted,
        policy=str(run_info.get("policy", "")),
    )
    if "w_util" in stored:
        notes.append("a partition scheduler's capacity and migration counters are not in jobs.csv (see metrics.json)")
    # a job on a larger partition: sizes, and so utilization, from the allocations
    instance = Instance(jobs, platform, PartitionRuntime(jobs)) if larger else Instance(jobs, platform)
    return RunFiles(csv_path, frame, instance, schedule, stored, how, notes)


def _statuses(frame: pd.DataFrame, start: np.ndarray) -> np.ndarray:
    """Status codes from ``final_state`` (Batsim's words), else from ``success`` and the start."""
    if "final_state" in frame.columns:
        words = frame["final_state"].astype(str)
        status = np.where(
            words == "COMPLETED_SUCCESSFULLY",
            JobStatus.COMPLETED,
            np.where(words.str.startswith("REJECTED"), JobStatus.REJECTED, JobStatus.KILLED),
        )
        unknown = ~(words.str.startswith("COMPLETED") | words.str.startswith("REJECTED"))
        status = np.where(unknown & ~np.isfinite(start), JobStatus.REJECTED, status)
        return status.astype(np.int8)
    success = frame["success"].to_numpy() == 1
    return np.where(
        ~np.isfinite(start), JobStatus.REJECTED, np.where(success, JobStatus.COMPLETED, JobStatus.KILLED)
    ).astype(np.int8)


def _beside(csv_path: Path) -> dict:
    """The ``metrics.json`` beside ``csv_path`` (metrics and, under ``run``, the run information), or {}."""
    meta = csv_path.parent / "metrics.json"
    if not meta.is_file():
        return {}
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(str(meta), message=f"not readable JSON ({error})") from None
    return data if isinstance(data, dict) else {}


def _platform(source: str, procs: int | None, info: dict, widest: int) -> Platform:
    if procs is not None:
        if isinstance(procs, bool) or not isinstance(procs, int) or procs < 1:
            raise InputError(source, field="procs", value=procs, expected="an integer >= 1")
        return Machine(procs)
    spec = info.get("platform")
    if isinstance(spec, str):
        return parse_platform(spec)
    n = info.get("n_procs")
    if isinstance(n, int) and n >= 1:
        return Machine(n)
    return Machine(max(1, widest))


def _procs_how(procs: int | None, info: dict) -> str:
    if procs is not None:
        return "given"
    if isinstance(info.get("platform"), str):
        return f"the run's platform {info['platform']}"
    if isinstance(info.get("n_procs"), int):
        return "the run's metrics.json"
    return "the largest allocated id + 1"
