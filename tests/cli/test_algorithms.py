"""``schedlab algorithms``: the registry as users read it, in a table and as JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.registry import ALGORITHMS

runner = CliRunner()


def test_json_lists_every_entry_with_its_parameters():
    result = runner.invoke(app, ["algorithms", "--json"], terminal_width=200)
    assert result.exit_code == 0, result.output
    entries = json.loads(result.stdout)
    assert [e["name"] for e in entries] == list(ALGORITHMS)
    conservative = next(e for e in entries if e["name"] == "conservative")
    compress = next(p for p in conservative["parameters"] if p["name"] == "compress")
    assert compress == {
        "name": "compress",
        "type": "str",
        "default": "full",
        "allowed": "one of full, start-now",
        "doc": compress["doc"],
    }
    assert compress["doc"].startswith("on an early end")
    approx32 = next(e for e in entries if e["name"] == "approx32")
    assert approx32["kind"] == "offline" and approx32["command"] == "solve hybrid" and approx32["ratio"] == 1.5


def test_table_groups_by_family_and_command():
    result = runner.invoke(app, ["algorithms"], terminal_width=250)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "rigid jobs (schedlab simulate)" in text
    assert "independent tasks (schedlab tasks simulate)" in text
    assert "CPU+GPU tasks (schedlab solve hybrid)" in text
    assert text.index("rigid jobs (schedlab simulate)") < text.index("independent tasks")
    for name in ALGORITHMS:
        assert name in text
    assert runner.invoke(app, ["policies"], terminal_width=250).stdout == text  # the former name
