"""``schedlab gantt``: the Gantt chart of one run, with utilization and queue length below (an image, a zoomable page)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import one_line_errors, window
from schedlab.cli.common import out as console
from schedlab.errors import InputError

_FILE_SUFFIXES = ("png", "svg", "pdf", "htm", "jpg", "jpeg", "gif", "tif", "webp", "eps", "ps", "bmp")
"""Beginnings of suffixes that say a file was meant where ``--out`` wants a folder (``g.png``, ``g.jpg2``)."""


def gantt(
    jobs_csv: Annotated[Path, typer.Argument(help="A run's jobs.csv (ours or Batsim's).")],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Folder to write gantt.FORMAT (and gantt.html) into; created when missing."),
    ],
    image_format: Annotated[str, typer.Option("--format", help="Image format: png, svg or pdf (default png).")] = "png",
    html: Annotated[
        bool, typer.Option("--html", help="Also write gantt.html, a zoomable self-contained page (plotly).")
    ] = False,
    span: Annotated[
        str | None,
        typer.Option("--window", help="View START:END on the run's clock, durations (2d:9d, 7d:, 3600:7200)."),
    ] = None,
    procs: Annotated[int | None, typer.Option(help="Machine size (default: highest processor used + 1).")] = None,
    max_rectangles: Annotated[
        int, typer.Option(help="Draw ranges one by one up to this many; aggregate beyond.")
    ] = 20_000,
    force: Annotated[bool, typer.Option("--force", help="Overwrite gantt.* files already in --out.")] = False,
) -> None:
    """Draw JOBS_CSV's Gantt chart (every allocation, or busy fractions when the view holds too many), with
    utilization and queued jobs below, into the folder --out: gantt.png (or --format) and, with --html,
    gantt.html. The title names the trace and policy (from metrics.json beside JOBS_CSV)."""
    from schedlab.report.gantt import FORMATS, plot_gantt

    with one_line_errors():
        if image_format not in FORMATS:
            raise InputError("--format", field="--format", value=image_format, expected=f"one of {', '.join(FORMATS)}")
        if not jobs_csv.is_file():
            raise InputError(str(jobs_csv), message="no such file")
        view = window(span)
        start, end = (None, None) if view is None else view
        targets = [out / f"gantt.{image_format}"] + ([out / "gantt.html"] if html else [])
        _check_out(out, targets, force)
        written = []
        drawn = plot_gantt(jobs_csv, targets[0], start=start, end=end, n_procs=procs, max_rectangles=max_rectangles)
        written.append((targets[0], drawn))
        if html:
            from schedlab.report.gantt_html import gantt_html

            drawn = gantt_html(jobs_csv, targets[1], start=start, end=end, n_procs=procs, max_rectangles=max_rectangles)
            written.append((targets[1], drawn))
    for path, drawn in written:
        console.print(
            f"wrote {path}: {drawn['jobs']:,} jobs, {drawn['ranges']:,} ranges ({drawn['mode']})",
            markup=False,
            soft_wrap=True,
        )


def _check_out(out: Path, targets: list[Path], force: bool) -> None:
    from schedlab.report.gantt import FORMATS

    """``--out`` must be a folder (or not exist yet, without a file's suffix); its gantt files are kept unless
    ``--force``. Checked before any drawing."""
    if out.exists() and not out.is_dir():
        raise InputError(str(out), message="--out must be a folder (the chart is written into it as gantt.FORMAT)")
    suffix = out.suffix.lstrip(".").lower()
    if not out.exists() and suffix.startswith(_FILE_SUFFIXES):
        hint = f"--format {suffix}" if suffix in FORMATS else f"--format one of {', '.join(FORMATS)}"
        raise InputError(
            str(out),
            message=f"--out is a folder: the chart is written into it as gantt.FORMAT (use --out {out.parent} {hint})",
        )
    existing = [path.name for path in targets if path.exists()]
    if existing and not force:
        raise InputError(str(out), message=f"{', '.join(existing)} already there (use --force to overwrite)")
