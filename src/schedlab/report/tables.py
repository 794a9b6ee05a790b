"""The one writer of report tables (Markdown and HTML) and figures (PNG bytes) every report uses.

Numbers are written for people: integers with thousands separators, other
values with 4 significant digits (whole numbers below 10,000 and beyond), ``-``
for missing or non-finite ones; strings are written as they are.
"""

from __future__ import annotations

import html
import io
import math

import numpy as np
import pandas as pd

__all__ = ["fmt", "html_table", "markdown_table", "png"]


def fmt(value) -> str:
    """A table cell: ``1,234``, ``0.5123``, ``12,346``, ``-`` for None/NaN; strings unchanged."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    value = float(value)
    if not math.isfinite(value):
        return "-"
    if value == int(value) and abs(value) < 1e6:
        return f"{int(value):,}"
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


def markdown_table(frame: pd.DataFrame, *, text_columns: int = 2) -> list[str]:
    """A Markdown table (its lines): the first ``text_columns`` columns left-aligned, the others right-aligned."""
    head = [str(c) for c in frame.columns]
    align = "|" + "|".join("---" if i < text_columns else "---:" for i in range(len(head))) + "|"
    lines = ["| " + " | ".join(head) + " |", align]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v) for v in row) + " |")
    return lines


def html_table(frame: pd.DataFrame) -> str:
    """An HTML ``<table>`` of ``frame`` (escaped cells, numbers as :func:`fmt` writes them)."""
    esc = html.escape
    parts = ["<table><tr>" + "".join(f"<th>{esc(str(c))}</th>" for c in frame.columns) + "</tr>"]
    for row in frame.itertuples(index=False):
        parts.append("<tr>" + "".join(f"<td>{esc(fmt(v))}</td>" for v in row) + "</tr>")
    return "".join(parts) + "</table>"


def png(figure) -> bytes:
    """A matplotlib figure as PNG bytes, without the timestamp metadata (same figure, same bytes)."""
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
