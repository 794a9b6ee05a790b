"""Expansion of a specification into runs: order, stable ids, seeds, windows."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab import load_instance
from schedlab.campaign import expand, load_campaign, run_seed
from schedlab.campaign.expand import RunConfig
from schedlab.errors import InputError
from schedlab.workload.windows import period_runs, random_windows


def test_order_and_count(small_spec):
    runs = expand(load_campaign(small_spec))
    assert len(runs) == 3 * 4
    assert [r.label for r in runs[:4]] == ["fcfs", "easy order=fcfs", "easy order=sjf", "conservative"]
    assert [r.window_index for r in runs] == [0] * 4 + [1] * 4 + [2] * 4
    assert len({r.run_id for r in runs}) == len(runs)
    assert runs[1].params == (("order", "fcfs"),)


def test_expansion_is_deterministic(small_spec):
    first = expand(load_campaign(small_spec))
    second = expand(load_campaign(small_spec))
    assert first == second
    assert [r.run_id for r in first] == [r.run_id for r in second]


def test_windows_are_drawn_with_the_master_seed(small_spec, trace):
    runs = expand(load_campaign(small_spec))
    instance, _ = load_instance(trace)
    expected = random_windows(instance.jobs, 86400, 3, rng=np.random.default_rng(11))
    assert [r.window for r in runs[::4]] == expected
    assert all(r.window_jobs > 0 and r.window_load > 0 for r in runs)


def test_ids_ignore_name_store_and_unrelated_changes(make_spec, small_text, tmp_path):
    base = {r.label: r.run_id for r in expand(load_campaign(make_spec(small_text, "a")))}
    text = 'name = "other"\nstore = "x"\n' + small_text.replace('name = "fcfs"', 'name = "fcfs"\nlabel = "FCFS"')
    text += '\n[[policies]]\nname = "conservative"\nparams = { compress = "start-now" }\n'
    changed = expand(load_campaign(make_spec(text, "b"), store=tmp_path / "elsewhere"))
    ids = {r.label: r.run_id for r in changed}
    assert len(changed) == 15
    assert ids["FCFS"] == base["fcfs"]
    for label in ("easy order=fcfs", "easy order=sjf", "conservative"):
        assert ids[label] == base[label]


def test_same_run_twice_is_refused(make_spec):
    path = make_spec(
        """
        [[workloads]]
        trace = "{trace}"
        [[policies]]
        name = "easy"
        [[policies]]
        name = "easy"
        label = "again"
        """
    )
    with pytest.raises(InputError, match=r"policies\[1\] \{\} repeats the run of workloads\[0\] x policies\[0\]"):
        expand(load_campaign(path))


def test_seed_changes_windows_and_ids(make_spec, small_text):
    a = expand(load_campaign(make_spec(small_text, "a")))
    b = expand(load_campaign(make_spec(small_text.replace("seed = 11", "seed = 12"), "b")))
    assert [r.window for r in a] != [r.window for r in b]
    assert not {r.run_id for r in a} & {r.run_id for r in b}


def test_repetitions_get_their_own_seeds(make_spec, small_text):
    runs = expand(load_campaign(make_spec("repetitions = 2\n" + small_text)))
    assert len(runs) == 24
    assert [r.repetition for r in runs[:2]] == [0, 1]
    assert runs[0].seed == run_seed(11, 0) != runs[1].seed == run_seed(11, 1)
    assert runs[0].run_id != runs[1].run_id


def test_periods_and_whole_trace(make_spec):
    path = make_spec(
        """
        [[workloads]]
        name = "weeks"
        trace = "{trace}"
        windows = { sample = "periods", length = "2d" }
        [[workloads]]
        name = "first-two"
        trace = "{trace}"
        windows = { sample = "periods", length = "1d", count = 2 }
        [[workloads]]
        name = "whole"
        trace = "{trace}"
        window = [0, 86400]
        [[policies]]
        name = "fcfs"
        """
    )
    runs = expand(load_campaign(path))
    weeks = [r for r in runs if r.workload == "weeks"]
    assert len(weeks) == 3  # 6 days of submits in 2-day periods
    assert all(b.window[0] == a.window[1] for a, b in zip(weeks, weeks[1:]))
    assert len([r for r in runs if r.workload == "first-two"]) == 2
    whole = [r for r in runs if r.workload == "whole"]
    assert [(r.window, r.window_index, r.window_jobs) for r in whole] == [((0.0, 86400.0), None, None)]


def test_reordering_the_spec_keeps_the_ids(make_spec, small_text):
    swapped = (
        small_text.replace('name = "fcfs"', 'name = "TMP"')
        .replace('name = "conservative"', 'name = "fcfs"')
        .replace('name = "TMP"', 'name = "conservative"')
    )
    a = expand(load_campaign(make_spec(small_text, "a")))
    b = expand(load_campaign(make_spec(swapped, "b")))
    assert [r.label for r in b[:4]] == ["conservative", "easy order=fcfs", "easy order=sjf", "fcfs"]
    assert {r.run_id for r in a} == {r.run_id for r in b}


def test_period_runs_are_aligned_on_periods_and_drawn_with_the_master_seed(make_spec, trace):
    """6 days of submits in 1-day periods: runs of 2 periods start on a period boundary, 5 starts used once each."""
    path = make_spec(
        """
        seed = 11
        [[workloads]]
        trace = "{trace}"
        windows = { sample = "period-runs", count = 5, length = "1d", periods = 2 }
        [[policies]]
        name = "fcfs"
        """
    )
    runs = expand(load_campaign(path))
    jobs = load_instance(trace)[0].jobs
    first = float(jobs.submit.min())
    assert sorted(r.window for r in runs) == [(first + k * 86400, first + (k + 2) * 86400) for k in range(5)]
    assert [r.window for r in runs] == period_runs(jobs, 86400, 2, 5, rng=np.random.default_rng(11))
    assert [r.window_index for r in runs] == [0, 1, 2, 3, 4]


def test_run_ids_of_existing_modes_are_pinned():
    """The canonical configuration of a homogeneous run, hence its id, does not change with new sampling modes."""
    config = RunConfig(
        campaign="c",
        workload="kth",
        trace="kth.swf",
        trace_path="/x/kth.swf",
        procs=None,
        status=1,
        window_index=0,
        window=(0.0, 604800.0),
        policy="easy",
        params=(("order", "fcfs"),),
        label="easy",
        repetition=0,
        seed=7,
        tau=10.0,
        validate=True,
    )
    assert config.run_id == "ba588768cf2907db"
