"""One simulation run from a trace file to its output files: the Python API behind ``schedlab simulate``.

``load_instance`` reads a workload (SWF, plain or gzipped, or Batsim JSON),
applies the reported filters and sizes the machine (``load_sequential_tasks``
and ``load_moldable`` read the independent tasks of the max-stretch study); ``run`` simulates one
registered policy on it, validates the schedule and measures it; ``Run.write``
stores ``jobs.csv`` and ``metrics.json``. Campaigns and the CLI call these
three functions and nothing else, so a run means the same thing everywhere.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from schedlab._version import __version__
from schedlab.engine.simulator import ProgressCallback, simulate
from schedlab.errors import InputError
from schedlab.measure import measure
from schedlab.output import jobs_frame, write_jobs_csv, write_metrics_json, write_moves_csv
from schedlab.platform.base import Platform
from schedlab.platform.homogeneous import Machine
from schedlab.platform.registry import parse_platform
from schedlab.registry import get, names
from schedlab.runtime.base import WALLTIMES, RigidRuntime, UncappedRuntime
from schedlab.runtime.partition import PartitionRuntime
from schedlab.runtime.penalty import TopologyPenalty, parse_penalty
from schedlab.schedule import Instance, Schedule
from schedlab.validation import validate
from schedlab.workload.filters import FilterReport, fit_machine, scale_times, to_jobs
from schedlab.workload.swf import read_swf

# The readers of other formats and the task instances load in the functions that use them, so that
# `schedlab simulate` on an SWF trace imports none of them; pandas is imported by Run.jobs only.
if TYPE_CHECKING:
    import pandas as pd

    from schedlab.workload.moldable import MoldableTasks
    from schedlab.workload.tasks import TaskWorkload


def load_instance(
    path: str | os.PathLike,
    *,
    procs: int | None = None,
    status: int | None = None,
    window: tuple[float, float] | None = None,
    platform: str | Platform | None = None,
    runtime_scale: float = 1.0,
) -> tuple[Instance, FilterReport | None]:
    """Read a workload file and build the instance to simulate.

    SWF traces (``.swf``, ``.swf.gz``) go through the default filters of
    :func:`schedlab.workload.filters.to_jobs` plus the optional ``status`` and
    ``window`` ones; the report says what each removed and how the machine size
    was chosen. Batsim JSON workloads (``.json``) run on ``nb_res`` processors
    (or ``procs``); a job wider than the machine is dropped and counted, as
    in an SWF trace (:func:`~schedlab.workload.filters.fit_machine`).

    ``platform`` (a :class:`~schedlab.platform.base.Platform` or its text,
    ``fat-tree:1,2,8,240``, see :func:`schedlab.platform.registry.parse_platform`)
    replaces the plain machine; its size is then the machine size (``procs``,
    if given, must agree), so wider jobs are filtered out.

    ``runtime_scale`` multiplies every run and requested time (Krevat 2003's
    load factor ``c``; :func:`~schedlab.workload.filters.scale_times`).

    Raises
    ------
    InputError
        Missing or malformed file; no job left after the filters (the
        message names the filters that removed them); a malformed platform,
        or one whose size differs from ``procs``.
    """
    path = os.fspath(path)
    tree = parse_platform(platform) if isinstance(platform, str) else platform
    if tree is not None:
        if procs is not None and procs != tree.n_procs:
            raise InputError(
                "platform",
                field="platform",
                value=tree.name,
                expected=f"{procs} processors (the procs argument), it has {tree.n_procs}",
            )
        procs = tree.n_procs
    if path.endswith(".json"):
        if status is not None or window is not None:
            raise InputError(path, message="the status and window filters apply to SWF traces only")
        from schedlab.workload.batsim import read_batsim

        jobs, nb_res = read_batsim(path)
        machine = Machine(procs if procs is not None else nb_res)  # checks --procs before the filter uses it
        jobs, report = fit_machine(jobs, machine.n_procs, "--procs" if procs is not None else "nb_res")
    else:
        trace = read_swf(path)
        if not len(trace):  # before the machine size, which an empty trace cannot give
            raise InputError(path, message="no job to simulate: the file holds no job line")
        jobs, report = to_jobs(trace, procs=procs, status=status, window=window)
    if tree is not None:
        report = replace(report, machine_how=f"--platform {tree.name}")
    report.require_jobs(path)
    jobs = scale_times(jobs, runtime_scale)
    return Instance(jobs, tree if tree is not None else Machine(report.machine_procs)), report


@dataclass(eq=False)
class Run:
    """A finished simulation: its instance, schedule, metrics and how it was made.

    ``info`` holds what is needed to reproduce the run (policy and every parameter, defaults
    included, trace, machine size, seed, walltime rule, filters, schedlab version); ``seconds``
    the time each phase took, kept out of the output files so that they stay byte-identical.
    ``instance`` is the one simulated, with the run-time model the engine used. ``jobs`` is
    ``jobs.csv`` as a pandas DataFrame (same columns and values, built on first use).
    """

    instance: Instance
    schedule: Schedule
    metrics: dict
    info: dict
    seconds: dict[str, float] = field(default_factory=dict)
    _jobs: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def jobs(self) -> pd.DataFrame:
        """One row per job, ``jobs.csv``'s columns (:func:`~schedlab.output.jobs_frame`): times, waits,
        slowdowns, allocations, final states."""
        if self._jobs is None:
            self._jobs = jobs_frame(self.instance, self.schedule, tau=self.metrics["tau"])
        return self._jobs

    def __repr__(self) -> str:
        return (
            f"Run({self.info.get('policy')} on {Path(str(self.info.get('workload'))).name}: "
            f"{len(self.instance.jobs)} jobs, {self.instance.platform.n_procs} processors)"
        )

    def write(self, out: str | os.PathLike, *, force: bool = False) -> list[Path]:
        """Write ``jobs.csv`` and ``metrics.json`` (and ``moves.csv`` when jobs were migrated) into directory
        ``out`` and return their paths.

        An existing non-empty directory is refused unless ``force``, so a run never overwrites another by accident.
        """
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise InputError(str(out), message="exists and is not a directory")
        if out.is_dir() and any(out.iterdir()) and not force:
            raise InputError(str(out), message="output directory is not empty (force=True overwrites it)")
        out.mkdir(parents=True, exist_ok=True)
        began = time.perf_counter()
        jobs_csv, metrics_json = out / "jobs.csv", out / "metrics.json"
        write_jobs_csv(jobs_csv, self.instance, self.schedule, tau=self.metrics["tau"])
        write_metrics_json(metrics_json, self.metrics, extra={"run": self.info})
        written = [jobs_csv, metrics_json]
        if any(piece.moved for piece in self.schedule.aborted):
            written.append(out / "moves.csv")
            write_moves_csv(written[-1], self.instance, self.schedule)
        self.seconds["write"] = time.perf_counter() - began
        return written


def tasks_instance(tasks: TaskWorkload) -> Instance:
    """The instance of converted sequential tasks: their jobs on a plain machine of ``tasks.n_procs``."""
    return Instance(tasks.jobs, Machine(tasks.n_procs))


def _machine_size(m: int) -> int:
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise InputError("--procs", field="--procs", value=m, expected="an integer >= 1 (the number of processors)")
    return m


def moldable_instance(tasks: MoldableTasks, m: int) -> Instance:
    """Moldable tasks on a plain machine of ``m`` processors, with their run-time model (any size 1..m).

    Raises
    ------
    InputError
        ``m`` < 1, or a run-time table narrower than the machine.
    """
    from schedlab.policies.stretch.evaluation import task_instance

    return task_instance(tasks, _machine_size(m))


def load_sequential_tasks(path: str | os.PathLike, *, m: int) -> Instance:
    """Sequential tasks of a tasks CSV (:func:`~schedlab.workload.moldable_csv.read_sequential_tasks_csv`)
    on a plain machine of ``m`` processors, for the max-stretch policies of Saule, Bozdag and Catalyurek (2014)."""
    from schedlab.workload.moldable_csv import read_sequential_tasks_csv

    return Instance(read_sequential_tasks_csv(path), Machine(_machine_size(m)))


def load_moldable(
    path: str | os.PathLike, *, m: int, first: int = 8000, seed: int = 0, speedup: str = "downey"
) -> Instance:
    """Moldable tasks on ``m`` processors from a tasks CSV, or from an SWF log's first ``first`` usable jobs.

    Source: Saule, Bozdag and Catalyurek (2014), section 7: a log's jobs become moldable tasks with
    Downey's speed-up, A ~ U[q, m] and sigma ~ U[0, 2] drawn with ``numpy.random.default_rng(seed)``
    (:func:`~schedlab.workload.moldable.from_swf`); a CSV gives its own run times
    (:func:`~schedlab.workload.moldable_csv.read_tasks_csv`).

    Raises
    ------
    InputError
        A bad file, ``m`` or ``first`` < 1, or a speed-up model other than ``downey``.
    """
    from schedlab.workload.moldable import from_swf
    from schedlab.workload.moldable_csv import read_tasks_csv

    m = _machine_size(m)
    if str(path).endswith(".csv"):
        return moldable_instance(read_tasks_csv(path, m=m), m)
    if speedup != "downey":
        raise InputError("--speedup", field="--speedup", value=speedup, expected="downey (the only model for logs)")
    if isinstance(first, bool) or not isinstance(first, int) or first < 1:
        raise InputError("--first", field="--first", value=first, expected="an integer >= 1")
    return moldable_instance(from_swf(path, first=first, m=m, rng=np.random.default_rng(seed)), m)


def check_walltime(policy: str, walltime: str, *, penalty: str | None = None) -> None:
    """Raise InputError unless ``walltime`` (``kill`` or ``ignore``) can apply to a run of ``policy``:
    ``ignore`` needs no run-time penalty and a policy registered as coping with jobs that outlive their
    requested time (``walltime_ignore``), or one whose jobs have no walltime (partitions, Krevat 2003)."""
    if walltime not in WALLTIMES:
        raise InputError("walltime", field="walltime", value=walltime, expected=" or ".join(WALLTIMES))
    if walltime == "kill":
        return
    if penalty is not None:
        raise InputError("walltime", message="walltime = ignore applies to rigid jobs without a run-time penalty")
    traits = get(policy, kind="online").traits
    if not (traits.get("walltime_ignore") or traits.get("runtime") == "partition"):
        able = ", ".join(n for n in names(kind="online") if get(n).traits.get("walltime_ignore"))
        raise InputError(
            "walltime",
            message=f"policy {policy} plans with requested times as limits and cannot run with "
            f"walltime = ignore (policies that can: {able})",
        )


def run(
    instance: Instance,
    policy: str = "easy",
    params: dict | None = None,
    *,
    seed: int = 0,
    tau: float = 10.0,
    check: bool = True,
    progress: ProgressCallback | None = None,
    report: FilterReport | None = None,
    penalty: str | None = None,
    runtime_scale: float = 1.0,
    stretch: bool = False,
    engine: str | None = None,
    walltime: str = "kill",
) -> Run:
    """Simulate the registered ``policy`` (with ``params``) on ``instance``, validate and measure it.

    ``check`` runs the independent validator on the schedule (a few percent of
    the simulation time); ``report`` is the filter report to record in the run
    information. The policy's random draws come from ``numpy.random.default_rng(seed)``.

    ``penalty`` (``linear:F``, ``quadratic:F`` or ``none``; needs a fat-tree
    platform) lengthens run times by the platform level of each allocation
    (:mod:`schedlab.runtime.penalty`). On a platform that measures allocations
    (a fat tree), the metrics include :func:`~schedlab.metrics.topology_metrics`;
    on a platform given by ``--platform``, the run information records it and
    the penalty. ``runtime_scale`` is the load factor the instance's times were
    scaled by when loaded (recorded when not 1). A policy registered with the
    ``partition`` run-time trait (the torus schedulers of Krevat 2003) runs
    its jobs under :class:`~schedlab.runtime.partition.PartitionRuntime`
    unless the instance has a model of its own, and its capacity and
    migration counters are added to the metrics. ``stretch`` adds the
    max-stretch objectives of independent tasks (:func:`~schedlab.metrics.stretch_metrics`:
    stretch relative to the one-processor time, flow, load, Delta, fairness counts).

    ``walltime`` says what happens to a rigid job that reaches its requested time: ``"kill"`` (Batsim's
    and Slurm's rule) or ``"ignore"`` (it runs to completion, as in AccaSim and Alea:
    :class:`~schedlab.runtime.base.UncappedRuntime`); ``"ignore"`` needs rigid jobs without a ``penalty``
    and a policy registered as coping with jobs that outlive their estimates. The run information
    records it (``walltime``) for rigid jobs.

    Raises
    ------
    InputError
        An unknown policy or parameter, a malformed ``penalty``, or ``walltime`` unknown or not applicable.
    """
    seconds = {}
    algorithm = get(policy, kind="online")
    chosen = algorithm.build(params)
    check_walltime(policy, walltime, penalty=penalty)
    if walltime == "ignore":
        if type(instance.runtime) is not RigidRuntime:
            raise InputError(
                "walltime",
                message=f"walltime = ignore applies to rigid jobs, not to {instance.runtime.describe()} ones",
            )
        instance = replace(instance, runtime=UncappedRuntime(instance.jobs))
    if penalty is not None:
        instance = replace(instance, runtime=parse_penalty(penalty, instance.platform, instance.jobs))
    if algorithm.traits.get("runtime") == "partition" and isinstance(instance.runtime, RigidRuntime):
        # Krevat (2003): a job may run on a larger partition than it asked, and is never killed
        instance = replace(instance, runtime=PartitionRuntime(instance.jobs))
    began = time.perf_counter()
    schedule = simulate(instance, chosen, rng=np.random.default_rng(seed), progress=progress, engine=engine)
    seconds["simulate"] = time.perf_counter() - began
    if hasattr(chosen, "seconds_total"):  # time inside a partition scheduler (Krevat 2003), kept out of files
        seconds["scheduler"] = chosen.seconds_total
    if check:
        began = time.perf_counter()
        validate(instance, schedule)
        seconds["validate"] = time.perf_counter() - began
    metrics = measure(instance, schedule, tau=tau, stretch=stretch)
    info = {
        "policy": schedule.policy,
        "params": {**{p.name: p.default for p in algorithm.parameters()}, **algorithm.configure(params)},
        "workload": instance.jobs.source,
        "n_procs": instance.platform.n_procs,
        "seed": seed,
        "schedlab": __version__,
    }
    if isinstance(instance.runtime, (RigidRuntime, TopologyPenalty)):
        info["walltime"] = walltime
    spec = instance.platform.spec()
    if spec is not None:
        info["platform"] = spec
        info["penalty"] = instance.runtime.describe()
    if runtime_scale != 1.0:
        info["runtime_scale"] = runtime_scale
    if report is not None:
        info["machine_size_from"] = report.machine_how
        info["filters"] = {what: count for what, count in report.dropped}
        info["jobs_read"] = report.total
    return Run(instance, schedule, metrics, info, seconds)


__all__ = [
    "Run",
    "check_walltime",
    "load_instance",
    "load_moldable",
    "load_sequential_tasks",
    "moldable_instance",
    "run",
    "tasks_instance",
]
