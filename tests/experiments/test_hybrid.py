"""Bleuse (2017), ch. 3 reproduction through the campaign runner, and the APPROX-3/2 options it compares."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from hypothesis import given, settings

from hybrid_strategies import check, moldable_instances
from schedlab.campaign import expand, load_campaign
from schedlab.experiments.common import write_campaigns
from schedlab.experiments.hybrid import (
    FULL_GRID,
    QUICK_GRID,
    RUN_COLUMNS,
    STEP_COLUMNS,
    TIMING_COLUMNS,
    Grid,
    aggregate,
    campaign_text,
    experiment_algorithms,
    reproduce,
)
from schedlab.offline.hybrid import approx32, approx32_detail, brute_force_opt, search_of
from schedlab.registry import HYBRID, family, names
from schedlab.workload.hybrid import HybridInstance

TINY = Grid(n=(8, 20), m=(4,), k=(1, 2), samples=1)


def without_timing(rows):
    return [{c: v for c, v in r.items() if c not in TIMING_COLUMNS} for r in rows]


def same(a, b):
    """Row lists equal, NaN equal to NaN."""
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.keys() == y.keys()
        for c in x:
            if isinstance(x[c], float) and math.isnan(x[c]):
                assert isinstance(y[c], float) and math.isnan(y[c]), c
            else:
                assert x[c] == y[c], (c, x, y)


def expanded(tmp_path, grid, seed, names=None):
    """The campaign's runs for ``grid`` (loaded from the spec text the experiment writes)."""
    path = write_campaigns(tmp_path, {"hybrid": campaign_text(grid, seed=seed, names=names)})[0]
    return expand(load_campaign(path))


def test_grids_match_table_3_1(tmp_path):
    """Table 3.1: 4 x 7 x 6 sizes, 10 samples = 1680 instances; the quick grid is a sub-grid."""
    full = {r.generate: r.seed for r in expanded(tmp_path / "f", FULL_GRID, 0, ["approx32"])}
    assert len(full) == 1680
    quick = {r.generate: r.seed for r in expanded(tmp_path / "q", QUICK_GRID, 0, ["approx32"])}
    assert quick.items() <= full.items()  # same seeds: an instance does not depend on the grid
    tiny = expanded(tmp_path / "t", TINY, 3, ["approx32"])
    assert [(dict(r.generate)["n"], dict(r.generate)["k"], r.window_index) for r in tiny] == [
        (8, 1, 0),
        (8, 2, 1),
        (20, 1, 2),
        (20, 2, 3),
    ]
    assert [r.seed for r in tiny] != [r.seed for r in expanded(tmp_path / "t4", TINY, 4, ["approx32"])]
    with pytest.raises(ValueError, match="samples"):
        campaign_text(Grid((1,), (1,), (1,), 0), seed=0)


def test_algorithms_registry_plus_variant():
    algos = experiment_algorithms()
    assert list(algos)[:2] == ["approx32", "approx32-mk"]
    assert list(algos) == names(family=HYBRID)
    assert list(experiment_algorithms(["lpt-seq"])) == ["approx32", "lpt-seq"]  # the reference always runs
    with pytest.raises(ValueError, match="unknown algorithm"):
        experiment_algorithms(["nope"])


def test_rows_match_the_registry_on_the_same_instance(tmp_path):
    """Every row is what the registry's algorithm gives on the same generated instance, solved directly."""
    summary = reproduce(tmp_path / "out", TINY, seed=1)
    assert summary == {**summary, "instances": 4, "failed": 0}
    runs = list(csv.DictReader(open(tmp_path / "out" / "runs.csv", newline="")))
    steps = list(csv.DictReader(open(tmp_path / "out" / "steps.csv", newline="")))
    algos = experiment_algorithms()
    last = [r for r in runs if (r["n"], r["k"]) == ("20", "2")]
    assert [r["algorithm"] for r in last] == list(algos) and tuple(runs[0]) == RUN_COLUMNS
    assert tuple(steps[0]) == STEP_COLUMNS
    record = family(HYBRID)
    instance = record.generate({"n": 20, "m": 4, "k": 2}, int(last[0]["seed"]))
    reference, best = float(last[0]["makespan"]), float(last[0]["best_lower_bound"])
    for row in last:
        schedule = algos[row["algorithm"]].build()(instance)
        assert float(row["makespan"]) == check(instance, schedule) == schedule.makespan
        assert float(row["ratio_reference"]) == pytest.approx(float(row["makespan"]) / reference, rel=1e-12)
        assert float(row["ratio_lower_bound"]) == pytest.approx(float(row["makespan"]) / best, rel=1e-12)
        assert float(row["lower_bound"]) <= float(row["best_lower_bound"]) == best
        assert float(row["makespan"]) >= best * (1 - 1e-12)  # best_lower_bound is a lower bound
        ours = [s for s in steps if (s["n"], s["k"], s["algorithm"]) == ("20", "2", row["algorithm"])]
        assert int(row["steps"]) == len(ours) == (search_of(schedule).n_steps if search_of(schedule) else 0)
    assert float(last[0]["ratio_reference"]) == 1.0
    assert float(last[0]["ratio_lower_bound"]) <= 1.5 * 1.01 + 1e-9  # APPROX-3/2 against OPT >= best LB
    assert 1 <= float(last[0]["mean_sets"]) <= 4 and last[2]["mean_sets"] == ""  # |F(j)| only for the ILP
    assert next(r for r in last if r["algorithm"] == "heft")["lam"] == ""


def test_same_rows_with_one_or_two_workers(tmp_path):
    """Same seed: same CSV rows (timing columns aside) with 1 or 2 worker processes, in grid order."""
    chosen = ["approx2", "lpt-seq", "heft"]
    tables = []
    for jobs in (1, 2):
        calls = []
        reproduce(
            tmp_path / str(jobs),
            TINY,
            seed=5,
            names=chosen,
            jobs=jobs,
            progress=lambda d, t, row, calls=calls: calls.append((d, t)),
        )
        assert calls[-1] == (16, 16)
        rows = list(csv.DictReader(open(tmp_path / str(jobs) / "runs.csv", newline="")))
        tables.append([{c: v for c, v in r.items() if c not in TIMING_COLUMNS} for r in rows])
    assert tables[0] == tables[1]
    assert [(r["n"], r["k"]) for r in tables[0][::4]] == [("8", "1"), ("8", "2"), ("20", "1"), ("20", "2")]


def test_aggregate_by_hand():
    base = {
        "m": 4,
        "k": 1,
        "lower_bound": 1.0,
        "best_lower_bound": 1.0,
        "lam": math.nan,
        "ilp_seconds": math.nan,
        "seed": 0,
        "mean_sets": math.nan,
    }
    rows = [
        {
            **base,
            "n": 10,
            "sample": 0,
            "algorithm": "approx32",
            "makespan": 3.0,
            "ratio_reference": 1.0,
            "ratio_lower_bound": 3.0,
            "steps": 4,
            "seconds": 1.0,
            "mean_sets": 2.0,
        },
        {
            **base,
            "n": 10,
            "sample": 0,
            "algorithm": "x",
            "makespan": 1.5,
            "ratio_reference": 0.5,
            "ratio_lower_bound": 1.5,
            "steps": 0,
            "seconds": 0.5,
        },
        {
            **base,
            "n": 20,
            "sample": 0,
            "algorithm": "approx32",
            "makespan": 2.0,
            "ratio_reference": 1.0,
            "ratio_lower_bound": 2.0,
            "steps": 6,
            "seconds": 3.0,
            "mean_sets": 3.0,
        },
        {
            **base,
            "n": 20,
            "sample": 0,
            "algorithm": "x",
            "makespan": 4.0,
            "ratio_reference": 2.0,
            "ratio_lower_bound": 4.0,
            "steps": 0,
            "seconds": 0.5,
        },
    ]
    overall = aggregate(rows)
    assert [r["algorithm"] for r in overall] == ["approx32", "x"]
    a, x = overall
    assert (a["runs"], a["ratio_reference"], a["ratio_lower_bound"], a["max_ratio_lower_bound"]) == (2, 1.0, 2.5, 3.0)
    assert (a["wins"], a["seconds"], a["steps"], a["mean_sets"]) == (0.5, 2.0, 5.0, 2.5)
    assert (x["ratio_reference"], x["wins"], x["steps"]) == (1.25, 0.5, 0.0) and math.isnan(x["mean_sets"])
    by_n = aggregate(rows, by=("n",))
    assert [(r["n"], r["algorithm"], r["ratio_reference"]) for r in by_n] == [
        (10, "approx32", 1.0),
        (10, "x", 0.5),
        (20, "approx32", 1.0),
        (20, "x", 2.0),
    ]


# -- the APPROX-3/2 options compared by the experiment (objective="makespan", repack=True) ------------------

EXAMPLE_A = HybridInstance.from_tasks(
    4,
    1,
    [
        ([4, 4, 4, 4], 12),
        ([7, 4, 3, 2.5], 3),
        ([12, 6.5, 5, 4], 8),
        ([9, 9, 9, 9], 20),
        ([30, 16, 11, 9], 6),
    ],
)


def test_makespan_objective_on_example_a():
    """Spec 7.2 A at λ = 10: W-minimal puts T3 in set (2) (makespan 12); the makespan objective
    prefers T3 in set (3) (W = 26), which the spec notes gives OPT = 9."""
    work = approx32_detail(EXAMPLE_A, 10)
    mk = approx32_detail(EXAMPLE_A, 10, objective="makespan")
    assert work.chosen.tolist() == [0, 6, 2, 3, 5] and work.schedule.makespan == 12
    assert mk.chosen[2] == 3 and mk.work == 26
    assert check(EXAMPLE_A, mk.schedule, contiguous=True) == 9
    assert approx32(EXAMPLE_A, objective="makespan", repack=True).makespan == 9
    with pytest.raises(ValueError, match="objective"):
        approx32(EXAMPLE_A, objective="time")


@settings(max_examples=40, deadline=None)
@given(moldable_instances())
def test_options_keep_the_guarantee(instance):
    """Thm 3.7 is about feasibility only: every option accepts λ = OPT (the same λ as the thesis's
    objective), builds a contiguous schedule <= 3λ/2, and re-packing never lengthens it."""
    opt, _ = brute_force_opt(instance)
    for lam in (opt, 0.8 * opt):
        ref = approx32_detail(instance, lam)
        plain = approx32_detail(instance, lam, objective="makespan")
        packed = approx32_detail(instance, lam, objective="makespan", repack=True)
        both = approx32_detail(instance, lam, repack=True)
        assert (ref.chosen is None) == (plain.chosen is None) == (packed.chosen is None) == (both.chosen is None)
        if ref.chosen is None:
            assert lam < opt
            continue
        for d in (plain, packed, both):
            assert check(instance, d.schedule, contiguous=True) <= 1.5 * lam * (1 + 1e-12)
        assert packed.schedule.makespan <= plain.schedule.makespan
        assert both.schedule.makespan <= ref.schedule.makespan
    result = approx32(instance, objective="makespan", repack=True)
    assert check(instance, result, contiguous=True) <= 1.5 * 1.01 * opt * (1 + 1e-12)


def test_options_on_a_generated_instance():
    """On a Table 3.1 instance the options accept the same guesses and do not lose to the thesis's objective."""
    point = {"n": 60, "m": 16, "k": 2}
    instance = family(HYBRID).generate(point, family(HYBRID).instance_seed(2, point, 0))
    ref = approx32(instance)
    mk = approx32(instance, objective="makespan", repack=True)
    assert [s.accepted for s in search_of(ref).steps] == [s.accepted for s in search_of(mk).steps]
    assert [s.lam for s in search_of(ref).steps] == [s.lam for s in search_of(mk).steps]
    assert check(instance, mk, contiguous=True) <= ref.makespan * (1 + 1e-12)
    assert mk.makespan <= 1.5 * search_of(mk).lam * (1 + 1e-12)
    assert np.isfinite(mk.makespan)
