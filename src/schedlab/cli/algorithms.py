"""``schedlab algorithms``: every registered algorithm, grouped by family and by the command that runs it."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from schedlab.cli.common import out


def algorithms(
    as_json: Annotated[bool, typer.Option("--json", help="Print the registry as JSON.")] = False,
) -> None:
    """List every algorithm: its family, the command that runs it, its source, guarantee and parameters
    (type, default, allowed values, meaning)."""
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
                    {"name": p.name, "type": p.type, "default": p.default, "allowed": p.allowed, "doc": p.doc}
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
    for (family, command), members in groups.items():
        how = f"schedlab {command}" if command else "Python API only"
        table = Table(
            "name",
            "what it does",
            "source; guarantee",
            "parameters",
            title=f"{family} ({how})",
            title_justify="left",
            show_lines=True,
        )
        for a in members:
            params = "\n".join(
                f"{p.name}: {p.type} = {p.default!r}" + (f" ({p.allowed})" if p.allowed else "") + f": {p.doc}"
                for p in a.parameters()
            )
            table.add_row(a.name, a.summary, f"{a.source}; {a.guarantee}", params or "-")
        out.print(table)
