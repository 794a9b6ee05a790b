"""``schedlab tasks``: independent sequential tasks from a trace (Lucarelli, Mendonca and Trystram 2017), simulated online."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import duration, metrics_table, one_line_errors, out, parse_params

tasks_app = typer.Typer(
    help="Independent sequential tasks (Lucarelli, Mendonca and Trystram 2017): SPT families and redirection.",
    no_args_is_help=True,
)


@tasks_app.command("simulate")
def simulate_tasks(
    trace: Annotated[Path, typer.Argument(help="SWF trace (.swf or .swf.gz).")],
    policy: Annotated[
        str, typer.Option("--policy", "-p", help="gspt, spt, gspt-rd, spt-rd, gspt-rr, spt-rr or fcfs.")
    ] = "gspt-rd",
    param: Annotated[
        list[str], typer.Option("--param", "-P", help="Policy parameter KEY=VALUE (dedicated, tau, b, c, batch).")
    ] = [],
    window: Annotated[
        str | None, typer.Option(help="Simulate one random window of this length (e.g. 7d), drawn with --seed.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the window draw and of random redirection.")] = 0,
    conversion: Annotated[str, typer.Option(help="Parallel jobs to tasks: A, B or C (seed 004 section V-A).")] = "C",
    rounding: Annotated[str, typer.Option(help="Rounding of m/Q for conversion C: round, floor or ceil.")] = "round",
    out_dir: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for jobs.csv and metrics.json.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite a non-empty --out directory.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
) -> None:
    """Convert TRACE's completed jobs to sequential tasks and simulate an online task POLICY on them.

    Flow is the response time; bounded stretch is the unclamped bounded slowdown (B = 10 s) of the metrics.
    """
    import json

    from schedlab.registry import make_policy
    from schedlab.runner import run, tasks_instance
    from schedlab.workload.tasks import load_tasks

    with one_line_errors():
        params = parse_params(param)
        make_policy(policy, params)
        length = duration(window, "--window") if window is not None else None
        tasks, report = load_tasks(trace, window=length, seed=seed, conversion=conversion, rounding=rounding)
        result = run(tasks_instance(tasks), policy, params, seed=seed, report=report)
        result.info.update(
            {
                "conversion": conversion,
                "mean_procs": tasks.mean_procs,
                "load": tasks.load,
                "window": list(tasks.window) if tasks.window else None,
                "redirected": len(result.schedule.aborted),
                "wasted_work": float(sum(p.end - p.start for p in result.schedule.aborted)),
            }
        )
        if out_dir is not None:
            result.write(out_dir, force=force)
    if as_json:
        print(json.dumps({**result.metrics, "run": result.info}, sort_keys=True, indent=2))
        return
    out.print(
        f"{len(tasks.jobs):,} tasks on {tasks.n_procs} processors "
        f"(conversion {conversion}, Q = {tasks.mean_procs:.2f}, load {tasks.load:.2f}); "
        f"{result.info['redirected']} redirected, {result.info['wasted_work']:,.0f} s of work lost",
        markup=False,
    )
    out.print(metrics_table(result))
