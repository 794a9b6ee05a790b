"""A SWDUAL database search end to end: workers, plan, run, ranked hits and the run report.

Source: Mendonca (2017), chapter 2, sections 2.2.3-2.4: one task per query
against the whole database, allocated once by dual approximation (section
2.3) from predicted CPU and GPU times, run by CPU-core and GPU workers,
merged by the master. The report adds what the thesis measures (section
2.5: wall-clock time, GCUPS) and what it only asserts ("almost no idle
time"): predicted and measured task times and busy/idle time per worker.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedlab.errors import InputError
from schedlab.swdual.calibration import PerformanceModel
from schedlab.swdual.cpu import make_cpu_engine
from schedlab.swdual.hits import hits_tsv
from schedlab.swdual.runtime import RunResult, TaskRun, Worker, run_plan
from schedlab.swdual.scheduling import Plan, make_plan, worker_names
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.sequences import SequenceSet

__all__ = ["OUTPUT_FILES", "SearchResult", "check_platform", "make_workers", "search", "write_files"]

OUTPUT_FILES = ("hits.tsv", "report.json")


def check_platform(cpus: int, gpus: int) -> None:
    """Refuse bad worker counts before any file is read (InputError, one line).

    Raises
    ------
    InputError
        On negative counts, no worker at all, or more GPUs than numba sees
        (``--gpus 1`` on a machine without a GPU or without numba-cuda).
    """
    for field, value in (("cpus", cpus), ("gpus", gpus)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError("platform", field=field, value=value, expected="an integer >= 0")
    if cpus + gpus == 0:
        raise InputError("platform", field="cpus + gpus", value=0, expected="at least one worker")
    if gpus:
        from schedlab.swdual.gpu import gpu_count

        found = gpu_count()
        if gpus > found:
            raise InputError(
                "platform",
                field="gpus",
                value=gpus,
                expected=f"at most {found} (CUDA devices visible to numba-cuda on this machine)",
            )


def make_workers(
    database: SequenceSet, scoring: Scoring, *, cpus: int, gpus: int, cpu_engine: str = "pyopal"
) -> list[Worker]:
    """``cpus`` CPU workers sharing one thread-safe CPU engine, then one GPU worker per CUDA device.

    Raises
    ------
    InputError
        As :func:`check_platform`, or on an unknown CPU engine.
    """
    check_platform(cpus, gpus)
    workers: list[Worker] = []
    if cpus:
        engine = make_cpu_engine(cpu_engine, database, scoring)
        workers += [Worker(name, "cpu", engine) for name in worker_names(cpus, 0)]
    if gpus:
        from schedlab.swdual.gpu import CudaEngine

        workers += [Worker(f"gpu{g}", "gpu", CudaEngine(database, scoring, device=g)) for g in range(gpus)]
    return workers


@dataclass(frozen=True, eq=False)
class SearchResult:
    """A finished search: inputs, the plan, the measured run, and the report built from them."""

    queries: SequenceSet
    database: SequenceSet
    scoring: Scoring
    model: PerformanceModel
    plan: Plan
    workers: tuple[Worker, ...]
    run: RunResult
    top: int

    @property
    def cells(self) -> int:
        """``Σ|q| Σ|d|``: cell updates of the whole search (section 2.5's GCUPS numerator)."""
        return self.queries.residues * self.database.residues

    def hits_tsv(self) -> str:
        return hits_tsv(self.queries.names, self.database.names, self.run.rows, self.run.scores)

    def report(self) -> dict:
        """The JSON report: per task predicted vs measured, per worker busy/idle, makespan, λ, cells, GCUPS."""
        makespan = self.run.makespan
        residues = self.database.residues
        report = self.plan.report(self.queries.names)
        n_workers = len(self.workers)
        busy, cells, count = np.zeros(n_workers), np.zeros(n_workers), np.zeros(n_workers, dtype=np.int64)
        for task, r in zip(report["tasks"], self.run.runs):
            length = int(self.queries.lengths[r.task])
            busy[r.worker] += r.end - r.start
            cells[r.worker] += length * residues
            count[r.worker] += 1
            task.update(
                {
                    "length": length,
                    "cells": length * residues,
                    "worker": self.workers[r.worker].name,
                    "start": r.start,
                    "end": r.end,
                    "time": r.end - r.start,
                }
            )
        for i, (entry, worker) in enumerate(zip(report["workers"], self.workers)):
            entry.update(
                {
                    "engine": worker.engine.name,
                    "tasks": int(count[i]),
                    "busy": float(busy[i]),
                    "idle": float(makespan - busy[i]),
                    "gcups": float(cells[i] / busy[i] / 1e9) if busy[i] > 0 else 0.0,
                }
            )
        idle = float(n_workers * makespan - busy.sum())
        report.update(
            {
                "top": self.top,
                "makespan": makespan,
                "cells": self.cells,
                "gcups": self.cells / makespan / 1e9 if makespan > 0 else 0.0,
                "idle_fraction": idle / (n_workers * makespan) if makespan > 0 else 0.0,
                "queries": {
                    "source": self.queries.source,
                    "sequences": len(self.queries),
                    "residues": self.queries.residues,
                },
                "database": {"source": self.database.source, "sequences": len(self.database), "residues": residues},
                "scoring": self.scoring.describe(),
                "model": self.model.to_json(),
            }
        )
        return report

    def files(self) -> dict[str, str]:
        """Name -> content of the output files (:data:`OUTPUT_FILES`)."""
        import json

        return {"hits.tsv": self.hits_tsv(), "report.json": json.dumps(self.report(), indent=1) + "\n"}


def search(
    queries: SequenceSet,
    database: SequenceSet,
    *,
    scoring: Scoring,
    model: PerformanceModel,
    cpus: int,
    gpus: int = 0,
    scheduler: str = "dual2",
    top: int = 10,
    workers: list[Worker] | None = None,
    cpu_engine: str = "pyopal",
    on_task: Callable[[TaskRun], None] | None = None,
) -> SearchResult:
    """Search every query against the database on ``cpus`` CPU-core and ``gpus`` GPU workers.

    Source: Mendonca (2017), chapter 2, sections 2.3-2.4.
    Guarantee: the hits depend only on the sequences, the scoring and ``top``
    (not on the scheduler, the workers or their speed); the plan's predicted
    makespan is within the scheduler's guarantee of the optimum for the
    model's times.
    Cost: ``Σ|q| Σ|d|`` cell updates spread over the workers.

    Parameters
    ----------
    queries, database : SequenceSet
    scoring : Scoring
    model : PerformanceModel
        Predicts each task's CPU and GPU time (:mod:`schedlab.swdual.calibration`).
    cpus, gpus : int
        Workers of each kind.
    scheduler : str, default "dual2"
        See :data:`schedlab.swdual.scheduling.SCHEDULERS`.
    top : int, default 10
        Hits kept per query (<= 0: all).
    workers : list of Worker, optional
        Ready workers (tests pass fakes); default :func:`make_workers`.
    cpu_engine : {"pyopal", "parasail"}
    on_task : callable, optional
        Progress callback, see :func:`~schedlab.swdual.runtime.run_plan`.

    Raises
    ------
    InputError
        On a bad platform, scheduler or model.
    WorkerError
        When a worker fails mid-search.
    """
    model.require(cpus, gpus)
    if workers is None:
        workers = make_workers(database, scoring, cpus=cpus, gpus=gpus, cpu_engine=cpu_engine)
    cpu_time, gpu_time = model.task_times(queries.lengths, database.residues)
    plan = make_plan(cpu_time, gpu_time, cpus=cpus, gpus=gpus, scheduler=scheduler)
    run = run_plan(queries, workers, plan, top=top, on_task=on_task)
    return SearchResult(queries, database, scoring, model, plan, tuple(workers), run, top)


def write_files(out: Path, files: dict[str, str]) -> list[Path]:
    """Write every file through a temporary name and ``os.replace``: a reader never sees half a file."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        fd, tmp = tempfile.mkstemp(dir=out, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            os.replace(tmp, out / name)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(out / name)
    return written
