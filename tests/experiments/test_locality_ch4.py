"""Seed 000 ch.4 reproduction (spec 000-ch4-5 sections 5.1, 6): samples, deviations from basic, claims."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab.cli.reproduce import reproduce_app
from schedlab.errors import InputError
from schedlab.experiments.locality_ch4 import Plan, claims, run_plan, sample, summarize
from schedlab.workload.jobs import JobTable
from schedlab.workload.swf import write_swf


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


def test_sample_releases_at_zero_in_draw_order():
    jobs = JobTable.from_arrays(submit=np.arange(50.0), run_time=np.arange(1.0, 51.0), procs=[1] * 50)
    plan = Plan(trace="x", size=10, instances=2, seed=4)
    a, b = sample(jobs, plan, 0), sample(jobs, plan, 0)
    assert a.submit.tolist() == [0.0] * 10 and a.id.tolist() == list(range(1, 11))
    assert a.run_time.tolist() == b.run_time.tolist() and len(set(a.run_time.tolist())) == 10  # no replacement
    assert sample(jobs, plan, 1).run_time.tolist() != a.run_time.tolist()


def test_block_sample_takes_consecutive_jobs_of_the_trace():
    jobs = JobTable.from_arrays(submit=np.arange(50.0), run_time=np.arange(1.0, 51.0), procs=[1] * 50)
    plan = Plan(trace="x", size=10, instances=2, seed=4, block=True)
    firsts = set()
    for index in range(6):
        block = sample(jobs, plan, index).run_time.tolist()
        assert block == list(np.arange(block[0], block[0] + 10)) and block[-1] <= 50
        assert sample(jobs, plan, index).run_time.tolist() == block
        firsts.add(block[0])
    assert len(firsts) > 1


def test_block_with_replacement_is_refused(tmp_path):
    synthetic(tmp_path / "t.swf")
    with pytest.raises(InputError, match="--block"):
        run_plan(
            Plan(trace=str(tmp_path / "t.swf"), n_procs=32, size=20, instances=1, block=True, with_replacement=True)
        )


def test_run_plan_deviations_and_forced_factors(tmp_path):
    path = tmp_path / "t.swf"
    synthetic(path)
    plan = Plan(trace=str(path), n_procs=32, cluster=8, size=40, instances=3)
    frame = run_plan(plan)
    assert len(frame) == 3 * len(plan.allocators)
    assert (frame.loc[frame["allocator"] == "basic", "deviation"] == 0).all()
    assert (frame.loc[frame["allocator"] == "cont", "contiguous"] == 1).all()
    assert (frame.loc[frame["allocator"] == "loc", "local"] == 1).all()
    summary = summarize(frame)
    assert summary.loc["loc", "locality_ratio"] == 1.0
    assert summary.loc["basic", "within_2pct"] == 1.0


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
    verdicts = [v for _, v, _ in claims(summary)]
    assert verdicts == ["holds", "holds", "holds", "holds"]
    summary.loc["beloc", "within_2pct"] = 0.9
    assert claims(summary)[0][1] == "fails"


def test_cli_quick_writes_the_report(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    synthetic(traces / "CEA-Curie-2011-2.1-cln.swf.gz", n=400, procs=512)
    result = CliRunner().invoke(
        reproduce_app, ["locality-ch4", "--out", str(tmp_path / "r"), "--traces", str(traces), "--instances", "1"]
    )
    assert result.exit_code == 0, result.output
    for name in ("runs.csv", "summary.csv", "summary.md", "claims.md", "fig-makespan.png"):
        assert (tmp_path / "r" / name).stat().st_size > 0
