"""Running campaigns locally: results equal direct runs, resume after interruption, failures recorded."""

from __future__ import annotations

import json
import multiprocessing
import os
import textwrap
from concurrent.futures import ProcessPoolExecutor

import pandas as pd
import pytest

from schedlab import load_instance, run
from schedlab.campaign import TIMING_COLUMNS, Store, campaign_results, expand, load_campaign, metric_names, run_campaign
from schedlab.campaign import runner as campaign_runner


def comparable(campaign) -> pd.DataFrame:
    """The campaign's table without timing columns, for row-for-row equality."""
    table = campaign_results(campaign).to_pandas()
    return table.drop(columns=list(TIMING_COLUMNS)).reset_index(drop=True)


@pytest.fixture
def reference(small_spec, tmp_path):
    """The small campaign run uninterrupted, one run after the other."""
    campaign = load_campaign(small_spec, store=tmp_path / "reference")
    outcome = run_campaign(campaign, jobs=1)
    assert len(outcome.executed) == 12 and not outcome.failed
    return comparable(campaign)


def test_rows_equal_direct_runs(small_spec, tmp_path, trace):
    """Each stored row holds what schedlab.run measures on the same window."""
    campaign = load_campaign(small_spec, store=tmp_path / "s")
    run_campaign(campaign, jobs=1)
    table = campaign_results(campaign).to_pandas().set_index("run_id")
    for config in expand(campaign):
        instance, _ = load_instance(trace, window=config.window)
        direct = run(instance, config.policy, dict(config.params), seed=config.seed)
        stored = table.loc[config.run_id]
        assert stored["state"] == "done" and pd.isna(stored["error"])
        assert stored["n_procs"] == 16 and stored["label"] == config.label
        assert json.loads(stored["params"]) == dict(config.params)
        for name in metric_names():
            value = direct.metrics[name]
            assert (pd.isna(stored[name]) and value is None) or stored[name] == value, name
        assert stored["wall_seconds"] > 0


def test_two_processes_equal_one(small_spec, tmp_path, reference):
    campaign = load_campaign(small_spec, store=tmp_path / "two")
    outcome = run_campaign(campaign, jobs=2)
    assert sorted(outcome.executed) == sorted(reference["run_id"])
    pd.testing.assert_frame_equal(comparable(campaign), reference)


def test_rerun_skips_finished_runs(small_spec, tmp_path, reference):
    campaign = load_campaign(small_spec, store=tmp_path / "reference")
    outcome = run_campaign(campaign, jobs=2)
    assert (outcome.total, outcome.skipped, outcome.executed) == (12, 12, [])


def test_interrupted_campaign_resumes_without_loss_or_repeat(small_spec, tmp_path, reference):
    """Stop after 5 stored runs (as Ctrl-C would), then resume: every run stored once, same table."""
    campaign = load_campaign(small_spec, store=tmp_path / "resumed")
    seen = []

    def stop_after_five(done, total, row):
        seen.append(row["run_id"])
        if done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_campaign(campaign, jobs=2, progress=stop_after_five)
    assert sorted(Store(campaign.store).states()) == sorted(seen) and len(seen) == 5
    resumed = run_campaign(campaign, jobs=2)
    assert resumed.skipped == 5
    assert not set(resumed.executed) & set(seen)
    assert sorted(resumed.executed + seen) == sorted(reference["run_id"])
    pd.testing.assert_frame_equal(comparable(campaign), reference)


def _die_on_target(config):
    """``execute``, except that the worker process dies on the run named by $SCHEDLAB_TEST_KILL."""
    if config.run_id == os.environ.get("SCHEDLAB_TEST_KILL"):
        os._exit(3)
    return campaign_runner.__dict__["_real_execute"](config)


def test_killed_worker_loses_only_runs_in_flight(small_spec, tmp_path, reference, monkeypatch):
    """A worker killed mid-run breaks the pool: unfinished runs stay pending and a re-run completes them."""
    campaign = load_campaign(small_spec, store=tmp_path / "killed")
    target = expand(campaign)[4].run_id
    monkeypatch.setenv("SCHEDLAB_TEST_KILL", target)
    monkeypatch.setitem(campaign_runner.__dict__, "_real_execute", campaign_runner.execute)
    monkeypatch.setattr(campaign_runner, "execute", _die_on_target)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        first = run_campaign(campaign, executor=pool)
    assert first.lost and target in {run_id for run_id, _ in first.lost}
    assert "BrokenProcessPool" in first.lost[0][1]
    assert len(first.executed) + len(first.lost) == 12
    assert target not in Store(campaign.store).states()
    monkeypatch.undo()
    second = run_campaign(campaign, jobs=2)
    assert not set(second.executed) & set(first.executed)
    assert sorted(second.executed) == sorted(run_id for run_id, _ in first.lost)
    pd.testing.assert_frame_equal(comparable(campaign), reference)


def test_failed_run_is_recorded_and_the_campaign_goes_on(make_spec, data_dir, tmp_path):
    """A Batsim workload whose jobs are all wider than --procs (all dropped: no job left) fails at load; the
    SWF runs still succeed."""
    workload = (data_dir / "tiny_batsim.json").read_text().replace('"res": 1', '"res": 4')
    (tmp_path / "tiny.json").write_text(workload)
    path = make_spec(
        """
        [[workloads]]
        trace = "{trace}"
        window = [0, 86400]
        [[workloads]]
        trace = "tiny.json"
        procs = 2
        [[policies]]
        name = "fcfs"
        [[policies]]
        name = "easy"
        """
    )
    campaign = load_campaign(path)
    outcome = run_campaign(campaign, jobs=2)
    assert len(outcome.executed) == 4 and len(outcome.failed) == 2
    table = campaign_results(campaign).to_pandas()
    failed = table[table["state"] == "failed"]
    assert set(failed["workload"]) == {"tiny"}
    assert all(error.startswith("InputError: ") and "no job left" in error for error in failed["error"])
    assert failed["bsld_mean"].isna().all() and failed["wall_seconds"].notna().all()
    assert (table.loc[table["state"] == "done", "n_jobs"] > 0).all()
    assert run_campaign(campaign, jobs=1).executed == []  # a failed run is finished...
    retried = run_campaign(campaign, jobs=1, retry_failed=True)  # ...unless asked to retry it
    assert sorted(retried.executed) == sorted(outcome.failed) == sorted(retried.failed)


def test_limit_runs_the_first_pending_runs(small_spec, tmp_path):
    campaign = load_campaign(small_spec, store=tmp_path / "limited")
    runs = expand(campaign)
    first = run_campaign(campaign, jobs=1, limit=3)
    assert first.executed == [r.run_id for r in runs[:3]]
    second = run_campaign(campaign, jobs=1, limit=100)
    assert second.skipped == 3 and second.executed == [r.run_id for r in runs[3:]]


def test_shipped_example_runs_on_the_real_trace(traces_dir, tmp_path):
    """The README's example: 10 random 7-day windows of KTH-SP2 (status 1), three policies; three runs here."""
    from pathlib import Path

    spec = Path(__file__).resolve().parents[2] / "campaigns" / "easy-vs-conservative.toml"
    campaign = load_campaign(spec, store=tmp_path / "example")
    runs = expand(campaign)
    assert len(runs) == 30 and [r.label for r in runs[:3]] == ["fcfs", "easy", "conservative"]
    assert all(r.window[1] - r.window[0] == 7 * 86400 for r in runs)
    outcome = run_campaign(campaign, jobs=1, limit=3)
    table = campaign_results(campaign).to_pandas()
    assert len(outcome.executed) == 3 and (table["state"] == "done").all()
    assert (table["n_procs"] == 100).all() and table["window_jobs"].iloc[0] == table["n_jobs"].iloc[0]


def test_killed_campaign_process_resumes(make_spec, small_text, tmp_path):
    """SIGKILL the `schedlab campaign run` process mid-way: stored files are whole, a re-run completes the rest."""
    import signal
    import subprocess
    import sys
    import time

    spec = make_spec(small_text.replace("count = 3", "count = 30"), "many")
    campaign = load_campaign(spec)
    total = len(expand(campaign))
    command = [
        sys.executable,
        "-c",
        "from schedlab.cli import app; app()",
        "campaign",
        "run",
        str(spec),
        "--jobs",
        "1",
        "--quiet",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs_dir = campaign.store / "runs"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if runs_dir.is_dir() and len(list(runs_dir.glob("*.parquet"))) >= 5:
            break
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()
    stored = Store(campaign.store).states()  # every file left is readable
    if len(stored) == total:
        pytest.skip("the campaign finished before it could be killed")
    assert len(stored) >= 5 and set(stored.values()) == {"done"}
    resumed = run_campaign(campaign, jobs=2)
    assert resumed.skipped == len(stored) and not set(resumed.executed) & set(stored)
    assert len(resumed.executed) + len(stored) == total
    reference = load_campaign(spec, store=tmp_path / "uninterrupted")
    run_campaign(reference, jobs=1)
    pd.testing.assert_frame_equal(comparable(campaign), comparable(reference))


def test_results_follow_the_spec_order_wherever_the_trace_lives(small_text, tmp_path, trace):
    """Run ids hash the trace's path; the results table must not depend on it: rows come in the
    spec's expansion order (windows, then policies as written), identical for a copy of the trace
    in another folder."""
    tables = []
    for folder in ("here", "elsewhere/deeper"):
        where = tmp_path / folder
        where.mkdir(parents=True)
        (where / trace.name).write_bytes(trace.read_bytes())
        spec = where / "spec.toml"
        spec.write_text(textwrap.dedent(small_text).replace("{trace}", trace.name), encoding="utf-8")
        campaign = load_campaign(spec, store=where / "store")
        run_campaign(campaign, jobs=1)
        table = comparable(campaign)
        assert list(table["run_id"]) == [config.run_id for config in expand(campaign)]
        tables.append(table.drop(columns=["run_id", "trace"]))
    assert tables[0]["policy"].tolist()[:4] == ["fcfs", "easy", "easy", "conservative"]
    pd.testing.assert_frame_equal(tables[0], tables[1])
