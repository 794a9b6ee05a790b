"""``schedlab solve``: offline algorithms on whole instances (hybrid CPU+GPU nodes, I/O-aware jobs on lines and rings).

``schedlab solve hybrid instance.json --algo approx32`` or
``schedlab solve hybrid --generate n=200,m=16,k=4,seed=1 --algo da2,approx2,approx32,heft,lpt-seq``
prints one row per algorithm: makespan, lower bound, ratio, bisection steps, seconds.
``schedlab solve io instance.json --algo pinned --gantt out.png`` or
``schedlab solve io --generate line:m=32,io=4,n=40,seed=1 --algo unpinned,greedy`` does the same for jobs
with I/O requests (Bleuse 2017, ch. 5).
"""

from __future__ import annotations

import json
from pathlib import Path
from time import perf_counter
from typing import Annotated

import typer
from rich.table import Table

from schedlab.cli.common import check_out_dir, gantt_files, make_folder, one_line_errors, out

solve_app = typer.Typer(help="Solve offline scheduling instances.", no_args_is_help=True)


_GENERATE_KEYS = {"n", "m", "k", "seed"}


def _parse_generate(text: str) -> dict[str, int]:
    from schedlab.errors import InputError
    from schedlab.platform.base import MAX_PROCS  # numpy: loaded by `solve` only

    values = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in _GENERATE_KEYS:
            raise InputError("--generate", field="--generate", value=part, expected="n=INT,m=INT,k=INT,seed=INT")
        try:
            values[key] = int(value)
        except ValueError:
            raise InputError("--generate", field=key, value=value, expected="an integer") from None
        if key != "seed" and not 0 <= values[key] <= MAX_PROCS:  # sizes: what fits in memory
            raise InputError("--generate", field=key, value=value, expected=f"an integer from 0 to {MAX_PROCS:,}")
    missing = _GENERATE_KEYS - set(values) - {"seed"}
    if missing:
        raise InputError("--generate", field="--generate", value=text, expected=f"also {', '.join(sorted(missing))}")
    values.setdefault("seed", 0)
    return values


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:,.4g}"


@solve_app.command("hybrid")
def hybrid(
    instance_path: Annotated[Path | None, typer.Argument(metavar="INSTANCE", help="Hybrid instance JSON.")] = None,
    generate: Annotated[str | None, typer.Option(help="Generate a Table 3.1 instance: n=..,m=..,k=..,seed=..")] = None,
    algo: Annotated[str, typer.Option("--algo", "-a", help="Comma-separated registered algorithms.")] = "approx32",
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Directory for instance.json and one schedule JSON per algorithm."),
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Overwrite a non-empty --out directory and existing --gantt files.")
    ] = False,
    gantt: Annotated[
        Path | None, typer.Option(help="Gantt chart file (PNG); with several algorithms, NAME_ALGO.png.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON instead of a table.")] = False,
) -> None:
    """Schedule independent tasks on m CPUs + k GPUs with one or more algorithms; every schedule is validated."""

    with one_line_errors():
        import numpy as np

        from schedlab.errors import InputError
        from schedlab.offline.hybrid import bounds, hybrid_instance, schedule_to_json, search_of
        from schedlab.offline.hybrid.bounds import best_lower_bound
        from schedlab.registry import HYBRID, get
        from schedlab.validation import validate
        from schedlab.workload.hybrid import generate_hybrid, instance_to_json, read_hybrid

        names = [a.strip() for a in algo.split(",") if a.strip()]
        algorithms = {name: get(name, family=HYBRID) for name in names}
        if not names:
            raise InputError("--algo", field="--algo", value=algo, expected="at least one algorithm")
        if (instance_path is None) == (generate is None):
            raise InputError("solve hybrid", message="give either INSTANCE or --generate")
        check_out_dir(out_dir, force)
        charts = gantt_files(gantt, names, force)
        if generate is not None:
            g = _parse_generate(generate)
            instance = generate_hybrid(g["n"], g["m"], g["k"], rng=np.random.default_rng(g["seed"]))
        else:
            assert instance_path is not None  # exactly one of INSTANCE and --generate (checked above)
            instance = read_hybrid(instance_path)
        b = bounds(instance)
        common = hybrid_instance(instance)
        rows = []
        schedules = {}
        searches = []
        for name in names:
            algorithm = algorithms[name]
            t0 = perf_counter()
            schedule = algorithm.build()(instance)
            seconds = perf_counter() - t0
            validate(common, schedule, contiguous=bool(algorithm.traits["contiguous"]))
            makespan = schedule.makespan
            search = search_of(schedule)
            searches.append((search.lower if search else None, algorithm.traits["moldable"]))
            rows.append(
                {
                    "algorithm": name,
                    "makespan": makespan,
                    "lower_bound": b.lower,
                    "steps": search.n_steps if search else None,
                    "lambda": search.lam if search else None,
                    "seconds": seconds,
                }
            )
            schedules[name] = schedule
        proven = best_lower_bound(b.lower, searches, sequential=not instance.moldable.any())
        for row in rows:
            row["best_lower_bound"] = proven
            row["ratio"] = row["makespan"] / proven if proven > 0 else None
        if charts:
            from schedlab.report.schedule_gantt import plot_schedule

            for name, schedule in schedules.items():
                make_folder(charts[name].parent)
                plot_schedule(common, schedule, charts[name], title=f"{name}: makespan {schedule.makespan:.4g}")
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / "instance.json").write_text(json.dumps(instance_to_json(instance), indent=1) + "\n")
            for name, schedule in schedules.items():
                payload = {
                    "algorithm": name,
                    "makespan": schedule.makespan,
                    "lower_bound": b.lower,
                    "tasks": schedule_to_json(instance, schedule),
                }
                (out_dir / f"schedule_{name}.json").write_text(json.dumps(payload, indent=1) + "\n")
    if as_json:
        print(
            json.dumps(
                {
                    "instance": {"source": instance.source, "n": instance.n, "m": instance.m, "k": instance.k},
                    "bounds": {"lower": b.lower, "area": b.area, "longest": b.longest, "upper": b.upper},
                    "results": rows,
                },
                indent=2,
            )
        )
        return
    table = Table(title=f"{instance.source}: n = {instance.n}, m = {instance.m}, k = {instance.k}")
    table.caption = (
        "ratio = makespan / best lower bound (the area and longest-task bound, or a λ rejected by a sound dual step)"
    )
    for column in ("algorithm", "makespan", "lower bound", "best lower bound", "ratio", "bisection steps", "seconds"):
        table.add_column(column, justify="left" if column == "algorithm" else "right")
    for row in rows:
        table.add_row(
            row["algorithm"],
            _number(row["makespan"]),
            _number(row["lower_bound"]),
            _number(row["best_lower_bound"]),
            _number(row["ratio"]),
            "-" if row["steps"] is None else str(row["steps"]),
            f"{row['seconds']:.3f}",
        )
    out.print(table)


@solve_app.command("io")
def io(
    instance_path: Annotated[
        Path | None, typer.Argument(metavar="INSTANCE", help="I/O-aware instance JSON (platform, jobs).")
    ] = None,
    generate: Annotated[
        str | None,
        typer.Option(
            help="Generate an instance: line:m=32,io=4,n=40,seed=1 (or ring:...; kind=pinned|unpinned, "
            "mode=exclusive, qmin=, qmax=, pmax=, p=uniform, iopj=)."
        ),
    ] = None,
    algo: Annotated[
        str | None,
        typer.Option(
            "--algo", "-a", help="Comma-separated registered algorithms (default: pinned or unpinned, as the jobs)."
        ),
    ] = None,
    param: Annotated[list[str], typer.Option("--param", "-P", help="KEY=VALUE for the one --algo, repeatable.")] = [],
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Directory for instance.json and one schedule JSON per algorithm."),
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Overwrite a non-empty --out directory and existing --gantt files.")
    ] = False,
    gantt: Annotated[
        Path | None, typer.Option(help="Gantt chart file (PNG); with several algorithms, NAME_ALGO.png.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON instead of a table.")] = False,
) -> None:
    """Schedule rigid jobs with I/O requests on a line or ring (Bleuse 2017, ch. 5); every schedule is validated."""

    with one_line_errors():
        from schedlab.cli.common import parse_params
        from schedlab.errors import InputError
        from schedlab.offline.io import io_bounds, io_instance, meets, proven_ratio, schedule_to_json
        from schedlab.registry import IO, get
        from schedlab.validation import validate
        from schedlab.workload.io_jobs import instance_to_json, parse_generate, read_io_instance

        if (instance_path is None) == (generate is None):
            raise InputError("solve io", message="give either INSTANCE or --generate")
        check_out_dir(out_dir, force)
        if generate is not None:
            instance = parse_generate(generate)[0]
        else:
            assert instance_path is not None  # exactly one of INSTANCE and --generate (checked above)
            instance = read_io_instance(instance_path)
        if algo is None:
            algo = "pinned" if instance.kind == "pinned" else "unpinned"
        names = [a.strip() for a in algo.split(",") if a.strip()]
        if not names:
            raise InputError("--algo", field="--algo", value=algo, expected="at least one algorithm")
        charts = gantt_files(gantt, names, force)
        params = parse_params(param)
        if params and len(names) > 1:
            raise InputError("--param", field="--param", value=param[0], expected="one --algo with --param")
        algorithms = {name: get(name, family=IO) for name in names}
        functions = {name: a.build(params) for name, a in algorithms.items()}
        for name, algorithm in algorithms.items():
            if not meets(str(algorithm.traits["requires"]), instance):
                raise InputError(
                    "--algo",
                    field="--algo",
                    value=name,
                    expected=f"an algorithm for these jobs ({name} needs: {algorithm.traits['requires']} instances; "
                    f"{instance.describe()})",
                )
        b = io_bounds(instance)
        common = io_instance(instance)
        rows, schedules = [], {}
        for name, algorithm in algorithms.items():
            t0 = perf_counter()
            schedule = functions[name](instance)
            seconds = perf_counter() - t0
            validate(common, schedule)
            rows.append(
                {
                    "algorithm": name,
                    "makespan": schedule.makespan,
                    "best_lower_bound": b.lower,
                    "tight_bound": b.tight,
                    "ratio": schedule.makespan / b.lower if b.lower > 0 else None,
                    "proven_ratio": proven_ratio(algorithm.traits, instance.platform),
                    "lp": schedule.info.get("lp"),
                    "rounded": schedule.info.get("rounded"),
                    "seconds": seconds,
                }
            )
            schedules[name] = schedule
        if charts:
            from schedlab.report.schedule_gantt import plot_schedule

            for name, schedule in schedules.items():
                make_folder(charts[name].parent)
                plot_schedule(common, schedule, charts[name], title=f"{name}: makespan {schedule.makespan:.4g}")
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / "instance.json").write_text(json.dumps(instance_to_json(instance), indent=1) + "\n")
            for name, schedule in schedules.items():
                payload = schedule_to_json(instance, schedule)
                (out_dir / f"schedule_{name}.json").write_text(json.dumps(payload, indent=1) + "\n")
    bounds_json = {"lower": b.lower, "area": b.area, "longest": b.longest, "io": b.io, "lp": b.lp, "tight": b.tight}
    if as_json:
        print(
            json.dumps(
                {
                    "instance": {"source": instance.source, "n": instance.n, "platform": instance.platform.name},
                    "bounds": bounds_json,
                    "results": rows,
                },
                indent=2,
            )
        )
        return
    table = Table(title=f"{instance.describe()}")
    table.caption = (
        f"ratio = makespan / best lower bound (max of area, longest job, I/O capacity, LP; here {b.tight}); "
        "proven = the guarantee on this platform"
    )
    for column in ("algorithm", "makespan", "best lower bound", "ratio", "proven", "LP", "rounded", "seconds"):
        table.add_column(column, justify="left" if column == "algorithm" else "right")
    for row in rows:
        table.add_row(
            row["algorithm"],
            _number(row["makespan"]),
            _number(row["best_lower_bound"]),
            _number(row["ratio"]),
            _number(row["proven_ratio"]),
            _number(row["lp"]),
            _number(row["rounded"]),
            f"{row['seconds']:.3f}",
        )
    out.print(table)
