"""``schedlab algorithms`` (also ``schedlab policies``): every registered algorithm, grouped by family and by
the command that runs it, each with what it does, its source and guarantee, and its parameters (type, default,
allowed values, meaning), as wrapped plain text or ``--json``."""

from __future__ import annotations

import json
import math
import textwrap
from typing import Annotated

import typer

from schedlab.cli.common import out

_HOW = {
    "simulate": "schedlab simulate TRACE --policy NAME [--param KEY=VALUE]",
    "tasks simulate": "schedlab tasks simulate TRACE --policy NAME [--param KEY=VALUE]",
    "moldable simulate": "schedlab moldable simulate LOG --policy NAME [--param KEY=VALUE]",
    "solve hybrid": "schedlab solve hybrid INSTANCE --algo NAME[,NAME...]",
    "solve io": "schedlab solve io INSTANCE --algo NAME[,NAME...] [--param KEY=VALUE]",
}


def _json(value):
    """A default as strict JSON: a non-finite float (a threshold left off, ``inf``) as its text."""
    return repr(value) if isinstance(value, float) and not math.isfinite(value) else value


def _default(value) -> str:
    return str(value) if not isinstance(value, float) or math.isfinite(value) else repr(value)


def algorithms(
    as_json: Annotated[bool, typer.Option("--json", help="Print the registry as JSON.")] = False,
) -> None:
    """List every algorithm, online policies and offline algorithms alike, grouped by family and by the command
    that runs it: what it does, its source, its guarantee, and each parameter's type, default, allowed values
    and meaning."""
    from schedlab.registry import ALGORITHMS

    if as_json:
        entries = [
            {
                "name": a.name,
                "family": a.family,
                "kind": a.kind,
                "command": a.command,
                "summary": a.summary,
                "source": a.source,
                "guarantee": a.guarantee,
                "ratio": a.ratio,
                "parameters": [
                    {"name": p.name, "type": p.type, "default": _json(p.default), "allowed": p.allowed, "doc": p.doc}
                    for p in a.parameters()
                ],
            }
            for a in ALGORITHMS.values()
        ]
        print(json.dumps(entries, indent=2))
        return
    groups: dict[tuple[str, str], list] = {}
    for algorithm in ALGORITHMS.values():
        groups.setdefault((algorithm.family, algorithm.command), []).append(algorithm)
    width = max(60, min(out.width, 110))
    lines: list[str] = []

    def para(text: str, indent: int, hang: int = 0) -> None:
        lines.extend(
            textwrap.wrap(
                text,
                width,
                initial_indent=" " * indent,
                subsequent_indent=" " * (indent + hang),
                break_on_hyphens=False,
            )
        )

    for (family, command), members in groups.items():
        kind = members[0].kind
        how = (
            _HOW.get(command, f"schedlab {command}") if command else "the Python API only: schedlab.registry.get(NAME)"
        )
        lines.append(f"{family.upper()} ({kind}), run by {how}")
        for a in members:
            lines.append(f"  {a.name}")
            para(a.summary, 6)
            para(f"Source: {a.source}.", 6, 2)
            para(f"Guarantee: {a.guarantee}.", 6, 2)
            for p in a.parameters():
                allowed = f", {p.allowed}" if p.allowed else ""
                para(f"{p.name} ({p.type}, default {_default(p.default)}{allowed}): {p.doc or 'no description'}", 6, 4)
        lines.append("")
    out.print("\n".join(lines).rstrip(), markup=False, highlight=False, soft_wrap=True)
