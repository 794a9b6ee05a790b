"""``schedlab trace``: inspect a workload trace and convert it between SWF and Batsim JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from schedlab.cli.common import check_out_file, err, make_folder, number, one_line_errors, out, progress_bar
from schedlab.cli.common import window as parse_window
from schedlab.errors import InputError

trace_app = typer.Typer(
    help="Inspect and convert workload traces; list and fetch the Parallel Workloads Archive's logs by name.",
    no_args_is_help=True,
)

TRACES_HELP = "Local mirror of the archive's .swf.gz files (default: the SCHEDLAB_TRACES environment variable)."


@trace_app.command("list")
def trace_list(
    traces: Annotated[Path | None, typer.Option(help=TRACES_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """The archive's logs schedlab knows by name (pwa:NAME), their size, where they are here, their quirks."""
    from schedlab.workload.archive import LOGS, find_local

    rows: list[dict] = []
    for log in LOGS.values():
        local = find_local(log, traces)
        rows.append(
            {
                "name": log.name,
                "jobs": log.jobs,
                "max_procs": log.max_procs,
                "where": str(local) if local is not None else None,
                "url": log.url(),
                "sha256": log.sha256,
                "notes": log.notes,
            }
        )
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("name (pwa:NAME)", "jobs", "MaxProcs", "here", "notes", title="Parallel Workloads Archive logs")
    table.columns[0].no_wrap = True
    table.columns[3].overflow = "fold"
    for row in rows:
        table.add_row(row["name"], number(row["jobs"]), number(row["max_procs"]), row["where"] or "-", row["notes"])
    out.print(table)


@trace_app.command("fetch")
def trace_fetch(
    names: Annotated[list[str], typer.Argument(help="Log names (see `schedlab trace list`), pwa: optional.")],
    traces: Annotated[Path | None, typer.Option(help=TRACES_HELP)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Download logs of the Parallel Workloads Archive into the cache, checksum verified (unless already here)."""
    from schedlab.workload.archive import fetch, find_local, get_log

    with one_line_errors():
        logs = [get_log(name) for name in names]  # every name checked before any download
        for log in logs:
            local = find_local(log, traces)
            if local is not None:
                err.print(f"{log.name}: already at {local}", markup=False, soft_wrap=True)
                continue
            with progress_bar(enabled=not quiet and err.is_terminal, what=f"fetching {log.name}") as progress:
                path = fetch(log, progress=progress)
            err.print(f"{log.name}: fetched to {path}", markup=False, soft_wrap=True)


@trace_app.command("info")
def trace_info(
    trace: Annotated[Path, typer.Argument(help="SWF trace (.swf or .swf.gz) or Batsim JSON workload (.json).")],
    procs: Annotated[
        int | None, typer.Option(help="Machine size P (default: the header's MaxProcs, or nb_res).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Size, span, load, job-size and run-time distributions of TRACE, and what the default filters drop."""
    from schedlab.workload.stats import workload_summary

    with one_line_errors():
        summary = workload_summary(trace, procs=procs)
    if as_json:
        print(json.dumps(summary, sort_keys=True, indent=2))
        return
    out.print(_summary_table(summary))


@trace_app.command("convert")
def trace_convert(
    source: Annotated[Path, typer.Argument(help="SWF trace (.swf, .swf.gz) or Batsim JSON workload (.json).")],
    target: Annotated[Path, typer.Argument(help="Output: .json (Batsim) or .swf / .swf.gz.")],
    procs: Annotated[
        int | None, typer.Option(help="Machine size P (default: the header's MaxProcs, or nb_res).")
    ] = None,
    status: Annotated[int | None, typer.Option(help="Keep only jobs with this SWF status.")] = None,
    window: Annotated[
        str | None, typer.Option(help="Keep only jobs submitted in START:END (durations: 0:7d, 7d:).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite TARGET.")] = False,
) -> None:
    """Convert a workload between SWF and Batsim JSON, with the same filters as `simulate` (reported)."""
    from schedlab.runner import load_instance
    from schedlab.workload.batsim import write_batsim
    from schedlab.workload.swf import write_swf

    with one_line_errors():
        name = target.name
        if not name.endswith((".json", ".swf", ".swf.gz")):
            raise InputError(str(target), message="unknown output format, expected a .json, .swf or .swf.gz file")
        check_out_file(target, force, "TARGET")
        instance, report = load_instance(source, procs=procs, status=status, window=parse_window(window))
        make_folder(target.parent)
        if name.endswith(".json"):
            write_batsim(target, instance.jobs, instance.platform.n_procs)
        else:
            write_swf(target, instance.jobs, {"MaxProcs": instance.platform.n_procs, "MaxJobs": len(instance.jobs)})
    for line in report.lines() if report is not None else ():
        err.print(line, markup=False)
    err.print(f"wrote {len(instance.jobs):,} jobs to {target}", markup=False)


def _summary_table(summary: dict) -> Table:
    table = Table("field", "value", title=str(summary.get("source", "")), show_header=False)
    for key, value in summary.items():
        if key == "source":
            continue
        if isinstance(value, dict):
            text = ", ".join(f"{k}: {number(v) if not isinstance(v, str) else v}" for k, v in value.items())
        else:
            text = number(value) if isinstance(value, (int, float)) else str(value)
        table.add_row(key.replace("_", " "), text)
    return table
