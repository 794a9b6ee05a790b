"""The I/O-aware allocation study: every algorithm on families of instances, against bounds and optima.

Source: Bleuse (2017), PhD thesis, chapters 5-6: the thesis proves the ratios
(6 for pinned I/O, ``rho + rho'`` for unpinned I/O) but runs no experiment
("one could implement the proposed algorithms, and study their performances
through simulation", section 5.4). This module measures them.

:data:`FULL_FAMILIES` and :data:`QUICK_FAMILIES` list the instance families
(line or ring, shared or exclusive I/O, pinned or unpinned, I/O pressure, job
widths, unit jobs, two I/O nodes per job, tiny instances solved exactly, rigid
jobs of Parallel Workloads Archive traces with synthesised I/O). The families
that run the same algorithms form one campaign (:func:`campaign_texts`: one
generated workload of the ``I/O-aware rigid jobs`` family per instance family,
one policy entry per algorithm), run by the campaign runner (stored,
resumable, ``jobs`` processes or Dask). :func:`rows_from_results` turns the
store into ``runs.csv`` rows, :func:`aggregate` and :func:`summary_tables`
into the report's tables, :func:`write_report` writes everything. Results do
not depend on the number of workers; only ``seconds`` varies.
"""

from __future__ import annotations

import csv
import html
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.errors import ArgumentError
from schedlab.experiments.common import run_campaigns, toml_value, write_campaigns, write_json
from schedlab.offline.io import proven_ratio
from schedlab.platform.io import IOPlatform, parse_io_platform
from schedlab.registry import IO, Algorithm, get
from schedlab.registry import names as registry_names
from schedlab.report.tables import html_table, markdown_table

__all__ = [
    "FULL_FAMILIES",
    "QUICK_FAMILIES",
    "RUN_COLUMNS",
    "SUMMARY_COLUMNS",
    "TRACES",
    "Family",
    "aggregate",
    "campaign_texts",
    "experiment_algorithms",
    "family_algorithms",
    "family_to_dict",
    "reproduce",
    "rows_from_results",
    "summary_tables",
    "worst_ratios",
    "write_report",
]

TRACES = ("KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz")
"""The PWA traces whose jobs the trace families take."""


@dataclass(frozen=True, slots=True)
class Family:
    """A family of instances: a platform, a job mix, a sample count (see :mod:`schedlab.offline.io.evaluation`).

    ``widths``: ``small`` (``q < delta``: only small jobs for the unpinned
    meta-algorithm), ``mixed`` (``q <= 2 delta``) or ``wide`` (``delta <= q <=
    4 delta``). ``p_max``: processing times in ``1 .. p_max`` (log-uniform; 1:
    unit jobs). ``trace``: a PWA trace file name whose consecutive jobs replace
    the generated ones. Instances of at most 6 jobs on at most 12 nodes are
    solved exactly.
    """

    name: str
    platform: str
    kind: str
    n: int
    widths: str = "mixed"
    samples: int = 5
    io_per_job: int = 1
    trace: str | None = None
    p_max: int = 100


def _synthetic(n: int, samples: int) -> list[Family]:
    out = []
    for topology in ("line", "ring"):
        for mode in ("shared", "exclusive"):
            for kind in ("pinned", "unpinned"):
                for io, pressure in ((32, "low"), (8, "high")):
                    for widths in ("small", "mixed", "wide"):
                        out.append(
                            Family(
                                f"{topology}-{mode}-{kind}-{pressure}-{widths}",
                                f"{topology}:m=288,io={io},mode={mode}",
                                kind,
                                n,
                                widths,
                                samples,
                            )
                        )
    return out


def _tiny(samples: int) -> list[Family]:
    out = []
    for topology in ("line", "ring"):
        for mode in ("shared", "exclusive"):
            for kind in ("pinned", "unpinned"):
                out.append(
                    Family(
                        f"tiny-{topology}-{mode}-{kind}", f"{topology}:m=10,io=2,mode={mode}", kind, 5, "mixed", samples
                    )
                )
    out.append(Family("tiny-line-shared-pinned2", "line:m=12,io=3", "pinned", 5, "mixed", samples, 2))
    out.append(Family("tiny-line-shared-pinned-unit", "line:m=10,io=2", "pinned", 6, "mixed", samples, p_max=1))
    return out


def _traces(n: int, samples: int, traces: Sequence[str]) -> list[Family]:
    out = []
    for trace in traces:
        short = trace.split("-")[0].lower()
        for topology in ("line", "ring"):
            for mode in ("shared", "exclusive"):
                for kind in ("pinned", "unpinned"):
                    out.append(
                        Family(
                            f"{short}-{topology}-{mode}-{kind}",
                            f"{topology}:m=288,io=32,mode={mode}",
                            kind,
                            n,
                            "mixed",
                            samples,
                            trace=trace,
                        )
                    )
    return out


FULL_FAMILIES: tuple[Family, ...] = tuple(
    _synthetic(200, 5)
    + [
        Family("line-shared-pinned2-mixed", "line:m=288,io=32", "pinned", 200, "mixed", 5, 2),
        Family("line-shared-pinned-unit-mixed", "line:m=288,io=32", "pinned", 200, "mixed", 5, p_max=1),
        Family(
            "line-exclusive-pinned-unit-mixed", "line:m=288,io=32,mode=exclusive", "pinned", 200, "mixed", 5, p_max=1
        ),
    ]
    + _tiny(30)
    + _traces(200, 5, TRACES)
)
"""48 synthetic families (line/ring x shared/exclusive x pinned/unpinned x I/O pressure x widths), two
pinned I/O nodes per job, unit jobs (shared and exclusive), 10 tiny families solved exactly, 16 trace families."""

QUICK_FAMILIES: tuple[Family, ...] = tuple(
    [f for f in _synthetic(50, 1) if "-shared-" in f.name and f.name.endswith("-low-mixed")]
    + [replace(f, samples=3) for f in _tiny(3) if "-shared-" in f.name]
    + [f for f in _traces(50, 1, TRACES[:1]) if "-shared-" in f.name and "-line-" in f.name]
)
"""A few families that run in well under a minute on one core."""

RUN_COLUMNS = (
    "family",
    "platform",
    "topology",
    "mode",
    "kind",
    "widths",
    "p_max",
    "io_per_job",
    "n",
    "m",
    "m_io",
    "sample",
    "seed",
    "algorithm",
    "makespan",
    "proven_ratio",
    "lb_area",
    "lb_longest",
    "lb_io",
    "lb_lp",
    "best_lb",
    "tight_bound",
    "ratio_lb",
    "opt",
    "ratio_opt",
    "relaxed_convex",
    "relaxed_none",
    "lp",
    "rounded",
    "colours",
    "compacity",
    "proximity",
    "seconds",
)
"""Columns of ``runs.csv``: one row per (instance, algorithm); NaN where a value does not apply."""


def experiment_algorithms(names: Iterable[str] | None = None) -> dict[str, Algorithm]:
    """The registered I/O-aware algorithms named ``names`` (all by default), in registry order.

    Raises
    ------
    ArgumentError
        An unknown name.
    """
    algorithms = {name: get(name) for name in registry_names(family=IO)}
    if names is None:
        return algorithms
    names = list(names)
    unknown = [name for name in names if name not in algorithms]
    if unknown:
        raise ArgumentError(f"unknown algorithm {unknown[0]!r}, expected one of {', '.join(algorithms)}")
    return {name: algorithms[name] for name in algorithms if name in names}


def family_algorithms(family: Family) -> tuple[str, ...]:
    """The registered algorithms whose requirement every instance of ``family`` meets, in registry order.

    Pinned families: ``pinned``, ``pinned-best``, ``greedy``, ``sequential``;
    ``per-io-node`` too when every job fits right of its I/O node (small widths
    on a uniform layout), ``unit-pinned`` for unit jobs on a line. Unpinned
    families: ``unpinned``, ``unpinned-ffdh``, ``greedy``, ``sequential``.
    """
    topology = family.platform.split(":")[0]
    wanted = {"greedy", "sequential"}
    if family.kind == "unpinned":
        wanted |= {"unpinned", "unpinned-ffdh"}
    else:
        wanted |= {"pinned", "pinned-best"}
        if family.widths == "small" and family.trace is None and family.io_per_job == 1:
            wanted.add("per-io-node")
        if family.p_max == 1 and topology == "line":
            wanted.add("unit-pinned")
    return tuple(name for name in registry_names(family=IO) if name in wanted)


def _point(family: Family, traces: Path | None) -> dict:
    trace = ""
    if family.trace is not None:
        if traces is None:
            raise ArgumentError(f"family {family.name} takes jobs from {family.trace}: give the traces folder")
        trace = str((Path(traces) / family.trace).resolve())
    return {
        "platform": family.platform,
        "kind": family.kind,
        "n": family.n,
        "widths": family.widths,
        "p_max": family.p_max,
        "io_per_job": family.io_per_job,
        "trace": trace,
    }


def campaign_texts(
    families: Sequence[Family], *, seed: int, traces: Path | None = None, names: Iterable[str] | None = None
) -> dict[str, str]:
    """The campaign specs: one per set of algorithms (:func:`family_algorithms`), one generated workload per
    family in it, named after the family; ``names`` keeps only those algorithms."""
    keep = set(experiment_algorithms(names))
    groups: dict[tuple[str, ...], list[Family]] = {}
    for family in families:
        algorithms = tuple(a for a in family_algorithms(family) if a in keep)
        if algorithms:
            groups.setdefault(algorithms, []).append(family)
    texts = {}
    for index, (algorithms, members) in enumerate(groups.items()):
        name = f"io-{index}"
        lines = [
            f"# Bleuse (2017), ch. 5: {', '.join(algorithms)} on generated I/O-aware instances.",
            f"name = {toml_value(name)}",
            f"seed = {seed}",
            "validate = true",
            'store = "../store"',
            'metrics = ["makespan"]',
        ]
        for family in members:
            grid = ", ".join(f"{k} = {toml_value(v)}" for k, v in _point(family, traces).items())
            lines += [
                "",
                "[[workloads]]",
                f"name = {toml_value(family.name)}",
                f"generate = {{ family = {toml_value(IO)}, samples = {family.samples}, grid = {{ {grid} }} }}",
            ]
        for algorithm in algorithms:
            lines += ["", "[[policies]]", f"name = {toml_value(algorithm)}"]
        texts[name] = "\n".join(lines) + "\n"
    return texts


def _float(value) -> float:
    return math.nan if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def rows_from_results(results: Sequence[pd.DataFrame], families: Sequence[Family]) -> list[dict]:
    """``runs.csv`` rows from the campaigns' results: instances in family order then sample order, algorithms
    in registry order. A run that did not finish is left out (every algorithm meets its families' needs, so
    none should)."""
    order = {name: i for i, name in enumerate(registry_names(family=IO))}
    position = {family.name: i for i, family in enumerate(families)}
    by_name = {family.name: family for family in families}
    table = pd.concat(list(results), ignore_index=True) if results else pd.DataFrame()
    if table.empty:
        return []
    table = table[table["state"] == "done"]
    table = table.assign(
        _family=table["workload"].map(position),
        _sample=table["gen_sample"].astype(int),
        _alg=table["policy"].map(order),
    ).sort_values(["_family", "_sample", "_alg"])
    rows = []
    platforms: dict[str, IOPlatform] = {}
    for r in table.itertuples():
        family = by_name[r.workload]
        plat = platforms.setdefault(family.platform, parse_io_platform(family.platform))
        algorithm = get(r.policy)
        proven = proven_ratio(algorithm.traits, plat)
        makespan, best, opt = _float(r.makespan), _float(r.best_lb), _float(r.opt)
        rows.append(
            {
                "family": family.name,
                "platform": family.platform,
                "topology": plat.topology,
                "mode": plat.io_mode,
                "kind": family.kind,
                "widths": "trace" if family.trace else family.widths,
                "p_max": family.p_max,
                "io_per_job": family.io_per_job,
                "n": int(r.gen_n),
                "m": plat.m,
                "m_io": plat.m_io,
                "sample": int(r.gen_sample),
                "seed": int(r.seed),
                "algorithm": r.policy,
                "makespan": makespan,
                "proven_ratio": math.nan if proven is None else proven,
                **{c: _float(getattr(r, c)) for c in ("lb_area", "lb_longest", "lb_io", "lb_lp", "best_lb")},
                "tight_bound": str(r.tight_bound),
                "ratio_lb": makespan / best if best > 0 else math.nan,
                "opt": opt,
                "ratio_opt": makespan / opt if opt > 0 else math.nan,
                **{
                    c: _float(getattr(r, c))
                    for c in ("relaxed_convex", "relaxed_none", "lp", "rounded", "colours", "compacity", "proximity")
                },
                "seconds": _float(r.simulate_seconds),
            }
        )
    return rows


def reproduce(
    out,
    families: Sequence[Family],
    *,
    seed: int = 0,
    traces: Path | None = None,
    names: Iterable[str] | None = None,
    jobs: int = 1,
    progress: Callable[[int, int, dict], None] | None = None,
    quick: bool = False,
) -> dict:
    """Write and run the campaigns under ``out`` (store in ``out/store``), then the report; return a summary."""
    texts = campaign_texts(families, seed=seed, traces=traces, names=names)
    results, wall = run_campaigns(write_campaigns(Path(out), texts), jobs=jobs, progress=progress)
    rows = rows_from_results(results, families)
    total = sum(len(r) for r in results)
    write_report(out, rows, families=families, seed=seed, jobs=jobs, wall=wall, quick=quick)
    return {
        "instances": len({(r["family"], r["sample"]) for r in rows}),
        "runs": len(rows),
        "wall_seconds": wall,
        "failed": total - len(rows),
    }


def write_report(
    out, rows: list[dict], *, families: Sequence[Family], seed: int, jobs: int, wall: float, quick: bool = False
) -> list[Path]:
    """``runs.csv``, ``summary.csv`` (per family and algorithm), ``summary.md`` and ``summary.html`` (worst
    ratios against the proven ones, then :func:`summary_tables`), the figures of
    :data:`~schedlab.report.io_plots.FIGURES` and ``experiment.json``."""
    from schedlab.report.io_plots import FIGURES, plot_io_figures

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _write_csv(out / "runs.csv", rows, RUN_COLUMNS)
    summary = aggregate(rows)
    _write_csv(out / "summary.csv", summary, list(summary[0]) if summary else ["algorithm"])
    instances = len({(r["family"], r["sample"]) for r in rows})
    header = (
        f"# I/O-aware allocation study: {instances} instances in {len(families)} families, seed {seed}, "
        f"{len(rows)} schedules (every one validated), {wall:.1f} s with {jobs} job(s).\n\n"
        "Ratios are per-instance ratios averaged; best LB = max(area, longest job, I/O capacity, the LP when "
        "every job is pinned); the optimum comes from the exact solver on tiny instances."
    )
    worst = worst_ratios(rows)
    tables = [
        ("Worst measured ratios against the proven ones", pd.DataFrame(worst)),
        *((title, pd.DataFrame(body, columns=head)) for title, head, body in summary_tables(rows)),
    ]
    lines = [header, ""]
    for title, frame in tables:
        lines += [f"## {title}", "", *markdown_table(frame, text_columns=1), ""]
    (out / "summary.md").write_text("\n".join(lines), encoding="utf-8")
    plot_io_figures(rows, out)
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8"><title>schedlab: I/O-aware allocation study (Bleuse 2017, ch. 5)</title>',
        "<style>table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
        "text-align:right}td:first-child{text-align:left}</style></head><body>",
        *(f"<p>{html.escape(line)}</p>" for line in header.splitlines() if line.strip()),
    ]
    for title, frame in tables:
        parts.append(f"<h2>{html.escape(title)}</h2>" + html_table(frame))
    for name, caption in FIGURES.items():
        if (out / name).exists():
            parts.append(f'<h2>{html.escape(caption)}</h2><img src="{name}" alt="{html.escape(caption)}">')
    parts.append("</body></html>")
    (out / "summary.html").write_text("\n".join(parts) + "\n", encoding="utf-8")
    write_json(
        out / "experiment.json",
        {
            "experiment": "io",
            "seed": seed,
            "quick": quick,
            "jobs": jobs,
            "families": [family_to_dict(f) for f in families],
            "instances": instances,
            "algorithms": list(dict.fromkeys(r["algorithm"] for r in rows)),
            "wall_seconds": wall,
        },
    )
    return [out / name for name in ("runs.csv", "summary.csv", "summary.md", "summary.html", "experiment.json")]


def _cell(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def _write_csv(path: Path, rows: Sequence[dict], columns: Sequence[str]) -> None:
    """Rows as CSV with exact float text (``repr``), NaN as an empty cell."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row[c]) for c in columns])


SUMMARY_COLUMNS = (
    "algorithm",
    "instances",
    "proven_ratio",
    "mean_ratio_lb",
    "max_ratio_lb",
    "mean_ratio_opt",
    "max_ratio_opt",
    "wins",
    "price_convex",
    "price_none",
    "seconds",
)


def _mean(values) -> float:
    values = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    return float(np.mean(values)) if values else math.nan


def _max(values) -> float:
    values = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    return float(np.max(values)) if values else math.nan


def aggregate(rows: Sequence[dict], by: Sequence[str] = ("family",)) -> list[dict]:
    """Per group of ``by`` and algorithm: mean and worst ratios to the best lower bound and to the optimum,
    the share of instances where it is best (``wins``), and the price of the constraints (its makespan over
    the relaxed greedy makespans, mean). Groups sorted, algorithms in registry order."""
    best: dict[tuple, float] = {}
    for r in rows:
        key = (r["family"], r["sample"])
        best[key] = min(best.get(key, math.inf), r["makespan"])
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(tuple(r[c] for c in by), r["algorithm"])].append(r)
    order = {name: i for i, name in enumerate(registry_names(family=IO))}
    out = []
    for (values, name), group in sorted(groups.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 99))):
        out.append(
            {
                **dict(zip(by, values)),
                "algorithm": name,
                "instances": len(group),
                "proven_ratio": _max([r["proven_ratio"] for r in group]),
                "mean_ratio_lb": _mean([r["ratio_lb"] for r in group]),
                "max_ratio_lb": _max([r["ratio_lb"] for r in group]),
                "mean_ratio_opt": _mean([r["ratio_opt"] for r in group]),
                "max_ratio_opt": _max([r["ratio_opt"] for r in group]),
                "wins": _mean([float(r["makespan"] <= best[(r["family"], r["sample"])] * (1 + 1e-9)) for r in group]),
                "price_convex": _mean([r["makespan"] / r["relaxed_convex"] for r in group]),
                "price_none": _mean([r["makespan"] / r["relaxed_none"] for r in group]),
                "seconds": _mean([r["seconds"] for r in group]),
            }
        )
    return out


def family_to_dict(family: Family) -> dict:
    """A JSON-ready description of a family."""
    return asdict(family)


def _instances(rows: Sequence[dict]) -> list[dict]:
    """One row per instance: the best algorithm's row (lowest makespan; registry order on ties)."""
    best: dict[tuple, dict] = {}
    for r in rows:
        key = (r["family"], r["sample"])
        if key not in best or r["makespan"] < best[key]["makespan"]:
            best[key] = r
    return list(best.values())


def _algorithm_table(rows: Sequence[dict], by: Sequence[str], exact: bool) -> list[list]:
    column = "ratio_opt" if exact else "ratio_lb"
    return [
        [
            *(r[c] for c in by),
            r["algorithm"],
            r["instances"],
            r["proven_ratio"],
            r[f"mean_{column}"],
            r[f"max_{column}"],
            r["wins"],
        ]
        for r in aggregate(rows, by=by)
    ]


def summary_tables(rows: Sequence[dict]) -> list[tuple[str, list[str], list[list]]]:
    """The study's tables as ``(title, header, rows)``, cells as numbers or text (the caller formats them)."""
    exact = [r for r in rows if not math.isnan(r["opt"])]
    standard = [r for r in rows if math.isnan(r["opt"]) and r["p_max"] > 1 and r["io_per_job"] == 1]
    special = [r for r in rows if math.isnan(r["opt"]) and (r["p_max"] == 1 or r["io_per_job"] > 1)]
    large = standard
    synthetic = [r for r in standard if r["widths"] != "trace"]
    traces = [r for r in standard if r["widths"] == "trace"]
    head = ["algorithm", "instances", "proven ratio", "mean ratio", "max ratio", "best (share)"]
    tables = []
    if large:
        tables.append(
            (
                "Makespan / best lower bound, by I/O request, topology and mode",
                ["request", "topology", "mode", *head],
                _algorithm_table(large, ("kind", "topology", "mode"), False),
            )
        )
    if exact:
        tables.append(
            (
                "Makespan / optimum on tiny instances (exact solver)",
                ["family", *head],
                _algorithm_table(exact, ("family",), True),
            )
        )
    if synthetic:
        cells = aggregate(synthetic, by=("kind", "widths", "m_io"))
        keys = sorted({(r["widths"], r["m_io"]) for r in cells}, key=lambda k: (k[0], -k[1]))
        table: dict[tuple, dict] = {}
        for r in cells:
            table.setdefault((r["kind"], r["algorithm"]), {})[(r["widths"], r["m_io"])] = r["mean_ratio_lb"]
        tables.append(
            (
                "Mean makespan / best lower bound by job widths and I/O nodes (synthetic families, "
                "m = 288: 32 I/O nodes is low I/O pressure, 8 high)",
                ["request", "algorithm", *(f"{w}, {io} I/O" for w, io in keys)],
                [[kind, name, *(values.get(k, math.nan) for k in keys)] for (kind, name), values in table.items()],
            )
        )
    if special:
        tables.append(
            (
                "Makespan / best lower bound on unit jobs and on two pinned I/O nodes per job",
                ["family", *head],
                _algorithm_table(special, ("family",), False),
            )
        )
    if traces:
        tables.append(
            (
                "Makespan / best lower bound on trace jobs (PWA, I/O pinning synthesised)",
                ["family", *head],
                _algorithm_table(traces, ("family",), False),
            )
        )
    if large:
        groups: dict[tuple, list[dict]] = defaultdict(list)
        for r in _instances(large):
            groups[(r["kind"], r["topology"], r["mode"])].append(r)
        tables.append(
            (
                "Price of the constraints (best algorithm per instance; greedy list scheduling without locality, or "
                "without any shape constraint, as the relaxed schedules)",
                [
                    "request",
                    "topology",
                    "mode",
                    "instances",
                    "best / relaxed convex",
                    "best / relaxed none",
                    "best LB / (area, longest)",
                ],
                [
                    [
                        *key,
                        len(g),
                        _mean([r["makespan"] / r["relaxed_convex"] for r in g]),
                        _mean([r["makespan"] / r["relaxed_none"] for r in g]),
                        _mean([r["best_lb"] / max(r["lb_area"], r["lb_longest"]) for r in g]),
                    ]
                    for key, g in sorted(groups.items())
                ],
            )
        )
    per_instance = _instances(rows)
    tight: dict[tuple, dict] = defaultdict(lambda: defaultdict(int))
    for r in per_instance:
        tight[(r["kind"], r["mode"])][r["tight_bound"]] += 1
    names = ("area", "longest", "io", "lp")
    tables.append(
        (
            "Which lower bound is the best (instances)",
            ["request", "mode", *names],
            [[*key, *(counts.get(n, 0) for n in names)] for key, counts in sorted(tight.items())],
        )
    )
    if exact:
        at_opt = [r for r in _instances(exact)]
        tables.append(
            (
                "How far the best lower bound is from the optimum (tiny instances)",
                ["request", "mode", "instances", "best LB = OPT (share)", "mean OPT / best LB", "max OPT / best LB"],
                [
                    [
                        kind,
                        mode,
                        len(g),
                        _mean([float(r["opt"] <= r["best_lb"] * (1 + 1e-9)) for r in g]),
                        _mean([r["opt"] / r["best_lb"] for r in g]),
                        _max([r["opt"] / r["best_lb"] for r in g]),
                    ]
                    for (kind, mode), g in sorted(_group(at_opt, ("kind", "mode")).items())
                ],
            )
        )
    pinned = [r for r in rows if r["algorithm"] == "pinned"]
    if pinned:
        tables.append(
            (
                "Pinned two-phase step by step: rounding (Lemma 5.7, <= 2) and Gergov (Lemma 5.8, <= 3; "
                "4 with the ring's cut)",
                [
                    "topology",
                    "mode",
                    "instances",
                    "mean rounded / LP",
                    "max rounded / LP",
                    "mean Cmax / rounded",
                    "max Cmax / rounded",
                    "mean colours",
                ],
                [
                    [
                        topology,
                        mode,
                        len(g),
                        _mean([r["rounded"] / r["lp"] for r in g]),
                        _max([r["rounded"] / r["lp"] for r in g]),
                        _mean([r["makespan"] / r["rounded"] for r in g]),
                        _max([r["makespan"] / r["rounded"] for r in g]),
                        _mean([r["colours"] for r in g]),
                    ]
                    for (topology, mode), g in sorted(_group(pinned, ("topology", "mode")).items())
                ],
            )
        )
    return tables


def _group(rows: Sequence[dict], by: Sequence[str]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        out[tuple(r[c] for c in by)].append(r)
    return out


def worst_ratios(rows: Sequence[dict]) -> list[dict]:
    """Per algorithm with a proven ratio: the worst measured ratio to the optimum (tiny instances) and to
    the best lower bound (all), next to the proven ratio; ``holds`` says no optimum ratio exceeds it."""
    out = []
    for name, g in _group([r for r in rows if not math.isnan(r["proven_ratio"])], ("algorithm",)).items():
        worst_opt = _max([r["ratio_opt"] / r["proven_ratio"] for r in g])
        out.append(
            {
                "algorithm": name[0],
                "proven (max)": _max([r["proven_ratio"] for r in g]),
                "worst / OPT": _max([r["ratio_opt"] for r in g]),
                "worst / best LB": _max([r["ratio_lb"] for r in g]),
                "holds": bool(math.isnan(worst_opt) or worst_opt <= 1 + 1e-9),
            }
        )
    return out
