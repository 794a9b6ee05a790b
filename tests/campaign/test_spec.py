"""Campaign specifications: defaults, and errors that name the key, the value and what is allowed."""

from __future__ import annotations

import pytest

from schedlab.campaign import load_campaign, metric_names, parse_duration
from schedlab.errors import InputError


def test_small_spec_defaults(small_spec):
    campaign = load_campaign(small_spec)
    assert campaign.name == "spec"
    assert campaign.store == small_spec.with_name("spec.store")
    spec = campaign.spec
    assert (spec.seed, spec.repetitions, spec.bsld_threshold, spec.validate_schedules) == (11, 1, 10.0, True)
    assert [p.name for p in spec.policies] == ["fcfs", "easy", "conservative"]
    assert spec.policies[1].grid() == [{"order": "fcfs"}, {"order": "sjf"}]
    assert spec.workloads[0].label == "synthetic"
    assert spec.workloads[0].windows.length == 86400.0


def test_store_key_is_relative_to_the_spec_and_the_argument_wins(make_spec, small_text, tmp_path):
    path = make_spec('name = "x"\nstore = "out/results"\n' + small_text)
    assert load_campaign(path).store == tmp_path / "out" / "results"
    assert load_campaign(path, store=tmp_path / "elsewhere").store == tmp_path / "elsewhere"
    assert load_campaign(path).name == "x"


def test_grid_is_the_product_in_key_order(make_spec):
    path = make_spec(
        """
        [[workloads]]
        trace = "{trace}"
        [[policies]]
        name = "conservative"
        params = { order = ["fcfs", "sjf"], compress = ["full", "start-now"] }
        """
    )
    grid = load_campaign(path).spec.policies[0].grid()
    assert grid == [
        {"compress": "full", "order": "fcfs"},
        {"compress": "full", "order": "sjf"},
        {"compress": "start-now", "order": "fcfs"},
        {"compress": "start-now", "order": "sjf"},
    ]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        (3600, 3600.0),
        (1.5, 1.5),
        ("90", 90.0),
        ("90s", 90.0),
        ("2m", 120.0),
        ("12h", 43200.0),
        ("7d", 604800.0),
        ("1w", 604800.0),
        ("0.5d", 43200.0),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["7 days", "d", "", "-3", 0, True, "1y"])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueError, match="expected"):
        parse_duration(text)


BASE = """
[[workloads]]
trace = "{trace}"
[[policies]]
name = "easy"
"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "colour = 1\n" + BASE,
            r"unknown key 'colour', expected one of bsld_threshold, metrics, name, policies, repetitions, seed, store, timeout, validate, workloads",
        ),
        ("repetitions = 0\n" + BASE, r"repetitions = 0, expected greater than or equal to 1"),
        ("bsld_threshold = -1\n" + BASE, r"bsld_threshold = -1, expected greater than 0"),
        ("tau = -1\n" + BASE, r"tau = -1, expected greater than 0"),
        ('metrics = ["bsld"]\n' + BASE, r"metrics\[0\] = 'bsld', expected one of wait_mean, "),
        ("[[policies]]\nname = 'easy'\n", r"missing key 'workloads'"),
        (
            BASE.replace('trace = "{trace}"', 'trace = "{trace}"\nwindows = { sample = "weekly", length = "7d" }'),
            r"workloads\[0\]\.windows\.sample = 'weekly', expected 'random', 'periods' or 'period-runs'",
        ),
        (
            BASE.replace('trace = "{trace}"', 'trace = "{trace}"\nwindows = { count = 2, length = "7 days" }'),
            r"workloads\[0\]\.windows\.length = '7 days', expected a number of seconds or a string like",
        ),
        (
            BASE.replace('trace = "{trace}"', 'trace = "{trace}"\nwindows = { count = 2, length = "1d", size = 3 }'),
            r"unknown key 'workloads\[0\]\.windows\.size', expected one of count, length, periods, sample, seed",
        ),
        (
            BASE.replace('trace = "{trace}"', 'trace = "{trace}"\nwindows = { length = "1d" }'),
            r"workloads\[0\]\.windows\.count, expected an integer >= 1 for sample = 'random'",
        ),
        (
            BASE.replace('trace = "{trace}"', 'trace = "{trace}"\nwindows = { sample = "period-runs", length = "7d" }'),
            r"workloads\[0\]\.windows\.count, expected an integer >= 1 for sample = 'period-runs'",
        ),
        (
            BASE.replace(
                'trace = "{trace}"',
                'trace = "{trace}"\nwindows = { sample = "period-runs", count = 2, length = "7d", periods = 0 }',
            ),
            r"workloads\[0\]\.windows\.periods = 0, expected greater than or equal to 1$",
        ),
        (
            BASE.replace('trace = "{trace}"', 'trace = "{trace}"\nwindows = { count = 2, length = "7d", periods = 2 }'),
            r"workloads\[0\]\.windows\.periods = 2, expected no periods unless sample = 'period-runs'$",
        ),
        (
            BASE.replace('trace = "{trace}"', 'trace = "missing.swf"'),
            r"workloads\[0\]\.trace = 'missing.swf', expected an existing trace file",
        ),
        (
            BASE.replace('trace = "{trace}"', 'trace = "{trace}"\nwindow = [10, 5]'),
            r"workloads\[0\]\.window = \[10, 5\], expected \[start, end\] in seconds with start < end",
        ),
        (
            BASE + '[[workloads]]\ntrace = "{trace}"\n',
            r"workloads\[1\]\.name = 'synthetic', expected a name not used by workloads\[0\]",
        ),
        (
            BASE.replace('"easy"', '"easyy"'),
            r"policies\[0\]\.name = 'easyy', expected one of conservative, dasedf, dbos, easy, fcfs(, |$)",
        ),
        (BASE + "params = { depth = 2 }\n", r"policies\[0\]\.params = \{depth = 2\}, expected one of (\w+, )*order"),
        (
            BASE + 'params = { order = ["fcfs", "ljf"] }\n',
            r"policies\[0\]\.params = \{order = 'ljf'\}, expected one of fcfs, sjf",
        ),
        ("seed = \n" + BASE, r"invalid TOML"),
        (
            BASE + "params = { order = { a = 1 } }\n",
            r"policies\[0\]\.params\.order = \{\.\.\.\}, expected a number, a string, a boolean, or a list of them",
        ),
        (BASE + "label = 5\n", r"policies\[0\]\.label = 5, expected a valid string"),
    ],
)
def test_errors_name_the_key_the_value_and_what_is_allowed(make_spec, body, message):
    path = make_spec(body)
    with pytest.raises(InputError, match=message) as caught:
        load_campaign(path)
    assert str(caught.value).startswith(str(path) + ": ")
    assert "\n" not in str(caught.value)


def test_missing_spec_file(tmp_path):
    with pytest.raises(InputError, match="no such campaign specification"):
        load_campaign(tmp_path / "nope.toml")


def test_metric_names_are_the_aggregate_keys():
    names = metric_names()
    assert {"bsld_mean", "wait_l2", "utilization", "makespan", "n_jobs", "n_killed"} <= set(names)
    assert "tau" not in names


def test_shipped_example_is_valid(traces_dir):
    from pathlib import Path

    spec = Path(__file__).resolve().parents[2] / "campaigns" / "easy-vs-conservative.toml"
    campaign = load_campaign(spec)
    assert [p.name for p in campaign.spec.policies] == ["fcfs", "easy", "conservative"]
    assert campaign.spec.workloads[0].windows.count == 10


def test_every_registered_policy_with_defaults_is_accepted(make_spec):
    """Size-dependent parameter checks (dedicated < P) are left to the runs, which know P."""
    from schedlab.registry import names

    online = names(kind="online")
    body = '[[workloads]]\ntrace = "{trace}"\n' + "".join(f'[[policies]]\nname = "{name}"\n' for name in online)
    campaign = load_campaign(make_spec(body))
    assert [p.name for p in campaign.spec.policies] == online


def test_tau_is_read_as_the_bsld_threshold_with_the_same_run_ids(make_spec, small_text):
    """``tau`` (the key's older name) and ``bsld_threshold`` give the same runs; the value changes the ids."""
    from schedlab.campaign import expand

    def ids(line: str) -> list[str]:
        return [config.run_id for config in expand(load_campaign(make_spec(line + small_text)))]

    assert ids("tau = 3.0\n") == ids("bsld_threshold = 3.0\n")
    assert load_campaign(make_spec("tau = 3.0\n" + small_text)).spec.bsld_threshold == 3.0
    assert ids("bsld_threshold = 3.0\n") != ids("bsld_threshold = 10.0\n")


def test_a_trace_may_be_an_archive_log_by_name(make_spec, traces_dir, monkeypatch, tmp_path):
    """``trace = "pwa:NAME"`` finds the log in SCHEDLAB_TRACES: the runs read the file and cut the windows of
    its path; their ids hash the name as written, so they are the same on every machine."""
    from schedlab.campaign import expand

    monkeypatch.setenv("SCHEDLAB_TRACES", str(traces_dir))
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "empty"))
    body = '[[workloads]]\nname = "kth"\ntrace = "{}"\nwindows = {{ count = 2, length = "1d" }}\n'
    body += '[[policies]]\nname = "easy"\n'
    by_name = expand(load_campaign(make_spec(body.format("pwa:KTH-SP2-1996-2.1-cln"), name="a")))
    by_path = expand(load_campaign(make_spec(body.format(traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz"), name="b")))
    assert len(by_name) == len(by_path) == 2
    for named, pathed in zip(by_name, by_path, strict=True):
        assert (named.trace_path, named.window) == (pathed.trace_path, pathed.window)
        assert named.trace == "pwa:KTH-SP2-1996-2.1-cln"
    with pytest.raises(InputError, match=r"workloads\[0\]\.trace: pwa:KTH-SP3: not a log"):
        load_campaign(make_spec(body.format("pwa:KTH-SP3"), name="c"))
