"""The chapter 3 experiment of seed 003: every hybrid algorithm on generated Table 3.1 instances.

Source: seed 003 ch. 3 section 3.6 (Table 3.1, Figs 3.4-3.7); spec
003-part1-hybrid sections 5.2 and 7.1 ("experiment runner") and 7.3
(reproduction targets).

Pure functions, no output: :func:`expand_grid` lists the instances,
:func:`run_instance` solves one with every algorithm (one row per algorithm,
plus one row per bisection step of the dual algorithms), :func:`aggregate`
takes means per algorithm and instance class, :func:`run_experiment` runs a
grid, optionally in worker processes. Results do not depend on the number of
workers; only the timing columns (:data:`TIMING_COLUMNS`) vary between runs.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from time import perf_counter

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.offline.hybrid import HybridError, bounds, hybrid_instance, search_of
from schedlab.offline.hybrid.bounds import best_lower_bound
from schedlab.registry import HYBRID, Algorithm, get
from schedlab.registry import names as registry_names
from schedlab.validation import validate
from schedlab.workload.hybrid import HybridInstance, generate_hybrid

__all__ = [
    "FULL_GRID",
    "QUICK_GRID",
    "REFERENCE",
    "RUN_COLUMNS",
    "STEP_COLUMNS",
    "TIMING_COLUMNS",
    "Grid",
    "InstanceConfig",
    "aggregate",
    "experiment_algorithms",
    "expand_grid",
    "instance_for",
    "run_experiment",
    "run_instance",
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
"""Table 3.1 of seed 003: 1680 instances."""

QUICK_GRID = Grid(n=(10, 50, 100, 1000), m=(4, 16, 64), k=(1, 4), samples=1)
"""A subset of Table 3.1 that runs in about a minute on one core (24 instances)."""


@dataclass(frozen=True, slots=True)
class InstanceConfig:
    """One generated instance: size, sample index and the generator seed derived from the master seed."""

    n: int
    m: int
    k: int
    sample: int
    seed: int


def instance_seed(master: int, n: int, m: int, k: int, sample: int) -> int:
    """Generator seed of one instance: the first word of ``SeedSequence([master, n, m, k, sample])``.

    It depends on the instance alone, so an instance is the same in every grid
    that contains it (the quick grid is a sub-experiment of the full one).
    """
    return int(np.random.SeedSequence([master, n, m, k, sample]).generate_state(1)[0])


def expand_grid(grid: Grid, *, seed: int) -> list[InstanceConfig]:
    """All instances of ``grid`` in a fixed order (n, m, k, sample)."""
    if grid.samples < 1:
        raise ArgumentError(f"samples = {grid.samples}, expected >= 1")
    return [
        InstanceConfig(n, m, k, s, instance_seed(seed, n, m, k, s))
        for n in grid.n
        for m in grid.m
        for k in grid.k
        for s in range(grid.samples)
    ]


def instance_for(config: InstanceConfig) -> HybridInstance:
    """The Table 3.1 instance of ``config`` (truncated-normal GPU factor, spec 003 ambiguity 11)."""
    return generate_hybrid(config.n, config.m, config.k, rng=np.random.default_rng(config.seed))


def experiment_algorithms(names: Iterable[str] | None = None) -> dict[str, Algorithm]:
    """The registered CPU+GPU algorithms named ``names`` (all by default), in registry order."""
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


def _mean(values: Sequence[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    return float(sum(values) / len(values)) if values else math.nan


def run_instance(config: InstanceConfig, names: Sequence[str] | None = None) -> tuple[list[dict], list[dict]]:
    """Solve one instance with every algorithm; validate each schedule.

    Returns ``(runs, steps)``: one :data:`RUN_COLUMNS` row per algorithm (in
    registry order, ``approx32`` first) and one :data:`STEP_COLUMNS` row per
    bisection step. ``best_lower_bound`` is the largest of the area/longest
    bound and every λ rejected by a step that is sound for moldable tasks
    (``approx32``, ``approx32-mk``, ``approx2``); ``mean_sets`` is mean |F(j)|
    averaged over the bisection steps (Fig. 3.6), NaN for non-ILP algorithms.
    An algorithm that cannot run (``gpu-only`` with k = 0) gets NaN values.
    """
    algorithms = experiment_algorithms(names)
    instance = instance_for(config)
    b = bounds(instance)
    searches = []
    key = {"n": config.n, "m": config.m, "k": config.k, "sample": config.sample}
    runs, steps = [], []
    for name, algorithm in algorithms.items():
        t0 = perf_counter()
        try:
            schedule = algorithm.build()(instance)
        except HybridError:
            schedule = None
        seconds = perf_counter() - t0
        row = {
            **key,
            "seed": config.seed,
            "algorithm": name,
            "makespan": math.nan,
            "lower_bound": b.lower,
            "steps": 0,
            "lam": math.nan,
            "mean_sets": math.nan,
            "seconds": seconds,
            "ilp_seconds": math.nan,
        }
        if schedule is not None:
            validate(hybrid_instance(instance), schedule, contiguous=algorithm.traits["contiguous"])
            row["makespan"] = schedule.makespan
            search = search_of(schedule)
            searches.append((search, algorithm.traits["moldable"]))
            if search is not None:
                row["steps"], row["lam"] = search.n_steps, search.lam
                sets = [s.info["mean_sets"] for s in search.steps if "mean_sets" in s.info]
                if sets:
                    row["mean_sets"] = _mean(sets)
                    row["ilp_seconds"] = float(sum(s.info.get("ilp_seconds", 0.0) for s in search.steps))
                for i, s in enumerate(search.steps):
                    steps.append(
                        {
                            **key,
                            "algorithm": name,
                            "step": i,
                            "lam": s.lam,
                            "accepted": s.accepted,
                            "makespan": s.makespan,
                            "mean_sets": s.info.get("mean_sets", math.nan),
                            "seconds": s.seconds,
                        }
                    )
        runs.append(row)
    proven = best_lower_bound(instance, searches)
    reference = runs[0]["makespan"]
    for row in runs:
        row["best_lower_bound"] = proven
        row["ratio_reference"] = row["makespan"] / reference if reference > 0 else math.nan
        row["ratio_lower_bound"] = row["makespan"] / proven if proven > 0 else math.nan
    return [{c: row[c] for c in RUN_COLUMNS} for row in runs], steps


def run_experiment(
    configs: Sequence[InstanceConfig],
    *,
    names: Sequence[str] | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict], list[dict]]:
    """Run every instance (in ``jobs`` worker processes when > 1); rows in ``configs`` order.

    ``progress(done, total)`` is called after each instance (in order).
    """
    if jobs < 1:
        raise ArgumentError(f"jobs = {jobs}, expected >= 1")
    names = None if names is None else list(names)
    experiment_algorithms(names)  # fail on a bad name before starting workers
    runs, steps = [], []
    if jobs == 1:
        results = (run_instance(c, names) for c in configs)
        for i, (r, s) in enumerate(results, 1):
            runs.extend(r)
            steps.extend(s)
            if progress:
                progress(i, len(configs))
        return runs, steps
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for i, (r, s) in enumerate(pool.map(run_instance, configs, [names] * len(configs)), 1):
            runs.extend(r)
            steps.extend(s)
            if progress:
                progress(i, len(configs))
    return runs, steps


SUMMARY_COLUMNS = (
    "algorithm",
    "runs",
    "ratio_reference",
    "ratio_lower_bound",
    "max_ratio_lower_bound",
    "wins",
    "seconds",
    "steps",
    "mean_sets",
)
"""Columns of :func:`aggregate` rows (besides the grouping keys)."""


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


def grid_to_dict(grid: Grid) -> dict:
    """A JSON-ready description of ``grid``."""
    return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(grid).items()}
