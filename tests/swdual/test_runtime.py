"""The master-worker runtime: plans followed, hits independent of scheduler and workers, failures named."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from schedlab.swdual.runtime import Worker, WorkerError, run_plan
from schedlab.swdual.scheduling import SCHEDULERS, make_plan, worker_names
from schedlab.swdual.sequences import sequence_set

QUERIES = sequence_set(
    ["MKV" * k for k in range(1, 10)], alphabet="ACDEFGHIKLMNPQRSTVWY", names=[f"q{k}" for k in range(1, 10)]
)


class _TieEngine:
    """Scores with many ties: ``(|q| * (row + 1)) mod 7`` over 50 rows; records its threads."""

    name = "tie"

    def __init__(self, kind: str = "cpu", fail_on: str | None = None):
        self.kind, self.fail_on = kind, fail_on
        self.threads: list[str] = []

    def scores(self, query: str) -> np.ndarray:
        self.threads.append(threading.current_thread().name)
        if query == self.fail_on:
            raise RuntimeError("device lost")
        return (len(query) * np.arange(1, 51)) % 7


def _workers(cpus: int, gpus: int, engine=None) -> list[Worker]:
    engine = engine or _TieEngine()
    return [Worker(name, "cpu" if name.startswith("cpu") else "gpu", engine) for name in worker_names(cpus, gpus)]


def _plan(scheduler: str, cpus: int, gpus: int):
    lengths = QUERIES.lengths.astype(float)
    return make_plan(lengths, lengths / 3, cpus=cpus, gpus=gpus, scheduler=scheduler)


def test_hits_do_not_depend_on_scheduler_or_workers():
    expected = None
    for cpus, gpus in ((1, 0), (2, 0), (3, 0), (1, 1), (2, 2), (0, 1)):
        for scheduler in SCHEDULERS:
            if (scheduler == "cpu-only" and not cpus) or (scheduler == "gpu-only" and not gpus):
                continue
            result = run_plan(QUERIES, _workers(cpus, gpus), _plan(scheduler, cpus, gpus), top=5)
            got = [(r.tolist(), s.tolist()) for r, s in zip(result.rows, result.scores)]
            expected = expected or got
            assert got == expected, (scheduler, cpus, gpus)
    # q1 has |q| = 3: scores 3, 6, 2, 5, 1, 4, 0, ... -> the best (6) at rows 1, 8, 15, ... (ties by row)
    assert expected[0] == ([1, 8, 15, 22, 29], [6, 6, 6, 6, 6])


def test_static_plan_is_followed_in_order():
    plan = _plan("dual2", 2, 1)
    engine = _TieEngine()
    result = run_plan(QUERIES, _workers(2, 1, engine), plan, top=3)
    assert [r.worker for r in result.runs] == plan.worker.tolist()
    for queue in plan.queues():
        starts = [result.runs[j].start for j in queue]
        assert starts == sorted(starts)
    assert all(r.end >= r.start >= 0 for r in result.runs)
    assert result.makespan == max(r.end for r in result.runs)
    assert set(engine.threads) <= set(worker_names(2, 1))


def test_dynamic_plan_runs_each_task_once():
    seen = []
    result = run_plan(QUERIES, _workers(2, 0), _plan("self-scheduling", 2, 0), on_task=seen.append)
    assert sorted(r.task for r in seen) == list(range(len(QUERIES)))
    assert sorted(r.task for r in result.runs) == list(range(len(QUERIES)))


def test_failing_worker_fails_the_run_with_its_name():
    plan = _plan("equal", 2, 0)
    bad_query = QUERIES.texts[plan.queues()[1][0]]
    workers = [Worker("cpu0", "cpu", _TieEngine()), Worker("cpu1", "cpu", _TieEngine(fail_on=bad_query))]
    name = QUERIES.names[QUERIES.texts.index(bad_query)]
    with pytest.raises(WorkerError, match=f"worker cpu1 failed on query '{name}': RuntimeError: device lost"):
        run_plan(QUERIES, workers, plan)


def test_worker_count_must_match_plan():
    with pytest.raises(ValueError, match="3 workers for a plan of 2"):
        run_plan(QUERIES, _workers(3, 0), _plan("dual2", 2, 0))
