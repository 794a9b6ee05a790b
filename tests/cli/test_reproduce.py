"""``schedlab reproduce hybrid``: files, rows and columns, figures, determinism, one-line errors."""

from __future__ import annotations

import csv
import json

from typer.testing import CliRunner

from schedlab.cli.reproduce import reproduce_app
from schedlab.experiments.hybrid import RUN_COLUMNS, STEP_COLUMNS, TIMING_COLUMNS, experiment_algorithms
from schedlab.report.hybrid_plots import FIGURES

runner = CliRunner()
TINY = ["--quick", "--n", "8", "--n", "16", "--m", "4", "--k", "1", "--k", "2"]  # 4 instances


def invoke(*args):
    return runner.invoke(reproduce_app, ["hybrid", *(str(a) for a in args)])


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_tiny_grid_writes_everything(tmp_path):
    out = tmp_path / "report"
    result = invoke("--out", out, *TINY, "--seed", "7")
    assert result.exit_code == 0, result.output
    runs = read(out / "runs.csv")
    names = list(experiment_algorithms())
    assert tuple(runs[0]) == RUN_COLUMNS
    assert len(runs) == 4 * len(names)
    assert [r["algorithm"] for r in runs[: len(names)]] == names
    assert {(r["n"], r["k"]) for r in runs} == {("8", "1"), ("8", "2"), ("16", "1"), ("16", "2")}
    for r in runs:
        if r["algorithm"] == "approx32":
            assert float(r["ratio_reference"]) == 1.0 and 1 <= float(r["mean_sets"]) <= 4
        assert float(r["ratio_lower_bound"]) >= 1 - 1e-12
    steps = read(out / "steps.csv")
    assert tuple(steps[0]) == STEP_COLUMNS
    assert len([s for s in steps if s["algorithm"] == "approx2"]) == sum(
        int(r["steps"]) for r in runs if r["algorithm"] == "approx2"
    )
    summary = read(out / "summary.csv")
    assert len(summary) == 4 * len(names)
    md = (out / "summary.md").read_text()
    assert "| approx32 | 4 | 1.000 |" in md and "## Mean makespan / APPROX-3/2 per n" in md
    assert "<table>" in (out / "summary.html").read_text()
    for name in FIGURES:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
    meta = json.loads((out / "experiment.json").read_text())
    assert meta["instances"] == 4 and meta["seed"] == 7 and meta["grid"]["k"] == [1, 2]


def test_same_seed_same_csv_except_timing(tmp_path):
    """Jobs 1 vs 2, same seed: identical runs.csv and steps.csv once the timing columns are dropped."""
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    args = (*TINY, "--algo", "approx2,lpt-seq")
    assert invoke("--out", a, *args).exit_code == 0
    assert invoke("--out", b, *args, "--jobs", "2").exit_code == 0
    assert invoke("--out", c, *args, "--seed", "1").exit_code == 0
    for name in ("runs.csv", "steps.csv"):
        ra, rb = read(a / name), read(b / name)
        strip = [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in ra]
        assert strip == [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rb]
    assert [r["algorithm"] for r in read(a / "runs.csv")[:3]] == ["approx32", "approx2", "lpt-seq"]
    assert [r["makespan"] for r in read(a / "runs.csv")] != [r["makespan"] for r in read(c / "runs.csv")]


def test_errors_are_one_line(tmp_path):
    out = tmp_path / "full"
    out.mkdir()
    (out / "x").write_text("")
    result = invoke("--out", out, *TINY)
    assert result.exit_code == 1 and "not empty" in result.output
    result = invoke("--out", tmp_path / "new", *TINY, "--algo", "nope")
    assert result.exit_code == 1 and "nope" in result.output
    result = invoke("--out", tmp_path / "new", *TINY, "--jobs", "0")
    assert result.exit_code == 1 and "--jobs" in result.output
    assert not (tmp_path / "new").exists()
