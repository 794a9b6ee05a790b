"""``schedlab reproduce``: re-run a seed's experiment and write its CSVs, summary tables and figures.

``schedlab reproduce hybrid --out report/hybrid [--quick] [--jobs N] [--seed S]``
runs the chapter 3 experiment of seed 003 (Table 3.1 grid, every hybrid
algorithm; spec 003-part1-hybrid section 5.2) and writes into ``--out``:

* ``runs.csv``: one row per (instance, algorithm), columns
  :data:`~schedlab.experiments.hybrid.RUN_COLUMNS`;
* ``steps.csv``: one row per bisection step of the dual algorithms;
* ``summary.csv``: means per (n, m, k, algorithm); ``summary.md`` and
  ``summary.html``: means per algorithm, and per n, m and k;
* the PNG figures of :data:`~schedlab.report.hybrid_plots.FIGURES`;
* ``experiment.json``: grid, seed, jobs and wall time.

Same seed, same files except the timing columns (``seconds``, ``ilp_seconds``)
and the wall time, whatever ``--jobs``.

``schedlab reproduce redirections --out report/redirections [--quick] [--tuning]``
runs seed 004's experiment through the campaign runner
(:mod:`schedlab.experiments.redirections`): campaigns, store, Table I, metrics,
figures, the six claims checked, ``summary.md`` and ``summary.html``.

``schedlab reproduce locality-ch5 --out report/locality-ch5 [--quick] [--forced/--no-forced]``
runs seed 000's chapter 5 experiment through the campaign runner
(:mod:`schedlab.experiments.locality_ch5`): fat-tree campaigns, store, metrics
normalised to basic, one figure per metric, the claim checked, ``summary.md``
and ``summary.html``.
"""

from __future__ import annotations

import csv
import html
import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from time import perf_counter
from typing import Annotated

import typer

from schedlab.cli.common import one_line_errors, out

reproduce_app = typer.Typer(help="Reproduce a seed's experiments.", no_args_is_help=True)


@reproduce_app.callback()
def _group() -> None:
    """Reproduce a seed's experiments (a group, so that ``hybrid`` stays a sub-command on its own)."""


def _cell(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def write_csv(path: Path, rows, columns) -> None:
    """Rows as CSV with exact float text (``repr``), NaN as an empty cell."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row[c]) for c in columns])


def _fmt(value, digits: int = 3) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _tables(runs) -> list[tuple[str, list[str], list[list[str]]]]:
    from schedlab.experiments.hybrid import aggregate

    tables = []
    overall = aggregate(runs)
    tables.append(
        (
            "All instances",
            [
                "algorithm",
                "runs",
                "makespan / APPROX-3/2",
                "makespan / best LB",
                "max makespan / best LB",
                "best (share)",
                "seconds",
                "bisection steps",
                "mean |F(j)|",
            ],
            [
                [
                    r["algorithm"],
                    str(r["runs"]),
                    _fmt(r["ratio_reference"]),
                    _fmt(r["ratio_lower_bound"]),
                    _fmt(r["max_ratio_lower_bound"]),
                    _fmt(r["wins"], 2),
                    _fmt(r["seconds"], 4),
                    _fmt(r["steps"], 1),
                    _fmt(r["mean_sets"], 2),
                ]
                for r in overall
            ],
        )
    )
    for key, label in (("n", "n"), ("m", "m"), ("k", "k")):
        for column, title in (
            ("ratio_reference", "makespan / APPROX-3/2"),
            ("ratio_lower_bound", "makespan / best LB"),
        ):
            if key != "n" and column == "ratio_lower_bound":
                continue
            rows = aggregate(runs, by=(key,))
            values = sorted({r[key] for r in rows})
            names = list(dict.fromkeys(r["algorithm"] for r in rows))
            cell = {(r["algorithm"], r[key]): r[column] for r in rows}
            tables.append(
                (
                    f"Mean {title} per {label}",
                    ["algorithm", *(f"{label} = {v}" for v in values)],
                    [[a, *(_fmt(cell.get((a, v), math.nan)) for v in values)] for a in names],
                )
            )
    return tables


def _markdown(tables, header: str) -> str:
    lines = [header, ""]
    for title, head, rows in tables:
        lines += [
            f"## {title}",
            "",
            "| " + " | ".join(head) + " |",
            "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|",
        ]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        lines.append("")
    return "\n".join(lines)


def _html(tables, header: str, figures) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8"><title>schedlab: hybrid reproduction</title>',
        "<style>table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
        "text-align:right}td:first-child{text-align:left}</style></head><body>",
    ]
    parts += [f"<p>{html.escape(line)}</p>" for line in header.splitlines() if line.strip()]
    for title, head, rows in tables:
        parts.append(
            f"<h2>{html.escape(title)}</h2><table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
        )
        parts += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows]
        parts.append("</table>")
    for name, caption in figures.items():
        parts.append(f'<h2>{html.escape(caption)}</h2><img src="{html.escape(name)}" alt="{html.escape(caption)}">')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


@reproduce_app.command("hybrid")
def hybrid(
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Directory for CSVs, tables and figures.")],
    quick: Annotated[
        bool, typer.Option(help="Small sub-grid (n <= 100, m <= 64, k in {1, 4}; under a minute).")
    ] = False,
    jobs: Annotated[int, typer.Option(help="Worker processes (results do not depend on it, timings do).")] = 1,
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
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out directory.")] = False,
    quiet: Annotated[bool, typer.Option(help="No progress on stderr.")] = False,
) -> None:
    """Seed 003 ch. 3 experiment: Table 3.1 instances, every hybrid algorithm, Figs 3.4-3.7 and summary tables."""

    with one_line_errors():
        from schedlab.errors import InputError
        from schedlab.experiments.hybrid import (
            FULL_GRID,
            QUICK_GRID,
            RUN_COLUMNS,
            STEP_COLUMNS,
            aggregate,
            expand_grid,
            experiment_algorithms,
            grid_to_dict,
            run_experiment,
        )
        from schedlab.report.hybrid_plots import FIGURES, plot_hybrid_figures

        if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())) and not force:
            raise InputError(str(out_dir), message="output directory is not empty (use --force to overwrite)")
        if jobs < 1:
            raise InputError("--jobs", field="--jobs", value=jobs, expected="an integer >= 1")
        grid = QUICK_GRID if quick else FULL_GRID
        if samples is not None:
            if samples < 1:
                raise InputError("--samples", field="--samples", value=samples, expected="an integer >= 1")
            grid = replace(grid, samples=samples)
        for name, values in (("n", n), ("m", m), ("k", k)):
            if values:
                if min(values) < (1 if name == "n" else 0):
                    raise InputError(f"--{name}", field=f"--{name}", value=min(values), expected="a count >= 1")
                grid = replace(grid, **{name: tuple(dict.fromkeys(values))})
        names = None
        if algo is not None:
            names = [a.strip() for a in algo.split(",") if a.strip()]
            try:
                experiment_algorithms(names)
            except ValueError as exc:
                raise InputError("--algo", field="--algo", value=algo, expected=str(exc)) from None
        configs = expand_grid(grid, seed=seed)
        show = not quiet and sys.stderr.isatty()

        def progress(done: int, total: int) -> None:
            if show:
                print(f"\r{done}/{total} instances", end="" if done < total else "\n", file=sys.stderr, flush=True)

        t0 = perf_counter()
        runs, steps = run_experiment(configs, names=names, jobs=jobs, progress=progress)
        wall = perf_counter() - t0
        out_dir.mkdir(parents=True, exist_ok=True)
        write_csv(out_dir / "runs.csv", runs, RUN_COLUMNS)
        write_csv(out_dir / "steps.csv", steps, STEP_COLUMNS)
        summary = aggregate(runs, by=("n", "m", "k"))
        write_csv(out_dir / "summary.csv", summary, list(summary[0]) if summary else ["algorithm"])
        header = (
            f"# Seed 003 ch. 3 reproduction: {len(configs)} instances "
            f"(n {list(grid.n)}, m {list(grid.m)}, k {list(grid.k)}, {grid.samples} per size), "
            f"seed {seed}, {len(runs) // max(len(configs), 1)} algorithms, {wall:.1f} s with {jobs} job(s).\n\n"
            "Ratios are per-instance ratios averaged; best LB = max(area, longest task, every λ "
            "rejected by APPROX-3/2 or APPROX-2); approx32-mk = APPROX-3/2 with objective='makespan' "
            "and repack=True."
        )
        tables = _tables(runs)
        (out_dir / "summary.md").write_text(_markdown(tables, header))
        plot_hybrid_figures(runs, steps, out_dir)
        (out_dir / "summary.html").write_text(_html(tables, header, FIGURES))
        (out_dir / "experiment.json").write_text(
            json.dumps(
                {
                    "experiment": "hybrid",
                    "seed": seed,
                    "quick": quick,
                    "jobs": jobs,
                    "grid": grid_to_dict(grid),
                    "instances": len(configs),
                    "algorithms": list(dict.fromkeys(r["algorithm"] for r in runs)),
                    "wall_seconds": wall,
                },
                indent=1,
            )
            + "\n"
        )
    if not quiet:
        typer.echo(f"{len(configs)} instances, {len(runs)} runs in {wall:.1f} s; wrote {out_dir}")


def _check_campaign_options(out_dir: Path, force: bool, jobs: int, count: tuple[str, int | None]) -> None:
    """The checks every campaign-based reproduction makes before it starts: ``--out``, ``--jobs`` and its count."""
    from schedlab.errors import InputError

    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())) and not force:
        raise InputError(str(out_dir), message="output directory is not empty (use --force to overwrite)")
    for option, value in (("--jobs", jobs), count):
        if value is not None and value < 1:
            raise InputError(option, field=option, value=value, expected="an integer >= 1")


def _run_counter(quiet: bool):
    """A ``progress(done, total, row)`` that prints ``done/total runs`` on a terminal's stderr."""
    show = not quiet and sys.stderr.isatty()

    def progress(done: int, total: int, row: dict) -> None:
        if show:
            print(f"\r{done}/{total} runs", end="" if done < total else "\n", file=sys.stderr, flush=True)

    return progress


@reproduce_app.command("redirections")
def redirections(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for campaigns, store, tables, figures and claims.")
    ],
    quick: Annotated[
        bool, typer.Option(help="3 windows of KTH-SP2 and HPC2N, Table II parameters only (about a minute).")
    ] = False,
    tuning: Annotated[
        bool, typer.Option(help="Also run the tuning grids (RD: tau x m_d; RR: c x m_d, b = 0.02).")
    ] = False,
    jobs: Annotated[int, typer.Option(help="Worker processes (results do not depend on it).")] = 1,
    seed: Annotated[int, typer.Option(help="Master seed: window draws and random redirections.")] = 0,
    traces: Annotated[Path, typer.Option("--traces", help="Folder holding the PWA traces.")] = Path("../shared/traces"),
    windows: Annotated[int | None, typer.Option(help="Windows per trace (default 20, or 3 with --quick).")] = None,
    trace: Annotated[
        list[str] | None,
        typer.Option("--trace", help="Trace names to run (repeatable; default: all 5, or 2 with --quick)."),
    ] = None,
    m_mode: Annotated[
        str, typer.Option("--m-mode", help="Processors per window: formula (round(m/Q)) or table1 (Table I's count).")
    ] = "formula",
    count_if_idle: Annotated[
        bool, typer.Option(help="GSPT-RD counts arrivals while a main processor is idle (spec A5; literal reading).")
    ] = True,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: Annotated[bool, typer.Option(help="No progress on stderr.")] = False,
) -> None:
    """Seed 004 experiment: task windows of 5 PWA traces, SPT families with and without redirection, Table I,
    Figs 3-10 and the six claims checked (spec 004-redirections section 5)."""

    with one_line_errors():
        from schedlab.experiments.redirections import plan, reproduce

        _check_campaign_options(out_dir, force, jobs, ("--windows", windows))
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
        summary = reproduce(out_dir, chosen, jobs=jobs, progress=_run_counter(quiet))
    if not quiet:
        verdicts = ", ".join(f"{k}: {v}" for k, v in summary["claims"].items())
        typer.echo(
            f"{summary['runs']} runs ({summary['failed']} not done) in {summary['wall_seconds']:.1f} s; "
            f"claims {verdicts}; wrote {out_dir}"
        )


@reproduce_app.command("locality-ch5")
def locality_ch5(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for campaigns, store, tables, figures and claims.")
    ],
    quick: Annotated[
        bool, typer.Option(help="2 instances of KTH-SP2 and HPC2N, best-effort allocators only (seconds).")
    ] = False,
    jobs: Annotated[int, typer.Option(help="Worker processes (results do not depend on it).")] = 1,
    seed: Annotated[int, typer.Option(help="Master seed: instance draws.")] = 0,
    traces: Annotated[Path, typer.Option("--traces", help="Folder holding the PWA traces.")] = Path("../shared/traces"),
    instances: Annotated[
        int | None, typer.Option(help="Instances per platform (default 30, or 2 with --quick).")
    ] = None,
    trace: Annotated[
        list[str] | None,
        typer.Option("--trace", help="Platforms to run (repeatable; default: all 5, or 2 with --quick)."),
    ] = None,
    forced: Annotated[
        bool | None,
        typer.Option(
            "--forced/--no-forced", help="Also cont, loc, plat on small platforms (default: not with --quick)."
        ),
    ] = None,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: Annotated[bool, typer.Option(help="No progress on stderr.")] = False,
) -> None:
    """Seed 000 ch. 5 experiment: 7-day periods of the Table 5.2 traces on fat trees, quadratic penalty F = 2,
    conservative backfilling with topology-aware allocators, normalised to basic (spec 000-ch4-5 section 5.2)."""

    with one_line_errors():
        from schedlab.experiments.locality_ch5 import plan, reproduce

        _check_campaign_options(out_dir, force, jobs, ("--instances", instances))
        chosen = plan(traces, quick=quick, seed=seed, instances=instances, traces=trace, forced=forced)
        summary = reproduce(out_dir, chosen, jobs=jobs, progress=_run_counter(quiet))
    if not quiet:
        typer.echo(
            f"{summary['runs']} runs ({summary['failed']} not done) in {summary['wall_seconds']:.1f} s; "
            f"claim: {summary['claim']}; wrote {out_dir}"
        )


@reproduce_app.command("locality-ch4")
def locality_ch4(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for runs.csv, summary, claims and the figure.")
    ],
    quick: Annotated[bool, typer.Option(help="8 instances instead of 512 (about 40 s).")] = False,
    jobs: Annotated[int, typer.Option(help="Worker processes (results do not depend on it).")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the job samples (instance i uses [seed, i]).")] = 0,
    traces: Annotated[Path, typer.Option("--traces", help="Folder holding the PWA traces.")] = Path("../shared/traces"),
    instances: Annotated[int | None, typer.Option(help="Number of instances (default 512, or 8 with --quick).")] = None,
    with_replacement: Annotated[
        bool, typer.Option(help="Draw jobs with replacement (the reference code's choice).")
    ] = False,
    block: Annotated[
        bool, typer.Option(help="Take 300 consecutive jobs from a random start (thesis section 1.2.3).")
    ] = False,
) -> None:
    """Seed 000 ch. 4 experiment: 300-job Curie samples released at 0 on 512 processors in clusters of 16,
    conservative backfilling with basic, becont, cont, beloc, loc; makespan deviation from basic, contiguous and
    local jobs, locality ratio (spec 000-ch4-5 sections 5.1 and 6)."""
    from schedlab.experiments.locality_ch4 import Plan, run_plan, write_report

    with one_line_errors():
        plan = Plan(
            trace=str(traces / "CEA-Curie-2011-2.1-cln.swf.gz"),
            seed=seed,
            with_replacement=with_replacement,
            block=block,
            instances=instances if instances is not None else (8 if quick else 512),
        )
        began = perf_counter()
        frame = run_plan(plan, jobs=jobs)
        files = write_report(out_dir, frame, plan, wall=perf_counter() - began)
    out.print((out_dir / "summary.md").read_text(encoding="utf-8"), markup=False)
    out.print(f"wrote {', '.join(str(f) for f in files)}", markup=False, soft_wrap=True)


@reproduce_app.command("torus")
def torus(
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for campaigns, store, tables, figures and claims.")
    ],
    quick: Annotated[bool, typer.Option(help="1,000 jobs per log and c in 0.8, 1.0, 1.2 (seconds).")] = False,
    jobs: Annotated[int, typer.Option(help="Worker processes (results do not depend on it).")] = 1,
    seed: Annotated[int, typer.Option(help="Master seed (recorded; the schedulers draw nothing).")] = 0,
    traces: Annotated[Path, typer.Option("--traces", help="Folder holding the PWA traces.")] = Path("../shared/traces"),
    count: Annotated[int | None, typer.Option(help="Jobs per log (default 10,000, or 1,000 with --quick).")] = None,
    skip: Annotated[int, typer.Option(help="Valid jobs of each log left out before the span.")] = 0,
    log: Annotated[
        list[str] | None, typer.Option("--log", help="Logs to run: NASA, SDSC (repeatable; default both).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out (its stored runs are reused).")] = False,
    quiet: Annotated[bool, typer.Option(help="No progress on stderr.")] = False,
) -> None:
    """Krevat (2003) experiment: FCFS, Backfill, Migration and B+M on a 4x4x8 torus and the flat machine, on
    NASA iPSC/860 and SDSC SP2 with run times scaled by c; saturation points, capacity, migrations, claims."""
    with one_line_errors():
        from schedlab.experiments.torus import plan, reproduce

        _check_campaign_options(out_dir, force, jobs, ("--count", count))
        chosen = plan(traces, quick=quick, seed=seed, count=count, skip=skip, logs=log)
        summary = reproduce(out_dir, chosen, jobs=jobs, progress=_run_counter(quiet))
    if not quiet:
        verdicts = ", ".join(f"{k}: {v}" for k, v in summary["claims"].items())
        typer.echo(
            f"{summary['runs']} runs ({summary['failed']} not done) in {summary['wall_seconds']:.1f} s; "
            f"claims {verdicts}; wrote {out_dir}"
        )
