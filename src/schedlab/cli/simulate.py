"""``schedlab simulate``: an online policy on a trace, its metrics, and ``jobs.csv`` and ``metrics.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import (
    bsld_threshold,
    check_out_dir,
    err,
    metrics_table,
    one_line_errors,
    out,
    parse_params,
    progress_bar,
)
from schedlab.cli.common import window as parse_window
from schedlab.errors import InputError


def simulate(
    trace: Annotated[
        Path,
        typer.Argument(help="SWF trace (.swf or .swf.gz), Batsim JSON workload, or pwa:NAME (`schedlab trace list`)."),
    ],
    policy: Annotated[
        str, typer.Option("--policy", "-p", help="Registered online policy (see `schedlab algorithms`).")
    ] = "easy",
    param: Annotated[
        list[str], typer.Option("--param", "-P", help="Policy parameter KEY=VALUE, repeatable (e.g. order=sjf).")
    ] = [],
    procs: Annotated[int | None, typer.Option(help="Machine size P (default: the trace header's MaxProcs).")] = None,
    status: Annotated[
        int | None, typer.Option(help="Keep only jobs with this SWF status (e.g. 1 = completed).")
    ] = None,
    window: Annotated[
        str | None,
        typer.Option(help="Keep only jobs submitted in START:END (durations on the trace clock: 0:7d, 7d:)."),
    ] = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for jobs.csv and metrics.json.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite a non-empty --out directory.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the policy's random draws.")] = 0,
    threshold: Annotated[
        float, typer.Option("--bsld-threshold", help="Bounded-slowdown threshold tau in seconds (> 0).")
    ] = 10.0,
    tau: Annotated[float | None, typer.Option("--tau", hidden=True, help="Former name of --bsld-threshold.")] = None,
    check: Annotated[
        bool, typer.Option("--validate/--no-validate", help="Check the schedule with the independent validator.")
    ] = True,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the metrics as JSON on stdout instead of a table.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no table.")] = False,
    allocator: Annotated[
        str | None, typer.Option(help="Allocation step: basic, becont, cont, beloc, loc, beplat, plat (NAME[:OPTION]).")
    ] = None,
    platform: Annotated[
        str | None,
        typer.Option(help="Platform, e.g. fat-tree:1,2,8,240, clusters:512,16 or torus:4x4x8 (sets the machine size)."),
    ] = None,
    penalty: Annotated[
        str | None,
        typer.Option(help="Run-time penalty of spread allocations: none, linear:F or quadratic:F (needs --platform)."),
    ] = None,
    runtime_scale: Annotated[
        float,
        typer.Option(help="Multiply every run and requested time by this load factor c (Krevat 2003: 0.7 to 1.4)."),
    ] = 1.0,
    traces: Annotated[
        Path | None, typer.Option(help="Local mirror where pwa:NAME looks first (default: SCHEDLAB_TRACES).")
    ] = None,
    walltime: Annotated[
        str,
        typer.Option(
            help="A job reaching its requested time: kill (Batsim, Slurm) or ignore (runs to completion: AccaSim, Alea)."
        ),
    ] = "kill",
) -> None:
    """Simulate an online POLICY on TRACE, print its metrics, and write jobs.csv and metrics.json to --out."""
    from schedlab.platform.registry import parse_platform
    from schedlab.policies.rigid.allocators import split_name
    from schedlab.registry import for_command, make_policy
    from schedlab.runner import check_walltime, load_instance, run
    from schedlab.runtime.penalty import parse_penalty
    from schedlab.workload.archive import resolve

    with one_line_errors():
        threshold = bsld_threshold(threshold, tau)
        params = parse_params(param)
        if allocator is not None:
            if "allocator" in params:
                raise InputError("--allocator", message="given twice (--allocator and --param allocator=...)")
            params["allocator"] = allocator
            split_name(allocator)  # unknown allocator: fail before reading the trace
        for_command(policy, "simulate")  # a task policy names the command that runs it
        make_policy(policy, params)  # unknown policy or parameter: fail before reading the trace
        check_walltime(policy, walltime, penalty=penalty)
        filter_window = parse_window(window)
        tree = parse_platform(platform) if platform is not None else None
        if penalty is not None:
            parse_penalty(penalty, tree)  # malformed, or no fat tree: fail before reading the trace
        if not 0 < runtime_scale < float("inf"):
            raise InputError("--runtime-scale", field="--runtime-scale", value=runtime_scale, expected="a number > 0")
        check_out_dir(out_dir, force)
        with progress_bar(enabled=not quiet and not as_json and err.is_terminal, what="fetching") as fetching:
            trace = Path(resolve(trace, traces=traces, progress=fetching))
        instance, report = load_instance(
            trace, procs=procs, status=status, window=filter_window, platform=tree, runtime_scale=runtime_scale
        )
        show = not quiet and not as_json
        with progress_bar(len(instance.jobs), enabled=show and err.is_terminal) as progress:
            result = run(
                instance,
                policy,
                params,
                seed=seed,
                tau=threshold,
                check=check,
                progress=progress,
                report=report,
                penalty=penalty,
                runtime_scale=runtime_scale,
                walltime=walltime,
            )
        if out_dir is not None:
            result.write(out_dir, force=force)
    if as_json:
        print(json.dumps({**result.metrics, "run": result.info}, sort_keys=True, indent=2))
    elif not quiet:
        for line in report.lines() if report is not None else ():
            out.print(line, markup=False)
        out.print(metrics_table(result))
        if out_dir is not None:
            out.print(f"wrote {out_dir / 'jobs.csv'} and {out_dir / 'metrics.json'}")
