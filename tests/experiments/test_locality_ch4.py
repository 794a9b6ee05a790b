"""Mendonca (2017), ch. 4 reproduction: job samples through the campaign runner, deviations from basic, claims."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab.cli.reproduce import reproduce_app
from schedlab.engine import simulate
from schedlab.experiments.common import Claim
from schedlab.experiments.locality_ch4 import STANDARD_TRACE, THESIS_TRACE, Plan, claims, reproduce, summarize
from schedlab.platform.registry import parse_platform
from schedlab.registry import make_policy
from schedlab.runner import load_instance
from schedlab.schedule import Instance
from schedlab.workload.jobs import JobTable
from schedlab.workload.swf import write_swf
from schedlab.workload.windows import job_sample


def synthetic(path, n=200, procs=32, seed=3):
    rng = np.random.default_rng(seed)
    run = np.floor(rng.exponential(3600, n)) + 1
    jobs = JobTable.from_arrays(
        submit=np.sort(rng.uniform(0, 1e5, n)).round(),
        run_time=run,
        requested_time=run * 2,
        procs=rng.integers(1, procs + 1, n),
    )
    write_swf(path, jobs, {"MaxProcs": procs})


def test_campaign_runs_equal_direct_simulations(tmp_path):
    """Every stored run is the conservative schedule of the same job sample simulated directly."""
    path = tmp_path / "t.swf"
    synthetic(path)
    plan = Plan(trace=str(path), n_procs=32, cluster=8, size=40, instances=3, seed=5)
    frame, _ = reproduce(tmp_path / "out", plan)
    assert len(frame) == 3 * len(plan.allocators)
    assert frame["instance"].tolist() == [i for i in range(3) for _ in plan.allocators]
    whole, _ = load_instance(path, platform=plan.platform)
    for index in range(3):
        instance = Instance(job_sample(whole.jobs, 40, index, seed=5), parse_platform(plan.platform))
        for allocator in plan.allocators:
            params = {"allocator": allocator, "profile": "sets", "estimate": "exact"}
            schedule = simulate(instance, make_policy("conservative", params))
            row = frame[(frame["instance"] == index) & (frame["allocator"] == allocator)].iloc[0]
            assert row["makespan"] == schedule.end.max()
    assert (frame.loc[frame["allocator"] == "basic", "deviation"] == 0).all()
    assert (frame.loc[frame["allocator"] == "cont", "contiguous"] == 1).all()
    assert (frame.loc[frame["allocator"] == "loc", "local"] == 1).all()
    summary = summarize(frame)
    assert summary.loc["loc", "locality_ratio"] == 1.0 and summary.loc["basic", "within_2pct"] == 1.0
    again, _ = reproduce(tmp_path / "out", plan)  # stored runs are reused, results identical
    assert again.equals(frame)


def test_claims_on_a_synthetic_summary():
    summary = pd.DataFrame(
        {
            "mean_deviation": [0.0, 0.0005, 0.015, 0.0, -0.01],
            "within_2pct": [1.0, 1.0, 0.9, 0.999, 0.998],
            "contiguous": [0.5, 0.7, 1.0, 0.5, 0.6],
            "local": [0.6, 0.55, 0.7, 0.9, 1.0],
            "locality_ratio": [1.1, 1.1, 1.05, 1.02, 1.0],
        },
        index=["basic", "becont", "cont", "beloc", "loc"],
    )
    found = claims(summary)
    assert all(isinstance(c, Claim) for c in found)
    assert [c.verdict for c in found] == ["holds"] * 4 + ["partly", "holds"]
    summary.loc["becont", ["locality_ratio", "local"]] = [1.08, 0.5]
    assert [c.verdict for c in claims(summary)[4:]] == ["holds", "holds"]
    summary.loc["beloc", "within_2pct"] = 0.9
    assert claims(summary)[0].verdict == "fails"


def test_cli_writes_consistent_tables_claims_and_figure(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    synthetic(traces / THESIS_TRACE, n=400, procs=512)
    out = tmp_path / "r"
    result = CliRunner().invoke(
        reproduce_app, ["locality-ch4", "--out", str(out), "--traces", str(traces), "--instances", "2", "-q"]
    )
    assert result.exit_code == 0, result.output
    with open(out / "runs.csv", newline="") as f:
        runs = list(csv.DictReader(f))
    assert len(runs) == 2 * 5 and {r["allocator"] for r in runs} == {"basic", "becont", "cont", "beloc", "loc"}
    summary = pd.read_csv(out / "summary.csv", index_col=0)
    markdown = (out / "summary.md").read_text()
    for allocator, row in summary.iterrows():
        assert f"| {allocator} | {row['mean_deviation']:+.3%} | {row['within_2pct']:.1%} |" in markdown
    assert (out / "claims.md").read_text().count("**Verdict: ") == 6
    assert f"Trace read: `{THESIS_TRACE}` (the cleaned Curie extract" in markdown
    assert "reservations exact (real run times); every variant reserves processor sets" in markdown
    import matplotlib.image

    image = matplotlib.image.imread(out / "fig-makespan.png")
    assert image.shape[:2] == (660, 660) and image.std() > 0.01


def test_block_with_replacement_is_refused(tmp_path):
    result = CliRunner().invoke(
        reproduce_app, ["locality-ch4", "--out", str(tmp_path / "r"), "--block", "--with-replacement"]
    )
    assert result.exit_code == 1 and "cannot be drawn with replacement" in result.output
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("block", [False, True])
def test_job_samples_release_at_zero(block):
    jobs = JobTable.from_arrays(submit=np.arange(50.0), run_time=np.arange(1.0, 51.0), procs=[1] * 50)
    a = job_sample(jobs, 10, 0, seed=4, block=block)
    assert a.submit.tolist() == [0.0] * 10 and a.id.tolist() == list(range(1, 11))
    assert job_sample(jobs, 10, 0, seed=4, block=block).run_time.tolist() == a.run_time.tolist()
    assert len(set(a.run_time.tolist())) == 10
    if block:
        assert a.run_time.tolist() == list(np.arange(a.run_time[0], a.run_time[0] + 10))


def test_exact_reservations_ignore_the_requested_times(tmp_path):
    """Mendonca (2017), section 4.6: real execution times. With exact reservations the results do not depend
    on the requested times (a trace whose requests are 2x the run times gives the same makespans as one
    whose requests equal them); with requested times they do."""
    results = {}
    for name, factor in (("equal", 1), ("double", 2)):
        path = tmp_path / f"{name}.swf"
        rng = np.random.default_rng(3)
        run = np.floor(rng.exponential(3600, 200)) + 1
        jobs = JobTable.from_arrays(
            submit=np.arange(200.0), run_time=run, requested_time=run * factor, procs=rng.integers(1, 33, 200)
        )
        write_swf(path, jobs, {"MaxProcs": 32})
        for exact in (True, False):
            plan = Plan(trace=str(path), n_procs=32, cluster=8, size=40, instances=3, seed=5, exact=exact)
            frame, _ = reproduce(tmp_path / f"out-{name}-{exact}", plan)
            results[name, exact] = frame["makespan"].tolist()
    assert results["equal", True] == results["double", True] == results["equal", False]
    assert results["double", False] != results["double", True]


def test_cli_reads_the_trace_it_is_given(tmp_path):
    """--trace picks the file in --traces (the archive's log here); the report names it; a missing default
    file is one clear error."""
    traces = tmp_path / "traces"
    traces.mkdir()
    synthetic(traces / STANDARD_TRACE, n=400, procs=512)
    out = tmp_path / "r"
    args = ["locality-ch4", "--traces", str(traces), "--instances", "1", "-q"]
    result = CliRunner().invoke(
        reproduce_app, [*args, "--out", str(out), "--trace", STANDARD_TRACE, "--estimate", "requested"]
    )
    assert result.exit_code == 0, result.output
    markdown = (out / "summary.md").read_text()
    assert f"Trace read: `{STANDARD_TRACE}`;" in markdown and "reservations of the requested times" in markdown
    missing = CliRunner().invoke(reproduce_app, [*args, "--out", str(tmp_path / "m")])
    assert missing.exit_code == 1 and THESIS_TRACE in missing.output and "not found" in missing.output
    bad = CliRunner().invoke(reproduce_app, [*args, "--out", str(tmp_path / "b"), "--profile", "ids"])
    assert bad.exit_code == 1 and "--profile" in bad.output
