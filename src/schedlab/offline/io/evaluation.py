"""What a campaign needs to run the I/O-aware algorithms on generated instances: instances, seeds, measures.

Source: the evaluation plan for Bleuse (2017), chapters 5-6 (the thesis has no
experiment): instance families on lines and rings, the lower bounds of
:mod:`.bounds`, the optimum of tiny instances (:mod:`.bruteforce`), the
relaxations that price the constraints (:mod:`.baselines`) and the shape
measures of Def. 4.7-4.8. The campaign runner reaches these through the
registry's family record, so the campaign package stays free of I/O code.

A grid point names one family of instances::

    {"platform": "line:m=288,io=32", "kind": "pinned", "n": 200, "widths": "mixed",
     "p_max": 100, "io_per_job": 1, "trace": ""}

``widths``: ``small`` (``q < delta``), ``mixed`` (``q <= 2 delta``), ``wide``
(``delta <= q <= 4 delta``); ``trace``: the path of a PWA trace whose
consecutive jobs replace the generated ones (``widths`` is then ignored).
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from schedlab.errors import InputError
from schedlab.offline.io.baselines import relaxed_makespan
from schedlab.offline.io.bounds import io_bounds
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.platform import io_shape
from schedlab.platform.io import parse_io_platform
from schedlab.schedule import Schedule
from schedlab.workload.io_jobs import IOInstance, generate_io_instance, io_instance_from_trace

__all__ = ["COLUMNS", "EXACT_LIMIT", "KEYS", "WIDTHS", "generate", "instance_seed", "measure"]

KEYS = ("platform", "kind", "n", "widths", "p_max", "io_per_job", "trace")
"""The keys of a grid point, in the order the seed reads them."""

WIDTHS = ("small", "mixed", "wide")

EXACT_LIMIT = (6, 12)
"""Instances of at most 6 jobs on at most 12 nodes are solved exactly (their optimum is measured)."""

COLUMNS = (
    ("lb_area", "float64"),
    ("lb_longest", "float64"),
    ("lb_io", "float64"),
    ("lb_lp", "float64"),
    ("best_lb", "float64"),
    ("tight_bound", "string"),
    ("opt", "float64"),
    ("relaxed_convex", "float64"),
    ("relaxed_none", "float64"),
    ("lp", "float64"),
    ("rounded", "float64"),
    ("colours", "float64"),
    ("compacity", "float64"),
    ("proximity", "float64"),
)
"""The measures of one run (see :func:`measure`), with their Arrow types."""


def _point(point: Mapping) -> dict:
    unknown = set(point) - set(KEYS)
    if unknown:
        raise InputError("generate", field="grid", value=sorted(unknown)[0], expected=", ".join(KEYS))
    out = {"kind": "pinned", "widths": "mixed", "p_max": 100, "io_per_job": 1, "trace": "", **point}
    for key in ("platform", "n"):
        if key not in out:
            raise InputError("generate", field=f"grid.{key}", expected="a value (see schedlab.offline.io.evaluation)")
    for key in ("n", "p_max", "io_per_job"):
        value = out[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if key == "n" else 1):
            raise InputError("generate", field=f"grid.{key}", value=value, expected="an integer >= 1")
    if out["kind"] not in ("pinned", "unpinned"):
        raise InputError("generate", field="grid.kind", value=out["kind"], expected="pinned or unpinned")
    if out["widths"] not in WIDTHS:
        raise InputError("generate", field="grid.widths", value=out["widths"], expected=" or ".join(WIDTHS))
    return out


def instance_seed(master: int, point: Mapping, sample: int) -> int:
    """Generator seed of one instance: ``SeedSequence([master, crc32 of the point, sample])``'s first word.

    It depends on the point and the sample alone (the point as canonical JSON),
    so an instance is the same in every campaign that contains it.
    """
    key = json.dumps(_point(point), sort_keys=True).encode()
    return int(np.random.SeedSequence([master, zlib.crc32(key), sample]).generate_state(1)[0])


@lru_cache(maxsize=8)
def _trace_jobs(path: str):
    from schedlab.workload.filters import to_jobs
    from schedlab.workload.swf import machine_size, read_swf

    trace = read_swf(path)
    jobs, _ = to_jobs(trace)
    return jobs, machine_size(trace)[0]


def generate(point: Mapping, seed: int) -> IOInstance:
    """The instance of grid point ``point`` drawn with ``seed`` (module docstring)."""
    values = _point(point)
    plat = parse_io_platform(str(values["platform"]), source="generate")
    rng = np.random.default_rng(seed)
    pinned = values["kind"] == "pinned"
    if values["trace"]:
        jobs, procs = _trace_jobs(str(values["trace"]))
        return io_instance_from_trace(jobs, procs, plat, values["n"], rng=rng, pinned=pinned)
    delta = plat.delta or max(plat.m_c // max(plat.m_io, 1), 1)
    low, high = {"small": (1, delta - 1), "mixed": (1, 2 * delta), "wide": (delta, 4 * delta)}[values["widths"]]
    return generate_io_instance(
        plat,
        values["n"],
        rng=rng,
        pinned=pinned,
        q_min=min(low, plat.m_c),
        q_max=min(max(high, 1), plat.m_c),
        p_max=values["p_max"],
        io_per_job=values["io_per_job"],
    )


def _key(inst: IOInstance) -> tuple:
    return inst.platform.name, inst.p.tobytes(), inst.q.tobytes(), inst.io, inst.inflate


_INSTANCE_MEASURES: dict[tuple, dict] = {}


def _instance_measures(inst: IOInstance) -> dict:
    """Bounds, optimum (tiny instances) and relaxed makespans: the same for every algorithm's run on ``inst``,
    so computed once per process and instance."""
    key = _key(inst)
    if key not in _INSTANCE_MEASURES:
        b = io_bounds(inst)
        tiny = inst.n <= EXACT_LIMIT[0] and inst.platform.m <= EXACT_LIMIT[1]
        if len(_INSTANCE_MEASURES) > 64:
            _INSTANCE_MEASURES.clear()
        _INSTANCE_MEASURES[key] = {
            "lb_area": b.area,
            "lb_longest": b.longest,
            "lb_io": b.io,
            "lb_lp": math.nan if b.lp is None else b.lp,
            "best_lb": b.lower,
            "tight_bound": b.tight,
            "opt": brute_force_opt(inst)[0] if tiny else math.nan,
            "relaxed_convex": relaxed_makespan(inst, "convex"),
            "relaxed_none": relaxed_makespan(inst, "none"),
        }
    return _INSTANCE_MEASURES[key]


def _mean_shape(inst: IOInstance, schedule: Schedule) -> tuple[float, float]:
    """Mean gamma-compacity and rho-proximity of a schedule's allocations (Def. 4.7-4.8)."""
    plat = inst.platform
    comp, prox = [], []
    for j in range(inst.n):
        alloc = schedule.alloc[j] or ()
        nodes = [v for lo, hi in alloc for v in range(lo, hi) if not plat.is_io[v]]
        comp.append(io_shape.compacity(plat, nodes))
        value = io_shape.proximity(plat, nodes, schedule.info["io"][j])
        if value is not None:
            prox.append(value)
    return float(np.mean(comp)) if comp else math.nan, float(np.mean(prox)) if prox else math.nan


def measure(inst: IOInstance, schedule: Schedule) -> dict:
    """The values of :data:`COLUMNS` for one solved instance.

    ``lb_*`` are the lower bounds of :func:`~schedlab.offline.io.bounds.io_bounds`
    (``lb_lp`` only when every job is pinned), ``best_lb`` their maximum and
    ``tight_bound`` its name; ``opt`` the optimum of instances within
    :data:`EXACT_LIMIT` (else NaN); ``relaxed_*`` greedy list-scheduling
    makespans without locality (``convex``) or any shape constraint (``none``);
    ``lp``, ``rounded``, ``colours`` what the pinned algorithms report (LP
    value, rounded load, Gergov's colours; NaN otherwise); ``compacity`` and
    ``proximity`` the schedule's mean shape measures.
    """
    compacity, proximity = _mean_shape(inst, schedule)
    info = schedule.info
    return {
        **_instance_measures(inst),
        "lp": float(info.get("lp", math.nan)),
        "rounded": float(info.get("rounded", math.nan)),
        "colours": float(info.get("colours", math.nan)),
        "compacity": compacity,
        "proximity": proximity,
    }
