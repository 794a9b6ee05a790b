"""``schedlab compare``: runs side by side, job by job, with one self-contained HTML page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from schedlab.cli.common import check_out_dir, err, number, one_line_errors, out

SHOWN = (
    "wait_mean",
    "wait_max",
    "response_mean",
    "slowdown_mean",
    "bsld_mean",
    "bsld_max",
    "utilization",
    "makespan",
    "n_killed",
    "n_rejected",
)
"""The metrics the terminal table shows (every metric is in metrics.csv, --json and the HTML page)."""


def compare(
    runs: Annotated[list[Path], typer.Argument(help="Run folders or jobs.csv files (ours or Batsim's); first = base.")],
    out_dir: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for metrics.csv, deltas.csv and compare.html.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite a non-empty --out directory.")] = False,
    procs: Annotated[
        int | None, typer.Option(help="Machine size P of every run (default: each run's metrics.json).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON on stdout.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No table.")] = False,
) -> None:
    """Compare runs of the same jobs: every metric with its ratio to the first run, start-time deltas by job
    size and run time, CDFs of wait and bounded slowdown, utilization over time (compare.html)."""
    from schedlab.report.compare import compare as compare_runs
    from schedlab.report.compare import write_comparison

    with one_line_errors():
        check_out_dir(out_dir, force)
        result = compare_runs(list(runs), procs=procs)
        written = write_comparison(result, out_dir) if out_dir is not None else []
    if as_json:
        data = {
            "runs": dict(zip(result.labels, map(str, result.paths))),
            "tau": result.tau,
            "metrics": result.metrics.to_dict(orient="records"),
            "deltas": result.deltas.to_dict(orient="records"),
        }
        print(json.dumps(data, indent=2, default=lambda v: None))
        return
    if quiet:
        return
    labels = result.labels
    table = Table("metric", *labels, *(f"/ {labels[0]}" for _ in labels[1:]), title=" vs ".join(labels))
    shown = result.metrics[result.metrics["metric"].isin(SHOWN)]
    for row in shown.itertuples(index=False):
        table.add_row(*(v if isinstance(v, str) else number(None if v is None or v != v else v) for v in row))
    out.print(table)
    every = result.deltas[result.deltas["jobs"] == "all jobs"]
    for row in every.to_dict(orient="records"):
        out.print(
            f"{row['run']}: of {row['started in both']:,} jobs, {row['earlier']:,} started earlier, "
            f"{row['later']:,} later, {row['same']:,} at the same time as in {labels[0]} "
            f"(mean delta {number(row['mean delta (s)'])} s)",
            markup=False,
        )
    if written:
        err.print("wrote " + ", ".join(str(p) for p in written), markup=False, soft_wrap=True)
