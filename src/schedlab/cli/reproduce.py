"""``schedlab reproduce``: re-run a paper's experiment through the campaign runner, write its tables, figures, claims.

Every reproduction writes its campaign specs to ``OUT/campaigns``, stores its
runs in ``OUT/store`` (a rerun with ``--force`` reuses them), and writes CSVs,
``summary.md``/``summary.html``, figures and ``experiment.json`` into ``OUT``:

* ``hybrid``: Bleuse (2017), ch. 3 (Table 3.1 instances, every CPU+GPU algorithm, Figs. 3.4-3.7);
* ``redirections``: Lucarelli, Mendonca and Trystram (2017) (task windows of seven traces, Table I, Figs. 3-10,
  the six claims);
* ``locality-ch4``: Mendonca (2017), ch. 4 (300-job Curie samples, makespan deviations, local jobs);
* ``locality-ch5``: Mendonca (2017), ch. 5 (7-day periods on fat trees, metrics normalised to basic, the claim).
* ``swdual``: Mendonca (2017), ch. 2 (real Smith-Waterman searches timed on this machine's cores, one after
  another and not through the campaign runner, whose parallel runs would share the cores being measured;
  CPU+GPU plans from the calibrated model; the thesis's consistency checks and claims).
* ``torus``: Krevat (2003) (NASA iPSC and SDSC SP2 spans on a 4x4x8 torus, saturation points, capacity).
* ``io``: Bleuse (2017), ch. 4-6 (I/O-aware allocation on lines and rings, measured for the first time: ratios
  to the best lower bound and to the optimum, price of the constraints, which bound is tight).
* ``stretch``: Saule, Bozdag and Catalyurek (2014) (FCFS and DASEDF on sequential tasks with the (X, T)
  reservation; DBOS, Iterative and a SCOJO-P-like approximation on two logs as moldable tasks and on an SSM-like
  workload; Fig. 1(b) beside the paper's values, the claims of sections 4 and 7).

Same seed, same files except timing columns and wall times, whatever ``--jobs``.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from schedlab.cli.common import check_out_dir, err, one_line_errors, out, progress_bar

TracesOption = Annotated[Path, typer.Option("--traces", help="Folder holding the PWA traces.")]
TRACES = Path("../shared/traces")
"""Where the traces are looked for by default: the local mirror beside the repository (as `make demo`)."""

JobsOption = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        help="Worker processes (default: all cores, as `campaign run`; results do not depend on it, timings do).",
    ),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no summary line.")]

reproduce_app = typer.Typer(help="Reproduce the papers' experiments through the campaign runner.", no_args_is_help=True)


@reproduce_app.callback()
def _group() -> None:
    """Reproduce the papers' experiments (a group, so that every experiment is a sub-command)."""


def _check_campaign_options(out_dir: Path, force: bool, jobs: int | None, *counts: tuple[str, int | None]) -> int:
    """The checks every campaign-based reproduction makes before it starts: ``--out``, ``--jobs`` and its counts
    (each ``(option, value)`` must be None or >= 1). Returns the number of worker processes (``--jobs``, default
    all cores)."""
    from schedlab.errors import InputError

    check_out_dir(out_dir, force)
    for option, value in (("--jobs", jobs), *counts):
        if value is not None and value < 1:
            raise InputError(option, field=option, value=value, expected="an integer >= 1")
    return jobs if jobs is not None else os.cpu_count() or 1


def _summary(name: str, out_dir: Path, runs: int, failed: int, began: float) -> None:
    """The one line every reproduction prints: runs, those not done, wall time, the claims' verdicts counted
    from ``claims.md`` (``-`` for an experiment that checks none), and where the files are."""
    claims = out_dir / "claims.md"
    verdicts = (
        re.findall(r"^\*\*Verdict: (.+?)\.\*\*$", claims.read_text(encoding="utf-8"), re.M) if claims.exists() else []
    )
    counted = ", ".join(f"{verdict} {verdicts.count(verdict)}" for verdict in dict.fromkeys(verdicts)) or "-"
    out.print(
        f"reproduce {name}: {runs:,} runs ({failed:,} not done) in {time.perf_counter() - began:.1f} s; "
        f"claims: {counted}; wrote {out_dir}",
        markup=False,
        soft_wrap=True,
    )


@reproduce_app.command("hybrid")
def hybrid(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for the campaign, its store, CSVs, tables and figures.")
    ],
    quick: Annotated[
        bool, typer.Option(help="Small sub-grid (n <= 1000, m <= 64, k in {1, 4}; 24 instances).")
    ] = False,
    jobs: JobsOption = None,
    seed: Annotated[
        int, typer.Option(help="Master seed; each instance's seed derives from (seed, n, m, k, sample).")
    ] = 0,
    samples: Annotated[
        int | None, typer.Option(help="Instances per (n, m, k) (default: 10, or 1 with --quick).")
    ] = None,
    n: Annotated[list[int] | None, typer.Option("--n", help="Task counts (repeatable; replaces the grid's).")] = None,
    m: Annotated[list[int] | None, typer.Option("--m", help="CPU counts (repeatable; replaces the grid's).")] = None,
    k: Annotated[list[int] | None, typer.Option("--k", help="GPU counts (repeatable; replaces the grid's).")] = None,
    algo: Annotated[
        str | None,
        typer.Option("--algo", "-a", help="Comma-separated algorithms (default: all; approx32 is always run)."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: QuietOption = False,
) -> None:
    """Bleuse (2017), ch. 3: Table 3.1 instances, every CPU+GPU algorithm, Figs. 3.4-3.7 and summary tables."""

    began = time.perf_counter()
    with one_line_errors():
        from schedlab.errors import ArgumentError, InputError
        from schedlab.experiments.hybrid import FULL_GRID, QUICK_GRID, experiment_algorithms, reproduce

        jobs = _check_campaign_options(out_dir, force, jobs, ("--samples", samples))
        grid = QUICK_GRID if quick else FULL_GRID
        if samples is not None:
            grid = replace(grid, samples=samples)
        for name, values in (("n", n), ("m", m), ("k", k)):
            if values:
                if min(values) < (1 if name == "n" else 0):
                    raise InputError(f"--{name}", field=f"--{name}", value=min(values), expected="a count >= 1")
                sizes = tuple(dict.fromkeys(values))
                grid = (
                    replace(grid, n=sizes)
                    if name == "n"
                    else replace(grid, m=sizes)
                    if name == "m"
                    else replace(grid, k=sizes)
                )
        names = None
        if algo is not None:
            names = [a.strip() for a in algo.split(",") if a.strip()]
            try:
                experiment_algorithms(names)
            except ArgumentError as exc:
                raise InputError("--algo", field="--algo", value=algo, expected=str(exc)) from None
        with progress_bar(enabled=not quiet and err.is_terminal, what="runs") as progress:
            summary = reproduce(out_dir, grid, seed=seed, names=names, jobs=jobs, progress=progress, quick=quick)
    if not quiet:
        _summary("hybrid", out_dir, summary["runs"], summary["failed"], began)


@reproduce_app.command("redirections")
def redirections(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for campaigns, store, tables, figures and claims.")
    ],
    quick: Annotated[
        bool, typer.Option(help="3 windows of KTH-SP2 and HPC2N, Table II parameters only (time: README, Performance).")
    ] = False,
    tuning: Annotated[
        bool, typer.Option(help="Also run the tuning grids (RD: tau x m_d; RR: c x m_d, b = 0.02).")
    ] = False,
    jobs: JobsOption = None,
    seed: Annotated[int, typer.Option(help="Master seed: window draws and random redirections.")] = 0,
    traces: TracesOption = TRACES,
    windows: Annotated[int | None, typer.Option(help="Windows per trace (default 20, or 3 with --quick).")] = None,
    trace: Annotated[
        list[str] | None,
        typer.Option("--trace", help="Trace names to run (repeatable; default: all 7, or 2 with --quick)."),
    ] = None,
    m_mode: Annotated[
        str, typer.Option("--m-mode", help="Processors per window: formula (round(m/Q)) or table1 (Table I's count).")
    ] = "formula",
    count_if_idle: Annotated[
        bool,
        typer.Option(
            help="GSPT-RD also counts arrivals that start at once on an idle main processor (the paper's literal "
            "reading; default: only arrivals that wait)."
        ),
    ] = False,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: QuietOption = False,
) -> None:
    """The experiment of Lucarelli, Mendonca and Trystram (2017), section V: task windows of the paper's 7 PWA traces, SPT families with and without redirection, Table I,
    Figs 3-10 and the six claims of its section V checked."""

    began = time.perf_counter()
    with one_line_errors():
        from schedlab.experiments.redirections import plan, reproduce

        jobs = _check_campaign_options(out_dir, force, jobs, ("--windows", windows))
        chosen = plan(
            traces,
            quick=quick,
            tuning=tuning,
            seed=seed,
            windows=windows,
            traces=trace,
            m_mode=m_mode,
            count_if_idle=count_if_idle,
        )
        with progress_bar(enabled=not quiet and err.is_terminal, what="runs") as progress:
            summary = reproduce(out_dir, chosen, jobs=jobs, progress=progress)
    if not quiet:
        _summary("redirections", out_dir, summary["runs"], summary["failed"], began)


@reproduce_app.command("locality-ch5")
def locality_ch5(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for campaigns, store, tables, figures and claims.")
    ],
    quick: Annotated[
        bool,
        typer.Option(help="2 instances of KTH-SP2 and HPC2N, best-effort allocators only (time: README, Performance)."),
    ] = False,
    jobs: JobsOption = None,
    seed: Annotated[int, typer.Option(help="Master seed: instance draws.")] = 0,
    traces: TracesOption = TRACES,
    instances: Annotated[
        int | None, typer.Option(help="Instances per platform (default 30, or 2 with --quick).")
    ] = None,
    trace: Annotated[
        list[str] | None,
        typer.Option("--trace", help="Platforms to run (repeatable; default: all 6, or 2 with --quick)."),
    ] = None,
    forced: Annotated[
        bool | None,
        typer.Option(
            "--forced/--no-forced", help="Also cont, loc, plat on small platforms (default: not with --quick)."
        ),
    ] = None,
    forced_max_procs: Annotated[
        int,
        typer.Option(
            help="Largest platform (processors) the forced allocators run on: 8192 adds RICC, 80640 Curie too."
        ),
    ] = 2048,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: QuietOption = False,
) -> None:
    """Mendonca (2017) ch. 5: 7-day periods of the six Table 5.2 traces on fat trees, quadratic penalty F = 2,
    conservative backfilling with topology-aware allocators, normalised to basic (Mendonca 2017, section 5.7)."""

    began = time.perf_counter()
    with one_line_errors():
        from schedlab.experiments.locality_ch5 import plan, reproduce

        jobs = _check_campaign_options(
            out_dir, force, jobs, ("--instances", instances), ("--forced-max-procs", forced_max_procs)
        )
        chosen = plan(
            traces,
            quick=quick,
            seed=seed,
            instances=instances,
            traces=trace,
            forced=forced,
            forced_max_procs=forced_max_procs,
        )
        with progress_bar(enabled=not quiet and err.is_terminal, what="runs") as progress:
            summary = reproduce(out_dir, chosen, jobs=jobs, progress=progress)
    if not quiet:
        _summary("locality-ch5", out_dir, summary["runs"], summary["failed"], began)


@reproduce_app.command("locality-ch4")
def locality_ch4(
    out_dir: Annotated[
        Path,
        typer.Option("--out", "-o", help="Directory for the campaign, its store, runs.csv, summary, claims, figure."),
    ],
    quick: Annotated[bool, typer.Option(help="8 instances instead of 512.")] = False,
    jobs: JobsOption = None,
    seed: Annotated[int, typer.Option(help="Seed of the job samples (instance i uses [seed, i]).")] = 0,
    traces: TracesOption = TRACES,
    instances: Annotated[int | None, typer.Option(help="Number of instances (default 512, or 8 with --quick).")] = None,
    with_replacement: Annotated[
        bool, typer.Option(help="Draw jobs with replacement (the reference code's choice).")
    ] = False,
    block: Annotated[
        bool, typer.Option(help="Take 300 consecutive jobs from a random start (thesis section 1.2.3).")
    ] = False,
    trace: Annotated[
        str | None,
        typer.Option(
            "--trace",
            help="Trace file in --traces (default: CEA-Curie-2011-2.1-cln-b1-clean2.swf.gz, the thesis's cleaned "
            "Curie extract; CEA-Curie-2011-2.1-cln.swf.gz is the archive's log).",
        ),
    ] = None,
    estimate: Annotated[
        str,
        typer.Option(help="Reservation lengths: exact (real run times, the thesis's setting) or requested."),
    ] = "exact",
    profile: Annotated[
        str,
        typer.Option(
            help="sets (every variant reserves processor ids, the thesis's Algorithm 1) or counts (basic and "
            "best-effort variants reserve counts and choose processors at the start)."
        ),
    ] = "sets",
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: QuietOption = False,
) -> None:
    """Mendonca (2017), ch. 4: 300-job Curie samples released at 0 on 512 processors in clusters of 16,
    conservative backfilling with basic, becont, cont, beloc, loc; makespan deviation from basic, contiguous and
    local jobs, locality ratio."""
    from schedlab.errors import InputError
    from schedlab.experiments.locality_ch4 import THESIS_TRACE, Plan, reproduce
    from schedlab.policies.rigid.conservative import ESTIMATES, PROFILES

    began = time.perf_counter()
    with one_line_errors():
        jobs = _check_campaign_options(out_dir, force, jobs, ("--instances", instances))
        if block and with_replacement:
            raise InputError("--block", message="a block of consecutive jobs cannot be drawn with replacement")
        for option, value, allowed in (("--estimate", estimate, ESTIMATES), ("--profile", profile, PROFILES)):
            if value not in allowed:
                raise InputError(option, field=option, value=value, expected=f"one of {', '.join(allowed)}")
        plan = Plan(
            trace=str(traces / (trace or THESIS_TRACE)),
            exact=estimate == "exact",
            profile=profile,
            seed=seed,
            with_replacement=with_replacement,
            block=block,
            instances=instances if instances is not None else (8 if quick else 512),
        )
        if not Path(plan.trace).is_file():
            raise InputError(plan.trace, message="trace file not found (see --traces)")
        with progress_bar(enabled=not quiet and err.is_terminal, what="runs") as progress:
            frame, _ = reproduce(out_dir, plan, jobs=jobs, progress=progress)
    if not quiet:
        _summary(
            "locality-ch4",
            out_dir,
            plan.instances * len(plan.allocators),
            plan.instances * len(plan.allocators) - len(frame),
            began,
        )


@reproduce_app.command("swdual")
def swdual(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for summary.md, measured.csv, planned.csv, model.json.")
    ],
    quick: Annotated[
        bool,
        typer.Option(
            help="2,000 sequences and 8 queries per set instead of 100,000 and 40 (time: README, Performance)."
        ),
    ] = False,
    sequences: Annotated[int | None, typer.Option(help="Database sequences (default 100,000).")] = None,
    queries: Annotated[int | None, typer.Option(help="Queries per set (default 40).")] = None,
    cpus: Annotated[int, typer.Option(help="CPU workers of the measured searches.")] = 2,
    scheduler: Annotated[list[str], typer.Option("--scheduler", help="Schedulers to measure (repeatable).")] = [
        "dual2",
        "self-scheduling",
        "equal",
    ],
    gpu_gcups: Annotated[float, typer.Option(help="GCUPS of the assumed GPU of the planned comparison.")] = 24.8,
    seed: Annotated[int, typer.Option(help="Seed of the database, the queries and the calibration.")] = 0,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out.")] = False,
    quiet: QuietOption = False,
) -> None:
    """Mendonca (2017) ch. 2: the thesis's constant-product checks, real searches per scheduler on this
    machine's CPU cores (heterogeneous 100-5,000 and homogeneous 4,500-5,000 query sets against a synthetic
    UniProt-like database), and CPU+GPU plans from the calibrated CPU model and an assumed GPU."""
    from schedlab.experiments.swdual import Plan, reproduce

    began = time.perf_counter()
    with one_line_errors():
        check_out_dir(out_dir, force)
        plan = Plan(
            sequences=sequences if sequences is not None else (2000 if quick else 100_000),
            queries=queries if queries is not None else (8 if quick else 40),
            cpus=cpus,
            gpu_gcups=gpu_gcups,
            schedulers=tuple(scheduler),
            seed=seed,
        )
        outcome, _ = reproduce(out_dir, plan)
    if not quiet:
        _summary("swdual", out_dir, len(outcome.measured) + len(outcome.planned), 0, began)


@reproduce_app.command("io")
def io(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for the campaigns, their store, CSVs, tables and figures.")
    ],
    quick: Annotated[bool, typer.Option(help="A few small families (time: README, Performance).")] = False,
    jobs: JobsOption = None,
    seed: Annotated[
        int, typer.Option(help="Master seed; each instance's seed derives from (seed, family, sample).")
    ] = 0,
    traces: TracesOption = TRACES,
    no_traces: Annotated[bool, typer.Option("--no-traces", help="Leave out the families of trace jobs.")] = False,
    algo: Annotated[
        str | None, typer.Option("--algo", "-a", help="Comma-separated algorithms (default: every I/O-aware one).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: QuietOption = False,
) -> None:
    """Bleuse (2017), ch. 4-6: every I/O-aware algorithm on line and ring families, against bounds and optima."""

    began = time.perf_counter()
    with one_line_errors():
        from schedlab.errors import ArgumentError, InputError
        from schedlab.experiments.io import FULL_FAMILIES, QUICK_FAMILIES, experiment_algorithms, reproduce

        jobs = _check_campaign_options(out_dir, force, jobs, ("--jobs", jobs))
        families = [f for f in (QUICK_FAMILIES if quick else FULL_FAMILIES) if not (no_traces and f.trace)]
        for family in families:
            if family.trace and not (traces / family.trace).is_file():
                raise InputError(
                    "--traces",
                    field="--traces",
                    value=str(traces),
                    expected=f"a folder holding {family.trace} (or --no-traces)",
                )
        names = None
        if algo is not None:
            names = [a.strip() for a in algo.split(",") if a.strip()]
            try:
                experiment_algorithms(names)
            except ArgumentError as exc:
                raise InputError("--algo", field="--algo", value=algo, expected=str(exc)) from None
        with progress_bar(enabled=not quiet and err.is_terminal, what="runs") as progress:
            summary = reproduce(
                out_dir, families, seed=seed, traces=traces, names=names, jobs=jobs, progress=progress, quick=quick
            )
    if not quiet:
        _summary("io", out_dir, summary["runs"], summary["failed"], began)


@reproduce_app.command("torus")
def torus(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for campaigns, store, tables, figures and claims.")
    ],
    quick: Annotated[
        bool, typer.Option(help="1,000 jobs per log and c in 0.8, 1.0, 1.2 (time: README, Performance).")
    ] = False,
    jobs: JobsOption = None,
    seed: Annotated[int, typer.Option(help="Master seed (recorded; the schedulers draw nothing).")] = 0,
    traces: TracesOption = TRACES,
    count: Annotated[int | None, typer.Option(help="Jobs per log (default 10,000, or 1,000 with --quick).")] = None,
    skip: Annotated[int, typer.Option(help="Valid jobs of each log left out before the span.")] = 0,
    log: Annotated[
        list[str] | None, typer.Option("--log", help="Logs to run: NASA, SDSC (repeatable; default both).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: QuietOption = False,
) -> None:
    """Krevat (2003) experiment: FCFS, Backfill, Migration and B+M on a 4x4x8 torus and the flat machine, on
    NASA iPSC/860 and SDSC SP2 with run times scaled by c; saturation points, capacity, migrations, claims."""
    began = time.perf_counter()
    with one_line_errors():
        from schedlab.experiments.torus import plan, reproduce

        jobs = _check_campaign_options(out_dir, force, jobs, ("--count", count))
        chosen = plan(traces, quick=quick, seed=seed, count=count, skip=skip, logs=log)
        with progress_bar(enabled=not quiet and err.is_terminal, what="runs") as progress:
            summary = reproduce(out_dir, chosen, jobs=jobs, progress=progress)
    if not quiet:
        _summary("torus", out_dir, summary["runs"], summary["failed"], began)


@reproduce_app.command("stretch")
def stretch(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for campaigns, store, tables, figures and claims.")
    ],
    quick: Annotated[
        bool, typer.Option(help="Small instances of every part (2,000 tasks on 30 processors, 1,000 log jobs...).")
    ] = False,
    jobs: JobsOption = None,
    seed: Annotated[int, typer.Option(help="Master seed of the generated instances and of the Downey draws.")] = 0,
    traces: TracesOption = TRACES,
    instances: Annotated[
        int | None,
        typer.Option(help="Instances per sequential (Delta, load) and per SSM load range (default 2 and 3)."),
    ] = None,
    full_grid: Annotated[
        bool, typer.Option(help="The paper's whole (X, T) reservation grid (7 x 10 and 7 x 9 points, not 4 x 4).")
    ] = False,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: QuietOption = False,
) -> None:
    """Saule, Bozdag and Catalyurek (2014), sections 4 and 7: FCFS and DASEDF on sequential tasks with the
    (X, T) reservation, DBOS, Iterative and a SCOJO-P-like approximation on the SDSC Par 96 and OSC logs as
    moldable tasks and on an SSM-like workload; Fig. 1(b) beside the paper's values and every claim checked."""

    began = time.perf_counter()
    with one_line_errors():
        from schedlab.experiments.stretch import plan, reproduce

        jobs = _check_campaign_options(out_dir, force, jobs, ("--instances", instances))
        chosen = plan(traces, quick=quick, seed=seed, instances=instances, full_grid=full_grid)
        with progress_bar(enabled=not quiet and err.is_terminal, what="runs") as progress:
            summary = reproduce(out_dir, chosen, jobs=jobs, progress=progress)
    if not quiet:
        _summary("stretch", out_dir, summary["runs"], summary["failed"], began)
