"""A whole search on real engines: hits equal to independent scoring whatever the plan; the report's sums."""

from __future__ import annotations

import json

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.swdual.calibration import EngineModel, PerformanceModel
from schedlab.swdual.cpu import ParasailEngine
from schedlab.swdual.hits import top_hits
from schedlab.swdual.reference import gotoh_score
from schedlab.swdual.runtime import Worker, WorkerError
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.search import OUTPUT_FILES, make_workers, search, write_files
from schedlab.swdual.synthetic import generate_sequences

B62 = Scoring.load()
MODEL = PerformanceModel(EngineModel("pyopal", (100, 1000), (4.0, 8.0), 1e-3), None)
DB = generate_sequences(300, rng=np.random.default_rng(0), max_length=800)
QUERIES = generate_sequences(
    6, rng=np.random.default_rng(1), min_length=20, max_length=400, lengths="uniform", prefix="q"
)


def test_hits_equal_parasail_ranking_for_every_scheduler_and_worker_count():
    parasail = ParasailEngine(DB, B62)
    expected = [top_hits(parasail.scores(q), 10).tolist() for q in QUERIES.texts]
    tables = set()
    for cpus in (1, 2):
        for scheduler in ("dual2", "self-scheduling", "equal", "eft", "cpu-only"):
            result = search(QUERIES, DB, scoring=B62, model=MODEL, cpus=cpus, scheduler=scheduler, top=10)
            assert [r.tolist() for r in result.run.rows] == expected
            tables.add(result.hits_tsv())
    assert len(tables) == 1


def test_tiny_search_against_the_reference():
    db = generate_sequences(15, rng=np.random.default_rng(4), max_length=60)
    queries = generate_sequences(2, rng=np.random.default_rng(5), min_length=5, max_length=50, prefix="q")
    result = search(queries, db, scoring=B62, model=MODEL, cpus=2, top=0)
    for j, query in enumerate(queries.texts):
        reference = [gotoh_score(query, t, B62) for t in db.texts]
        ranked = sorted(range(len(db)), key=lambda i: (-reference[i], i))
        assert result.run.rows[j].tolist() == ranked
        assert result.run.scores[j].tolist() == [reference[i] for i in ranked]


def test_report_accounts_for_every_cell_and_second():
    result = search(QUERIES, DB, scoring=B62, model=MODEL, cpus=2, scheduler="dual2", top=3)
    report = result.report()
    cells = QUERIES.residues * DB.residues
    assert report["cells"] == cells == sum(t["cells"] for t in report["tasks"])
    assert report["gcups"] == pytest.approx(cells / report["makespan"] / 1e9)
    for worker in report["workers"]:
        assert worker["busy"] + worker["idle"] == pytest.approx(report["makespan"])
        assert worker["tasks"] == sum(t["worker"] == worker["name"] for t in report["tasks"])
    predicted = MODEL.cpu.times(QUERIES.lengths, DB.residues)
    assert [t["predicted_time"] for t in report["tasks"]] == pytest.approx(predicted.tolist())
    assert report["lambda"] is not None and report["lambda_lower"] <= report["predicted_makespan"]
    assert report["predicted_makespan"] <= 2 * report["lambda"] * (1 + 1e-9)
    assert report["scoring"] == {
        "matrix": "BLOSUM62",
        "gap_start": 11,
        "gap_extend": 1,
        "engine_gap_open": 12,
        "engine_gap_extend": 1,
    }
    assert len(result.hits_tsv().splitlines()) == 1 + 3 * len(QUERIES)


def test_outputs_written_whole(tmp_path):
    result = search(QUERIES, DB, scoring=B62, model=MODEL, cpus=1, top=2)
    out = tmp_path / "hits"
    write_files(out, result.files())
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)  # no temporary file left
    assert json.loads((out / "report.json").read_text())["top"] == 2
    assert (out / "hits.tsv").read_text() == result.hits_tsv()


class _Dying:
    name, kind = "dying", "cpu"

    def scores(self, query):
        raise MemoryError("worker process killed")


def test_dying_worker_fails_the_search_before_any_output(tmp_path):
    out = tmp_path / "hits"
    workers = make_workers(DB, B62, cpus=1, gpus=0) + [Worker("cpu1", "cpu", _Dying())]
    with pytest.raises(WorkerError, match="worker cpu1 failed on query 'q0000"):
        write_files(out, search(QUERIES, DB, scoring=B62, model=MODEL, cpus=2, workers=workers).files())
    assert not out.exists()


def test_platform_errors():
    from schedlab.swdual.gpu import gpu_count

    if gpu_count() == 0:
        with pytest.raises(InputError, match=r"gpus = 1, expected at most 0 \(CUDA devices"):
            make_workers(DB, B62, cpus=1, gpus=1)
    with pytest.raises(InputError, match="cpus \\+ gpus = 0, expected at least one worker"):
        make_workers(DB, B62, cpus=0, gpus=0)
    with pytest.raises(InputError, match="no GPU model for 1 gpu worker"):
        search(QUERIES, DB, scoring=B62, model=MODEL, cpus=1, gpus=1)
