"""What every reproduction shares: its campaigns, their results, the claims and their verdicts.

An experiment writes its runs as TOML campaign specs (:func:`write_campaigns`),
runs them through the campaign runner (:func:`run_campaigns`: one process
pool, resumable, the store under ``out/store``), turns the results into the
paper's tables and figures, and checks the paper's claims (:class:`Claim`).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

__all__ = [
    "Claim",
    "claims_markdown",
    "done",
    "write_summary_html",
    "run_campaigns",
    "toml_value",
    "write_campaigns",
    "write_json",
]

VERDICTS = ("holds", "partly", "fails", "not measurable")


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, its verdict (one of :data:`VERDICTS`) and the numbers behind it."""

    number: int
    claim: str
    verdict: str
    evidence: list[str]


def claims_markdown(title: str, intro: str, claims: list[Claim]) -> str:
    """``claims.md``: a title, how the claims were judged, then each claim with its verdict and evidence."""
    lines = [f"# {title}", "", intro, ""]
    for claim in claims:
        lines += [f"## {claim.number}. {claim.claim}", "", f"**Verdict: {claim.verdict}.**", ""]
        lines += [f"- {line}" for line in claim.evidence]
        lines.append("")
    return "\n".join(lines)


def write_summary_html(out: Path, page: list[str], claims: list[Claim], figures: list[tuple[str, str]]) -> Path:
    """Finish an experiment's ``summary.html``: ``page`` (its opening and tables), then each claim with its
    verdict and evidence, then each figure (file name, caption); return the path written."""
    esc = html.escape
    page = [*page, "<h2>Claims</h2>"]
    for claim in claims:
        page.append(
            f"<h3>{claim.number}. {esc(claim.claim)} <em>{esc(claim.verdict)}</em></h3><ul>"
            + "".join(f"<li>{esc(line)}</li>" for line in claim.evidence)
            + "</ul>"
        )
    page += [f'<h2>{esc(caption)}</h2><img src="{esc(name)}" alt="{esc(caption)}">' for name, caption in figures]
    page.append("</body></html>")
    path = Path(out) / "summary.html"
    path.write_text("\n".join(page) + "\n", encoding="utf-8")
    return path


def toml_value(value) -> str:
    """A Python value as TOML text (booleans, numbers, strings, lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def write_campaigns(out: Path, texts: dict[str, str]) -> list[Path]:
    """Write each campaign spec ``texts[name]`` to ``out/campaigns/<name>.toml``; return the paths in order."""
    folder = Path(out) / "campaigns"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in texts.items():
        path = folder / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def run_campaigns(
    paths: list[Path], *, jobs: int = 1, progress: Callable[[int, int, dict], None] | None = None
) -> tuple[list[pd.DataFrame], float]:
    """Run the campaigns (already-stored runs are reused) and return each one's results table and the wall time."""
    from schedlab.campaign.runner import run_spec_files

    return run_spec_files(paths, jobs=jobs, progress=progress)


def done(table: pd.DataFrame) -> pd.DataFrame:
    """The runs that finished (``state == "done"``)."""
    return table[table["state"] == "done"] if "state" in table else table


def write_json(path: Path, data: dict) -> None:
    """``experiment.json``-style metadata: indented, keys sorted, a trailing newline."""
    Path(path).write_text(json.dumps(data, indent=2, sort_keys=True, default=list) + "\n", encoding="utf-8")
