"""The SWDUAL reproduction: thesis checks, measured searches per scheduler, and modelled CPU+GPU plans.

Source: Mendonca (2017), chapter 2, section 2.5 (40 queries of 100-5,000
residues; homogeneous set of 4,500-5,000; 2, 4 and 8 workers mixing CPU cores
and GPUs; Tables 2.2-2.5). What can be measured on a machine without a GPU is
measured (CPU-core searches, every scheduler at equal workers); the CPU+GPU
comparisons are planned with the measured CPU model and a GPU model whose
throughput is given (e.g. the thesis's C2050 at 24.8 GCUPS), and say so.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedlab.swdual.calibration import PerformanceModel
from schedlab.swdual.scheduling import make_plan
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.search import search
from schedlab.swdual.sequences import SequenceSet
from schedlab.swdual.synthetic import generate_sequences
from schedlab.swdual.thesis import C2050_GCUPS, SWIPE_CORE_GCUPS, TABLE_2_4, TABLE_2_5, cell_checks

__all__ = [
    "QUERY_SETS",
    "MeasuredRow",
    "Outcome",
    "Plan",
    "PlannedRow",
    "run_plan",
    "summary",
    "write_report",
    "cell_check_table",
    "measured_comparison",
    "planned_comparison",
    "query_set",
    "thesis_gcups_table",
]

QUERY_SETS = {"heterogeneous": (100, 5000), "homogeneous": (4500, 5000)}
"""Query length ranges (uniform): the issue's 100-5,000 set and Table 2.5's homogeneous 4,500-5,000 set."""


def query_set(name: str, n: int, *, rng: np.random.Generator) -> SequenceSet:
    """``n`` synthetic queries of the named set (:data:`QUERY_SETS`), named ``q000000 ..``."""
    low, high = QUERY_SETS[name]
    return generate_sequences(n, rng=rng, min_length=low, max_length=high, lengths="uniform", prefix="q")


@dataclass(frozen=True, slots=True)
class MeasuredRow:
    """One real search: its scheduler, measured and predicted makespan, idle share, GCUPS, hits digest."""

    query_set: str
    scheduler: str
    cpus: int
    gpus: int
    makespan: float
    predicted: float
    idle_fraction: float
    gcups: float
    hits_sha256: str


def measured_comparison(
    sets: dict[str, SequenceSet],
    database: SequenceSet,
    *,
    scoring: Scoring,
    model: PerformanceModel,
    cpus: int,
    gpus: int = 0,
    schedulers=("dual2", "self-scheduling", "equal"),
) -> list[MeasuredRow]:
    """Run every scheduler on every query set at equal workers; one row per search.

    Cost: ``len(schedulers)`` full searches per set (``Σ|q| Σ|d|`` cells each).
    """
    rows = []
    for name, queries in sets.items():
        for scheduler in schedulers:
            result = search(queries, database, scoring=scoring, model=model, cpus=cpus, gpus=gpus, scheduler=scheduler)
            report = result.report()
            digest = hashlib.sha256(result.hits_tsv().encode()).hexdigest()[:12]
            rows.append(
                MeasuredRow(
                    name,
                    scheduler,
                    cpus,
                    gpus,
                    report["makespan"],
                    report["predicted_makespan"],
                    report["idle_fraction"],
                    report["gcups"],
                    digest,
                )
            )
    return rows


@dataclass(frozen=True, slots=True)
class PlannedRow:
    """One plan from model times: predicted makespan, its ratio to the lower bound, predicted idle share."""

    query_set: str
    scheduler: str
    cpus: int
    gpus: int
    makespan: float
    lower_bound: float
    idle_fraction: float
    gcups: float


def planned_comparison(
    sets: dict[str, np.ndarray],
    residues: int,
    model: PerformanceModel,
    *,
    platforms=((1, 1), (2, 2), (4, 4)),
    schedulers=("dual2", "da2", "eft", "proportional", "equal", "self-scheduling", "cpu-only", "gpu-only"),
) -> list[PlannedRow]:
    """Plan every query set (query lengths) on every ``(cpus, gpus)`` platform with every scheduler.

    Predicted times come from ``model`` (which needs both a CPU and a GPU
    model); no alignment runs. ``gcups`` is the set's cells over the
    predicted makespan; ``idle_fraction`` counts every worker of the
    platform (CPU-only leaves the GPUs idle throughout).
    """
    rows = []
    for name, lengths in sets.items():
        cpu_time, gpu_time = model.task_times(lengths, residues)
        cells = float(np.sum(lengths)) * residues
        for cpus, gpus in platforms:
            for scheduler in schedulers:
                if (scheduler == "cpu-only" and not cpus) or (scheduler == "gpu-only" and not gpus):
                    continue
                plan = make_plan(cpu_time, gpu_time, cpus=cpus, gpus=gpus, scheduler=scheduler)
                busy = float(np.sum(plan.end - plan.start))
                idle = 1.0 - busy / ((cpus + gpus) * plan.makespan) if plan.makespan > 0 else 0.0
                rows.append(
                    PlannedRow(
                        name,
                        scheduler,
                        cpus,
                        gpus,
                        plan.makespan,
                        plan.lower_bound,
                        idle,
                        cells / plan.makespan / 1e9,
                    )
                )
    return rows


def cell_check_table() -> str:
    """Markdown: time x GCUPS of every Table 2.4/2.5 row (the cells), spread, and scaling."""
    lines = [
        "| dataset | cells at 2 / 4 / 8 workers (x 10^12) | spread | speed-up 2 -> 4 | speed-up 2 -> 8 |",
        "|---|---|---:|---:|---:|",
    ]
    for check in cell_checks():
        cells = " / ".join(f"{check.cells[w] / 1e12:.3f}" for w in (2, 4, 8))
        lines.append(
            f"| {check.dataset} | {cells} | {100 * check.spread:.3f} % | {check.speedup_2_to_4:.2f} "
            f"| {check.speedup_2_to_8:.2f} |"
        )
    return "\n".join(lines)


def thesis_gcups_table(cpu_gcups: dict[int, float], search_gcups: dict[str, float]) -> str:
    """Markdown: our per-core and whole-search GCUPS next to the thesis's (Tables 2.2, 2.4, 2.5).

    ``cpu_gcups`` maps query length to one core's GCUPS here; ``search_gcups``
    maps a label (e.g. "heterogeneous, 2 CPU workers") to a measured search's GCUPS.
    """
    lines = ["| what | here | thesis |", "|---|---:|---:|"]
    for length, value in sorted(cpu_gcups.items()):
        lines.append(f"| one CPU core, query of {length} | {value:.2f} | {SWIPE_CORE_GCUPS} (SWIPE core, UniProt) |")
    lines.append(f"| one GPU | not measured (no GPU here) | {C2050_GCUPS} (Tesla C2050, CUDASW++ 2.0) |")
    two = {"UniProt, 1 GPU + 1 CPU": TABLE_2_4["UniProt"][2][1]}
    two.update({f"{k}, 1 GPU + 1 CPU": v[2][1] for k, v in TABLE_2_5.items()})
    for label, value in search_gcups.items():
        lines.append(f"| search, {label} | {value:.2f} | |")
    for label, value in two.items():
        lines.append(f"| SWDUAL, {label} | | {value} |")
    return "\n".join(lines)


def _markdown(rows, columns: list[str]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Plan:
    """What the reproduction runs: database and query-set sizes, CPU workers, schedulers, assumed GPU, seed."""

    sequences: int = 100_000
    queries: int = 40
    cpus: int = 2
    gpu_gcups: float = C2050_GCUPS
    schedulers: tuple[str, ...] = ("dual2", "self-scheduling", "equal")
    seed: int = 0


@dataclass(frozen=True, eq=False)
class Outcome:
    """What :func:`run_plan` measured: the rows, the calibrated model and the inputs' sizes."""

    measured: list[MeasuredRow]
    planned: list[PlannedRow]
    model: PerformanceModel
    database: tuple[int, int]  # sequences, residues
    sets: dict[str, int]  # query set -> residues
    sample_residues: int


def run_plan(plan: Plan, *, scoring: Scoring | None = None) -> Outcome:
    """Run the reproduction.

    1. Draws a ``plan.sequences``-sequence UniProt-like database and
       ``plan.queries`` queries of each set of :data:`QUERY_SETS` (seeded).
    2. Calibrates the CPU engine with ``plan.cpus`` threads at once.
    3. Searches every set with every scheduler on ``plan.cpus`` CPU workers,
       one search after another (they are timed: running them side by side,
       as the campaign runner would, would make them compete for the cores).
    4. Plans the same sets on 1+1, 2+2 and 4+4 CPU+GPU workers with the
       calibrated CPU model and a flat ``plan.gpu_gcups`` GPU model.

    Cost: ``len(plan.schedulers)`` searches per set; about 40 minutes for the
    defaults on two cores at 8 GCUPS each.
    """
    from schedlab.swdual.calibration import EngineModel, calibrate_engine, database_sample
    from schedlab.swdual.cpu import OpalEngine

    scoring = scoring or Scoring.load()
    rng = np.random.default_rng(plan.seed)
    database = generate_sequences(plan.sequences, rng=rng)
    sets = {name: query_set(name, plan.queries, rng=rng) for name in QUERY_SETS}
    sample = database_sample(database, 2_000_000, rng=rng)
    cpu_model = calibrate_engine(
        lambda s: OpalEngine(s, scoring), sample, rng=rng, lengths=(100, 300, 1000, 3000, 5000), parallel=plan.cpus
    )
    model = PerformanceModel(cpu_model, None, {"sample_residues": sample.residues, "parallel_cpus": plan.cpus})
    measured = measured_comparison(
        sets, database, scoring=scoring, model=model, cpus=plan.cpus, schedulers=plan.schedulers
    )
    hybrid = PerformanceModel(cpu_model, EngineModel("assumed", (1,), (plan.gpu_gcups,)))
    planned = planned_comparison({k: v.lengths for k, v in sets.items()}, database.residues, hybrid)
    return Outcome(
        measured,
        planned,
        model,
        (len(database), database.residues),
        {k: v.residues for k, v in sets.items()},
        sample.residues,
    )


def summary(plan: Plan, outcome: Outcome, *, wall: float, scoring: Scoring | None = None) -> str:
    """The Markdown summary of a reproduction (``summary.md``)."""
    scoring = scoring or Scoring.load()
    cpu_model = outcome.model.cpu
    sequences, residues = outcome.database
    measured, planned = outcome.measured, outcome.planned
    lines = [
        "# SWDUAL: Smith-Waterman search on CPU cores and GPUs (Mendonca 2017, chapter 2)",
        "",
        f"Synthetic UniProt-like database: {sequences:,} sequences, {residues:,} residues (seed {plan.seed}); "
        f"{plan.queries} queries per set: "
        + ", ".join(f"{k} {lo:,}-{hi:,} residues ({outcome.sets[k]:,} in all)" for k, (lo, hi) in QUERY_SETS.items())
        + f". BLOSUM62, G_s = {scoring.gap_start}, G_e = {scoring.gap_extend}; CPU engine pyopal, "
        f"{plan.cpus} CPU workers, no GPU on this machine. Wall time {wall:.0f} s.",
        "",
        "## The thesis's numbers are self-consistent (time x GCUPS = cells)",
        "",
        cell_check_table(),
        "",
        f"## Calibration ({plan.cpus} threads at once, {outcome.sample_residues:,}-residue sample)",
        "",
        _markdown(
            [(f"{n:,}", f"{g:.2f}") for n, g in zip(cpu_model.lengths, cpu_model.gcups)],
            ["query length", "GCUPS per CPU worker"],
        ),
        "",
        f"## Measured searches, {plan.cpus} CPU workers",
        "",
        _markdown(
            [
                (
                    r.query_set,
                    r.scheduler,
                    f"{r.makespan:.1f}",
                    f"{r.predicted:.1f}",
                    f"{100 * r.idle_fraction:.2f}",
                    f"{r.gcups:.2f}",
                    r.hits_sha256,
                )
                for r in measured
            ],
            ["query set", "scheduler", "makespan s", "predicted s", "idle %", "GCUPS", "hits sha256"],
        ),
        "",
        "## Our GCUPS next to the thesis's",
        "",
        thesis_gcups_table(
            {int(n): g for n, g in zip(cpu_model.lengths, cpu_model.gcups)},
            {f"{r.query_set}, {plan.cpus} CPU workers, {r.scheduler}": r.gcups for r in measured},
        ),
        "",
        f"## Planned CPU+GPU searches (measured CPU model, GPU assumed flat at {plan.gpu_gcups} GCUPS; no GPU here)",
        "",
        _markdown(
            [
                (
                    r.query_set,
                    f"{r.cpus}+{r.gpus}",
                    r.scheduler,
                    f"{r.makespan:.1f}",
                    f"{r.makespan / r.lower_bound:.3f}",
                    f"{100 * r.idle_fraction:.1f}",
                    f"{r.gcups:.1f}",
                )
                for r in planned
            ],
            ["query set", "CPU+GPU", "scheduler", "makespan s", "/ lower bound", "idle %", "GCUPS"],
        ),
        "",
    ]
    return "\n".join(lines)


def write_report(out: Path, plan: Plan, outcome: Outcome, *, wall: float) -> list[Path]:
    """Write ``summary.md``, ``measured.csv``, ``planned.csv``, ``model.json`` and ``experiment.json`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name, rows in (("measured.csv", outcome.measured), ("planned.csv", outcome.planned)):
        path = out / name
        with path.open("w", newline="", encoding="utf-8") as handle:
            fields = [f.name for f in dataclasses.fields(rows[0])] if rows else []
            writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(dataclasses.asdict(r) for r in rows)
        files.append(path)
    outcome.model.write(out / "model.json")
    (out / "experiment.json").write_text(
        json.dumps({"plan": dataclasses.asdict(plan), "wall_seconds": wall}, indent=1) + "\n", encoding="utf-8"
    )
    (out / "summary.md").write_text(summary(plan, outcome, wall=wall), encoding="utf-8")
    return [*files, out / "model.json", out / "experiment.json", out / "summary.md"]
