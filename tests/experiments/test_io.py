"""The study's runner: instance families, rows, aggregation."""

from __future__ import annotations

import math

import pytest

from schedlab.experiments.io import (
    FULL_FAMILIES,
    QUICK_FAMILIES,
    RUN_COLUMNS,
    Family,
    aggregate,
    expand,
    instance_for,
    run_experiment,
    run_instance,
)

TIMING = {"seconds"}


def strip(rows):
    """Rows without timings, NaN as None (NaN != NaN once pickled by a worker)."""
    return [
        {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items() if k not in TIMING}
        for r in rows
    ]


def test_family_lists():
    names = [f.name for f in FULL_FAMILIES]
    assert len(names) == len(set(names)) == 48 + 3 + 10 + 16
    assert {f.kind for f in FULL_FAMILIES} == {"pinned", "unpinned"}
    assert all(f.name in names or f.name.startswith("tiny-") or f.n == 50 for f in QUICK_FAMILIES)


def test_seeds_depend_on_family_and_sample_only():
    a = expand(FULL_FAMILIES[:3], seed=1)
    b = expand(FULL_FAMILIES[1:3], seed=1)
    assert a[5:] == b  # the first family has 5 samples
    assert len({s for _, _, s in a}) == len(a)


def test_widths_bound_the_generated_jobs():
    for widths, (lo, hi) in (("small", (1, 8)), ("mixed", (1, 18)), ("wide", (9, 36))):
        inst = instance_for(Family("x", "line:m=288,io=32", "unpinned", 300, widths), 3)
        assert lo <= inst.q.min() and inst.q.max() <= hi


def test_rows_are_deterministic_and_independent_of_workers():
    families = [f for f in QUICK_FAMILIES if f.trace is None][:3]
    one = run_experiment(families, seed=4, jobs=1)
    two = run_experiment(families, seed=4, jobs=2)
    assert strip(one) == strip(two)
    assert all(tuple(r) == RUN_COLUMNS for r in one)


def test_exact_family_rows_respect_the_proven_ratios():
    family = Family("tiny", "line:m=10,io=2,mode=exclusive", "unpinned", 5, "mixed", 1, exact=True)
    rows = run_instance(family, 0, 11)
    assert {r["algorithm"] for r in rows} >= {"unpinned", "greedy", "sequential"}
    for r in rows:
        assert r["opt"] >= r["best_lb"] - 1e-9
        assert r["ratio_opt"] >= 1 - 1e-9
        if not math.isnan(r["proven_ratio"]):
            assert r["ratio_opt"] <= r["proven_ratio"] + 1e-9


def test_aggregate_hand_rows():
    base = {c: math.nan for c in RUN_COLUMNS}
    rows = [
        {
            **base,
            "family": "f",
            "sample": 0,
            "algorithm": "pinned",
            "makespan": 6.0,
            "ratio_lb": 1.5,
            "proven_ratio": 6.0,
            "relaxed_convex": 4.0,
            "relaxed_none": 3.0,
            "seconds": 1.0,
        },
        {
            **base,
            "family": "f",
            "sample": 0,
            "algorithm": "greedy",
            "makespan": 5.0,
            "ratio_lb": 1.25,
            "relaxed_convex": 4.0,
            "relaxed_none": 3.0,
            "seconds": 0.5,
        },
        {
            **base,
            "family": "f",
            "sample": 1,
            "algorithm": "pinned",
            "makespan": 4.0,
            "ratio_lb": 2.0,
            "proven_ratio": 6.0,
            "relaxed_convex": 4.0,
            "relaxed_none": 4.0,
            "seconds": 3.0,
        },
        {
            **base,
            "family": "f",
            "sample": 1,
            "algorithm": "greedy",
            "makespan": 4.0,
            "ratio_lb": 2.0,
            "relaxed_convex": 4.0,
            "relaxed_none": 4.0,
            "seconds": 0.5,
        },
    ]
    out = {r["algorithm"]: r for r in aggregate(rows)}
    assert list(out) == ["pinned", "greedy"]
    assert out["pinned"]["mean_ratio_lb"] == pytest.approx(1.75) and out["pinned"]["max_ratio_lb"] == 2.0
    assert out["pinned"]["wins"] == 0.5 and out["greedy"]["wins"] == 1.0
    assert out["pinned"]["price_none"] == pytest.approx((2.0 + 1.0) / 2)
    assert out["pinned"]["seconds"] == 2.0 and math.isnan(out["pinned"]["mean_ratio_opt"])
