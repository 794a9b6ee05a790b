"""The max-stretch reproduction (Saule, Bozdag and Catalyurek 2014): plans, campaign texts, Fig. 1(b), the best
reservation per instance and the claims checker, on hand-made result tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab.campaign import expand, load_campaign
from schedlab.cli import app
from schedlab.errors import InputError
from schedlab.experiments.stretch import (
    CAMPAIGNS,
    FIG1B,
    best_reservation,
    check_claims,
    fig1b_table,
    plan,
    workload_seed,
    write_campaigns,
)


def test_default_quick_and_full_grid_plans(traces_dir):
    default = plan(traces_dir)
    assert (default.n_seq, default.m_seq, default.deltas) == (20000, 300, tuple(FIG1B))
    assert default.log_instances == 20 and default.first == 8000 and len(default.ssm_loads) == 7
    assert len(default.reserved) * len(default.thresholds["dasedf"]) == 16
    full = plan(traces_dir, full_grid=True, instances=5)
    assert len(full.reserved) * len(full.thresholds["fcfs-stretch"]) == 70
    assert len(full.reserved) * len(full.thresholds["dasedf"]) == 63
    assert full.seq_instances == full.ssm_instances == 5
    quick = plan(traces_dir, quick=True)
    assert quick.m_seq == 30 and quick.scale == pytest.approx(0.1)


def test_bad_plans(tmp_path, traces_dir):
    with pytest.raises(InputError, match="--instances"):
        plan(traces_dir, instances=0)
    with pytest.raises(InputError, match="SDSC-Par log not found"):
        plan(tmp_path)


def test_campaigns_expand_as_planned_and_share_the_plain_runs(tmp_path, traces_dir):
    """Quick plan: 3 Delta x 2 loads x 3 policies; reservation 2 instances x (2 plain + 2 x 2 x 2 grid points); two
    logs x 2 draws x 4 policies; 2 SSM-like loads x (4 policies + 3 rho). The plain FCFS and DASEDF runs of the
    reservation campaign are runs of the sequential one (same ids: computed once)."""
    quick = plan(traces_dir, quick=True)
    runs = {name: expand(load_campaign(path)) for name, path in zip(CAMPAIGNS, write_campaigns(tmp_path, quick))}
    assert {name: len(r) for name, r in runs.items()} == {"sequential": 18, "reservation": 20, "logs": 16, "ssm": 14}
    plain = {r.run_id for r in runs["reservation"] if not dict(r.params).get("reserved")}
    assert len(plain) == 4 and plain <= {r.run_id for r in runs["sequential"]}
    seeds = {r.key()["generate"]["seed"] for r in runs["sequential"]}
    assert len(seeds) == 6 and workload_seed(quick, "seq", 20, 28) in seeds


def seq_rows(delta, load, label, values, loads=None):
    return [
        {
            "workload": f"seq-d{delta}-l{load:g}",
            "window_index": i,
            "label": label,
            "policy": {"FCFS": "fcfs-stretch"}.get(label, "dasedf"),
            "max_stretch": v,
            "mean_stretch": 1.0 + v / 100,
            "load": (loads or [load] * len(values))[i],
            "state": "done",
            "simulate_seconds": 1.0,
            "n_jobs": 20000,
        }
        for i, v in enumerate(values)
    ]


def test_fig1b_keeps_the_loaded_instances(traces_dir):
    """Delta 20: instances at measured loads 275 and 268 (the second is left out); FCFS 6 and 12 -> mean 6."""
    rows = seq_rows(20, 280, "FCFS", [6.0, 12.0], loads=[275.0, 268.0])
    rows += seq_rows(20, 280, "DASEDF", [1.5, 1.2], loads=[275.0, 268.0])
    rows += seq_rows(20, 300, "FCFS", [10.0], loads=[301.0]) + seq_rows(20, 300, "DASEDF", [1.7], loads=[301.0])
    table = fig1b_table(pd.DataFrame(rows), plan(traces_dir))
    row = table[table["delta"] == 20].iloc[0]
    assert row["instances"] == 2 and row["paper_instances"] == 60
    assert row["fcfs_mean"] == 8.0 and row["fcfs_std"] == pytest.approx(math.sqrt(8.0))
    assert row["dasedf_mean"] == pytest.approx(1.6) and row["paper_dasedf_mean"] == 1.46
    assert math.isnan(table[table["delta"] == 5].iloc[0]["fcfs_mean"])


def test_best_reservation_by_max_stretch_then_mean():
    rows = seq_rows(20, 300, "FCFS", [10.0])
    rows += [
        dict(r, label="FCFS+res reserved=2 threshold=1.5", mean_stretch=1.4) for r in seq_rows(20, 300, "x", [7.0])
    ]
    rows += [
        dict(r, label="FCFS+res reserved=5 threshold=3.0", mean_stretch=1.2) for r in seq_rows(20, 300, "x", [7.0])
    ]
    rows += [dict(r, label="FCFS+res reserved=1 threshold=2.0") for r in seq_rows(20, 300, "x", [8.0])]
    best = best_reservation(pd.DataFrame(rows), "FCFS").iloc[0]
    assert best["best_label"] == "FCFS+res reserved=5 threshold=3.0"
    assert (best["max_stretch"], best["res_max_stretch"], best["res_mean_stretch"]) == (10.0, 7.0, 1.2)


def test_claims_on_a_table_where_dasedf_wins(traces_dir):
    """FCFS 2, 8, 30 against DASEDF 1.5 at Delta 5, 40, 100 (load 300): the Fig. 1(b) claim holds; DASEDF's worst
    (1.5) is below 2.5 and FCFS exceeds 10 once; reservation lowers FCFS's max stretch on the Delta 100 instance."""
    rows = []
    for delta, fcfs in ((5, 2.0), (40, 8.0), (100, 30.0)):
        rows += seq_rows(delta, 300, "FCFS", [fcfs]) + seq_rows(delta, 300, "DASEDF", [1.5])
        rows += seq_rows(delta, 250, "FCFS", [1.1]) + seq_rows(delta, 250, "DASEDF", [1.0])
    res = seq_rows(100, 300, "FCFS", [30.0]) + [
        dict(r, label="FCFS+res reserved=2 threshold=1.5") for r in seq_rows(100, 300, "x", [12.0])
    ]
    claims = {
        c.claim: c
        for c in check_claims({"sequential": pd.DataFrame(rows), "reservation": pd.DataFrame(res)}, plan(traces_dir))
    }
    fig = next(c for k, c in claims.items() if "At load > 270" in k)
    assert fig.verdict == "holds" and "100: 30 / 1.5" in fig.evidence[0]
    worst = next(c for k, c in claims.items() if "DASEDF's worst" in k)
    assert worst.verdict == "holds" and "worst DASEDF max stretch 1.5" in worst.evidence[0]
    low = next(c for k, c in claims.items() if "Below load 270" in k)
    assert low.verdict == "holds" and "within 1.5x on 3/3" in low.evidence[0]
    improved = next(c for k, c in claims.items() if "Reservation improves" in k)
    assert improved.verdict == "holds" and "improved on 1/1" in improved.evidence[0]
    assert [c.number for c in claims.values()] == list(range(1, len(claims) + 1))


def test_reproduce_refuses_bad_options(tmp_path, traces_dir):
    result = CliRunner().invoke(
        app, ["reproduce", "stretch", "--out", str(tmp_path / "r"), "--instances", "0", "--traces", str(traces_dir)]
    )
    assert result.exit_code == 1 and "--instances = 0" in result.stderr


@pytest.mark.slow
def test_quick_reproduction_writes_the_report(tmp_path, traces_dir):
    out = tmp_path / "stretch"
    result = CliRunner().invoke(
        app, ["reproduce", "stretch", "--quick", "--out", str(out), "--traces", str(traces_dir)]
    )
    assert result.exit_code == 0, result.output
    for name in ("summary.md", "summary.html", "claims.md", "fig1b.csv", "fig1.png", "fig5-ssm-like.png"):
        assert (out / name).is_file()
    fig1b = pd.read_csv(out / "fig1b.csv")
    assert (fig1b["fcfs_mean"] > fig1b["dasedf_mean"]).all()
    assert "Fig. 1(b)" in (out / "summary.md").read_text()
