"""Run a campaign: a local process pool by default, a Dask cluster with the same code.

Each run goes through :func:`schedlab.runner.load_instance`
and :func:`schedlab.runner.run`, so a campaign run means exactly what
``schedlab simulate`` means. The runs are submitted to a
:class:`concurrent.futures.Executor`: a :class:`~concurrent.futures.ProcessPoolExecutor`
(``jobs`` processes), a Dask ``Client(scheduler).get_executor()``, or any
executor passed in. This process collects the results as they finish and
writes each one at once into the store (:class:`~schedlab.campaign.store.Store`),
so workers need no shared file system and a killed campaign loses at most the
runs in flight. A run that raises is stored as ``failed`` with its error and
the campaign goes on.

A run of a tasks workload (Lucarelli, Mendonca and Trystram 2017) converts its window's jobs to sequential
tasks (:func:`task_instance`) and stores, besides the usual metrics, the
columns of :data:`schedlab.campaign.store.TASK_COLUMNS` (:func:`task_metrics`).
A run of a workload whose jobs become moldable tasks (``moldable``) draws its
instance (:func:`moldable_instance`) and stores the moldable-task family's
columns; a generated workload runs its family's offline algorithms or online
policies on the family's instances.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from schedlab.campaign.expand import RunConfig, expand
from schedlab.campaign.spec import Campaign, metric_names
from schedlab.campaign.store import COMPACT_EVERY, PARTITION_COLUMNS, TOPOLOGY_COLUMNS, Store
from schedlab.errors import InputError

__all__ = [
    "CampaignOutcome",
    "ProgressCallback",
    "RunTimeout",
    "execute",
    "pending_runs",
    "run_campaign",
    "moldable_instance",
    "run_spec_files",
    "task_instance",
    "task_metrics",
    "time_limit",
]

ProgressCallback = Callable[[int, int, dict], None]
"""``progress(finished, total, row)`` after each stored run (``total``: runs submitted this time)."""


@dataclass
class CampaignOutcome:
    """What one invocation of :func:`run_campaign` did.

    ``executed``: ids of the runs stored by this invocation, in the order they
    finished; ``failed``: those of them stored as failed; ``skipped``: runs
    already in the store; ``lost``: ``(run_id, error)`` of runs whose worker
    died or could not return a result (not stored: they stay pending).
    """

    total: int
    skipped: int
    executed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    lost: list[tuple[str, str]] = field(default_factory=list)


class RunTimeout(Exception):
    """A run went on past the campaign's ``timeout``."""


def execute(config: RunConfig) -> dict:
    """Run one configuration and return its store row; never raises for a failing run.

    Any exception of the run (bad trace, illegal decision, validation error, a
    bug in a policy) becomes ``state = "failed"`` with ``error = "Type: message"``
    and null metrics: one bad run must not stop a campaign of thousands. So does
    a run that goes on past ``config.timeout`` seconds (:class:`RunTimeout`, see
    :func:`time_limit`).
    """
    began = time.perf_counter()
    try:
        with time_limit(config.timeout):
            return _execute(config, began)
    except RunTimeout as error:
        from schedlab import __version__

        row = _config_row(config)
        row.update(state="failed", error=f"RunTimeout: {error}", schedlab_version=__version__)
        row["wall_seconds"] = time.perf_counter() - began
        return row


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`RunTimeout` in this thread when the block is still running after ``seconds`` (None: no limit).

    A timer thread raises the exception asynchronously (``PyThreadState_SetAsyncExc``), which works in a
    pool's worker process, in this process and in a Dask worker's thread alike (a signal would only reach
    the main thread). Python delivers it between bytecodes: a run inside one long call into compiled code
    (a linear-programming solve) stops when that call returns. Leaving the block disarms the timer and
    drops an exception not yet delivered, so nothing is raised after the block.
    """
    if seconds is None:
        yield
        return
    target = ctypes.c_ulong(threading.get_ident())
    lock = threading.Lock()
    armed = [True]

    message = f"the run took longer than the campaign's timeout of {seconds:g} s"
    # Python raises a class given this way, instantiated without arguments: one that carries the message
    expired = type("RunTimeout", (RunTimeout,), {"__init__": lambda self: RunTimeout.__init__(self, message)})

    def fire() -> None:
        with lock:
            if armed[0]:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(expired))

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            armed[0] = False
            timer.cancel()
            ctypes.pythonapi.PyThreadState_SetAsyncExc(target, None)  # drop one set but not yet raised


def _execute(config: RunConfig, began: float) -> dict:
    """:func:`execute` without the time limit."""
    from schedlab import __version__
    from schedlab.runner import run, tasks_instance

    row = _config_row(config)
    row["schedlab_version"] = __version__
    if config.generate is not None:
        return _execute_generated(config, row, began)
    if config.moldable is not None:
        return _execute_moldable(config, row, began)
    if config.platform is not None:
        row.update(platform=config.platform, penalty=config.penalty)
    if config.span is not None or config.runtime_scale != 1.0:
        row["runtime_scale"] = config.runtime_scale
    params, tasks = dict(config.params), None
    try:
        if config.tasks is None:
            instance, report = _load(config)
            if config.sample is not None:
                instance = _sampled(instance, config)
        else:
            tasks, report = task_instance(config)
            instance = tasks_instance(tasks)
            params = _clamp_dedicated(config, params, tasks.n_procs, row)
        row["load_seconds"] = time.perf_counter() - began
        result = run(
            instance,
            config.policy,
            params,
            seed=config.seed,
            tau=config.tau,
            check=config.validate,
            report=report,
            penalty=config.penalty,
            runtime_scale=config.runtime_scale,
        )
    except Exception as error:
        row.update(state="failed", error=f"{type(error).__name__}: {error}")
    else:
        row.update(state="done", error=None, n_procs=instance.platform.n_procs)
        row.update({name: result.metrics.get(name) for name in metric_names()})
        if tasks is not None:
            row.update(task_metrics(tasks, result.schedule, tau=config.tau))
        if config.platform is not None:
            row.update(
                {name: result.metrics.get(name) for name, _ in TOPOLOGY_COLUMNS if name not in ("platform", "penalty")}
            )
        if "w_util" in result.metrics:
            row.update({name: result.metrics.get(name) for name, _ in PARTITION_COLUMNS if name != "runtime_scale"})
            row.setdefault("runtime_scale", config.runtime_scale)
        row["simulate_seconds"] = result.seconds.get("simulate")
        row["validate_seconds"] = result.seconds.get("validate")
    row["wall_seconds"] = time.perf_counter() - began
    return row


def _sampled(instance, config: RunConfig):
    """Job sample ``config.window_index`` of the filtered trace (every release at 0)."""
    from schedlab.schedule import Instance
    from schedlab.workload.windows import job_sample

    options: dict = dict(config.sample or ())
    jobs = job_sample(
        instance.jobs,
        int(options["jobs"]),
        int(config.window_index or 0),
        seed=int(options["seed"]),
        replacement=bool(options["replacement"]),
        block=bool(options["block"]),
    )
    return Instance(jobs, instance.platform)


def _execute_generated(config: RunConfig, row: dict, began: float) -> dict:
    """An algorithm of the family on a generated instance: an offline one solves it, an online policy runs on
    the engine; validate, measure (the family's values too)."""
    from schedlab.metrics import aggregate
    from schedlab.registry import family, get
    from schedlab.runner import run
    from schedlab.validation import validate

    record = family(config.family or "")
    row["family"] = record.name
    measures = {name: None for name, _ in record.columns}
    try:
        point = {k: v for k, v in (config.generate or ()) if k != "sample"}
        tasks = record.generate(point, config.seed)
        common = record.common(tasks)
        algorithm = get(config.policy, family=record.name)
        row["load_seconds"] = time.perf_counter() - began
        if algorithm.kind == "online":
            result = run(
                common, config.policy, dict(config.params), seed=config.seed, tau=config.tau, check=config.validate
            )
            schedule, metrics = result.schedule, result.metrics
            row["simulate_seconds"] = result.seconds.get("simulate")
            row["validate_seconds"] = result.seconds.get("validate")
        else:
            solve = algorithm.build(dict(config.params))
            started = time.perf_counter()
            schedule = solve(tasks)
            row["simulate_seconds"] = time.perf_counter() - started
            if config.validate:
                started = time.perf_counter()
                validate(common, schedule, contiguous=bool(algorithm.traits.get("contiguous", False)))
                row["validate_seconds"] = time.perf_counter() - started
            metrics = aggregate(common, schedule, tau=config.tau)
        measures.update(record.measure(tasks, schedule))
    except Exception as error:
        row.update(state="failed", error=f"{type(error).__name__}: {error}")
    else:
        row.update(state="done", error=None, n_procs=common.platform.n_procs)
        row.update({name: metrics.get(name) for name in metric_names()})
    row.update(measures)
    row["wall_seconds"] = time.perf_counter() - began
    return row


def _execute_moldable(config: RunConfig, row: dict, began: float) -> dict:
    """A policy on the trace's jobs as moldable tasks (instance ``window_index``), measured as the moldable-task
    family measures its generated instances."""
    from schedlab.registry import MOLDABLE, family
    from schedlab.runner import run

    record = family(MOLDABLE)
    row["family"] = record.name
    measures = {name: None for name, _ in record.columns}
    try:
        instance = moldable_instance(config)
        row["load_seconds"] = time.perf_counter() - began
        result = run(
            instance, config.policy, dict(config.params), seed=config.seed, tau=config.tau, check=config.validate
        )
        measures.update(record.measure(instance, result.schedule))
    except Exception as error:
        row.update(state="failed", error=f"{type(error).__name__}: {error}")
    else:
        row.update(state="done", error=None, n_procs=instance.platform.n_procs)
        row.update({name: result.metrics.get(name) for name in metric_names()})
        row["simulate_seconds"] = result.seconds.get("simulate")
        row["validate_seconds"] = result.seconds.get("validate")
    row.update(measures)
    row["wall_seconds"] = time.perf_counter() - began
    return row


def moldable_instance(config: RunConfig):
    """Instance ``window_index`` of a workload whose jobs become moldable tasks: drawn with seed ``seed +
    window_index``, equal to ``schedlab moldable simulate --seed`` with that seed (tested).

    Source: Saule, Bozdag and Catalyurek (2014), section 7 (logs as moldable tasks with Downey speed-ups).
    """
    settings: dict[str, Any] = dict(config.moldable or ())
    stamp = os.stat(config.trace_path).st_mtime_ns if config.trace_path else 0
    seed = int(settings["seed"]) + int(config.window_index or 0)
    return _moldable_instance(config.trace_path, config.moldable, seed, stamp)


@functools.lru_cache(maxsize=2)
def _moldable_instance(trace_path: str, moldable: tuple, seed: int, _mtime_ns: int):
    """One drawn instance, kept for the next runs of this process (the policies of one instance run in a row)."""
    from schedlab.runner import load_moldable

    settings = dict(moldable)
    return load_moldable(trace_path, m=settings["m"], first=settings["first"], seed=seed, speedup=settings["speedup"])


def task_instance(config: RunConfig):
    """The sequential tasks of a tasks run: its window's jobs, shifted to start at 0, converted.

    Equals :func:`schedlab.workload.tasks.load_tasks` on the same window (tested): the jobs of
    :func:`~schedlab.campaign.expand.task_jobs` (read once per process), cut to ``config.window``,
    shifted by the window's start, converted with the workload's ``conversion`` and ``rounding``, on
    ``m_inst`` processors when the workload fixes it.

    Returns
    -------
    (TaskWorkload, FilterReport)
    """
    from schedlab.workload.tasks import convert
    from schedlab.workload.windows import cut, shift_to_zero

    assert config.trace_path is not None and config.tasks is not None  # a tasks workload reads a trace
    stat = os.stat(config.trace_path)
    whole, report = _load_task_jobs(config.trace_path, config.procs, stat.st_mtime_ns, stat.st_size)
    jobs = whole.jobs
    if config.window is not None:
        jobs = shift_to_zero(cut(jobs, config.window), origin=config.window[0])
    options: dict = dict(config.tasks)
    tasks = convert(jobs, report.machine_procs, conversion=options["conversion"], rounding=options["rounding"])
    if options.get("m_inst") is not None:  # reading LMT-A18, fixed processor count: same tasks, another machine
        m = int(options["m_inst"])
        tasks = replace(tasks, n_procs=m, load=tasks.load * tasks.n_procs / m)
    return replace(tasks, window=config.window), report


def _clamp_dedicated(config: RunConfig, params: dict, m_inst: int, row: dict) -> dict:
    """Reading LMT-A7 (docs/readings.md): m_d above m_inst - 1 becomes m_inst - 1 (when the workload clamps); recorded in the row."""
    if "dedicated" not in params:
        return params
    wanted = int(params["dedicated"])
    used = wanted
    if dict(config.tasks or ()).get("clamp_dedicated", True) and wanted > m_inst - 1:
        if m_inst < 2:
            raise InputError(
                "policy",
                message=f"m_inst = {m_inst}: no room for a dedicated pool (reading LMT-A7, docs/readings.md), run skipped",
            )
        used = m_inst - 1
    row["dedicated_used"] = used
    return {**params, "dedicated": used}


def task_metrics(tasks, schedule, *, tau: float = 10.0) -> dict:
    """The measures of a tasks run (the columns of :data:`~schedlab.campaign.store.TASK_COLUMNS`): the
    conversion's Q, m_inst and load, the release span, and :func:`schedlab.metrics.flow_stretch`.

    Source: Lucarelli, Mendonca and Trystram (2017), sections II and V.
    Cost: O(n).
    """
    import numpy as np

    from schedlab.metrics import flow_stretch
    from schedlab.runner import tasks_instance

    jobs = tasks.jobs
    out = {
        "conversion": tasks.conversion,
        "mean_procs": tasks.mean_procs,
        "task_load": tasks.load if np.isfinite(tasks.load) else None,
        "release_span": float(jobs.submit.max() - jobs.submit.min()) if len(jobs) else None,
    }
    out.update(flow_stretch(tasks_instance(tasks), schedule, bound=tau))
    return out


@functools.lru_cache(maxsize=2)
def _load_task_jobs(path: str, procs: int | None, _mtime_ns: int, _size: int):
    from schedlab.campaign.expand import task_jobs

    return task_jobs(path, procs=procs)


def _load(config: RunConfig):
    """The run's instance: the whole filtered trace (read once per process), cut to the run's window.

    Equals ``load_instance(trace, procs=, status=, window=config.window, platform=)`` job
    for job (the window filter is the last one and keeps trace order), without
    parsing the trace again for every window; tested against it.
    """
    from schedlab.schedule import Instance
    from schedlab.workload.filters import scale_times
    from schedlab.workload.windows import cut

    assert config.trace_path is not None  # runs of generated instances do not load traces
    stat = os.stat(config.trace_path)
    if config.span is not None:
        instance, report = _load_span(config.trace_path, config.procs, config.span, config.platform, stat.st_mtime_ns)
    else:
        instance, report = _load_whole(
            config.trace_path, config.procs, config.status, config.platform, stat.st_mtime_ns, stat.st_size
        )
        if config.window is not None:
            instance = Instance(cut(instance.jobs, config.window), instance.platform)
    if config.runtime_scale != 1.0:
        instance = Instance(scale_times(instance.jobs, config.runtime_scale), instance.platform)
    return instance, report


@functools.lru_cache(maxsize=2)
def _load_span(path: str, procs: int | None, span: tuple[int, int | None], platform: str | None, _mtime_ns: int):
    """A span of the log mapped as Krevat (2003) (:func:`schedlab.workload.spans.span_jobs`), on ``platform``
    (its size), else a plain machine of ``procs`` or the trace's size."""
    from schedlab.platform.homogeneous import Machine
    from schedlab.platform.registry import parse_platform
    from schedlab.schedule import Instance
    from schedlab.workload.spans import span_jobs
    from schedlab.workload.swf import machine_size, read_swf

    trace = read_swf(path)
    machine = parse_platform(platform) if platform is not None else Machine(machine_size(trace, procs)[0])
    jobs, report = span_jobs(trace, machine.n_procs, skip=span[0], count=span[1])
    return Instance(jobs, machine), report


@functools.lru_cache(maxsize=2)
def _load_whole(path: str, procs: int | None, status: int | None, platform: str | None, _mtime_ns: int, _size: int):
    from schedlab.runner import load_instance

    return load_instance(path, procs=procs, status=status, platform=platform)


def _config_row(config: RunConfig) -> dict:
    window = config.window
    row = {
        "run_id": config.run_id,
        "campaign": config.campaign,
        "workload": config.workload,
        "trace": config.trace,
        "procs": config.procs,
        "status_filter": config.status,
        "window_index": config.window_index,
        "window_start": None if window is None else window[0],
        "window_end": None if window is None else window[1],
        "window_jobs": config.window_jobs,
        "window_load": config.window_load,
        "policy": config.policy,
        "params": json.dumps(dict(config.params), sort_keys=True),
        "label": config.label,
        "repetition": config.repetition,
        "seed": config.seed,
        "tau": config.tau,
        "validate": config.validate,
    }
    row.update({f"param_{key}": str(value) for key, value in config.params})
    row.update({f"gen_{key}": str(value) for key, value in config.generate or ()})
    return row


def pending_runs(runs: list[RunConfig], store: Store, *, retry_failed: bool = False) -> list[RunConfig]:
    """The runs not yet in the store (and the failed ones when ``retry_failed``), in expansion order."""
    states = store.states()
    keep = {"failed"} if retry_failed else set()
    return [config for config in runs if config.run_id not in states or states[config.run_id] in keep]


def run_campaign(
    campaign: Campaign,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    executor: Executor | None = None,
    retry_failed: bool = False,
    limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> CampaignOutcome:
    """Run every run of ``campaign`` that is not in its store yet, storing each as it finishes.

    Parameters
    ----------
    campaign : Campaign
    jobs : int, optional
        Local worker processes (default: ``os.cpu_count()``); 1 runs them one
        after the other in this process. Ignored with ``scheduler`` or ``executor``.
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``): runs go to its
        workers through ``Client(scheduler).get_executor()``.
    executor : concurrent.futures.Executor, optional
        Any executor (a Dask ``client.get_executor()``, a thread pool in
        tests); it is not shut down here.
    retry_failed : bool, default False
        Run again the runs stored as failed (by default a failed run is finished).
    limit : int, optional
        Submit at most this many pending runs (the first ones in expansion order).
    progress : callable, optional
        ``progress(finished, total, row)`` after each run is stored. An
        exception it raises (KeyboardInterrupt included) stops the campaign:
        runs not started are cancelled, runs in flight are dropped, every
        stored run stays stored.

    Returns
    -------
    CampaignOutcome
    """
    store = Store(campaign.store)
    store.compact()  # also removes what interrupted writes left
    runs = expand(campaign)
    todo = pending_runs(runs, store, retry_failed=retry_failed)
    outcome = CampaignOutcome(total=len(runs), skipped=len(runs) - len(todo))
    if limit is not None:
        todo = todo[: max(0, int(limit))]
    if not todo:
        return outcome

    def stored(row: dict) -> None:
        store.write(row)
        outcome.executed.append(row["run_id"])
        if row["state"] == "failed":
            outcome.failed.append(row["run_id"])
        if len(outcome.executed) % COMPACT_EVERY == 0:
            store.compact()
        if progress is not None:
            progress(len(outcome.executed), len(todo), row)

    try:
        if executor is not None:
            _drain(executor, todo, stored, outcome)
        elif scheduler is not None:
            with _dask_client(scheduler) as client:
                _drain(client.get_executor(), todo, stored, outcome)
        elif (jobs if jobs is not None else os.cpu_count() or 1) <= 1:
            for config in todo:
                stored(execute(config))
        else:
            pool = ProcessPoolExecutor(max_workers=jobs or os.cpu_count())
            try:
                _drain(pool, todo, stored, outcome)
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
    finally:
        store.compact()
    return outcome


def run_spec_files(paths, *, jobs: int = 1, progress: ProgressCallback | None = None) -> tuple[list, float]:
    """Run several campaign spec files through one process pool (the reproductions' driver).

    Returns each campaign's results table (pandas, its expanded runs only, in ``paths`` order) and the wall
    seconds; ``progress(finished, total, row)`` counts the distinct runs of all campaigns.
    """
    from schedlab.campaign.spec import load_campaign
    from schedlab.campaign.store import campaign_results

    began = time.perf_counter()
    campaigns = [load_campaign(path) for path in paths]
    expanded = [expand(c) for c in campaigns]
    total = len({config.run_id for runs in expanded for config in runs})
    finished = 0

    def step(_done: int, _total: int, row: dict) -> None:
        nonlocal finished
        finished += 1
        if progress is not None:
            progress(finished, total, row)

    pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
    try:
        for campaign in campaigns:
            run_campaign(campaign, jobs=1, executor=pool, retry_failed=True, progress=step)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    wall = time.perf_counter() - began
    return [campaign_results(c, runs).to_pandas() for c, runs in zip(campaigns, expanded)], wall


SCHEDULER_TIMEOUT = 5.0
"""Seconds to wait for a Dask scheduler before giving up (Dask's default is 30)."""


def _dask_client(address: str):
    """A Dask client of the scheduler at ``address``; InputError when it cannot connect."""
    from distributed import Client

    try:
        return Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, ValueError) as error:
        raise InputError("--scheduler", message=f"cannot connect to Dask scheduler {address!r}: {error}") from None


def _drain(executor: Executor, todo: list[RunConfig], stored: Callable[[dict], None], outcome: CampaignOutcome) -> None:
    """Submit every run, store results as they complete; cancel what is left on any exception."""
    futures: dict[Future, RunConfig] = {}
    try:
        for config in todo:
            futures[executor.submit(execute, config)] = config
        for future in as_completed(futures):
            config = futures[future]
            try:
                row = future.result()
            except Exception as error:
                outcome.lost.append((config.run_id, f"{type(error).__name__}: {error}"))
                continue
            stored(row)
    finally:
        for future in futures:
            future.cancel()
