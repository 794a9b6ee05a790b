"""``schedlab swdual``: generate, calibrate, schedule, search through the command line; one-line errors."""

from __future__ import annotations

import csv
import json

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.swdual.calibration import EngineModel, PerformanceModel
from schedlab.swdual.cpu import ParasailEngine
from schedlab.swdual.hits import top_hits
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.sequences import read_fasta

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, ["swdual", *[str(a) for a in args]])


@pytest.fixture
def fasta(tmp_path):
    db, queries = tmp_path / "seq.fasta.gz", tmp_path / "q.fasta"
    assert (
        invoke("generate", "--sequences", 200, "--seed", 1, "--max-length", 600, "--gzip", "--out", tmp_path).exit_code
        == 0
    )
    result = invoke(
        "generate",
        "-n",
        5,
        "--seed",
        2,
        "--min-length",
        30,
        "--max-length",
        300,
        "--lengths",
        "uniform",
        "--prefix",
        "q",
        "--out",
        tmp_path,
    )
    assert result.exit_code == 0, result.output
    return queries, db


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.json"
    PerformanceModel(EngineModel("pyopal", (100, 1000), (3.0, 8.0), 1e-4), None).write(path)
    return path


def test_generate_is_seeded(tmp_path):
    for name in ("a", "b"):
        result = invoke("generate", "-n", 20, "--seed", 5, "--out", tmp_path / name)
        assert result.exit_code == 0 and "20 sequences" in result.output
    assert (tmp_path / "a" / "seq.fasta").read_bytes() == (tmp_path / "b" / "seq.fasta").read_bytes()
    result = invoke("generate", "-n", 20, "--out", tmp_path / "a")
    assert result.exit_code == 1 and "seq.fasta: file exists (use --force to overwrite)" in result.output


def test_search_writes_hits_equal_to_parasail(tmp_path, fasta, model):
    queries, db = fasta
    result = invoke(
        "search", queries, db, "--cpus", 2, "--model", model, "--top", 3, "--out", tmp_path / "hits", "--gantt"
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader((tmp_path / "hits" / "hits.tsv").open(), delimiter="\t"))
    scoring = Scoring.load()
    qs, database = read_fasta(queries, alphabet=scoring.alphabet), read_fasta(db, alphabet=scoring.alphabet)
    engine = ParasailEngine(database, scoring)
    expected = []
    for name, text in zip(qs.names, qs.texts):
        scores = engine.scores(text)
        expected += [(name, database.names[r], str(scores[r]), str(k)) for k, r in enumerate(top_hits(scores, 3), 1)]
    assert [(r["query"], r["target"], r["score"], r["rank"]) for r in rows] == expected
    report = json.loads((tmp_path / "hits" / "report.json").read_text())
    assert report["scheduler"] == "dual2" and len(report["tasks"]) == 5 and report["cpus"] == 2
    assert (tmp_path / "hits" / "gantt.png").stat().st_size > 0


def test_same_hits_whatever_scheduler_and_workers(tmp_path, fasta, model):
    queries, db = fasta
    tables = set()
    for scheduler, cpus in (("dual2", 1), ("self-scheduling", 2), ("equal", 2)):
        out = tmp_path / f"{scheduler}{cpus}"
        result = invoke(
            "search", queries, db, "--cpus", cpus, "--scheduler", scheduler, "--model", model, "--out", out, "--quiet"
        )
        assert result.exit_code == 0 and result.output == "", result.output
        tables.add((out / "hits.tsv").read_bytes())
    assert len(tables) == 1


def test_search_calibrates_without_a_model(tmp_path, fasta):
    queries, db = fasta
    result = invoke("search", queries, db, "--cpus", 1, "--out", tmp_path / "hits")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "hits" / "report.json").read_text())
    assert report["model"]["cpu"]["engine"] == "pyopal" and len(report["model"]["cpu"]["gcups"]) == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gpus", 1, "--cpus", 1], "gpus = 1, expected at most 0"),
        (["--matrix", "BLOSUM99"], "matrix = BLOSUM99"),
        (["--gap-extend", 0], "gap extend = 0, expected an integer >= 1"),
        (["--scheduler", "fifo"], "scheduler = fifo"),
    ],
)
def test_search_errors_leave_no_output(tmp_path, fasta, model, args, message):
    from schedlab.swdual.gpu import gpu_count

    if gpu_count():
        pytest.skip("this machine has a GPU")
    queries, db = fasta
    result = invoke("search", queries, db, "--model", model, "--out", tmp_path / "hits", *args)
    assert result.exit_code == 1 and message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "hits" / "hits.tsv").exists()


def test_malformed_fasta_is_one_line(tmp_path, fasta, model):
    queries, _ = fasta
    bad = tmp_path / "bad.fa"
    bad.write_text(">a\nMKV\n>b\nMK2\n")
    result = invoke("search", queries, bad, "--model", model, "--out", tmp_path / "hits")
    assert result.exit_code == 1 and "bad.fa:4: record 'b' = '2'" in result.output
    assert not (tmp_path / "hits").exists()


def test_existing_results_need_force(tmp_path, fasta, model):
    queries, db = fasta
    args = ["search", queries, db, "--model", model, "--out", tmp_path / "hits", "--quiet"]
    assert invoke(*args).exit_code == 0
    again = invoke(*args)
    assert again.exit_code == 1 and "output directory is not empty (use --force to overwrite)" in again.output
    assert invoke(*args, "--force").exit_code == 0


def test_schedule_from_times(tmp_path):
    tasks = tmp_path / "tasks.csv"
    tasks.write_text("task,cpu_time,gpu_time\na,4,1\nb,4,2\nc,4,3\nd,1,4\n")
    result = invoke(
        "schedule", tasks, "--cpus", 1, "--gpus", 1, "--scheduler", "dual2,eft", "--json", "--gantt", tmp_path / "g.png"
    )
    assert result.exit_code == 0, result.output
    plans = json.loads(result.output)
    assert plans["dual2"]["predicted_makespan"] == 6  # spec 3.1 hand instance (see tests/swdual/test_scheduling.py)
    assert [t["planned_worker"] for t in plans["dual2"]["tasks"]] == ["gpu0", "gpu0", "gpu0", "cpu0"]
    assert (tmp_path / "g_dual2.png").exists() and (tmp_path / "g_eft.png").exists()


def test_schedule_from_lengths_and_model(tmp_path, model):
    tasks = tmp_path / "tasks.csv"
    tasks.write_text("query,length\nq1,100\nq2,1000\n")
    result = invoke("schedule", tasks, "--cpus", 2, "--model", model, "--residues", 10**9, "--json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)["dual2"]
    # 100 x 10^9 / 3 GCUPS and 1000 x 10^9 / 8 GCUPS, plus 10^-4 s each
    assert [t["predicted_time"] for t in plan["tasks"]] == pytest.approx([100 / 3 + 1e-4, 125 + 1e-4])


def test_schedule_residues_from_the_database_index(tmp_path, fasta, model):
    _, db = fasta
    residues = sum(len(t) for t in read_fasta(db, alphabet=Scoring.load().alphabet).texts)
    tasks = tmp_path / "tasks.csv"
    tasks.write_text("query,length\nq1,1000\n")
    result = invoke("schedule", tasks, "--model", model, "--db", db, "--json")
    assert result.exit_code == 0, result.output
    # 1000 residues x the database's residues at 8 GCUPS, plus the overhead
    expected = 1000 * residues / 8e9 + 1e-4
    assert json.loads(result.output)["dual2"]["tasks"][0]["predicted_time"] == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "extra", "message"),
    [
        ("task,cpu_time,gpu_time\na,4,x\n", [], "tasks.csv:2: gpu_time = x, expected a number"),
        ("task,cpu_time,gpu_time\na,4,-1\n", [], "tasks.csv:2: gpu_time = -1, expected a finite number > 0"),
        ("task,time\na,4\n", [], "tasks.csv:1: expected columns cpu_time and gpu_time"),
        ("query,length\nq,5\n", [], "a length column needs --model and --residues or --db"),
    ],
)
def test_schedule_errors(tmp_path, text, extra, message):
    tasks = tmp_path / "tasks.csv"
    tasks.write_text(text)
    result = invoke("schedule", tasks, *extra)
    assert result.exit_code == 1 and message in result.output


def test_calibrate_writes_a_model(tmp_path, fasta):
    _, db = fasta
    path = tmp_path / "model" / "model.json"
    result = invoke(
        "calibrate",
        "--cpus",
        1,
        "--db",
        db,
        "--lengths",
        "50,200",
        "--sample-residues",
        20000,
        "--repeats",
        1,
        "--out",
        path.parent,
    )
    assert result.exit_code == 0, result.output
    model = PerformanceModel.read(path)
    assert model.cpu.lengths == (50, 200) and model.gpu is None and all(g > 0 for g in model.cpu.gcups)
    assert model.calibration["sample_residues"] >= 20000
    bad = invoke("calibrate", "--lengths", "200,50", "--out", tmp_path / "x")
    assert bad.exit_code == 1 and "--lengths = 200,50, expected increasing integers" in bad.output


def test_reproduce_swdual_tiny(tmp_path):
    out = tmp_path / "report"
    result = runner.invoke(
        app,
        [
            "reproduce",
            "swdual",
            "--out",
            str(out),
            "--sequences",
            "200",
            "--queries",
            "2",
            "--scheduler",
            "dual2",
            "--scheduler",
            "equal",
            "--seed",
            "4",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader((out / "measured.csv").open()))
    assert [r["scheduler"] for r in rows] == ["dual2", "equal", "dual2", "equal"]
    assert rows[0]["hits_sha256"] == rows[1]["hits_sha256"] and rows[2]["hits_sha256"] == rows[3]["hits_sha256"]
    assert json.loads((out / "experiment.json").read_text())["plan"]["sequences"] == 200
    again = runner.invoke(app, ["reproduce", "swdual", "--out", str(out), "--quick"])
    assert again.exit_code == 1 and "use --force" in again.output


def test_platform_checked_before_reading(tmp_path, model):
    """A bad platform is refused before the (here unreadable) FASTA files are opened."""
    from schedlab.swdual.gpu import gpu_count

    if gpu_count():
        pytest.skip("this machine has a GPU")
    result = invoke("search", tmp_path / "none.fa", tmp_path / "none.fa", "--gpus", 1, "--out", tmp_path / "o")
    assert result.exit_code == 1 and "gpus = 1, expected at most 0" in result.output
    result = invoke("calibrate", "--cpus", 1, "--cpu-engine", "swipe", "--out", tmp_path / "m")
    assert result.exit_code == 1 and "cpu engine = swipe, expected pyopal or parasail" in result.output
