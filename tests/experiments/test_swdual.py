"""The reproduction's pieces: planned comparisons by hand, measured searches agree, the tables' shape."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.experiments.swdual import (
    QUERY_SETS,
    Plan,
    cell_check_table,
    measured_comparison,
    planned_comparison,
    query_set,
    run_plan,
    thesis_gcups_table,
    write_report,
)
from schedlab.swdual.calibration import EngineModel, PerformanceModel
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.synthetic import generate_sequences

# CPU 1 GCUPS, GPU 4 GCUPS, no overhead: a query of L residues against 10^9 residues takes L s on a CPU, L/4 on a GPU
FLAT = PerformanceModel(EngineModel("cpu", (1,), (1.0,)), EngineModel("gpu", (1,), (4.0,)))


def test_planned_comparison_by_hand():
    """Lengths 4, 4, 4, 4 on 1 CPU + 1 GPU: GPU-only 4 tasks x 1 s = 4 s; CPU-only 16 s; the best split
    puts 3 tasks on the GPU (3 s) and 1 on the CPU (4 s): makespan 4, lower bound max(1, 4 / 2) = 2."""
    rows = planned_comparison({"four": np.array([4, 4, 4, 4])}, 10**9, FLAT, platforms=((1, 1),))
    by = {r.scheduler: r for r in rows}
    assert by["gpu-only"].makespan == pytest.approx(4) and by["cpu-only"].makespan == pytest.approx(16)
    assert by["dual2"].makespan <= 2 * 4 and by["dual2"].lower_bound == pytest.approx(2)
    assert by["gpu-only"].idle_fraction == pytest.approx(0.5)  # the CPU never works
    assert by["gpu-only"].gcups == pytest.approx(16 * 1e9 / 4 / 1e9)


def test_measured_comparison_same_hits():
    scoring = Scoring.load()
    db = generate_sequences(100, rng=np.random.default_rng(0), max_length=300)
    sets = {"small": generate_sequences(4, rng=np.random.default_rng(1), min_length=10, max_length=200)}
    model = PerformanceModel(EngineModel("pyopal", (100,), (5.0,)), None)
    rows = measured_comparison(sets, db, scoring=scoring, model=model, cpus=2)
    assert [r.scheduler for r in rows] == ["dual2", "self-scheduling", "equal"]
    assert len({r.hits_sha256 for r in rows}) == 1
    assert all(r.gcups == pytest.approx(sets["small"].residues * db.residues / r.makespan / 1e9) for r in rows)


def test_query_sets_and_tables():
    for name, (low, high) in QUERY_SETS.items():
        lengths = query_set(name, 40, rng=np.random.default_rng(0)).lengths
        assert len(lengths) == 40 and lengths.min() >= low and lengths.max() <= high
    assert len(cell_check_table()) == 2 + 7  # header, alignment, 7 datasets
    table = "\n".join(thesis_gcups_table({1000: 9.0}, {"heterogeneous, 2 CPU workers": 17.5}))
    assert "| one CPU worker, query of 1,000 | 9 | 8.2 (one SWIPE core) |" in table
    assert "| search, heterogeneous, 2 CPU workers | 17.5 |" in table and "| 35.81 |" in table


def test_quick_reproduction_writes_its_files(tmp_path):
    plan = Plan(sequences=300, queries=3, cpus=2, schedulers=("dual2", "self-scheduling"), seed=3)
    outcome = run_plan(plan)
    files = write_report(tmp_path, plan, outcome, wall=1.0)
    assert sorted(f.name for f in files) == [
        "claims.md",
        "experiment.json",
        "measured.csv",
        "model.json",
        "planned.csv",
        "summary.md",
    ]
    assert len(outcome.measured) == 2 * len(QUERY_SETS)
    for name in QUERY_SETS:  # every scheduler finds the same hits on a set
        assert len({r.hits_sha256 for r in outcome.measured if r.query_set == name}) == 1
    text = (tmp_path / "summary.md").read_text()
    assert "## Measured searches, 2 CPU workers" in text and "| UniProt | 19.455 / 19.455 / 19.454 |" in text
    claims = (tmp_path / "claims.md").read_text()
    assert "## 1. Tables 2.4-2.5 report consistent times" in claims and "**Verdict: holds.**" in claims
    assert "## 4. CPUs and GPUs together" in claims and "**Verdict: not measurable.**" in claims
    assert (tmp_path / "measured.csv").read_text().startswith("query_set,scheduler,cpus,gpus,makespan")
