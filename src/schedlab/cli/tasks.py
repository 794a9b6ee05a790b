"""``schedlab tasks``: independent sequential tasks, simulated online, and generated.

``tasks simulate TRACE.swf`` converts a trace's jobs to sequential tasks (Lucarelli, Mendonca and Trystram
2017, section V-A); ``tasks simulate TASKS.csv --procs M`` reads a tasks CSV and adds the max-stretch objectives
of Saule, Bozdag and Catalyurek (2014); ``tasks generate`` writes the random tasks of that study.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import (
    bsld_threshold,
    check_out_dir,
    duration,
    err,
    make_folder,
    metrics_table,
    one_line_errors,
    out,
    parse_params,
    procs_alias,
    progress_bar,
    stretch_table,
)
from schedlab.cli.common import out_file as out_file_in
from schedlab.cli.common import window as parse_window

tasks_app = typer.Typer(
    help="Independent sequential tasks: SPT families with redirection (Lucarelli, Mendonca and Trystram 2017), "
    "max-stretch policies (Saule, Bozdag and Catalyurek 2014), generated tasks.",
    no_args_is_help=True,
)


@tasks_app.command("simulate")
def simulate_tasks(
    trace: Annotated[Path, typer.Argument(help="SWF trace (.swf or .swf.gz), or a tasks CSV (.csv, with --procs).")],
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            "-p",
            help="gspt, spt, gspt-rd, spt-rd, gspt-rr, spt-rr, gsrpt, srpt; fcfs-stretch, dasedf, split (max "
            "stretch); a policy of `schedlab simulate` (fcfs) runs too. See `schedlab policies`.",
        ),
    ] = "gspt-rd",
    param: Annotated[
        list[str],
        typer.Option(
            "--param",
            "-P",
            help="Policy parameter KEY=VALUE, repeatable (dedicated, tau: the redirection counter, b, c, batch; "
            "eps, validity, reserved, threshold, groups, base).",
        ),
    ] = [],
    procs: Annotated[
        int | None,
        typer.Option(
            "--procs",
            help="Machine size: an SWF trace's P before conversion (default: its MaxProcs header); a tasks CSV's "
            "processors (required).",
        ),
    ] = None,
    m: Annotated[int | None, typer.Option("--m", hidden=True, help="Former name of --procs for a tasks CSV.")] = None,
    status: Annotated[
        int, typer.Option(help="Keep only SWF jobs with this status (default 1, completed, as the paper).")
    ] = 1,
    window: Annotated[
        str | None,
        typer.Option(help="Keep only SWF jobs submitted in START:END (durations on the trace clock: 0:7d, 7d:)."),
    ] = None,
    random_window: Annotated[
        str | None,
        typer.Option(help="Simulate one random window of this length (e.g. 7d) of the SWF jobs, drawn with --seed."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the window draw and of random redirection.")] = 0,
    conversion: Annotated[
        str, typer.Option(help="Parallel jobs to tasks: A, B or C (Lucarelli et al. 2017, section V-A).")
    ] = "C",
    rounding: Annotated[str, typer.Option(help="Rounding of m/Q for conversion C: round, floor or ceil.")] = "round",
    out_dir: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for jobs.csv and metrics.json.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite a non-empty --out directory.")] = False,
    threshold: Annotated[
        float, typer.Option("--bsld-threshold", help="Bounded-slowdown threshold tau in seconds (> 0).")
    ] = 10.0,
    check: Annotated[
        bool, typer.Option("--validate/--no-validate", help="Check the schedule with the independent validator.")
    ] = True,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the metrics as JSON on stdout instead of a table.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no table.")] = False,
) -> None:
    """Simulate an online task POLICY on TRACE's jobs converted to sequential tasks, or on a tasks CSV.

    SWF: flow is the response time; bounded stretch is the unclamped bounded slowdown (B = 10 s) of the
    metrics. Tasks CSV (columns id, release, p; see `schedlab tasks generate`): the metrics add the stretch
    (C - r) / p, its max and mean, flow, load, Delta and the fairness counts.
    """
    import json

    from schedlab.errors import InputError
    from schedlab.registry import for_command, make_policy
    from schedlab.runner import load_sequential_tasks, run, tasks_instance
    from schedlab.workload.tasks import load_tasks

    csv = trace.suffix == ".csv"
    with one_line_errors():
        threshold = bsld_threshold(threshold)
        params = parse_params(param)
        for_command(policy, "tasks simulate", "simulate")
        make_policy(policy, params)
        procs = procs_alias(procs, m)
        span = parse_window(window)
        length = duration(random_window, "--random-window") if random_window is not None else None
        check_out_dir(out_dir, force)
        show = not quiet and not as_json
        if csv:
            if procs is None:
                raise InputError("--procs", message="a tasks CSV needs --procs (the number of processors)")
            for option, given in (("--window", window), ("--random-window", random_window)):
                if given is not None:
                    raise InputError(option, message=f"{option} applies to SWF traces only")
            instance, report = load_sequential_tasks(trace, m=procs), None
        else:
            tasks, report = load_tasks(
                trace,
                window=length,
                seed=seed,
                conversion=conversion,
                rounding=rounding,
                procs=procs,
                status=status,
                span=span,
            )
            instance = tasks_instance(tasks)
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
                stretch=csv,
            )
        if not csv:
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
    if quiet:
        return
    if csv:
        out.print(stretch_table(result))
        return
    assert report is not None  # an SWF trace's conversion reports its filters
    for line in report.lines():
        out.print(line, markup=False)
    out.print(
        f"{len(tasks.jobs):,} tasks on {tasks.n_procs} processors (m = {report.machine_procs}) "
        f"(conversion {conversion}, Q = {tasks.mean_procs:.2f}, load {tasks.load:.2f}); "
        f"{result.info['redirected']} redirected, {result.info['wasted_work']:,.0f} s of work lost",
        markup=False,
    )
    out.print(metrics_table(result))


@tasks_app.command("generate")
def generate(
    n: Annotated[int, typer.Option("--n", help="Number of tasks.")],
    dist: Annotated[
        str,
        typer.Option(
            "--dist",
            help="uniform:A,B (sequential tasks, p ~ U[A, B], Saule et al. 2014 section 4.1) or ssm-like "
            "(moldable tasks with stepped speed-ups: an APPROXIMATION of the paper's short-sequence-mapping "
            "workload, section 7).",
        ),
    ],
    load: Annotated[
        float, typer.Option("--load", help="Target load: total work over the release span (processors kept busy).")
    ],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Directory to write tasks.csv into.")],
    m: Annotated[int, typer.Option("--m", help="Processor counts the run times cover (ssm-like).")] = 300,
    seed: Annotated[int, typer.Option(help="Seed of the draws (same seed, same file).")] = 0,
    force: Annotated[bool, typer.Option(help="Overwrite an existing tasks.csv in --out.")] = False,
) -> None:
    """Write random independent tasks as OUT/tasks.csv: releases by exponential inter-arrival times whose rate
    gives the target load, sizes from --dist."""
    import numpy as np

    from schedlab.metrics import processor_load
    from schedlab.workload.jobs import JobTable
    from schedlab.workload.moldable_csv import write_tasks_csv
    from schedlab.workload.stretch_generators import generate_tasks

    with one_line_errors():
        out_file = out_file_in(out_dir, "tasks.csv", force)
        tasks = generate_tasks(dist, n, m, load=load, rng=np.random.default_rng(seed))
        make_folder(out_dir)
        write_tasks_csv(tasks, out_file)
    sequential = isinstance(tasks, JobTable)
    release, p1 = (tasks.submit, tasks.run_time) if sequential else (tasks.release, tasks.p1)
    kind = "sequential" if sequential else f"moldable (1 to {m} processors)"
    out.print(
        f"wrote {out_file}: {len(p1):,} {kind} tasks, load {processor_load(release, p1):.1f}, "
        f"Delta {p1.max() / p1.min():.3g}",
        markup=False,
        soft_wrap=True,
    )
