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


def test_listing_groups_by_family_and_command_with_whole_descriptions():
    result = runner.invoke(app, ["policies"], terminal_width=100)
    assert result.exit_code == 0, result.output
    text = result.stdout
    headings = [line for line in text.splitlines() if line and not line.startswith(" ")]
    assert headings[0] == "RIGID JOBS (online), run by schedlab simulate TRACE --policy NAME [--param KEY=VALUE]"
    assert "INDEPENDENT TASKS (online), run by schedlab tasks simulate TRACE --policy NAME [--param KEY=VALUE]" in text
    assert "CPU+GPU TASKS (offline), run by schedlab solve hybrid INSTANCE --algo NAME[,NAME...]" in text
    assert "RIGID JOBS (offline), run by the Python API only: schedlab.registry.get(NAME)" in text
    assert len(headings) == len({(a.family, a.command) for a in ALGORITHMS.values()})
    names = [line.strip() for line in text.splitlines() if line.startswith("  ") and not line.startswith("   ")]
    assert names == [a.name for a in sorted(ALGORITHMS.values(), key=lambda a: headings_order(a, headings))]
    flat = " ".join(text.split())
    for a in ALGORITHMS.values():
        assert a.summary in flat  # whole, not cut at a line
        assert a.summary.endswith((".", ")")) and "``" not in a.summary and ":class:" not in a.summary
        for p in a.parameters():
            assert f"{p.name} ({p.type}, default {p.default}" in flat
    assert "seed 00" not in text and "``" not in text
    assert "tau (int, default 3, >= 1): redirect a running task once tau shorter tasks arrived" in flat
    assert "Variant: backfill=True, migration=False, flat=False." in flat  # torus-backfill's shared docstring
    assert runner.invoke(app, ["algorithms"], terminal_width=100).stdout == text  # one listing, two names


def headings_order(algorithm, headings):
    heading = next(h for h in headings if h.startswith(f"{algorithm.family.upper()} ({algorithm.kind})"))
    return headings.index(heading)


def test_a_policy_given_to_the_wrong_command_names_the_right_one(data_dir):
    result = runner.invoke(app, ["simulate", str(data_dir / "tiny.swf"), "-p", "gspt"])
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: --policy: gspt schedules independent tasks, not with `schedlab simulate`: use `schedlab tasks simulate`"
    )
