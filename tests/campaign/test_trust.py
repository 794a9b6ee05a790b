"""Campaigns that say what they do: windows that cannot be what they claim, per-run timeouts, an
unreachable scheduler, read-only queries (issue 17, point 6)."""

from __future__ import annotations

import threading
import time
import warnings

import pyarrow as pa
import pytest

from campaign.conftest import DAY, synthetic_trace
from schedlab.campaign import campaign_results, expand, load_campaign, query, run_campaign
from schedlab.campaign.expand import CampaignWarning
from schedlab.campaign.runner import RunTimeout, time_limit
from schedlab.errors import InputError


def test_a_window_longer_than_the_trace_is_refused(make_spec):
    spec = make_spec(
        """
        [[workloads]]
        trace = "{trace}"
        windows = { sample = "random", count = 4, length = "10d" }
        [[policies]]
        name = "fcfs"
        """
    )
    with pytest.raises(
        InputError, match=r"workloads\[0\]\.windows\.length = 864000 s .* at most the trace's submit span"
    ):
        expand(load_campaign(spec))


def test_coinciding_windows_are_counted_in_a_warning(tmp_path):
    synthetic_trace(tmp_path / "short.swf", n_jobs=40, days=4 / DAY)  # submits at 0..3 s
    spec = tmp_path / "short.toml"
    spec.write_text(
        '[[workloads]]\ntrace = "short.swf"\nwindows = { sample = "random", count = 10, length = "1" }\n'
        '[[policies]]\nname = "fcfs"\n',
        encoding="utf-8",
    )
    with pytest.warns(CampaignWarning) as caught:
        runs = expand(load_campaign(spec))
    distinct = len({config.window for config in runs})
    assert distinct < 10
    assert len(caught) == 1
    assert f"workloads[0] (short): {10 - distinct} of 10 windows coincide" in str(caught[0].message)


def test_distinct_windows_warn_nothing(small_spec):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CampaignWarning)
        assert len(expand(load_campaign(small_spec))) == 12


def test_time_limit_stops_a_busy_run_and_nothing_after():
    began = time.perf_counter()
    with pytest.raises(RunTimeout, match="timeout of 0.2 s"):
        with time_limit(0.2):
            while time.perf_counter() - began < 30:
                pass
    assert time.perf_counter() - began < 5
    with time_limit(0.05):
        total = sum(range(100))
    time.sleep(0.2)  # a timer disarmed on leaving raises nothing later
    assert total == 4950


def test_time_limit_works_in_a_worker_thread():
    caught = []

    def work():
        try:
            with time_limit(0.1):
                while True:
                    pass
        except RunTimeout as error:
            caught.append(str(error))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(10)
    assert caught == ["the run took longer than the campaign's timeout of 0.1 s"]


def test_a_run_past_the_timeout_is_stored_failed_with_the_reason(make_spec, small_text, monkeypatch):
    import schedlab.runner

    spec = make_spec('timeout = "1"\n' + small_text)
    campaign = load_campaign(spec)
    plain = make_spec(small_text, "plain")
    assert [c.run_id for c in expand(campaign)] == [c.run_id for c in expand(load_campaign(plain))]
    real_run = schedlab.runner.run

    def slow_for_conservative(instance, policy, *args, **kwargs):
        began = time.perf_counter()
        while policy == "conservative" and time.perf_counter() - began < 30:
            pass
        return real_run(instance, policy, *args, **kwargs)

    monkeypatch.setattr(schedlab.runner, "run", slow_for_conservative)
    outcome = run_campaign(campaign, jobs=1)
    table = campaign_results(campaign).to_pandas()
    failed = table[table["state"] == "failed"]
    assert sorted(outcome.failed) == sorted(failed["run_id"]) and set(failed["policy"]) == {"conservative"}
    assert len(failed) == 3 and (table.loc[table["state"] == "done", "policy"] != "conservative").all()
    assert (failed["error"] == "RunTimeout: the run took longer than the campaign's timeout of 1 s").all()
    assert (failed["wall_seconds"] < 10).all() and failed["bsld_mean"].isna().all()


def test_timeout_in_the_spec_is_a_duration(make_spec, small_text):
    assert load_campaign(make_spec('timeout = "10m"\n' + small_text)).spec.timeout == 600.0
    with pytest.raises(InputError, match=r"timeout"):
        load_campaign(make_spec('timeout = "soon"\n' + small_text, "bad"))


def test_an_unreachable_scheduler_fails_within_seconds(small_spec):
    pytest.importorskip("distributed")
    import distributed  # noqa: F401  (imported before timing: the import alone takes seconds)

    began = time.perf_counter()
    with pytest.raises(InputError, match=r"^--scheduler: cannot connect to Dask scheduler 'tcp://127.0.0.1:9'"):
        run_campaign(load_campaign(small_spec), scheduler="tcp://127.0.0.1:9")
    assert time.perf_counter() - began < 15


@pytest.mark.parametrize(
    "sql",
    [
        "COPY runs TO '{path}'",
        "EXPORT DATABASE '{path}'",
        "ATTACH '{path}' AS other",
        "select 1; COPY (select * from runs) TO '{path}' (FORMAT csv)",
    ],
)
def test_queries_are_read_only(tmp_path, sql):
    target = tmp_path / "written"
    with pytest.raises(InputError, match=r"^query: queries are read-only, no file access"):
        query(pa.table({"a": [1, 2]}), sql.format(path=target))
    assert list(tmp_path.iterdir()) == []


def test_queries_cannot_read_files(tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("x\n1\n", encoding="utf-8")
    with pytest.raises(InputError, match="read-only"):
        query(pa.table({"a": [1]}), f"select * from read_csv('{secret}')")
    with pytest.raises(InputError):
        query(pa.table({"a": [1]}), "SET enable_external_access = true")
