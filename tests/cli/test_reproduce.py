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


# -- schedlab reproduce io -----------------------------------------------------------------------------
def _rows_without_seconds(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_io_quick_writes_everything(tmp_path):
    from schedlab.experiments.io import QUICK_FAMILIES
    from schedlab.experiments.io import RUN_COLUMNS as IO_COLUMNS

    one = tmp_path / "one"
    result = runner.invoke(reproduce_app, ["io", "--out", str(one), "--quick", "--no-traces", "--quiet"])
    assert result.exit_code == 0, result.output
    for name in (
        "runs.csv",
        "summary.csv",
        "summary.md",
        "summary.html",
        "experiment.json",
        "fig-ratio-lb.png",
        "fig-price.png",
        "fig-ratio-opt.png",
    ):
        assert (one / name).stat().st_size > 0, name
    rows = _rows_without_seconds(one / "runs.csv")
    assert list(rows[0]) == [c for c in IO_COLUMNS if c != "seconds"]
    families = {r["family"] for r in rows}
    assert families == {f.name for f in QUICK_FAMILIES if f.trace is None}
    text = (one / "summary.md").read_text()
    for title in (
        "Worst measured ratios",
        "Makespan / optimum on tiny instances",
        "Price of the constraints",
        "Which lower bound is the best",
        "Pinned two-phase step by step",
    ):
        assert title in text
    assert "| False |" not in text  # no proven ratio exceeded
    assert sorted(p.name for p in (one / "campaigns").iterdir()) == ["io-0.toml", "io-1.toml", "io-2.toml"]
    assert (one / "store").is_dir()


def test_io_errors_are_one_line(tmp_path):
    cases = [
        (["io", "--out", str(tmp_path / "a"), "--quick", "--traces", str(tmp_path)], "(or --no-traces)"),
        (["io", "--out", str(tmp_path / "b"), "--quick", "--no-traces", "--algo", "nope"], "unknown algorithm 'nope'"),
    ]
    for args, message in cases:
        result = runner.invoke(reproduce_app, args)
        assert result.exit_code == 1 and message in result.output, result.output
