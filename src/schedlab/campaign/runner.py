"""Run a campaign: a local process pool by default, a Dask cluster with the same code.

Source: issue 3, point 2. Each run goes through :func:`schedlab.runner.load_instance`
and :func:`schedlab.runner.run`, so a campaign run means exactly what
``schedlab simulate`` means. The runs are submitted to a
:class:`concurrent.futures.Executor`: a :class:`~concurrent.futures.ProcessPoolExecutor`
(``jobs`` processes), a Dask ``Client(scheduler).get_executor()``, or any
executor passed in. This process collects the results as they finish and
writes each one at once into the store (:class:`~schedlab.campaign.store.Store`),
so workers need no shared file system and a killed campaign loses at most the
runs in flight. A run that raises is stored as ``failed`` with its error and
the campaign goes on.
"""

from __future__ import annotations

import functools
import json
import os
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Callable

from schedlab.campaign.expand import RunConfig, expand
from schedlab.campaign.spec import Campaign, metric_names
from schedlab.campaign.store import Store
from schedlab.errors import InputError

__all__ = ["CampaignOutcome", "ProgressCallback", "execute", "pending_runs", "run_campaign"]

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


def execute(config: RunConfig) -> dict:
    """Run one configuration and return its store row; never raises for a failing run.

    Any exception of the run (bad trace, illegal decision, validation error, a
    bug in a policy) becomes ``state = "failed"`` with ``error = "Type: message"``
    and null metrics: one bad run must not stop a campaign of thousands.
    """
    from schedlab import __version__
    from schedlab.runner import run

    began = time.perf_counter()
    row = _config_row(config)
    row["schedlab_version"] = __version__
    try:
        instance, report = _load(config)
        row["load_seconds"] = time.perf_counter() - began
        result = run(
            instance, config.policy, dict(config.params), seed=config.seed, tau=config.tau, check=config.validate, report=report
        )
    except Exception as error:  # noqa: BLE001 -- recorded as data, see the docstring
        row.update(state="failed", error=f"{type(error).__name__}: {error}")
    else:
        row.update(state="done", error=None, n_procs=instance.platform.n_procs)
        row.update({name: result.metrics.get(name) for name in metric_names()})
        row["simulate_seconds"] = result.seconds.get("simulate")
        row["validate_seconds"] = result.seconds.get("validate")
    row["wall_seconds"] = time.perf_counter() - began
    return row


def _load(config: RunConfig):
    """The run's instance: the whole filtered trace (read once per process), cut to the run's window.

    Equals ``load_instance(trace, procs=, status=, window=config.window)`` job
    for job (the window filter is the last one and keeps trace order), without
    parsing the trace again for every window; tested against it.
    """
    from schedlab.schedule import Instance
    from schedlab.workload.windows import cut

    stat = os.stat(config.trace_path)
    instance, report = _load_whole(config.trace_path, config.procs, config.status, stat.st_mtime_ns, stat.st_size)
    if config.window is None:
        return instance, report
    return Instance(cut(instance.jobs, config.window), instance.platform), report


@functools.lru_cache(maxsize=2)
def _load_whole(path: str, procs: int | None, status: int | None, _mtime_ns: int, _size: int):
    from schedlab.runner import load_instance

    return load_instance(path, procs=procs, status=status)


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
    store.clean()
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
        if progress is not None:
            progress(len(outcome.executed), len(todo), row)

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
    return outcome


def _dask_client(address: str):
    """A Dask client of the scheduler at ``address``; InputError when it cannot connect."""
    from distributed import Client

    try:
        return Client(address)
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
            except Exception as error:  # noqa: BLE001 -- the worker died (the run itself never raises)
                outcome.lost.append((config.run_id, f"{type(error).__name__}: {error}"))
                continue
            stored(row)
    finally:
        for future in futures:
            future.cancel()
