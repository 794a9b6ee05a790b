"""The SWDUAL reproduction: thesis checks, measured searches per scheduler, and modelled CPU+GPU plans.

Source: Mendonca (2017), chapter 2, section 2.5 (40 queries of 100-5,000
residues; homogeneous set of 4,500-5,000; 2, 4 and 8 workers mixing CPU cores
and GPUs; Tables 2.2-2.5). What can be measured on a machine without a GPU is
measured (CPU-core searches, every scheduler at equal workers); the CPU+GPU
comparisons are planned with the measured CPU model and a GPU model whose
throughput is given (e.g. the thesis's C2050 at 24.8 GCUPS), and say so.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter

import numpy as np
import pandas as pd

from schedlab.experiments.common import Claim, claims_markdown, write_json
from schedlab.report.tables import markdown_table
from schedlab.swdual.calibration import PerformanceModel
from schedlab.swdual.scheduling import make_plan
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.search import search
from schedlab.swdual.sequences import SequenceSet
from schedlab.swdual.synthetic import generate_sequences
from schedlab.swdual.thesis import C2050_GCUPS, SWIPE_CORE_GCUPS, TABLE_2_4, TABLE_2_5, cell_checks

__all__ = [
    "NOISE",
    "QUERY_SETS",
    "MeasuredRow",
    "Outcome",
    "Plan",
    "PlannedRow",
    "claims",
    "measured_frame",
    "planned_frame",
    "reproduce",
    "run_plan",
    "summary",
    "write_report",
    "cell_check_table",
    "measured_comparison",
    "planned_comparison",
    "query_set",
    "thesis_gcups_table",
]

NOISE = 0.02
"""Measured makespans within this fraction of each other count as equal (timing noise of a shared machine)."""

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


def cell_check_table() -> list[str]:
    """Markdown lines: time x GCUPS of every Table 2.4/2.5 row (the cells), their spread, and the scaling."""
    rows = [
        {
            "dataset": c.dataset,
            "cells at 2 / 4 / 8 workers (x 10^12)": " / ".join(f"{c.cells[w] / 1e12:.3f}" for w in (2, 4, 8)),
            "spread %": 100 * c.spread,
            "speed-up 2 -> 4": c.speedup_2_to_4,
            "speed-up 2 -> 8": c.speedup_2_to_8,
        }
        for c in cell_checks()
    ]
    return markdown_table(pd.DataFrame(rows))


def thesis_gcups_table(cpu_gcups: dict[int, float], search_gcups: dict[str, float]) -> list[str]:
    """Markdown lines: our per-core and whole-search GCUPS next to the thesis's (Tables 2.2, 2.4, 2.5).

    ``cpu_gcups`` maps query length to one CPU worker's GCUPS here; ``search_gcups``
    maps a label (e.g. "heterogeneous, 2 CPU workers") to a measured search's GCUPS.
    """
    rows = [
        {"what": f"one CPU worker, query of {n:,}", "here": g, "thesis": f"{SWIPE_CORE_GCUPS} (one SWIPE core)"}
        for n, g in sorted(cpu_gcups.items())
    ]
    rows.append({"what": "one GPU", "here": "no GPU here", "thesis": f"{C2050_GCUPS} (C2050, CUDASW++ 2.0)"})
    rows += [{"what": f"search, {label}", "here": value, "thesis": ""} for label, value in search_gcups.items()]
    rows.append({"what": "SWDUAL, UniProt, 1 GPU + 1 CPU", "here": "", "thesis": str(TABLE_2_4["UniProt"][2][1])})
    rows += [
        {"what": f"SWDUAL, {k} set, 1 GPU + 1 CPU", "here": "", "thesis": str(v[2][1])} for k, v in TABLE_2_5.items()
    ]
    return markdown_table(pd.DataFrame(rows), text_columns=1)


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


def measured_frame(outcome: Outcome) -> pd.DataFrame:
    """The measured searches as a table (``measured.csv``)."""
    return pd.DataFrame([dataclasses.asdict(r) for r in outcome.measured])


def planned_frame(outcome: Outcome) -> pd.DataFrame:
    """The planned CPU+GPU searches as a table (``planned.csv``), with the ratio to the lower bound."""
    frame = pd.DataFrame([dataclasses.asdict(r) for r in outcome.planned])
    frame["ratio_to_lower_bound"] = frame["makespan"] / frame["lower_bound"]
    return frame


def claims(plan: Plan, outcome: Outcome) -> list[Claim]:
    """The chapter's claims (and the issue's speed checks) with verdicts from this run."""
    measured = measured_frame(outcome)
    planned = planned_frame(outcome)
    checks = cell_checks()
    out = [
        Claim(
            1,
            "Tables 2.4-2.5 report consistent times and GCUPS (time x GCUPS is each dataset's cell count)",
            "holds" if max(c.spread for c in checks) < 1e-3 else "fails",
            [f"largest spread of time x GCUPS over 2, 4, 8 workers: {100 * max(c.spread for c in checks):.3f} %"],
        )
    ]
    idle = measured["idle_fraction"].max() if len(measured) else float("nan")
    out.append(
        Claim(
            2,
            '"Almost no idle time" on every processing element (section 2.5.2)',
            "partly" if idle < 0.05 else "fails",
            [
                f"measured on {plan.cpus} CPU workers only (no GPU here): largest idle share {100 * idle:.2f} % "
                f"over {len(measured)} searches"
            ],
        )
    )
    evidence, verdicts = [], []
    for name in QUERY_SETS:
        rows = measured[measured["query_set"] == name].set_index("scheduler")
        if {"dual2", "self-scheduling"} <= set(rows.index):
            d, ss = rows.loc["dual2"], rows.loc["self-scheduling"]
            planned_ok = bool(d["predicted"] <= ss["predicted"] * (1 + 1e-9))
            measured_ok = bool(d["makespan"] <= ss["makespan"] * (1 + NOISE))
            verdicts.append(
                "holds" if planned_ok and measured_ok else "partly" if planned_ok or measured_ok else "fails"
            )
            evidence.append(
                f"{name}: measured {d['makespan']:.4g} s (dual2) vs {ss['makespan']:.4g} s (self-scheduling); "
                f"predicted {d['predicted']:.4g} s vs {ss['predicted']:.4g} s"
            )
    verdict = "not measurable" if not verdicts else min(verdicts, key=("fails", "partly", "holds").index)
    out.append(
        Claim(
            3,
            "The dual-approximation plan is no worse than self-scheduling at equal workers (the issue's check)",
            verdict,
            [*evidence, f"holds: no worse predicted, and measured within {100 * NOISE:.0f} % (timing noise)"]
            if evidence
            else ["self-scheduling was not run"],
        )
    )
    evidence, wins = [], True
    for (name, cpus, gpus), rows in planned.groupby(["query_set", "cpus", "gpus"]):
        by = rows.set_index("scheduler")["makespan"]
        wins &= bool(by["dual2"] <= min(by["cpu-only"], by["gpu-only"]) * (1 + 1e-9))
        evidence.append(
            f"{name}, {cpus}+{gpus}: dual2 {by['dual2']:.4g} s, CPU-only {by['cpu-only']:.4g} s, "
            f"GPU-only {by['gpu-only']:.4g} s"
        )
    out.append(
        Claim(
            4,
            "CPUs and GPUs together beat CPU-only and GPU-only tools (Table 2.2, section 2.6)",
            "not measurable",
            [
                f"no GPU here; planned with the measured CPU model and a GPU at {plan.gpu_gcups} GCUPS, dual2 "
                + ("is never slower than either" if wins else "is slower than one of them somewhere"),
                *evidence,
            ],
        )
    )
    return out


MEASURED_COLUMNS = {
    "query_set": "query set",
    "scheduler": "scheduler",
    "makespan": "makespan s",
    "predicted": "predicted s",
    "idle_fraction": "idle %",
    "gcups": "GCUPS",
    "hits_sha256": "hits sha256",
}
PLANNED_COLUMNS = {
    "query_set": "query set",
    "scheduler": "scheduler",
    "cpus": "CPUs",
    "gpus": "GPUs",
    "makespan": "makespan s",
    "ratio_to_lower_bound": "/ lower bound",
    "idle_fraction": "idle %",
    "gcups": "GCUPS",
}


def _display(frame: pd.DataFrame, columns: dict[str, str]) -> pd.DataFrame:
    """``frame`` with people's column names and idle shares in percent."""
    frame = frame.assign(idle_fraction=100 * frame["idle_fraction"])
    return frame.rename(columns=columns)


def summary(plan: Plan, outcome: Outcome, *, wall: float) -> str:
    """The Markdown summary of a reproduction (``summary.md``)."""
    cpu_model = outcome.model.cpu
    assert cpu_model is not None  # run_plan always calibrates the CPU engine
    sequences, residues = outcome.database
    measured, planned = measured_frame(outcome), planned_frame(outcome)
    sets = ", ".join(f"{k} {lo:,}-{hi:,} residues ({outcome.sets[k]:,} in all)" for k, (lo, hi) in QUERY_SETS.items())
    calibration = pd.DataFrame({"query length": list(cpu_model.lengths), "GCUPS per CPU worker": cpu_model.gcups})
    lines = [
        "# SWDUAL: Smith-Waterman search on CPU cores and GPUs (Mendonca 2017, chapter 2)",
        "",
        f"Synthetic UniProt-like database: {sequences:,} sequences, {residues:,} residues (seed {plan.seed}); "
        f"{plan.queries} queries per set: {sets}. BLOSUM62, G_s = 11, G_e = 1; CPU engine pyopal, "
        f"{plan.cpus} CPU workers, no GPU on this machine. Wall time {wall:.0f} s.",
        "",
        "## The thesis's numbers are self-consistent (time x GCUPS = cells)",
        "",
        *cell_check_table(),
        "",
        f"## Calibration ({plan.cpus} threads at once, {outcome.sample_residues:,}-residue sample)",
        "",
        *markdown_table(calibration, text_columns=0),
        "",
        f"## Measured searches, {plan.cpus} CPU workers, one after another",
        "",
        *markdown_table(_display(measured[list(MEASURED_COLUMNS)], MEASURED_COLUMNS)),
        "",
        "## Our GCUPS next to the thesis's",
        "",
        *thesis_gcups_table(
            {int(n): g for n, g in zip(cpu_model.lengths, cpu_model.gcups)},
            {f"{r.query_set}, {plan.cpus} CPU workers, {r.scheduler}": r.gcups for r in outcome.measured},
        ),
        "",
        f"## Planned CPU+GPU searches (measured CPU model, GPU assumed flat at {plan.gpu_gcups} GCUPS; no GPU here)",
        "",
        *markdown_table(_display(planned[list(PLANNED_COLUMNS)], PLANNED_COLUMNS)),
        "",
    ]
    return "\n".join(lines)


def write_report(out: Path, plan: Plan, outcome: Outcome, *, wall: float) -> list[Path]:
    """Write ``summary.md``, ``claims.md``, ``measured.csv``, ``planned.csv``, ``model.json`` and
    ``experiment.json`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    measured_frame(outcome).to_csv(out / "measured.csv", index=False, lineterminator="\n")
    planned_frame(outcome).to_csv(out / "planned.csv", index=False, lineterminator="\n")
    outcome.model.write(out / "model.json")
    write_json(out / "experiment.json", {"plan": dataclasses.asdict(plan), "wall_seconds": wall})
    (out / "summary.md").write_text(summary(plan, outcome, wall=wall), encoding="utf-8")
    intro = (
        "Each claim of Mendonca (2017), chapter 2, with its verdict on this run: holds, partly, fails, or not "
        "measurable here (this machine has no GPU)."
    )
    (out / "claims.md").write_text(claims_markdown("SWDUAL claims", intro, claims(plan, outcome)), encoding="utf-8")
    names = ("measured.csv", "planned.csv", "model.json", "experiment.json", "summary.md", "claims.md")
    return [out / name for name in names]


def reproduce(out: Path, plan: Plan) -> tuple[Outcome, list[Path]]:
    """:func:`run_plan`, then :func:`write_report` with the wall time; returns the outcome and the files."""
    began = perf_counter()
    outcome = run_plan(plan)
    return outcome, write_report(Path(out), plan, outcome, wall=perf_counter() - began)
