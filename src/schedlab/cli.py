"""The ``schedlab`` command line: simulate policies on traces, inspect traces, list policies.

Every error schedlab raises on purpose (:class:`~schedlab.errors.SchedlabError`)
is printed as one line on stderr and exits with status 1; no traceback.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from schedlab.cli_campaign import campaign_app
from schedlab.cli_gantt import gantt
from schedlab.cli_reproduce import reproduce_app
from schedlab.cli_solve import solve_app
from schedlab.cli_tasks import tasks_app
from schedlab.errors import InputError, SchedlabError

app = typer.Typer(
    help="Design, simulate, compare and run resource allocation policies for parallel systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
trace_app = typer.Typer(help="Inspect workload traces.", no_args_is_help=True)
app.add_typer(trace_app, name="trace")
app.add_typer(campaign_app, name="campaign")
app.command()(gantt)
app.add_typer(reproduce_app, name="reproduce")
app.add_typer(tasks_app, name="tasks")
app.add_typer(solve_app, name="solve")

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)
_debug = False


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Show the full traceback of errors.")] = False,
) -> None:
    global _debug
    _debug = debug


@contextmanager
def _one_line_errors():
    """Turn a SchedlabError into ``error: <message>`` on stderr and exit status 1."""
    try:
        yield
    except SchedlabError as error:
        if _debug:
            raise
        err.print(f"error: {error}", markup=False, soft_wrap=True)
        raise typer.Exit(1) from None


def _parse_params(values: list[str]) -> dict[str, str]:
    params = {}
    for text in values:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise InputError("--param", field="--param", value=text, expected="key=value")
        params[key.strip()] = value.strip()
    return params


def _parse_window(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    lo, sep, hi = text.partition(":")
    try:
        window = (float(lo), float(hi))
    except ValueError:
        window = None
    if not sep or window is None or not window[0] < window[1]:
        raise InputError("--window", field="--window", value=text, expected="START:END in seconds with START < END")
    return window


def _number(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


@app.command()
def simulate(
    trace: Annotated[Path, typer.Argument(help="SWF trace (.swf or .swf.gz) or Batsim JSON workload.")],
    policy: Annotated[
        str, typer.Option("--policy", "-p", help="Registered policy (see `schedlab policies`).")
    ] = "easy",
    param: Annotated[
        list[str], typer.Option("--param", "-P", help="Policy parameter KEY=VALUE, repeatable (e.g. order=sjf).")
    ] = [],
    procs: Annotated[int | None, typer.Option(help="Machine size P (default: the trace header's MaxProcs).")] = None,
    status: Annotated[
        int | None, typer.Option(help="Keep only jobs with this SWF status (e.g. 1 = completed).")
    ] = None,
    window: Annotated[
        str | None, typer.Option(help="Keep only jobs submitted in START:END (seconds, trace clock).")
    ] = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for jobs.csv and metrics.json.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite a non-empty --out directory.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the policy's random draws.")] = 0,
    tau: Annotated[float, typer.Option(help="Bounded-slowdown threshold in seconds.")] = 10.0,
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
        str | None, typer.Option(help="Fat-tree platform, e.g. fat-tree:1,2,8,240 or clusters:512,16.")
    ] = None,
    penalty: Annotated[
        str | None,
        typer.Option(help="Run-time penalty of spread allocations: none, linear:F or quadratic:F (needs --platform)."),
    ] = None,
) -> None:
    """Simulate an online POLICY on TRACE, print its metrics, and write jobs.csv and metrics.json to --out."""
    from schedlab.platform.registry import parse_platform
    from schedlab.policies.rigid.allocators import split_name
    from schedlab.registry import make_policy
    from schedlab.runner import load_instance, run
    from schedlab.runtime.penalty import parse_penalty

    with _one_line_errors():
        params = _parse_params(param)
        if allocator is not None:
            if "allocator" in params:
                raise InputError("--allocator", message="given twice (--allocator and --param allocator=...)")
            params["allocator"] = allocator
            split_name(allocator)  # unknown allocator: fail before reading the trace
        make_policy(policy, params)  # unknown policy or parameter: fail before reading the trace
        filter_window = _parse_window(window)
        tree = parse_platform(platform) if platform is not None else None
        if penalty is not None:
            parse_penalty(penalty, tree)  # malformed, or no fat tree: fail before reading the trace
        if out_dir is not None and out_dir.is_dir() and any(out_dir.iterdir()) and not force:
            raise InputError(str(out_dir), message="output directory is not empty (use --force to overwrite)")
        instance, report = load_instance(trace, procs=procs, status=status, window=filter_window, platform=tree)
        show = not quiet and not as_json
        with _progress(len(instance.jobs), enabled=show and err.is_terminal) as progress:
            result = run(
                instance,
                policy,
                params,
                seed=seed,
                tau=tau,
                check=check,
                progress=progress,
                report=report,
                penalty=penalty,
            )
        if out_dir is not None:
            result.write(out_dir, force=force)
    if as_json:
        print(json.dumps({**result.metrics, "run": result.info}, sort_keys=True, indent=2))
    elif not quiet:
        for line in report.lines() if report is not None else ():
            out.print(line, markup=False)
        out.print(_metrics_table(result))
        if out_dir is not None:
            out.print(f"wrote {out_dir / 'jobs.csv'} and {out_dir / 'metrics.json'}")


@contextmanager
def _progress(total: int, *, enabled: bool):
    """A rich progress bar fed by the engine's ``progress(done, total)`` callback (None when disabled)."""
    if not enabled:
        yield None
        return
    bar = Progress(
        TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True
    )
    with bar:
        task = bar.add_task("jobs", total=total)
        yield lambda done, _total: bar.update(task, completed=done)


def _metrics_table(result) -> Table:
    m = result.metrics
    table = Table(
        title=f"{result.info['policy']} on {Path(result.info['workload']).name} (P={result.info['n_procs']:,})"
    )
    table.add_column("metric")
    for column in ("mean", "max", "L2 norm"):
        table.add_column(column, justify="right")
    labels = {
        "wait": "wait (s)",
        "response": "response (s)",
        "slowdown": "slowdown",
        "bsld": f"bounded slowdown (tau={m['tau']:g})",
        "bsld_unclamped": "bounded slowdown, unclamped",
    }
    for key, label in labels.items():
        table.add_row(label, *(_number(m[f"{key}_{agg}"]) for agg in ("mean", "max", "l2")))
    table.add_section()
    table.add_row("utilization", _number(m["utilization"]), "", "")
    table.add_row("makespan (s)", _number(m["makespan"]), "", "")
    counts = f"{m['n_completed']:,} completed, {m['n_killed']:,} killed at walltime, {m['n_rejected']:,} rejected"
    table.caption = f"{m['n_jobs']:,} jobs: {counts}; " + ", ".join(f"{k} {v:.2f} s" for k, v in result.seconds.items())
    return table


@app.command()
def policies() -> None:
    """List the registered online policies and their parameters."""
    from schedlab.registry import ALGORITHMS

    table = Table("policy", "parameters (defaults)", "description")
    for name, algorithm in sorted(ALGORITHMS.items()):
        if algorithm.kind != "online":
            continue
        params = ", ".join(f"{p.name}={p.default}" for p in algorithm.parameters())
        table.add_row(name, params or "-", algorithm.summary)
    out.print(table)


@trace_app.command("info")
def trace_info(
    trace: Annotated[Path, typer.Argument(help="SWF trace (.swf or .swf.gz).")],
    procs: Annotated[int | None, typer.Option(help="Machine size P (default: the header's MaxProcs).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Size, span, load, job-size and run-time distributions of TRACE, and what the default filters drop."""
    from schedlab.workload.stats import trace_summary
    from schedlab.workload.swf import read_swf

    with _one_line_errors():
        summary = trace_summary(read_swf(trace), procs=procs)
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
    window: Annotated[str | None, typer.Option(help="Keep only jobs submitted in START:END seconds.")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite TARGET.")] = False,
) -> None:
    """Convert a workload between SWF and Batsim JSON, with the same filters as `simulate` (reported)."""
    from schedlab.runner import load_instance
    from schedlab.workload.batsim import write_batsim
    from schedlab.workload.swf import write_swf

    with _one_line_errors():
        name = target.name
        if not name.endswith((".json", ".swf", ".swf.gz")):
            raise InputError(str(target), message="unknown output format, expected a .json, .swf or .swf.gz file")
        if target.exists() and not force:
            raise InputError(str(target), message="exists (use --force to overwrite)")
        instance, report = load_instance(source, procs=procs, status=status, window=_parse_window(window))
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
            text = ", ".join(f"{k}: {_number(v) if not isinstance(v, str) else v}" for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            text = "; ".join(f"{what}: {_number(count)}" for what, count in value)
        else:
            text = _number(value) if isinstance(value, (int, float)) else str(value)
        table.add_row(key.replace("_", " "), text)
    return table
