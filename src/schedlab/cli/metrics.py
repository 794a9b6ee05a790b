"""``schedlab metrics``: every metric of ``metrics.json`` from any Batsim-style ``jobs.csv``, ours or Batsim's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import bsld_threshold, err, metrics_of_table, one_line_errors, out


def metrics(
    run: Annotated[Path, typer.Argument(help="A run folder (from --out) or a jobs.csv file, ours or Batsim's.")],
    procs: Annotated[
        int | None,
        typer.Option(help="Machine size P (default: the run's metrics.json, else the largest allocated id + 1)."),
    ] = None,
    threshold: Annotated[
        float | None,
        typer.Option(
            "--bsld-threshold", help="Bounded-slowdown threshold tau in seconds (> 0; default: the run's, else 10)."
        ),
    ] = None,
    tau: Annotated[float | None, typer.Option("--tau", hidden=True, help="Former name of --bsld-threshold.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON on stdout.")] = False,
) -> None:
    """Measure a finished run from its jobs.csv with the code `simulate` uses: the same metrics, the same JSON."""
    from schedlab.measure import read_run

    with one_line_errors():
        if threshold is not None or tau is not None:
            threshold = bsld_threshold(threshold if threshold is not None else 10.0, tau)
        files = read_run(run, procs=procs)
        values = files.metrics(tau=threshold)
    source = {
        "jobs_csv": str(files.path),
        "n_procs": files.instance.platform.n_procs,
        "n_procs_from": files.n_procs_from,
        "notes": files.notes,
    }
    if as_json:
        print(json.dumps({**values, "run": files.info, "source": source}, sort_keys=True, indent=2))
        return
    for note in files.notes:
        err.print(f"note: {note}", markup=False, soft_wrap=True)
    policy = files.info.get("policy") or "run"
    title = f"{policy} from {files.path} (P={source['n_procs']:,}, from {files.n_procs_from})"
    out.print(metrics_of_table(values, title))
