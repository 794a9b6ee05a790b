"""What a campaign needs to run CPU+GPU algorithms on generated instances: instances, seeds, measures.

Source: Bleuse (2017), ch. 3 section 3.6 (Table 3.1 instances; the measures
of Figs. 3.4-3.7: makespan, lower bound, bisection steps, mean |F(j)|).
The campaign runner reaches these through the registry's family record, so
the campaign package stays free of CPU+GPU code.
"""

from __future__ import annotations

import json
import math

import numpy as np

from schedlab.errors import InputError
from schedlab.offline.hybrid.bounds import bounds
from schedlab.offline.hybrid.schedule import search_of
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance, generate_hybrid

__all__ = ["COLUMNS", "generate", "instance_seed", "measure"]

COLUMNS = (
    ("lower_bound", "float64"),
    ("steps", "int64"),
    ("lam", "float64"),
    ("search_lower", "float64"),
    ("mean_sets", "float64"),
    ("ilp_seconds", "float64"),
    ("search", "string"),
)
"""The measures of one run (see :func:`measure`), with their Arrow types."""

_KEYS = ("n", "m", "k")


def _size(point, key: str) -> int:
    value = point.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError("generate", field=f"grid.{key}", value=value, expected="an integer")
    return value


def instance_seed(master: int, point, sample: int) -> int:
    """Generator seed of one instance: the first word of ``SeedSequence([master, n, m, k, sample])``.

    It depends on the instance alone, so an instance is the same in every grid that contains it (a
    quick grid is a sub-experiment of the full one).
    """
    n, m, k = (_size(point, key) for key in _KEYS)
    return int(np.random.SeedSequence([master, n, m, k, sample]).generate_state(1)[0])


def generate(point, seed: int) -> HybridInstance:
    """The Table 3.1 instance of size ``point`` (``n``, ``m``, ``k``; optional ``g_bound``) drawn with ``seed``."""
    unknown = set(point) - {*_KEYS, "g_bound"}
    if unknown:
        raise InputError("generate", field="grid", value=sorted(unknown)[0], expected="n, m, k or g_bound")
    n, m, k = (_size(point, key) for key in _KEYS)
    return generate_hybrid(n, m, k, rng=np.random.default_rng(seed), g_bound=str(point.get("g_bound", "truncate")))


def measure(tasks: HybridInstance, schedule: Schedule) -> dict:
    """The values of :data:`COLUMNS` for one solved instance.

    ``lower_bound`` is the area and longest-task bound; ``steps``, ``lam`` and
    ``search_lower`` (the largest rejected guess) describe the bisection of a
    dual algorithm (0, NaN, NaN for a one-shot one); ``mean_sets`` is mean
    |F(j)| averaged over the ILP steps (Fig. 3.6) and ``ilp_seconds`` their
    solver time; ``search`` holds every step as JSON (guess, accepted,
    makespan, mean |F(j)|, seconds).
    """
    search = search_of(schedule)
    out = {
        "lower_bound": bounds(tasks).lower,
        "steps": 0,
        "lam": math.nan,
        "search_lower": math.nan,
        "mean_sets": math.nan,
        "ilp_seconds": math.nan,
        "search": "[]",
    }
    if search is None:
        return out
    sets = [s.info["mean_sets"] for s in search.steps if "mean_sets" in s.info]
    sets = [v for v in sets if not math.isnan(v)]
    out.update(steps=search.n_steps, lam=search.lam, search_lower=search.lower)
    if any("mean_sets" in s.info for s in search.steps):
        out["mean_sets"] = sum(sets) / len(sets) if sets else math.nan
        out["ilp_seconds"] = float(sum(s.info.get("ilp_seconds", 0.0) for s in search.steps))
    out["search"] = json.dumps(
        [
            [
                s.lam,
                s.accepted,
                None if math.isnan(s.makespan) else s.makespan,
                None if math.isnan(s.info.get("mean_sets", math.nan)) else s.info["mean_sets"],
                s.seconds,
            ]
            for s in search.steps
        ]
    )
    return out
