"""``schedlab moldable``: moldable tasks (an SWF log with Downey speed-ups, or a tasks CSV) simulated online.

Source: Saule, Bozdag and Catalyurek (2014), sections 5-7: the policy chooses each task's processor count
at its start, the run-time model gives its length, the validator checks both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import (
    check_out_dir,
    err,
    one_line_errors,
    out,
    parse_params,
    procs_alias,
    progress_bar,
    stretch_table,
)

moldable_app = typer.Typer(
    help="Moldable tasks: DBOS, Iterative, SCOJO-P-like and FCFS-sequential (Saule, Bozdag and Catalyurek 2014).",
    no_args_is_help=True,
)


@moldable_app.callback()
def _group() -> None:
    """Moldable tasks (a group, so that ``simulate`` stays a sub-command on its own)."""


@moldable_app.command("simulate")
def simulate_moldable(
    trace: Annotated[
        Path, typer.Argument(help="SWF log (.swf or .swf.gz) converted with --speedup, or a tasks CSV (.csv).")
    ],
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            "-p",
            help="dbos, iterative, improved-iterative, scojo-like (an approximation of SCOJO-P), fcfs-sequential.",
        ),
    ] = "dbos",
    param: Annotated[
        list[str],
        typer.Option("--param", "-P", help="Policy parameter KEY=VALUE (rho, eps; utilisation, window)."),
    ] = [],
    rho: Annotated[float | None, typer.Option("--rho", help="DBOS's online factor (same as --param rho=R).")] = None,
    procs: Annotated[int | None, typer.Option("--procs", help="Processors (default 512, as the paper).")] = None,
    m: Annotated[int | None, typer.Option("--m", hidden=True, help="Former name of --procs.")] = None,
    first: Annotated[int, typer.Option("--first", help="Use the log's first N usable jobs (the paper: 8000).")] = 8000,
    speedup: Annotated[
        str, typer.Option("--speedup", help="Speed-up model of a log's jobs: downey (Downey 1997).")
    ] = "downey",
    seed: Annotated[
        int, typer.Option(help="Seed of the Downey draws of a log (A ~ U[q, m], sigma ~ U[0, 2]) and of the policy.")
    ] = 0,
    out_dir: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for jobs.csv and metrics.json.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite a non-empty --out directory.")] = False,
    check: Annotated[
        bool, typer.Option("--validate/--no-validate", help="Check the schedule with the independent validator.")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no table.")] = False,
) -> None:
    """Simulate a moldable-task POLICY on TRACE; print stretch, flow, load, Delta, fairness; write jobs.csv
    (allocated_resources holds each task's processors) and metrics.json to --out."""
    import json

    from schedlab.errors import InputError
    from schedlab.registry import for_command, make_policy
    from schedlab.runner import load_moldable, run

    with one_line_errors():
        params = parse_params(param)
        if rho is not None:
            if "rho" in params:
                raise InputError("--rho", message="given twice (--rho and --param rho=...)")
            params["rho"] = str(rho)
        for_command(policy, "moldable simulate")
        make_policy(policy, params)  # unknown policy or parameter: fail before reading the trace
        size = procs_alias(procs, m)
        check_out_dir(out_dir, force)
        instance = load_moldable(trace, m=512 if size is None else size, first=first, seed=seed, speedup=speedup)
        show = not quiet and not as_json
        with progress_bar(len(instance.jobs), enabled=show and err.is_terminal) as progress:
            result = run(instance, policy, params, seed=seed, check=check, progress=progress, stretch=True)
        if not trace.suffix == ".csv":
            result.info.update({"first": first, "speedup": speedup, "downey_seed": seed})
        if out_dir is not None:
            result.write(out_dir, force=force)
    if as_json:
        print(json.dumps({**result.metrics, "run": result.info}, sort_keys=True, indent=2))
    elif not quiet:
        out.print(stretch_table(result))
        if out_dir is not None:
            out.print(f"wrote {out_dir / 'jobs.csv'} and {out_dir / 'metrics.json'}")
