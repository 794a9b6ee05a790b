"""``schedlab gantt``: the Gantt chart of one run, with utilization and queue length below (an image, a zoomable page)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import one_line_errors
from schedlab.cli.common import out as console
from schedlab.errors import InputError


def gantt(
    jobs_csv: Annotated[Path, typer.Argument(help="A run's jobs.csv (ours or Batsim's).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Image to write: .png, .svg or .pdf.")] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Zoomable, self-contained HTML page to write (plotly).")
    ] = None,
    start: Annotated[float | None, typer.Option("--from", help="Start of the view (s, run clock).")] = None,
    end: Annotated[float | None, typer.Option("--to", help="End of the view (s).")] = None,
    procs: Annotated[int | None, typer.Option(help="Machine size (default: highest processor used + 1).")] = None,
    max_rectangles: Annotated[
        int, typer.Option(help="Draw ranges one by one up to this many; aggregate beyond.")
    ] = 20_000,
) -> None:
    """Draw JOBS_CSV's Gantt chart (every allocation, or busy fractions when the view holds too many) to --out
    (an image) and/or --html (a zoomable page); at least one of them."""
    from schedlab.report.gantt import plot_gantt

    with one_line_errors():
        if out is None and html is None:
            raise InputError("schedlab gantt", message="nothing to write: give --out IMAGE, --html PAGE or both")
        if not jobs_csv.is_file():
            raise InputError(str(jobs_csv), message="no such file")
        written = []
        if out is not None:
            drawn = plot_gantt(jobs_csv, out, start=start, end=end, n_procs=procs, max_rectangles=max_rectangles)
            written.append((out, drawn))
        if html is not None:
            from schedlab.report.gantt_html import gantt_html

            drawn = gantt_html(jobs_csv, html, start=start, end=end, n_procs=procs, max_rectangles=max_rectangles)
            written.append((html, drawn))
    for path, drawn in written:
        console.print(
            f"wrote {path}: {drawn['jobs']:,} jobs, {drawn['ranges']:,} ranges ({drawn['mode']})",
            markup=False,
            soft_wrap=True,
        )
