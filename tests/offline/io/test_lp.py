"""Dedication LP and its 1/2-rounding (Bleuse 2017, section 5.3.2, Lemma 5.7, Fig. 5.3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from io_strategies import io_instances
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.offline.io.lp import coverage, dedicate, footprints, load, round_half, solve_lp
from schedlab.platform.io import parse_io_platform
from schedlab.platform.io_windows import compute_nodes
from schedlab.workload.io_jobs import IOInstance


def test_fig_5_3_rounding_picks_node_3():
    """Job pinned to I/O node 5 (I/O at 0, 5, 10), 4 compute nodes: with x = (.2, .2, .3, .3, 0) over its
    windows the cumulated mass first reaches 1/2 on the window starting at node 3."""
    plat = parse_io_platform("line:m=15,io=3")
    inst = IOInstance.from_jobs(plat, [(1, 4, (5,))])
    x = [np.array([0.2, 0.2, 0.3, 0.3, 0.0])]
    chosen = round_half(x)
    assert compute_nodes(plat, inst.windows(0)[chosen[0]]).tolist() == [3, 4, 6, 7]
    assert coverage(inst, x, 0, int(chosen[0])).min() >= 0.5


def test_three_jobs_on_one_io_node_lp_is_half_the_rounding():
    """Three unit jobs of 3 nodes pinned to I/O node 4 of ICCCICCCICCC: the LP spreads 9 units over the 6
    reachable ranks (Lambda_LP = 1.5, OPT = 2); with the optimal x "half on ranks 0-2, half on 3-5" every job
    rounds to ranks 0-2: Lambda_round = 3 = 2 Lambda_LP, Lemma 5.7's factor reached."""
    plat = parse_io_platform("line:m=12,io=3")
    inst = IOInstance.from_jobs(plat, [(1, 3, (4,))] * 3)
    for formulation in ("differences", "windows"):
        ded = dedicate(inst, formulation=formulation)
        assert ded.lp.value == pytest.approx(1.5)
        assert ded.rounded <= 2 * ded.lp.value + 1e-9
    assert brute_force_opt(inst)[0] == 2.0
    half = [np.array([0.5, 0.0, 0.0, 0.5])] * 3  # an optimal x: ranks 0-2 and 3-5 half each
    assert load(inst, np.zeros(3, dtype=int)).max() == 3.0
    chosen = round_half(half)
    assert chosen.tolist() == [0, 0, 0] and load(inst, chosen).max() == 2 * 1.5  # Lemma 5.7 is tight


def test_exclusive_footprint_counts_the_io_node():
    """A2: two jobs on either side of one exclusive I/O node both cover it: the LP cannot put both at 1."""
    shared = parse_io_platform("line:layout=CCICC")
    jobs = [(1, 2, (2,)), (1, 2, (2,))]
    assert solve_lp(IOInstance.from_jobs(shared, jobs)).value == pytest.approx(1.0)
    exclusive = shared.with_mode("exclusive")
    assert solve_lp(IOInstance.from_jobs(exclusive, jobs)).value == pytest.approx(2.0)


@settings(max_examples=60)
@given(io_instances(max_jobs=6, max_p=9, multi=True))
def test_formulations_agree_and_rounding_keeps_half(inst):
    """Cumulative and window LPs have the same optimum; Lemma 5.7: coverage >= 1/2, Lambda_round <= 2 Lambda_LP."""
    a = solve_lp(inst, formulation="differences")
    b = solve_lp(inst, formulation="windows")
    assert a.value == pytest.approx(b.value, rel=1e-7, abs=1e-7)
    for x in (a.x, b.x):
        assert all(abs(xj.sum() - 1) < 1e-7 and xj.min() >= 0 for xj in x)
        chosen = round_half(x)
        for j in range(inst.n):
            assert coverage(inst, x, j, int(chosen[j])).min() >= 0.5 - 1e-7
        rounded = load(inst, chosen).max()
        assert rounded <= 2 * a.value + 1e-7
    # the LP load of x is within its value
    lows, highs, M = footprints(inst)
    frac = np.zeros(M)
    for j in range(inst.n):
        for s, xs in enumerate(a.x[j]):
            frac[np.arange(lows[j][s], highs[j][s] + 1) % M] += xs * inst.p[j]
    assert frac.max() <= a.value + 1e-6


@settings(max_examples=40)
@given(io_instances(max_jobs=4, max_p=5, max_m=9))
def test_lp_is_a_lower_bound(inst):
    """Lambda_LP <= OPT (brute force)."""
    opt, _ = brute_force_opt(inst)
    assert solve_lp(inst).value <= opt + 1e-7


def test_badly_scaled_times_from_a_trace(traces_dir):
    """Regression: 200 KTH-SP2 jobs (p from 1 to 209,987 s) once made HiGHS's interior point call the LP
    infeasible; times are now scaled to the longest job, and both formulations agree."""
    from schedlab.offline.io.evaluation import generate

    point = {
        "platform": "line:m=288,io=32",
        "kind": "pinned",
        "n": 200,
        "trace": str(traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz"),
    }
    inst = generate(point, 4227036438)
    assert inst.p.max() / inst.p.min() > 1e5
    a, b = solve_lp(inst), solve_lp(inst, formulation="windows")
    assert a.value == pytest.approx(b.value, rel=1e-7) and a.value >= inst.p.max()
