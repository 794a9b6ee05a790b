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

import numpy as np

from schedlab import __version__
from schedlab.engine.simulator import ProgressCallback, simulate
from schedlab.errors import InputError
from schedlab.metrics import aggregate, partition_metrics, stretch_metrics, topology_metrics
from schedlab.output import write_jobs_csv, write_metrics_json, write_moves_csv
from schedlab.platform.base import Platform
from schedlab.platform.homogeneous import Machine
from schedlab.platform.registry import parse_platform
from schedlab.policies.stretch.evaluation import task_instance
from schedlab.registry import get
from schedlab.runtime.base import RigidRuntime
from schedlab.runtime.partition import PartitionRuntime
from schedlab.runtime.penalty import parse_penalty
from schedlab.schedule import Instance, Schedule
from schedlab.validation import validate
from schedlab.workload.batsim import read_batsim
from schedlab.workload.filters import FilterReport, fit_machine, scale_times, to_jobs
from schedlab.workload.moldable import MoldableTasks, from_swf
from schedlab.workload.moldable_csv import read_sequential_tasks_csv, read_tasks_csv
from schedlab.workload.swf import read_swf
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
                "--platform",
                field="--platform",
                value=tree.name,
                expected=f"{procs} processors (--procs), it has {tree.n_procs}",
            )
        procs = tree.n_procs
    if path.endswith(".json"):
        if status is not None or window is not None:
            raise InputError(path, message="--status and --window apply to SWF traces only")
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

    ``info`` holds what is needed to reproduce the run (policy and parameters,
    trace, machine size, seed, filters, schedlab version); ``seconds`` the time
    each phase took, kept out of the output files so that they stay byte-identical.
    ``instance`` is the one simulated, with the run-time model the engine used.
    """

    instance: Instance
    schedule: Schedule
    metrics: dict
    info: dict
    seconds: dict[str, float] = field(default_factory=dict)

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
            raise InputError(str(out), message="--out exists and is not a directory")
        if out.is_dir() and any(out.iterdir()) and not force:
            raise InputError(str(out), message="output directory is not empty (use --force to overwrite)")
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
    return task_instance(tasks, _machine_size(m))


def load_sequential_tasks(path: str | os.PathLike, *, m: int) -> Instance:
    """Sequential tasks of a tasks CSV (:func:`~schedlab.workload.moldable_csv.read_sequential_tasks_csv`)
    on a plain machine of ``m`` processors, for the max-stretch policies of Saule, Bozdag and Catalyurek (2014)."""
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
    m = _machine_size(m)
    if str(path).endswith(".csv"):
        return moldable_instance(read_tasks_csv(path, m=m), m)
    if speedup != "downey":
        raise InputError("--speedup", field="--speedup", value=speedup, expected="downey (the only model for logs)")
    if isinstance(first, bool) or not isinstance(first, int) or first < 1:
        raise InputError("--first", field="--first", value=first, expected="an integer >= 1")
    return moldable_instance(from_swf(path, first=first, m=m, rng=np.random.default_rng(seed)), m)


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
    """
    seconds = {}
    if penalty is not None:
        instance = replace(instance, runtime=parse_penalty(penalty, instance.platform, instance.jobs))
    algorithm = get(policy, kind="online")
    chosen = algorithm.build(params)
    if algorithm.traits.get("runtime") == "partition" and isinstance(instance.runtime, RigidRuntime):
        # Krevat (2003): a job may run on a larger partition than it asked, and is never killed
        instance = replace(instance, runtime=PartitionRuntime(instance.jobs))
    began = time.perf_counter()
    schedule = simulate(instance, chosen, rng=np.random.default_rng(seed), progress=progress)
    seconds["simulate"] = time.perf_counter() - began
    if hasattr(chosen, "seconds_total"):  # time inside a partition scheduler (Krevat 2003), kept out of files
        seconds["scheduler"] = chosen.seconds_total
    if check:
        began = time.perf_counter()
        validate(instance, schedule)
        seconds["validate"] = time.perf_counter() - began
    metrics = aggregate(instance, schedule, tau=tau)
    metrics.update(topology_metrics(instance, schedule))
    metrics.update(partition_metrics(instance, schedule))
    if stretch:
        metrics.update(stretch_metrics(instance, schedule))
    info = {
        "policy": schedule.policy,
        "params": dict(params or {}),
        "workload": instance.jobs.source,
        "n_procs": instance.platform.n_procs,
        "seed": seed,
        "schedlab": __version__,
    }
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
    "load_instance",
    "load_moldable",
    "load_sequential_tasks",
    "moldable_instance",
    "run",
    "tasks_instance",
]
