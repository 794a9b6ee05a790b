"""User-facing text cites papers by authors, year and section, never internal jargon.

The package's docstrings, comments, help texts and messages, the README and docs/ must not name the
internal implementation notes ("spec 004 A7", "spec 000-ch4-5 section 5.2"), the papers by their internal
numbers ("seed 004") or paths outside the repository other than the local traces mirror
(``../shared/traces``, which the Makefile uses). Readings of the papers are cited by their id in
docs/readings.md instead (e.g. "reading LMT-A7").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

JARGON = re.compile(
    r"[Ss]eeds?\s+00\d"  # the papers by internal number (also across a line break)
    r"|[Ss]pec\s+00\d|\bspec\s+A\d+|[Ss]pec\s+section|\b[Ss]pec\s+\d|[Ss]pec\s+ambiguit"  # the implementation notes
    r"|(?<![\d,.])00[0-4]-[a-z]"  # their file names (000-ch4-5, 004-redirections)
    r"|shared/spec|\.\./shared/(?!traces)"  # paths outside the repository
)


def user_text_files() -> list[Path]:
    """Every file whose text users read: the package's sources, the README and docs/ (Markdown)."""
    return [
        *sorted((ROOT / "src" / "schedlab").rglob("*.py")),
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
    ]


def hits(text: str, pattern: re.Pattern = JARGON) -> list[str]:
    """``line: match`` for every match of ``pattern`` in ``text`` (a match may span a line break)."""
    return [f"{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}" for m in pattern.finditer(text)]


@pytest.mark.parametrize(
    "line",
    [
        "Source: seed 004 section V-A",
        "(spec 004 A7)",
        "# spec A18, fixed processor count",
        "spec 000-ch4-5 section 5.2",
        "the six claims (spec section 5)",
        "optimal on m > 1 (spec 3.2)",
        "(spec ambiguity 19)",
        "Spec 003 ambiguities 6 and 12",
        "see /work/shared/spec/004-redirections.md",
        "../shared/seeds/004.txt",
        "as in seed\n000 ch. 5",
    ],
)
def test_the_pattern_catches_jargon(line):
    assert hits(line)


@pytest.mark.parametrize(
    "line",
    [
        "Lucarelli, Mendonca and Trystram (2017), section V-A; reading LMT-A7 (docs/readings.md)",
        "the campaign spec's `store`, relative to the spec file",
        "a 100,000-sequence database; 10,000-job spans; 8,000-task workloads",
        "seed 0; --seed 1",
        "schedlab simulate ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz",
    ],
)
def test_the_pattern_leaves_plain_text(line):
    assert not hits(line)


def test_user_text_has_no_jargon():
    found = [f"{path.relative_to(ROOT)}:{hit}" for path in user_text_files() for hit in hits(path.read_text())]
    assert not found, "internal jargon in user-facing text (cite the paper, or a reading of docs/readings.md):\n" + (
        "\n".join(found)
    )


def test_readings_cited_in_the_package_exist():
    """Every "reading X" id the package cites is defined in docs/readings.md."""
    defined = set(re.findall(r"^- \*\*([A-Z0-9]+-[A-Z0-9]+),", (ROOT / "docs" / "readings.md").read_text(), re.M))
    cited = {
        ident
        for path in user_text_files()
        for ident in re.findall(r"\b(LMT-A\d+|M45-\d+|M2-\d+|BH-(?:\d+|HEFT)|K-\d+)\b", path.read_text())
    }
    assert cited and defined
    assert cited <= defined, f"readings cited but not in docs/readings.md: {sorted(cited - defined)}"


PROJECT_HISTORY = re.compile(r"\b[Ii]ssues?\s+\d+\b|DESIGN\.md")
"""The project's own issue numbers and its starting brief: history, not something a user can look up."""


def test_user_text_does_not_cite_the_project_history():
    found = [f"{p.relative_to(ROOT)}:{hit}" for p in user_text_files() for hit in hits(p.read_text(), PROJECT_HISTORY)]
    assert not found, "internal issue numbers in user-facing text:\n" + "\n".join(found)
