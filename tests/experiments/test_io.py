"""The I/O-aware study: families, campaigns, rows from the store, tables."""

from __future__ import annotations

import math
import tomllib

import pytest

from schedlab.errors import ArgumentError
from schedlab.experiments.io import (
    FULL_FAMILIES,
    QUICK_FAMILIES,
    RUN_COLUMNS,
    Family,
    aggregate,
    campaign_texts,
    family_algorithms,
    reproduce,
    summary_tables,
    worst_ratios,
)


def test_family_lists():
    names = [f.name for f in FULL_FAMILIES]
    assert len(names) == len(set(names)) == 48 + 3 + 10 + 16
    assert {f.kind for f in FULL_FAMILIES} == {"pinned", "unpinned"}
    assert all(f.n <= 6 for f in QUICK_FAMILIES if f.name.startswith("tiny-"))


def test_algorithm_sets():
    assert family_algorithms(Family("a", "line:m=12,io=3", "unpinned", 5)) == (
        "unpinned",
        "unpinned-ffdh",
        "greedy",
        "sequential",
    )
    assert family_algorithms(Family("b", "line:m=12,io=3", "pinned", 5, "small")) == (
        "pinned",
        "pinned-best",
        "per-io-node",
        "greedy",
        "sequential",
    )
    assert "unit-pinned" in family_algorithms(Family("c", "line:m=12,io=3", "pinned", 5, p_max=1))
    assert "unit-pinned" not in family_algorithms(Family("d", "ring:m=12,io=3", "pinned", 5, p_max=1))


def test_campaigns_group_families_by_algorithms(tmp_path):
    texts = campaign_texts(QUICK_FAMILIES, seed=3, traces=tmp_path)
    specs = [tomllib.loads(t) for t in texts.values()]
    assert sum(len(s["workloads"]) for s in specs) == len(QUICK_FAMILIES)
    for spec in specs:
        assert spec["seed"] == 3 and spec["validate"] is True
        for workload in spec["workloads"]:
            grid = workload["generate"]["grid"]
            family = next(f for f in QUICK_FAMILIES if f.name == workload["name"])
            assert grid["platform"] == family.platform and grid["n"] == family.n
            assert [p["name"] for p in spec["policies"]] == list(family_algorithms(family))
            assert (grid["trace"] != "") == (family.trace is not None)
    only = campaign_texts(QUICK_FAMILIES, seed=3, traces=tmp_path, names=["greedy"])
    assert all([p["name"] for p in tomllib.loads(t)["policies"]] == ["greedy"] for t in only.values())
    with pytest.raises(ArgumentError, match="unknown algorithm 'nope'"):
        campaign_texts(QUICK_FAMILIES, seed=3, names=["nope"])


def test_reproduce_rows_are_complete_and_independent_of_workers(tmp_path):
    families = [f for f in QUICK_FAMILIES if f.trace is None and f.n <= 6][:2]  # tiny: seconds, not minutes
    one = reproduce(tmp_path / "one", families, seed=4, jobs=1)
    two = reproduce(tmp_path / "two", families, seed=4, jobs=2)
    assert one["failed"] == two["failed"] == 0 and one["runs"] == two["runs"] > 0
    strip = [(tmp_path / d / "runs.csv").read_text().splitlines() for d in ("one", "two")]
    # every column but the last (seconds) is the same
    assert [line.rsplit(",", 1)[0] for line in strip[0]] == [line.rsplit(",", 1)[0] for line in strip[1]]
    assert strip[0][0] == ",".join(RUN_COLUMNS)
    again = reproduce(tmp_path / "one", families, seed=4, jobs=1)  # the store is reused
    assert again["runs"] == one["runs"]


def test_exact_rows_respect_the_proven_ratios(tmp_path):
    families = [Family("tiny", "line:m=10,io=2,mode=exclusive", "unpinned", 5, "mixed", 2)]
    reproduce(tmp_path, families, seed=11)
    import csv

    rows = list(csv.DictReader(open(tmp_path / "runs.csv")))
    assert {r["algorithm"] for r in rows} == {"unpinned", "unpinned-ffdh", "greedy", "sequential"}
    for r in rows:
        assert float(r["opt"]) >= float(r["best_lb"]) - 1e-9 and float(r["ratio_opt"]) >= 1 - 1e-9
        if r["proven_ratio"]:
            assert float(r["ratio_opt"]) <= float(r["proven_ratio"]) + 1e-9


def _row(**values):
    base = {c: math.nan for c in RUN_COLUMNS}
    base.update(
        family="f",
        kind="pinned",
        topology="line",
        mode="shared",
        widths="mixed",
        p_max=100,
        io_per_job=1,
        m_io=32,
        tight_bound="lp",
    )
    base.update(values)
    return base


def test_aggregate_and_tables_on_hand_rows():
    rows = [
        _row(
            sample=0,
            algorithm="pinned",
            makespan=6.0,
            ratio_lb=1.5,
            proven_ratio=6.0,
            relaxed_convex=4.0,
            relaxed_none=3.0,
            seconds=1.0,
            best_lb=4.0,
            lb_area=2.0,
            lb_longest=4.0,
            lp=4.0,
            rounded=5.0,
        ),
        _row(
            sample=0,
            algorithm="greedy",
            makespan=5.0,
            ratio_lb=1.25,
            relaxed_convex=4.0,
            relaxed_none=3.0,
            seconds=0.5,
            best_lb=4.0,
            lb_area=2.0,
            lb_longest=4.0,
        ),
        _row(
            sample=1,
            algorithm="pinned",
            makespan=4.0,
            ratio_lb=2.0,
            proven_ratio=6.0,
            relaxed_convex=4.0,
            relaxed_none=4.0,
            seconds=3.0,
            best_lb=2.0,
            lb_area=2.0,
            lb_longest=1.0,
            lp=2.0,
            rounded=2.0,
        ),
        _row(
            sample=1,
            algorithm="greedy",
            makespan=4.0,
            ratio_lb=2.0,
            relaxed_convex=4.0,
            relaxed_none=4.0,
            seconds=0.5,
            best_lb=2.0,
            lb_area=2.0,
            lb_longest=1.0,
        ),
    ]
    out = {r["algorithm"]: r for r in aggregate(rows)}
    assert list(out) == ["pinned", "greedy"]
    assert out["pinned"]["mean_ratio_lb"] == pytest.approx(1.75) and out["pinned"]["max_ratio_lb"] == 2.0
    assert out["pinned"]["wins"] == 0.5 and out["greedy"]["wins"] == 1.0
    assert out["pinned"]["price_none"] == pytest.approx((2.0 + 1.0) / 2)
    assert out["pinned"]["seconds"] == 2.0 and math.isnan(out["pinned"]["mean_ratio_opt"])
    tables = {title.split(" (")[0].split(",")[0]: (head, body) for title, head, body in summary_tables(rows)}
    head, body = tables["Price of the constraints"]
    assert body == [
        [
            "pinned",
            "line",
            "shared",
            2,
            pytest.approx((5 / 4 + 4 / 4) / 2),
            pytest.approx((5 / 3 + 1) / 2),
            pytest.approx((1 + 1) / 2),
        ]
    ]
    head, body = tables["Pinned two-phase step by step: rounding"]
    assert body[0][3] == pytest.approx((5 / 4 + 1) / 2) and body[0][5] == pytest.approx((6 / 5 + 4 / 2) / 2)
    worst = worst_ratios(rows)
    assert worst == [
        {
            "algorithm": "pinned",
            "proven (max)": 6.0,
            "worst / OPT": pytest.approx(math.nan, nan_ok=True),
            "worst / best LB": 2.0,
            "holds": True,
        }
    ]


def test_report_draws_the_figures_its_rows_allow(tmp_path):
    families = [Family("tiny", "ring:m=10,io=2", "pinned", 4, "mixed", 1)]
    reproduce(tmp_path, families, seed=2)
    assert (tmp_path / "fig-ratio-opt.png").exists() and (tmp_path / "fig-price.png").exists()
    assert not (tmp_path / "fig-ratio-lb.png").exists()  # no instance beyond the exact solver's reach
