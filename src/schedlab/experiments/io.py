"""The I/O-aware allocation study: every algorithm on families of instances, against bounds and optima.

Source: Bleuse (2017), PhD thesis, chapters 5-6: the thesis proves the ratios
(6 for pinned I/O, ``rho + rho'`` for unpinned I/O) but runs no experiment
("one could implement the proposed algorithms, and study their performances
through simulation", section 5.4). This module measures them.

Pure functions, no output: :data:`FULL_FAMILIES` and :data:`QUICK_FAMILIES`
list the instance families (line or ring, shared or exclusive I/O, pinned or
unpinned, I/O pressure, job widths, tiny instances solved exactly, rigid jobs
of a Parallel Workloads Archive trace with synthesised I/O);
:func:`run_instance` solves one instance with every applicable registered
algorithm and returns one row per algorithm; :func:`aggregate` summarises.
Rows do not depend on the number of workers; only ``seconds`` varies.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path
from time import perf_counter

import numpy as np

from schedlab.errors import ArgumentError, InputError
from schedlab.offline.io import brute_force_opt, io_bounds, io_instance, meets, relaxed_makespan
from schedlab.platform import io_shape as shape
from schedlab.platform.io import parse_io_platform
from schedlab.registry import IO, Algorithm, get
from schedlab.registry import names as registry_names
from schedlab.validation import validate
from schedlab.workload.io_jobs import IOInstance, generate_io_instance, io_instance_from_trace

__all__ = [
    "FULL_FAMILIES",
    "QUICK_FAMILIES",
    "RUN_COLUMNS",
    "SUMMARY_COLUMNS",
    "Family",
    "aggregate",
    "expand",
    "experiment_algorithms",
    "family_to_dict",
    "instance_for",
    "run_experiment",
    "run_instance",
]


@dataclass(frozen=True, slots=True)
class Family:
    """A family of instances: a platform, a job mix, a sample count.

    ``widths``: ``small`` (``q < delta``: only small jobs for the unpinned
    meta-algorithm), ``mixed`` (``q <= 2 delta``) or ``wide`` (``delta <= q <=
    4 delta``). ``p_max``: processing times in ``1 .. p_max`` (log-uniform; 1:
    unit jobs). ``trace``: a PWA trace file name (jobs taken from it instead of
    generated; ``widths`` then only names the family). ``exact``: solve every
    instance to optimality (tiny instances).
    """

    name: str
    platform: str
    kind: str
    n: int
    widths: str = "mixed"
    samples: int = 5
    io_per_job: int = 1
    trace: str | None = None
    exact: bool = False
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
                        f"tiny-{topology}-{mode}-{kind}",
                        f"{topology}:m=10,io=2,mode={mode}",
                        kind,
                        5,
                        "mixed",
                        samples,
                        exact=True,
                    )
                )
    out.append(Family("tiny-line-shared-pinned2", "line:m=12,io=3", "pinned", 5, "mixed", samples, 2, exact=True))
    out.append(
        Family("tiny-line-shared-pinned-unit", "line:m=10,io=2", "pinned", 6, "mixed", samples, exact=True, p_max=1)
    )
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
                            "trace",
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
    + _traces(200, 5, ("KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz"))
)
"""48 synthetic families (line/ring x shared/exclusive x pinned/unpinned x I/O pressure x widths), two
pinned I/O nodes per job, unit jobs (shared and exclusive), 10 tiny exact families, 16 trace families."""

QUICK_FAMILIES: tuple[Family, ...] = tuple(
    [f for f in _synthetic(50, 1) if "-shared-" in f.name and f.name.endswith("-low-mixed")]
    + [replace(f, samples=3) for f in _tiny(3) if "-shared-" in f.name]
    + [f for f in _traces(50, 1, ("KTH-SP2-1996-2.1-cln.swf.gz",)) if "-shared-" in f.name and "-line-" in f.name]
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


def expand(families: Sequence[Family], *, seed: int) -> list[tuple[Family, int, int]]:
    """``(family, sample, instance seed)`` for every instance; the seed depends on the family name and sample
    only (``SeedSequence([seed, crc of the name, sample])``), so an instance is the same in every plan."""
    import zlib

    return [
        (f, s, int(np.random.SeedSequence([seed, zlib.crc32(f.name.encode()), s]).generate_state(1)[0]))
        for f in families
        for s in range(f.samples)
    ]


@lru_cache(maxsize=8)
def _trace_jobs(path: str):
    from schedlab.workload.filters import to_jobs
    from schedlab.workload.swf import machine_size, read_swf

    trace = read_swf(path)
    jobs, _ = to_jobs(trace)
    return jobs, machine_size(trace)[0]


def instance_for(family: Family, seed: int, *, traces: str | Path | None = None) -> IOInstance:
    """The instance of ``family`` drawn with ``seed`` (trace families read ``traces / family.trace``)."""
    plat = parse_io_platform(family.platform, source=f"family {family.name}")
    rng = np.random.default_rng(seed)
    pinned = family.kind == "pinned"
    if family.trace is not None:
        if traces is None:
            raise InputError(f"family {family.name}", field="traces", expected="a directory holding " + family.trace)
        jobs, procs = _trace_jobs(str(Path(traces) / family.trace))
        return io_instance_from_trace(jobs, procs, plat, family.n, rng=rng, pinned=pinned)
    delta = plat.delta or max(plat.m_c // max(plat.m_io, 1), 1)
    q_min, q_max = {"small": (1, delta - 1), "mixed": (1, 2 * delta), "wide": (delta, 4 * delta)}[family.widths]
    return generate_io_instance(
        plat,
        family.n,
        rng=rng,
        pinned=pinned,
        q_min=q_min,
        q_max=min(q_max, plat.m_c),
        p_max=family.p_max,
        io_per_job=family.io_per_job,
    )


def _mean_shape(inst: IOInstance, sched) -> tuple[float, float]:
    """Mean gamma-compacity and rho-proximity of a schedule's allocations (Def. 4.7-4.8)."""
    plat = inst.platform
    comp, prox = [], []
    for j in range(inst.n):
        nodes = [v for lo, hi in sched.alloc[j] for v in range(lo, hi) if not plat.is_io[v]]
        comp.append(shape.compacity(plat, nodes))
        value = shape.proximity(plat, nodes, sched.info["io"][j])
        if value is not None:
            prox.append(value)
    return float(np.mean(comp)) if comp else math.nan, float(np.mean(prox)) if prox else math.nan


def experiment_algorithms(names: Sequence[str] | None = None) -> dict[str, Algorithm]:
    """The registered I/O-aware algorithms named ``names`` (all by default), in registry order.

    Raises
    ------
    ArgumentError
        An unknown name.
    """
    algorithms = {name: get(name) for name in registry_names(family=IO)}
    if names is None:
        return algorithms
    unknown = [name for name in names if name not in algorithms]
    if unknown:
        raise ArgumentError(f"unknown algorithm {unknown[0]!r}, expected one of {', '.join(algorithms)}")
    return {name: algorithms[name] for name in algorithms if name in names}


def run_instance(
    family: Family, sample: int, seed: int, *, traces: str | Path | None = None, names: Sequence[str] | None = None
) -> list[dict]:
    """Solve one instance with every applicable registered algorithm (and exactly for ``exact`` families).

    Every schedule passes :func:`~schedlab.validation.validate`.
    ``best_lb`` is the largest lower bound (area, longest job, I/O capacity,
    the LP when every job is pinned); ``ratio_opt`` divides by the optimum of
    exact families; ``relaxed_*`` are greedy makespans without locality
    (``convex``) or without any shape constraint (``none``).
    """
    inst = instance_for(family, seed, traces=traces)
    plat = inst.platform
    b = io_bounds(inst)
    opt = brute_force_opt(inst)[0] if family.exact else math.nan
    relaxed = {c: relaxed_makespan(inst, c) for c in ("convex", "none")}
    base = {
        "family": family.name,
        "platform": plat.name,
        "topology": plat.topology,
        "mode": plat.io_mode,
        "kind": family.kind,
        "widths": family.widths,
        "p_max": family.p_max,
        "io_per_job": family.io_per_job,
        "n": inst.n,
        "m": plat.m,
        "m_io": plat.m_io,
        "sample": sample,
        "seed": seed,
        "lb_area": b.area,
        "lb_longest": b.longest,
        "lb_io": b.io,
        "lb_lp": math.nan if b.lp is None else b.lp,
        "best_lb": b.lower,
        "tight_bound": b.tight,
        "opt": opt,
        "relaxed_convex": relaxed["convex"],
        "relaxed_none": relaxed["none"],
    }
    rows = []
    common = io_instance(inst)
    for name, algo in experiment_algorithms(names).items():
        if not meets(algo.traits["requires"], inst):
            continue
        t0 = perf_counter()
        sched = algo.build()(inst)
        seconds = perf_counter() - t0
        validate(common, sched)
        compacity, proximity = _mean_shape(inst, sched)
        ratio = algo.traits["ratio_of"](inst) if "ratio_of" in algo.traits else algo.ratio
        rows.append(
            {
                **base,
                "algorithm": name,
                "makespan": sched.makespan,
                "proven_ratio": math.nan if ratio is None else ratio,
                "ratio_lb": sched.makespan / b.lower if b.lower > 0 else math.nan,
                "ratio_opt": sched.makespan / opt if family.exact and opt > 0 else math.nan,
                "lp": sched.info.get("lp", math.nan),
                "rounded": sched.info.get("rounded", math.nan),
                "colours": sched.info.get("colours", math.nan),
                "compacity": compacity,
                "proximity": proximity,
                "seconds": seconds,
            }
        )
    return [{c: row[c] for c in RUN_COLUMNS} for row in rows]


def _run(args) -> list[dict]:
    family, sample, seed, traces, names = args
    return run_instance(family, sample, seed, traces=traces, names=names)


def run_experiment(
    families: Sequence[Family],
    *,
    seed: int,
    traces: str | Path | None = None,
    jobs: int = 1,
    names: Sequence[str] | None = None,
    progress=None,
) -> list[dict]:
    """Every instance of ``families`` (in ``jobs`` worker processes when > 1); rows in instance order.

    ``progress(done, total)`` is called after each instance.
    """
    configs = [
        (f, s, sd, None if traces is None else str(traces), None if names is None else tuple(names))
        for f, s, sd in expand(families, seed=seed)
    ]
    rows: list[dict] = []

    def collect(results) -> None:
        for i, result in enumerate(results, 1):
            rows.extend(result)
            if progress:
                progress(i, len(configs))

    if jobs == 1:
        collect(map(_run, configs))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            collect(pool.map(_run, configs))
    return rows


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
        table = {}
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
