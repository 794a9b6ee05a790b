"""Bleuse (2017), chapter 3's experiment: every CPU+GPU algorithm on generated Table 3.1 instances.

Source: Bleuse (2017), ch. 3 section 3.6 (Table 3.1, Figs. 3.4-3.7).

The instances and runs form one campaign (:func:`campaign_text`: a generated
workload of the ``CPU+GPU tasks`` family, one policy entry per algorithm), run
by the campaign runner (stored, resumable, ``jobs`` processes or Dask).
:func:`tables_from_results` turns the store into ``runs.csv`` rows (one per
instance and algorithm, with ratios to APPROX-3/2 and to the best lower bound)
and ``steps.csv`` rows (one per bisection step); :func:`aggregate` takes means
per algorithm and instance class; :func:`write_report` writes the CSVs,
tables and figures. Results do not depend on the number of workers; only the
timing columns (:data:`TIMING_COLUMNS`) vary between runs.
"""

from __future__ import annotations

import csv
import html
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from schedlab.errors import ArgumentError
from schedlab.experiments.common import run_campaigns, toml_value, write_campaigns, write_json
from schedlab.offline.hybrid.bounds import best_lower_bound
from schedlab.registry import HYBRID, Algorithm, get
from schedlab.registry import names as registry_names
from schedlab.report.tables import html_table, markdown_table

__all__ = [
    "FULL_GRID",
    "QUICK_GRID",
    "REFERENCE",
    "RUN_COLUMNS",
    "STEP_COLUMNS",
    "TIMING_COLUMNS",
    "Grid",
    "aggregate",
    "campaign_text",
    "experiment_algorithms",
    "grid_to_dict",
    "reproduce",
    "tables_from_results",
    "write_report",
]

REFERENCE = "approx32"
"""The algorithm every makespan is divided by (Fig. 3.4: APPROX-3/2 = 1.0)."""

RUN_COLUMNS = (
    "n",
    "m",
    "k",
    "sample",
    "seed",
    "algorithm",
    "makespan",
    "lower_bound",
    "best_lower_bound",
    "ratio_reference",
    "ratio_lower_bound",
    "steps",
    "lam",
    "mean_sets",
    "seconds",
    "ilp_seconds",
)
"""Columns of ``runs.csv``: one row per (instance, algorithm)."""

STEP_COLUMNS = ("n", "m", "k", "sample", "algorithm", "step", "lam", "accepted", "makespan", "mean_sets", "seconds")
"""Columns of ``steps.csv``: one row per bisection step of a dual algorithm."""

TIMING_COLUMNS = frozenset({"seconds", "ilp_seconds"})
"""Wall-clock columns: the only ones that differ between two runs with the same seed."""


@dataclass(frozen=True, slots=True)
class Grid:
    """Instance sizes and samples per ``(n, m, k)`` (Table 3.1: 4 x 7 x 6 sizes, 10 samples)."""

    n: tuple[int, ...]
    m: tuple[int, ...]
    k: tuple[int, ...]
    samples: int


FULL_GRID = Grid(n=(10, 50, 100, 1000), m=(4, 16, 64, 128, 256, 384, 512), k=(1, 2, 4, 8, 16, 32), samples=10)
"""Table 3.1 of Bleuse (2017): 1680 instances."""

QUICK_GRID = Grid(n=(10, 50, 100, 1000), m=(4, 16, 64), k=(1, 4), samples=1)
"""A subset of Table 3.1 that runs in about a minute on one core (24 instances)."""


def experiment_algorithms(names: Iterable[str] | None = None) -> dict[str, Algorithm]:
    """The registered CPU+GPU algorithms named ``names`` (all by default), in registry order, the reference
    (APPROX-3/2) always first."""
    algorithms = {name: get(name) for name in registry_names(family=HYBRID)}
    if names is None:
        return algorithms
    chosen = {}
    for name in names:
        if name not in algorithms:
            raise ArgumentError(f"unknown algorithm {name!r}, expected one of {', '.join(sorted(algorithms))}")
        chosen[name] = algorithms[name]
    if REFERENCE not in chosen:
        chosen = {REFERENCE: algorithms[REFERENCE], **chosen}
    return chosen


def campaign_text(grid: Grid, *, seed: int, names: Iterable[str] | None = None) -> str:
    """The campaign spec: Table 3.1 instances of ``grid`` (n, then m, then k, then sample), every algorithm."""
    if grid.samples < 1:
        raise ArgumentError(f"samples = {grid.samples}, expected >= 1")
    lines = [
        "# Bleuse (2017), ch. 3: every CPU+GPU algorithm on generated Table 3.1 instances.",
        'name = "hybrid"',
        f"seed = {seed}",
        "validate = true",
        'store = "../store"',
        'metrics = ["makespan"]',
        "",
        "[[workloads]]",
        'name = "table-3.1"',
        f"generate = {{ family = {toml_value(HYBRID)}, samples = {grid.samples}, grid = {{ "
        f"n = {toml_value(list(grid.n))}, m = {toml_value(list(grid.m))}, k = {toml_value(list(grid.k))} }} }}",
    ]
    for name in experiment_algorithms(names):
        lines += ["", "[[policies]]", f"name = {toml_value(name)}"]
    return "\n".join(lines) + "\n"


def _float(value) -> float:
    return math.nan if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def tables_from_results(results: pd.DataFrame, names: Iterable[str] | None = None) -> tuple[list[dict], list[dict]]:
    """``runs.csv`` and ``steps.csv`` rows from the campaign's results, instances in grid order, algorithms in
    registry order.

    ``best_lower_bound`` is the largest of the area/longest-task bound and
    every guess rejected by a step sound for moldable tasks (APPROX-3/2 and its
    variant, APPROX-2: :func:`~schedlab.offline.hybrid.bounds.best_lower_bound`);
    ``mean_sets`` is mean |F(j)| averaged over the bisection steps (Fig. 3.6),
    NaN for non-ILP algorithms. A run that failed has NaN values.
    """
    algorithms = experiment_algorithms(names)
    order = {name: i for i, name in enumerate(algorithms)}
    runs, steps = [], []
    for _, instance in results.groupby("window_index", sort=True):
        instance = instance.assign(_order=instance["policy"].map(order)).sort_values("_order")
        finished = instance[instance["state"] == "done"]
        lower = _float(finished["lower_bound"].iloc[0]) if len(finished) else math.nan
        proven = best_lower_bound(
            lower,
            [(_float(r.search_lower), algorithms[r.policy].traits["moldable"]) for r in finished.itertuples()],
            sequential=False,  # Table 3.1 tasks are moldable
        )
        rows = []
        for r in instance.itertuples():
            key = {"n": int(r.gen_n), "m": int(r.gen_m), "k": int(r.gen_k), "sample": int(r.gen_sample)}
            ok = r.state == "done"
            rows.append(
                {
                    **key,
                    "seed": int(r.seed),
                    "algorithm": r.policy,
                    "makespan": _float(r.makespan) if ok else math.nan,
                    "lower_bound": lower,
                    "steps": int(r.steps) if ok else 0,
                    "lam": _float(r.lam) if ok else math.nan,
                    "mean_sets": _float(r.mean_sets) if ok else math.nan,
                    "seconds": _float(r.simulate_seconds),
                    "ilp_seconds": _float(r.ilp_seconds) if ok else math.nan,
                }
            )
            for i, (lam, accepted, makespan, mean_sets, seconds) in enumerate(json.loads(r.search) if ok else []):
                steps.append(
                    {
                        **key,
                        "algorithm": r.policy,
                        "step": i,
                        "lam": float(lam),
                        "accepted": bool(accepted),
                        "makespan": _float(makespan),
                        "mean_sets": _float(mean_sets),
                        "seconds": float(seconds),
                    }
                )
        reference = rows[0]["makespan"]
        for row in rows:
            row["best_lower_bound"] = proven
            row["ratio_reference"] = row["makespan"] / reference if reference > 0 else math.nan
            row["ratio_lower_bound"] = row["makespan"] / proven if proven > 0 else math.nan
        runs += [{c: row[c] for c in RUN_COLUMNS} for row in rows]
    return runs, steps


def reproduce(
    out,
    grid: Grid,
    *,
    seed: int = 0,
    names: Iterable[str] | None = None,
    jobs: int = 1,
    progress: Callable[[int, int, dict], None] | None = None,
    quick: bool = False,
) -> dict:
    """Write and run the campaign under ``out`` (store in ``out/store``), then the report; return a summary."""
    names = None if names is None else list(names)
    (results,), wall = run_campaigns(
        write_campaigns(Path(out), {"hybrid": campaign_text(grid, seed=seed, names=names)}),
        jobs=jobs,
        progress=progress,
    )
    runs, steps = tables_from_results(results, names)
    write_report(out, runs, steps, grid=grid, seed=seed, jobs=jobs, wall=wall, quick=quick)
    return {
        "instances": len(results["window_index"].unique()),
        "runs": len(runs),
        "wall_seconds": wall,
        "failed": int((results["state"] != "done").sum()),
    }


def _mean(values: Sequence[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    return float(sum(values) / len(values)) if values else math.nan


def aggregate(runs: Sequence[dict], by: Sequence[str] = ()) -> list[dict]:
    """Means per algorithm and per value of the ``by`` columns (e.g. ``("n",)`` or ``("n", "m", "k")``).

    ``ratio_reference`` and ``ratio_lower_bound`` are arithmetic means of the
    per-instance ratios, ``max_ratio_lower_bound`` their maximum, ``wins`` the
    share of instances where the algorithm's makespan is within 1e-9 of the
    best one; ``seconds`` and ``steps`` are means, ``mean_sets`` the mean of
    the per-run |F(j)| means (NaN where undefined). Algorithms keep their
    first-seen order; groups are sorted.
    """
    best: dict[tuple, float] = {}
    for r in runs:
        inst = (r["n"], r["m"], r["k"], r["sample"])
        if not math.isnan(r["makespan"]):
            best[inst] = min(best.get(inst, math.inf), r["makespan"])
    groups: dict[tuple, list[dict]] = defaultdict(list)
    order: dict[str, int] = {}
    for r in runs:
        order.setdefault(r["algorithm"], len(order))
        groups[(tuple(r[c] for c in by), r["algorithm"])].append(r)
    out = []
    for (values, name), rows in sorted(groups.items(), key=lambda kv: (kv[0][0], order[kv[0][1]])):
        ok = [r for r in rows if not math.isnan(r["makespan"])]
        lb = [r["ratio_lower_bound"] for r in ok]
        wins = [r["makespan"] <= best[(r["n"], r["m"], r["k"], r["sample"])] * (1 + 1e-9) for r in ok]
        out.append(
            {
                **dict(zip(by, values)),
                "algorithm": name,
                "runs": len(ok),
                "ratio_reference": _mean([r["ratio_reference"] for r in ok]),
                "ratio_lower_bound": _mean(lb),
                "max_ratio_lower_bound": max(lb) if lb else math.nan,
                "wins": _mean([float(w) for w in wins]),
                "seconds": _mean([r["seconds"] for r in rows]),
                "steps": _mean([float(r["steps"]) for r in ok]),
                "mean_sets": _mean([r["mean_sets"] for r in ok]),
            }
        )
    return out


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
        lines += [f"## {title}", "", *markdown_table(pd.DataFrame(rows, columns=head), text_columns=1), ""]
    return "\n".join(lines)


def _html(tables, header: str, figures) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8"><title>schedlab: CPU+GPU reproduction (Bleuse 2017, ch. 3)</title>',
        "<style>table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
        "text-align:right}td:first-child{text-align:left}</style></head><body>",
    ]
    parts += [f"<p>{html.escape(line)}</p>" for line in header.splitlines() if line.strip()]
    for title, head, rows in tables:
        parts.append(f"<h2>{html.escape(title)}</h2>" + html_table(pd.DataFrame(rows, columns=head)))
    for name, caption in figures.items():
        parts.append(f'<h2>{html.escape(caption)}</h2><img src="{html.escape(name)}" alt="{html.escape(caption)}">')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(
    out, runs: list[dict], steps: list[dict], *, grid: Grid, seed: int, jobs: int, wall: float, quick: bool = False
) -> list[Path]:
    """``runs.csv``, ``steps.csv``, ``summary.csv`` (means per n, m, k, algorithm), ``summary.md`` and
    ``summary.html`` (means per algorithm, and per n, m and k), the figures of
    :data:`~schedlab.report.hybrid_plots.FIGURES` and ``experiment.json``."""
    from schedlab.report.hybrid_plots import FIGURES, plot_hybrid_figures

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "runs.csv", runs, RUN_COLUMNS)
    write_csv(out / "steps.csv", steps, STEP_COLUMNS)
    summary = aggregate(runs, by=("n", "m", "k"))
    write_csv(out / "summary.csv", summary, list(summary[0]) if summary else ["algorithm"])
    instances = len({(r["n"], r["m"], r["k"], r["sample"]) for r in runs})
    algorithms = list(dict.fromkeys(r["algorithm"] for r in runs))
    header = (
        f"# Bleuse (2017), ch. 3 reproduction: {instances} instances "
        f"(n {list(grid.n)}, m {list(grid.m)}, k {list(grid.k)}, {grid.samples} per size), "
        f"seed {seed}, {len(algorithms)} algorithms, {wall:.1f} s with {jobs} job(s).\n\n"
        "Ratios are per-instance ratios averaged; best LB = max(area, longest task, every λ "
        "rejected by APPROX-3/2 or APPROX-2); approx32-mk = APPROX-3/2 with objective='makespan' "
        "and repack=True."
    )
    tables = _tables(runs)
    (out / "summary.md").write_text(_markdown(tables, header))
    plot_hybrid_figures(runs, steps, out)
    (out / "summary.html").write_text(_html(tables, header, FIGURES))
    write_json(
        out / "experiment.json",
        {
            "experiment": "hybrid",
            "seed": seed,
            "quick": quick,
            "jobs": jobs,
            "grid": grid_to_dict(grid),
            "instances": instances,
            "algorithms": algorithms,
            "wall_seconds": wall,
        },
    )
    return [out / name for name in ("runs.csv", "steps.csv", "summary.csv", "summary.md", "summary.html")]


def grid_to_dict(grid: Grid) -> dict:
    """A JSON-ready description of ``grid``."""
    return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(grid).items()}
