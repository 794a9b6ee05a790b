"""Krevat (2003) through campaigns: the torus reproduction's plan, campaigns, tables and report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from campaign.conftest import synthetic_trace
from schedlab.campaign import expand, load_campaign
from schedlab.errors import InputError
from schedlab.experiments.torus import LOGS, POLICIES, plan, reproduce, write_campaigns


@pytest.fixture
def logs(tmp_path):
    """Two small synthetic logs under the thesis's file names (128 nodes)."""
    folder = tmp_path / "traces"
    folder.mkdir()
    for seed, file in enumerate(LOGS.values()):
        synthetic_trace(folder / file, n_jobs=60, days=2, procs=128, seed=seed)
    return folder


def test_plan_values(logs):
    full = plan(logs)
    assert full.count == 10_000 and full.c_values["SDSC"][:3] == (0.7, 0.75, 0.8)
    assert full.c_values["SDSC"][14] == 1.4 and len(full.c_values["SDSC"]) == 17
    assert full.c_values["NASA"][-1] == 2.4
    quick = plan(logs, quick=True, logs=["SDSC"])
    assert quick.count == 1_000 and list(quick.logs) == ["SDSC"] and quick.c_values["SDSC"] == (0.8, 1.0, 1.2)
    with pytest.raises(InputError, match="--log = CTC, expected one of NASA, SDSC"):
        plan(logs, logs=["CTC"])
    with pytest.raises(InputError, match="trace file not found"):
        plan(logs.parent)
    with pytest.raises(InputError, match="--count = 0"):
        plan(logs, count=0)


def test_campaigns_pair_machines_and_policies(logs, tmp_path):
    """Per log: a torus campaign (4 schedulers and 2 full-migration variants) and a flat one (2 baselines),
    one workload per c, on the span mapping."""
    paths = write_campaigns(tmp_path / "out", plan(logs, quick=True, count=50))
    assert [p.name for p in paths] == [
        "torus-NASA-torus.toml",
        "torus-NASA-flat.toml",
        "torus-SDSC-torus.toml",
        "torus-SDSC-flat.toml",
    ]
    torus_runs = expand(load_campaign(paths[0]))
    assert len(torus_runs) == 3 * 6
    assert {r.label for r in torus_runs} == {k for k in POLICIES if not k.startswith("flat")}
    assert {r.platform for r in torus_runs} == {"torus:4x4x8"} and {r.span for r in torus_runs} == {(0, 50)}
    assert sorted({r.runtime_scale for r in torus_runs}) == [0.8, 1.0, 1.2]
    full = [r for r in torus_runs if r.label == "migration-full"][0]
    assert dict(full.params) == {"theta_max": 1.0, "theta_tor": 0.0}
    flat_runs = expand(load_campaign(paths[1]))
    assert {r.policy for r in flat_runs} == {"flat-fcfs", "flat-backfill"} and {r.procs for r in flat_runs} == {128}


def test_reproduce_quick(logs, tmp_path):
    out = tmp_path / "out"
    summary = reproduce(out, plan(logs, quick=True, count=30, logs=["SDSC"]))
    assert summary["runs"] == 3 * 8 and summary["failed"] == 0
    results = pd.read_csv(out / "results.csv")
    assert (results["state"] == "done").all()
    total = results["w_util"] + results["w_unused"] + results["w_lost"]
    assert np.allclose(total, 1.0)
    # c scales run times only: the work, and so w_util * span, grows by c between runs of one scheduler
    fcfs = results[(results["trace"] == "SDSC") & (results["policy"] == "fcfs")].set_index("c")
    work = fcfs["w_util"] * fcfs["span"]
    assert work[1.2] / work[1.0] == pytest.approx(1.2)
    capacity = pd.read_csv(out / "capacity.csv")
    assert (capacity[capacity["policy"] == "fcfs"]["util_change"] == 0).all()
    saturation = pd.read_csv(out / "saturation.csv")
    assert len(saturation) == 8 and set(saturation["policy"]) == set(POLICIES)
    claims = (out / "claims.md").read_text()
    assert claims.count("**Verdict: ") == 10
    for name in ("summary.md", "summary.html", "fig-wait-SDSC.png", "fig-capacity-SDSC.png", "migrations.csv"):
        assert (out / name).stat().st_size > 0
    again = reproduce(out, plan(logs, quick=True, count=30, logs=["SDSC"]))  # every run stored: none runs again
    assert again["runs"] == summary["runs"]
    assert pd.read_csv(out / "results.csv").equals(results)
