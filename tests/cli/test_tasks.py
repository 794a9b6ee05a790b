"""``schedlab tasks simulate``: conversion, window draw and policy run from one command."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.cli.common import duration
from schedlab.errors import InputError

runner = CliRunner()


def test_tasks_simulate_json(traces_dir):
    args = [
        "tasks",
        "simulate",
        str(traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz"),
        "--window",
        "15d",
        "--seed",
        "3",
        "-p",
        "gspt-rd",
        "-P",
        "dedicated=2",
        "-P",
        "tau=1",
        "--json",
    ]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["run"]["policy"] == "gspt-rd(dedicated=2, tau=1)" and data["run"]["conversion"] == "C"
    assert data["run"]["redirected"] == data["n_aborted"] > 0
    assert data["run"]["window"][1] - data["run"]["window"][0] == 15 * 86400
    assert json.loads(runner.invoke(app, args).stdout) == data  # same seed, same run


def test_tasks_simulate_refuses_a_parallel_policy_parameter(data_dir):
    result = runner.invoke(app, ["tasks", "simulate", str(data_dir / "tiny.swf"), "-p", "gspt-rd", "-P", "order=sjf"])
    assert result.exit_code == 1 and "order" in result.stderr


@pytest.mark.parametrize(
    ("text", "seconds"), [("7d", 604800), ("12h", 43200), ("30m", 1800), ("90", 90), ("1w", 604800)]
)
def test_duration_option(text, seconds):
    assert duration(text, "--window") == seconds


def test_duration_option_rejects_garbage():
    with pytest.raises(InputError, match="--window = 7 days"):
        duration("7 days", "--window")
