"""The I/O family record's pieces: generated instances, their seeds, and the measures of one run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.offline.io import pinned_two_phase, unpinned_meta
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.offline.io.evaluation import generate, instance_seed, measure
from schedlab.registry import IO, family

POINT = {"platform": "line:m=288,io=32", "kind": "unpinned", "n": 300, "widths": "mixed"}


@pytest.mark.parametrize("widths, low, high", [("small", 1, 8), ("mixed", 1, 18), ("wide", 9, 36)])
def test_widths_bound_the_generated_jobs(widths, low, high):
    inst = generate({**POINT, "widths": widths}, 3)
    assert low <= inst.q.min() and inst.q.max() <= high and inst.kind == "unpinned" and inst.n == 300


def test_unit_jobs_and_two_io_nodes():
    inst = generate({**POINT, "kind": "pinned", "p_max": 1, "io_per_job": 2, "n": 40}, 1)
    assert np.all(inst.p == 1) and all(len(r) == 2 for r in inst.io)


def test_trace_point(traces_dir):
    inst = generate({**POINT, "n": 30, "trace": str(traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz")}, 2)
    assert inst.n == 30 and inst.q.max() <= 256 and "KTH-SP2" in inst.source


def test_seeds_depend_on_the_point_and_sample_only():
    a = instance_seed(7, POINT, 0)
    assert a == instance_seed(7, dict(reversed(list(POINT.items()))), 0)
    assert len({a, instance_seed(7, POINT, 1), instance_seed(8, POINT, 0), instance_seed(7, {**POINT, "n": 5}, 0)}) == 4
    # defaults are part of the point: writing them out changes nothing
    assert a == instance_seed(7, {**POINT, "p_max": 100, "io_per_job": 1, "trace": ""}, 0)


@pytest.mark.parametrize(
    "point, message",
    [
        ({**POINT, "colour": 1}, "grid = colour"),
        ({"kind": "pinned", "n": 3}, "grid.platform"),
        ({**POINT, "kind": "both"}, "grid.kind = both, expected pinned or unpinned"),
        ({**POINT, "widths": "huge"}, "grid.widths = huge"),
        ({**POINT, "n": "ten"}, "grid.n = ten"),
    ],
)
def test_bad_points(point, message):
    with pytest.raises(InputError, match=message):
        generate(point, 0)


def test_measures_of_a_tiny_pinned_run():
    """Tiny instances get their optimum; the pinned algorithm reports its LP and rounded load."""
    inst = generate({"platform": "line:m=10,io=2", "kind": "pinned", "n": 5}, 4)
    values = measure(inst, pinned_two_phase(inst))
    assert values["opt"] == brute_force_opt(inst)[0] >= values["best_lb"] >= values["lb_lp"] > 0
    assert values["rounded"] <= 2 * values["lp"] + 1e-7 and values["tight_bound"] in ("area", "longest", "io", "lp")
    assert values["relaxed_none"] >= max(values["lb_area"], values["lb_longest"]) - 1e-9
    assert set(values) == {name for name, _ in family(IO).columns}


def test_measures_of_a_large_unpinned_run():
    inst = generate(POINT, 5)
    values = measure(inst, unpinned_meta(inst))
    assert math.isnan(values["opt"]) and math.isnan(values["lb_lp"]) and math.isnan(values["lp"])
    assert values["compacity"] > 0 and 0 < values["proximity"] <= 2
