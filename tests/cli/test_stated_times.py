"""Stated times are measured times: no help text claims a duration, and the README's times of the quick
reproductions are those ``benchmarks/bench_cli.py`` measured on this machine (``benchmarks/cli_times.json``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer

from schedlab.cli import app

ROOT = Path(__file__).resolve().parents[2]
CLAIM = re.compile(
    r"\b(about|under|takes|took|a few|well under)\s+(a\s+)?[\d,.]*\s*(minutes?|seconds?|min|hours?)\b", re.I
)


def help_texts(command=typer.main.get_command(app), path="schedlab"):
    yield path, command.help or ""
    for param in command.params:
        yield f"{path} {'/'.join(getattr(param, 'opts', []))}", getattr(param, "help", None) or ""
    for name, sub in getattr(command, "commands", {}).items():
        yield from help_texts(sub, f"{path} {name}")


def test_no_help_text_states_a_duration():
    claims = [(where, text) for where, text in help_texts() if CLAIM.search(text)]
    assert claims == []


def readme_times() -> dict[str, float]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return {
        m[1]: float(m[2])
        for m in re.finditer(r"^\| `schedlab reproduce ([a-z0-9-]+) --quick` \| ([\d.]+) \|", text, re.M)
    }


def test_readme_quick_times_are_the_measured_ones():
    measured = json.loads((ROOT / "benchmarks" / "cli_times.json").read_text())["reproduce --quick"]
    assert readme_times() == measured
    assert set(measured) == {
        "hybrid",
        "redirections",
        "locality-ch4",
        "locality-ch5",
        "swdual",
        "torus",
        "io",
        "stretch",
    }


def test_readme_states_no_other_quick_time():
    """Every mention of a `--quick` run points to the measured table instead of a number of its own."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = text[: text.index("## Performance")]
    for match in re.finditer(r"`--quick`", text):
        sentence = re.split(r"[.;]\s", text[match.end() : match.end() + 300])[0]  # what it says of --quick
        assert not CLAIM.search(sentence), sentence
