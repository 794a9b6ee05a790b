"""``schedlab swdual``: Smith-Waterman protein database search on CPU cores and GPUs (Mendonca 2017, ch. 2).

``search`` aligns every query against a database and writes ranked hits and a
run report; ``calibrate`` measures the engines and stores the performance
model; ``schedule`` plans tasks from given times only; ``generate`` writes a
synthetic UniProt-like protein set.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from schedlab.cli.common import (
    check_out_dir,
    err,
    gantt_files,
    make_folder,
    one_line_errors,
    out,
    out_file,
    progress_bar,
)

__all__ = ["swdual_app"]

swdual_app = typer.Typer(help="Smith-Waterman protein search on CPUs and GPUs (SWDUAL).", no_args_is_help=True)

# Sequences of the synthetic database a GPU is calibrated on (about the thesis's UniProt extract; an H100
# ran at 7 GCUPS on 5,600 sequences and 60 on 100,000: it needs many sequences to fill its cores).
GPU_SEQUENCES = 100_000
_SCHEDULER_HELP = "dual2 (default), da2, equal, proportional, self-scheduling, eft, cpu-only, gpu-only"


def _lengths(text: str) -> tuple[int, ...]:
    from schedlab.errors import InputError

    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise InputError("--lengths", field="--lengths", value=text, expected="comma-separated integers") from None
    if not values or any(v < 1 for v in values) or any(b <= a for a, b in zip(values, values[1:])):
        raise InputError("--lengths", field="--lengths", value=text, expected="increasing integers >= 1")
    return values


def _default_cpus(gpus: int) -> int:
    """One core per CPU worker, less one host core per GPU worker (section 2.5.1: GPU workers use host CPU time)."""
    return max(1, (os.cpu_count() or 1) - gpus)  # reading M2-7, docs/readings.md


@swdual_app.command("generate")
def generate(
    sequences: Annotated[int, typer.Option("--sequences", "-n", help="Number of sequences.")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Directory to write PREFIX.fasta into.")],
    seed: Annotated[int, typer.Option(help="Seed of the generator.")] = 0,
    min_length: Annotated[int, typer.Option(help="Shortest sequence.")] = 4,
    max_length: Annotated[int, typer.Option(help="Longest sequence.")] = 35213,
    lengths: Annotated[str, typer.Option(help="uniprot (log-normal, median 300) or uniform.")] = "uniprot",
    prefix: Annotated[str, typer.Option(help="Name prefix of the sequences and of the file.")] = "seq",
    gzip: Annotated[bool, typer.Option("--gzip", help="Write PREFIX.fasta.gz (gzip) instead.")] = False,
    force: Annotated[bool, typer.Option(help="Overwrite an existing PREFIX.fasta in --out.")] = False,
) -> None:
    """Write a seeded synthetic protein set (UniProt-like residue frequencies and lengths) as OUT/PREFIX.fasta."""
    with one_line_errors():
        import numpy as np

        from schedlab.swdual.synthetic import generate_sequences, write_fasta

        out_path = out_file(out_dir, f"{prefix}.fasta" + (".gz" if gzip else ""), force)
        seqs = generate_sequences(
            sequences,
            rng=np.random.default_rng(seed),
            min_length=min_length,
            max_length=max_length,
            lengths=lengths,
            prefix=prefix,
        )
        write_fasta(seqs, make_folder(out_dir) / out_path.name)
    out.print(
        f"{out_path}: {len(seqs)} sequences, {seqs.residues} residues "
        f"(lengths {int(seqs.lengths.min())}-{int(seqs.lengths.max())})",
        markup=False,
        soft_wrap=True,
    )


@swdual_app.command("calibrate")
def calibrate(
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Directory to write model.json into.")],
    cpus: Annotated[
        int | None, typer.Option(help="CPU workers the model is for (run at once). Default: cores - GPUs.")
    ] = None,
    gpus: Annotated[int, typer.Option(help="GPUs to measure (0: CPU model only).")] = 0,
    db: Annotated[
        Path | None,
        typer.Option(help="Database FASTA (CPUs: a sample of it; GPUs: all of it). Default: synthetic."),
    ] = None,
    lengths: Annotated[str, typer.Option(help="Query lengths to measure.")] = "100,300,1000,3000",
    sample_residues: Annotated[int, typer.Option(help="Residues of the database sample the CPUs run.")] = 2_000_000,
    repeats: Annotated[int, typer.Option(help="Timed runs per length (median).")] = 3,
    cpu_engine: Annotated[str, typer.Option(help="pyopal or parasail.")] = "pyopal",
    matrix: Annotated[str, typer.Option(help="Substitution matrix.")] = "BLOSUM62",
    gap_start: Annotated[int, typer.Option(help="G_s: cost of opening a gap.")] = 11,
    gap_extend: Annotated[int, typer.Option(help="G_e: cost per gap residue.")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the sample and the queries.")] = 0,
    force: Annotated[bool, typer.Option(help="Overwrite an existing model.json in --out.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the model as JSON.")] = False,
) -> None:
    """Measure GCUPS per engine over query lengths; store time = overhead + L R / GCUPS(L) as OUT/model.json."""
    with one_line_errors():
        import numpy as np

        from schedlab.swdual.calibration import PerformanceModel, calibrate_engine, database_sample
        from schedlab.swdual.cpu import check_cpu_engine, make_cpu_engine
        from schedlab.swdual.scoring import Scoring
        from schedlab.swdual.search import check_platform
        from schedlab.swdual.sequences import read_fasta
        from schedlab.swdual.synthetic import generate_sequences

        out_path = out_file(out_dir, "model.json", force)
        cpus = _default_cpus(gpus) if cpus is None else cpus
        check_platform(cpus, gpus)
        check_cpu_engine(cpu_engine)
        measured = _lengths(lengths)
        scoring = Scoring.load(matrix, gap_start, gap_extend)
        rng = np.random.default_rng(seed)
        if db is None:
            database = generate_sequences(max(1, sample_residues // 300, GPU_SEQUENCES if gpus else 0), rng=rng)
        else:
            database = read_fasta(db, alphabet=scoring.alphabet)
        sample = database_sample(database, sample_residues, rng=rng)
        cpu_model = gpu_model = None
        if cpus:
            cpu_model = calibrate_engine(
                lambda s: make_cpu_engine(cpu_engine, s, scoring),
                sample,
                rng=rng,
                lengths=measured,
                repeats=repeats,
                parallel=cpus,
            )
        if gpus:
            from schedlab.swdual.gpu import CudaEngine

            gpu_model = calibrate_engine(  # the whole database: a sample would leave most of a GPU idle
                lambda s: CudaEngine(s, scoring), database, rng=rng, lengths=measured, repeats=repeats
            )
        model = PerformanceModel(
            cpu_model,
            gpu_model,
            {
                "database": str(db) if db else "synthetic",
                "sample_sequences": len(sample),
                "sample_residues": sample.residues,
                "gpu_sequences": len(database) if gpus else 0,
                "parallel_cpus": cpus,
                "repeats": repeats,
                "seed": seed,
                "scoring": scoring.describe(),
            },
        )
        make_folder(out_dir)
        model.write(out_path)
    if as_json:
        print(json.dumps(model.to_json(), indent=1, sort_keys=True))
        return
    table = Table(title=f"{out_path}: GCUPS per worker on {len(sample)} sequences ({sample.residues} residues)")
    table.add_column("query length", justify="right")
    for kind, engine_model in (("CPU", cpu_model), ("GPU", gpu_model)):
        if engine_model:
            table.add_column(f"{kind} {engine_model.engine}", justify="right")
    for i, length in enumerate(measured):
        table.add_row(str(length), *[f"{m.gcups[i]:.2f}" for m in (cpu_model, gpu_model) if m])
    out.print(table)


def _positive(row: dict, key: str, source: str, line: int) -> float:
    import math

    from schedlab.errors import InputError

    try:
        value = float(row[key])
    except (TypeError, ValueError):
        raise InputError(source, line, field=key, value=row[key], expected="a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise InputError(source, line, field=key, value=row[key], expected="a finite number > 0")
    return value


def _read_tasks(path: Path, model_path: Path | None, residues: int | None):
    """Names, CPU times and GPU times from a tasks CSV (see :func:`schedule`)."""
    import numpy as np

    from schedlab.errors import InputError
    from schedlab.swdual.calibration import PerformanceModel

    source = str(path)
    try:
        handle = path.open(newline="")
    except OSError as error:
        raise InputError(source, message=f"cannot read: {error.strerror or error}") from None
    with handle:
        reader = csv.DictReader(handle)
        columns = set(reader.fieldnames or [])
        timed = {"cpu_time", "gpu_time"} <= columns
        if not timed and "length" not in columns:
            raise InputError(source, 1, message="expected columns cpu_time and gpu_time, or length (with --model)")
        if not timed and (model_path is None or residues is None):
            raise InputError(source, field="length", message="a length column needs --model and --residues or --db")
        names: list[str] = []
        values: list[list[float]] = []
        for row in reader:
            names.append(row.get("task") or row.get("query") or str(len(names)))
            keys = ("cpu_time", "gpu_time") if timed else ("length",)
            values.append([_positive(row, key, source, reader.line_num) for key in keys])
    table = np.array(values, dtype=float).reshape(len(names), -1)
    if timed or model_path is None or residues is None:  # a length column was refused without them
        return names, table[:, 0], table[:, 1]
    return names, *PerformanceModel.read(model_path).task_times(table[:, 0], residues)


@swdual_app.command("schedule")
def schedule(
    tasks: Annotated[Path, typer.Argument(help="CSV: task,cpu_time,gpu_time (seconds), or task,length.")],
    cpus: Annotated[int, typer.Option(help="CPU workers.")] = 1,
    gpus: Annotated[int, typer.Option(help="GPU workers.")] = 0,
    scheduler: Annotated[str, typer.Option(help=f"Comma-separated: {_SCHEDULER_HELP}.")] = "dual2",
    model: Annotated[Path | None, typer.Option(help="Performance model for a length column.")] = None,
    residues: Annotated[int | None, typer.Option(help="Database residues for a length column.")] = None,
    db: Annotated[
        Path | None, typer.Option(help="Database FASTA whose residues a length column is against (read by index).")
    ] = None,
    gantt: Annotated[Path | None, typer.Option(help="Gantt chart (PNG); several schedulers: NAME_SCHED.png.")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite existing --gantt files.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plans as JSON.")] = False,
) -> None:
    """Plan tasks on CPU and GPU workers from measured or modelled times (no alignment)."""
    with one_line_errors():
        from schedlab.swdual.scheduling import make_plan

        if db is not None and residues is None:
            from schedlab.swdual.scoring import Scoring
            from schedlab.swdual.sequences import FastaIndex

            residues = FastaIndex(db, alphabet=Scoring.load().alphabet).residues  # lengths only, no sequence read
        chosen = [x.strip() for x in scheduler.split(",") if x.strip()]
        charts = gantt_files(gantt, chosen, force)
        names, cpu_time, gpu_time = _read_tasks(tasks, model, residues)
        plans = {s: make_plan(cpu_time, gpu_time, cpus=cpus, gpus=gpus, scheduler=s) for s in chosen}
        if charts:
            from schedlab.swdual.gantt import plot_search_gantt

            for name, plan in plans.items():
                plot_search_gantt(plan.report(names), make_folder(charts[name].parent) / charts[name].name)
    if as_json:
        print(json.dumps({name: plan.report(names) for name, plan in plans.items()}, indent=1))
        return
    table = Table(title=f"{tasks}: {len(names)} tasks on {cpus} CPU + {gpus} GPU workers")
    for column in ("scheduler", "makespan", "lower bound", "ratio", "lambda", "steps"):
        table.add_column(column, justify="left" if column == "scheduler" else "right")
    for name, plan in plans.items():
        ratio = plan.makespan / plan.lower_bound if plan.lower_bound > 0 else float("nan")
        table.add_row(
            name,
            f"{plan.makespan:.4g}",
            f"{plan.lower_bound:.4g}",
            f"{ratio:.3f}",
            "-" if plan.lam is None else f"{plan.lam:.4g}",
            str(plan.steps) if plan.steps else "-",
        )
    out.print(table)


@swdual_app.command("search")
def search(
    queries: Annotated[Path, typer.Argument(help="Query FASTA (plain or gzip).")],
    db: Annotated[Path, typer.Argument(help="Database FASTA (plain or gzip).")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Directory for hits.tsv and report.json (empty).")],
    cpus: Annotated[int | None, typer.Option(help="CPU workers (default: cores - GPUs).")] = None,
    gpus: Annotated[int, typer.Option(help="GPU workers (CUDA devices).")] = 0,
    scheduler: Annotated[str, typer.Option(help=_SCHEDULER_HELP)] = "dual2",
    model: Annotated[Path | None, typer.Option(help="Performance model JSON (default: calibrate now).")] = None,
    top: Annotated[int, typer.Option(help="Hits per query (0: every database sequence).")] = 10,
    matrix: Annotated[str, typer.Option(help="Substitution matrix.")] = "BLOSUM62",
    gap_start: Annotated[int, typer.Option(help="G_s: cost of opening a gap (a gap of L costs G_s + L G_e).")] = 11,
    gap_extend: Annotated[int, typer.Option(help="G_e: cost per gap residue.")] = 1,
    cpu_engine: Annotated[str, typer.Option(help="pyopal or parasail.")] = "pyopal",
    gantt: Annotated[bool, typer.Option(help="Also write gantt.png (predicted vs measured).")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the on-the-fly calibration.")] = 0,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no table.")] = False,
) -> None:
    """Align every query against the database on CPU and GPU workers; write ranked hits and a run report."""
    with one_line_errors():
        import numpy as np

        from schedlab.swdual.calibration import PerformanceModel, calibrate_engine, database_sample
        from schedlab.swdual.cpu import make_cpu_engine
        from schedlab.swdual.scoring import Scoring
        from schedlab.swdual.search import check_platform, make_workers, write_files
        from schedlab.swdual.search import search as run_search
        from schedlab.swdual.sequences import read_fasta

        check_out_dir(out_dir, force)
        out_path = out_dir
        cpus = _default_cpus(gpus) if cpus is None else cpus
        check_platform(cpus, gpus)
        scoring = Scoring.load(matrix, gap_start, gap_extend)
        perf = PerformanceModel.read(model) if model is not None else None
        query_set = read_fasta(queries, alphabet=scoring.alphabet)
        database = read_fasta(db, alphabet=scoring.alphabet)
        workers = make_workers(database, scoring, cpus=cpus, gpus=gpus, cpu_engine=cpu_engine)
        if perf is None:
            rng = np.random.default_rng(seed)
            sample = database_sample(database, 1_000_000, rng=rng)
            cpu_model = gpu_model = None
            if cpus:
                cpu_model = calibrate_engine(
                    lambda s: make_cpu_engine(cpu_engine, s, scoring), sample, rng=rng, repeats=1, parallel=cpus
                )
            if gpus:
                from schedlab.swdual.gpu import CudaEngine

                # on the whole database: a GPU fills its cores only with enough sequences (a 1 Mres sample
                # ran an H100 at an eighth of its speed on the search database), and it is fast
                gpu_model = calibrate_engine(lambda s: CudaEngine(s, scoring), database, rng=rng, repeats=1)
            perf = PerformanceModel(
                cpu_model,
                gpu_model,
                {
                    "database": str(db),
                    "sample_residues": sample.residues,
                    "parallel_cpus": cpus,
                    "repeats": 1,
                    "seed": seed,
                },
            )
        with progress_bar(len(query_set), enabled=not quiet and err.is_terminal, what="aligning") as advance:
            done: list[int] = []

            def on_task(_run) -> None:  # called from the worker threads
                done.append(1)
                if advance is not None:
                    advance(len(done), len(query_set))

            result = run_search(
                query_set,
                database,
                scoring=scoring,
                model=perf,
                cpus=cpus,
                gpus=gpus,
                scheduler=scheduler,
                top=top,
                workers=workers,
                on_task=on_task,
            )
        files = result.files()
        write_files(out_path, files)
        report = json.loads(files["report.json"])
        if gantt:
            from schedlab.swdual.gantt import plot_search_gantt

            plot_search_gantt(report, out_path / "gantt.png")
    if quiet:
        return
    table = Table(title=f"{queries} x {db}: {report['cells']:.3g} cells on {cpus} CPU + {gpus} GPU workers")
    for column in ("scheduler", "makespan s", "predicted s", "lambda", "GCUPS", "idle %"):
        table.add_column(column, justify="left" if column == "scheduler" else "right")
    table.add_row(
        report["scheduler"],
        f"{report['makespan']:.3f}",
        f"{report['predicted_makespan']:.3f}",
        "-" if report["lambda"] is None else f"{report['lambda']:.3f}",
        f"{report['gcups']:.2f}",
        f"{100 * report['idle_fraction']:.2f}",
    )
    out.print(table)
    out.print(f"wrote {out_path / 'hits.tsv'} and {out_path / 'report.json'}")
