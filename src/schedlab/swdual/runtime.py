"""The master-worker runtime: one thread per worker runs its queries; the master merges ranked hits.

Source: Mendonca (2017), chapter 2, section 2.4 and Figure 2.6: the master
builds one task per query, allocates them once ("one round master-slave"),
the workers run their tasks and return results, the master merges them.
Self-scheduling (section 2.1) is the "iterative" mode of the same runtime:
an idle worker pulls the next task of a shared queue in input order.

Workers are threads: the engines release the GIL while aligning, so ``m``
CPU threads use ``m`` cores, and a GPU thread mostly waits for its device.
A worker that raises stops the run: the others finish the task in hand and
take no more, and :class:`WorkerError` names the worker, the query and the cause.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter

import numpy as np

from schedlab.errors import SchedlabError
from schedlab.swdual.cpu import Engine
from schedlab.swdual.hits import top_hits
from schedlab.swdual.scheduling import Plan
from schedlab.swdual.sequences import SequenceSet

__all__ = ["RunResult", "TaskRun", "Worker", "WorkerError", "run_plan"]


class WorkerError(SchedlabError):
    """A worker failed mid-search; the message names it, its query and the cause."""


@dataclass(frozen=True)
class Worker:
    """A named worker (``cpu0``, ``gpu1``...) of kind ``cpu`` or ``gpu`` and the engine it runs."""

    name: str
    kind: str
    engine: Engine


@dataclass(frozen=True, slots=True)
class TaskRun:
    """One executed task: its worker id and measured interval (seconds from the start of the run)."""

    task: int
    worker: int
    start: float
    end: float


@dataclass(frozen=True, eq=False)
class RunResult:
    """Per task its ranked database rows and their scores, and every measured :class:`TaskRun` (by task)."""

    rows: list[np.ndarray]
    scores: list[np.ndarray]
    runs: list[TaskRun]

    @property
    def makespan(self) -> float:
        return max((r.end for r in self.runs), default=0.0)


def run_plan(
    queries: SequenceSet,
    workers: list[Worker],
    plan: Plan,
    *,
    top: int = 10,
    on_task: Callable[[TaskRun], None] | None = None,
) -> RunResult:
    """Run every query on the workers as ``plan`` says; return ranked hits and measured times.

    Parameters
    ----------
    queries : SequenceSet
        Task ``j`` is ``queries.texts[j]`` against the engines' database.
    workers : list of Worker
        In plan id order: ``plan.cpus`` CPU workers, then ``plan.gpus`` GPU workers.
    plan : Plan
        Static plans fix each worker's queue (in predicted start order);
        dynamic ones (self-scheduling) let idle workers pull tasks in input order.
    top : int
        Hits kept per query (<= 0: all, ranked).
    on_task : callable, optional
        Called (from the worker's thread) after each task, e.g. for a progress bar.

    Raises
    ------
    WorkerError
        When a worker's engine raises; nothing of the run is returned.

    Notes
    -----
    Cost: the engines' work; per task O(n) to rank the scores.
    """
    if len(workers) != plan.cpus + plan.gpus:
        raise ValueError(f"{len(workers)} workers for a plan of {plan.cpus + plan.gpus}")
    n = len(queries)
    rows: list[np.ndarray | None] = [None] * n
    scores: list[np.ndarray | None] = [None] * n
    runs: list[TaskRun | None] = [None] * n
    stop = threading.Event()
    failures: list[tuple[str, int, BaseException]] = []
    lock = threading.Lock()
    queues = plan.queues()
    pending = iter(range(n))

    def next_task(w: int, position: int) -> int | None:
        if stop.is_set():
            return None
        if plan.dynamic:
            with lock:
                return next(pending, None)
        return queues[w][position] if position < len(queues[w]) else None

    t0 = perf_counter()

    def work(w: int) -> None:
        worker = workers[w]
        position = 0
        while (j := next_task(w, position)) is not None:
            position += 1
            try:
                start = perf_counter() - t0
                all_scores = worker.engine.scores(queries.texts[j])
                end = perf_counter() - t0
                hit_rows = top_hits(all_scores, top)
            except BaseException as error:
                with lock:
                    failures.append((worker.name, j, error))
                stop.set()
                return
            rows[j], scores[j] = hit_rows, all_scores[hit_rows]
            run = runs[j] = TaskRun(j, w, start, end)
            if on_task is not None:
                on_task(run)

    threads = [threading.Thread(target=work, args=(w,), name=workers[w].name, daemon=True) for w in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        names = [worker.name for worker in workers]
        name, j, error = min(failures, key=lambda f: names.index(f[0]))  # lowest worker id: a stable message
        raise WorkerError(f"worker {name} failed on query {queries.names[j]!r}: {type(error).__name__}: {error}")
    return RunResult(rows, scores, runs)  # type: ignore[arg-type]
