"""Seed 000 ch. 5 through campaigns: the locality-ch5 reproduction, its normalisation and its claim checker.

Spec 000-ch4-5-backfilling-locality sections 5.2 (instances, levels, normalisation) and 6.
"""

from __future__ import annotations

import gzip
import math

import pandas as pd
import pytest
from typer.testing import CliRunner

from campaign.conftest import synthetic_trace
from schedlab import load_instance
from schedlab.campaign import campaign_results, expand, load_campaign
from schedlab.experiments.locality_ch5 import (
    CLAIM_METRICS,
    METRICS,
    TRACES,
    TraceInfo,
    check_claim,
    normalised,
    plan,
    reproduce,
    write_campaigns,
)

TREE = TraceInfo("tiny.swf", (1, 2, 4, 16), 4, 1, 16, 0)


@pytest.fixture
def tiny(tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    synthetic_trace(folder / "tiny.swf", n_jobs=120, days=20, procs=16, seed=11)
    return folder


def test_normalised_values_equal_the_store(tmp_path, tiny):
    """Every allocator (forced ones too: 16 processors is small) on 2 windows; metrics.csv = store means / basic's."""
    chosen = plan(tiny, instances=2, seed=3, infos={"tiny": TREE}, forced=True)
    assert chosen.labels("tiny") == ("basic", "becont", "beloc", "beplat", "cont", "loc", "plat")
    out = tmp_path / "report"
    summary = reproduce(out, chosen)
    assert summary["runs"] == 14 and summary["failed"] == 0
    assert summary["platforms"]["tiny"]["levels"] == [1, 2, 4, 16]
    for name in (
        "metrics.csv",
        "runs.csv",
        "platforms.csv",
        "claims.md",
        "summary.md",
        "summary.html",
        "experiment.json",
        "campaigns/tiny.toml",
        *(f"fig-{m}.png" for m in METRICS),
    ):
        assert (out / name).is_file(), name
    assert "[1, 2, 4, 16]" in (out / "summary.md").read_text()
    stored = campaign_results(load_campaign(out / "campaigns" / "tiny.toml")).to_pandas()
    assert len(stored) == 14 and set(stored["platform"]) == {"fat-tree:1,2,4,16"}
    assert set(stored["penalty"]) == {"quadratic:2"}
    table = pd.read_csv(out / "metrics.csv")
    for metric in METRICS:
        base = stored.loc[stored["label"] == "basic", metric].astype(float).mean()
        for label, here in stored.groupby("label"):
            row = table[(table["label"] == label) & (table["metric"] == metric)].iloc[0]
            assert row["normalised"] == pytest.approx((here[metric].astype(float) / base).mean(), rel=1e-5), (
                label,
                metric,
            )
            assert row["n"] == 2
        assert table[(table["label"] == "basic") & (table["metric"] == metric)]["normalised"].iloc[0] == pytest.approx(
            1.0
        )
    # checks by construction (spec 6): forced variants keep their constraint
    assert (stored.loc[stored["label"] == "cont", "contiguity_factor"] == 1).all()
    assert (stored.loc[stored["label"] == "loc", "locality_factor"] == 1).all()
    assert (stored.loc[stored["label"] == "plat", "platform_level_factor"] == 1).all()


def _synthetic(values: dict[str, dict[str, tuple[float, float, float]]]) -> pd.DataFrame:
    """A normalised table: platform -> label -> (sum_flow, platform_level_factor, success_rate)."""
    rows = []
    for workload, labels in values.items():
        for label, triple in labels.items():
            for metric, value in zip(CLAIM_METRICS, triple):
                rows.append(
                    {
                        "workload": workload,
                        "label": label,
                        "metric": metric,
                        "n": 30,
                        "mean": value,
                        "base_mean": 1.0,
                        "normalised": value,
                    }
                )
    return pd.DataFrame(rows)


def test_claim_checker_on_synthetic_tables():
    good = {"basic": (1, 1, 1), "beloc": (0.95, 0.9, 1.01), "beplat": (0.9, 0.8, 1.05)}
    bad = {"basic": (1, 1, 1), "beloc": (0.8, 0.7, 1.2), "beplat": (0.9, 0.8, 1.05)}
    claim = check_claim(_synthetic({"A": good, "B": good, "C": bad}))
    assert claim.verdict == "holds"
    assert (
        "sum_flow: Full Locality best on 2 of 3 platform(s); beplat alone best on 2, best of the best-effort variants on 2"
        in claim.evidence
    )
    assert check_claim(_synthetic({"A": bad, "B": bad, "C": good})).verdict == "fails"
    mixed = {"basic": (1, 1, 1), "beloc": (0.8, 0.9, 1.01), "beplat": (0.9, 0.8, 1.05)}
    assert check_claim(_synthetic({"A": mixed, "B": mixed})).verdict == "partly"
    tied = {"basic": (1, 1, 1), "plat": (0.9, 0.8, 1.05), "beplat": (0.9, 0.8, 1.05)}  # tied-best counts as best
    assert check_claim(_synthetic({"A": tied})).verdict == "holds"
    # the forced plat beats every variant, beplat beats the best-effort ones: Full Locality holds
    forced = {
        "basic": (1, 1, 1),
        "beloc": (0.95, 0.9, 1.01),
        "beplat": (0.9, 0.8, 1.05),
        "plat": (0.85, 0.7, 1.1),
        "loc": (0.88, 0.75, 1.08),
    }
    claim = check_claim(_synthetic({"A": forced, "B": forced}))
    assert claim.verdict == "holds"
    assert (
        "success_rate: Full Locality best on 2 of 2 platform(s); beplat alone best on 0, best of the best-effort variants on 2"
        in claim.evidence
    )
    worse = {**forced, "loc": (0.8, 0.75, 1.08)}  # loc beats both on sum flow only
    assert check_claim(_synthetic({"A": worse, "B": worse})).verdict == "partly"
    assert check_claim(_synthetic({"A": {"basic": (1, 1, 1)}})).verdict == "not measurable"


def test_normalised_is_a_ratio_to_basics_mean():
    runs = pd.DataFrame(
        {
            "workload": ["P"] * 4,
            "label": ["basic", "basic", "beplat", "beplat"],
            "state": "done",
            "sum_flow": [1.0, 3.0, 1.0, 2.0],
        }
    )
    table = normalised(runs, metrics=("sum_flow",)).set_index("label")
    assert table.loc["basic", "normalised"] == pytest.approx(1.0)
    assert table.loc["beplat", "normalised"] == pytest.approx(0.75)  # mean(1/2, 2/2), not mean of per-instance ratios
    assert math.isclose(table.loc["beplat", "base_mean"], 2.0)


def test_quick_cli_writes_its_files(tmp_path):
    """``schedlab reproduce locality-ch5 --quick`` on synthetic traces named as KTH-SP2 and HPC2N."""
    from schedlab.cli import app

    traces = tmp_path / "traces"
    traces.mkdir()
    for name, seed in (("KTH-SP2", 1), ("HPC2N", 2)):
        raw = traces / "raw.swf"
        synthetic_trace(raw, n_jobs=80, days=20, procs=TRACES[name].procs, seed=seed)
        (traces / TRACES[name].file).write_bytes(gzip.compress(raw.read_bytes(), mtime=0))
    out = tmp_path / "report"
    result = CliRunner().invoke(
        app, ["reproduce", "locality-ch5", "--out", str(out), "--quick", "--traces", str(traces), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    metrics = pd.read_csv(out / "metrics.csv")
    assert set(metrics["workload"]) == {"KTH-SP2", "HPC2N"}
    assert set(metrics["label"]) == {"basic", "becont", "beloc", "beplat"} and (metrics["n"] == 2).all()
    assert "**Verdict:" in (out / "claims.md").read_text()
    assert {"campaigns/KTH-SP2.toml", "campaigns/HPC2N.toml"} <= {
        str(p.relative_to(out)) for p in out.glob("campaigns/*")
    }
    again = CliRunner().invoke(
        app, ["reproduce", "locality-ch5", "--out", str(out), "--quick", "--traces", str(traces)]
    )
    assert again.exit_code == 1 and "not empty" in again.output


def test_forced_max_procs_decides_where_forced_allocators_run(tmp_path, tiny):
    """The cap: 16 processors is under the default (2,048) and over a cap of 8; the CLI refuses a cap of 0."""
    from schedlab.cli import app

    best_effort = ("basic", "becont", "beloc", "beplat")
    assert plan(tiny, instances=1, infos={"tiny": TREE}, forced=True).labels("tiny")[4:] == ("cont", "loc", "plat")
    assert plan(tiny, instances=1, infos={"tiny": TREE}, forced=True, forced_max_procs=16).labels("tiny")[4:]
    capped = plan(tiny, instances=1, infos={"tiny": TREE}, forced=True, forced_max_procs=8)
    assert capped.labels("tiny") == best_effort
    args = ["reproduce", "locality-ch5", "--out", str(tmp_path / "r"), "--traces", str(tiny), "--forced-max-procs", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1 and "--forced-max-procs" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "r").exists()


def test_instances_are_runs_of_contiguous_7_day_periods(tmp_path, tiny):
    """Spec 5.2: 20 days hold 3 periods from the first submission; runs of 2 start at period 0 or 1, each once."""
    two = TraceInfo("tiny.swf", (1, 2, 4, 16), 4, 2, 16, 0)
    chosen = plan(tiny, instances=2, seed=3, infos={"tiny": two}, forced=False)
    (path,) = write_campaigns(tmp_path / "report", chosen)
    assert 'windows = { sample = "period-runs", count = 2, length = "7d", periods = 2 }' in path.read_text()
    week = 7 * 86400.0
    first = float(load_instance(tiny / "tiny.swf")[0].jobs.submit.min())
    runs = expand(load_campaign(path))
    assert {r.window for r in runs} == {(first, first + 2 * week), (first + week, first + 3 * week)}
    assert {dict(r.params)["compress"] for r in runs} == {"start-now"}  # spec 4.2: reassignment only to now


def test_all_six_platforms_of_table_5_2(traces_dir):
    """Mendonca (2017), Table 5.2: six platforms, SDSC-Blue included (1,152 processors, 195,587 jobs), each
    with its trace file in the shared folder."""
    assert {name: info.procs for name, info in TRACES.items()} == {
        "Curie": 80640,
        "HPC2N": 240,
        "KTH-SP2": 100,
        "LLNL-Thunder": 1024,
        "RICC": 8192,
        "SDSC-Blue": 1152,
    }
    assert TRACES["SDSC-Blue"].table_jobs == 195587
    assert all((traces_dir / info.file).is_file() for info in TRACES.values())
