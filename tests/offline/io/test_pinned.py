"""Pinned I/O end to end: LP rounding then Gergov (Bleuse 2017, Theorem 5.9), the ring and several I/O nodes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from io_strategies import check, io_instances
from schedlab.errors import InputError
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.offline.io.pinned import cut_and_append, pinned_two_phase
from schedlab.platform.io import parse_io_platform
from schedlab.workload.io_jobs import IOInstance, generate_io_instance, instance_to_json


def test_three_jobs_on_one_io_node_hand_schedule():
    """LP 1.5 (its optimal vertex is not unique: the rounding gives load 2 or 3); Gergov then reaches
    exactly the rounded load, never below OPT = 2."""
    inst = IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(1, 3, (4,))] * 3)
    s = pinned_two_phase(inst)
    check(inst, s)
    assert s.info["lp"] == pytest.approx(1.5) and s.info["rounded"] in (2.0, 3.0)
    assert s.makespan == s.info["rounded"]
    assert sorted(s.start.tolist()) in ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.0, 1.0, 2.0])


@settings(max_examples=60)
@given(io_instances(topology="line", max_jobs=8, max_p=9, multi=True))
def test_line_guarantee_chain(inst):
    """Theorem 5.9 on a line: feasible, Cmax <= 3 Lambda_round <= 6 Lambda_LP."""
    s = pinned_two_phase(inst)
    check(inst, s)
    assert s.info["rounded"] <= 2 * s.info["lp"] + 1e-7
    assert s.makespan <= 3 * s.info["rounded"] + 1e-7
    assert s.info["colours"] <= 3


@settings(max_examples=40)
@given(io_instances(topology="ring", max_jobs=8, max_p=9))
def test_ring_cut_and_append(inst):
    """A9: on a ring, feasible and Cmax <= 4 Lambda_round; the crossing jobs weigh at most Lambda_round."""
    s = pinned_two_phase(inst)
    check(inst, s)
    assert s.info["crossing_p"] <= s.info["rounded"] + 1e-9
    assert s.makespan <= 4 * s.info["rounded"] + 1e-7 <= 8 * s.info["lp"] + 1e-6


@settings(max_examples=40, deadline=None)
@given(io_instances(max_jobs=4, max_p=5, max_m=9, multi=True))
def test_never_above_the_proven_ratio_of_opt(inst):
    """6 OPT on a line, 8 OPT on a ring, against brute force."""
    opt, best = brute_force_opt(inst)
    check(inst, best)
    s = pinned_two_phase(inst)
    assert opt - 1e-9 <= s.makespan <= (8 if inst.platform.ring else 6) * opt + 1e-9


def test_cut_and_append_picks_an_uncrossed_cut():
    # arcs on a ring of 6 positions: [4, 7] wraps (positions 4, 5, 0, 1); [2, 3]; cut 2 or 3 is uncrossed
    start, info = cut_and_append(np.array([4, 2]), np.array([7, 3]), np.array([2.0, 3.0]), 6)
    assert info["crossing"] == 0 and info["cut"] == 2
    assert start.tolist() == [0.0, 0.0]
    # a full-ring arc crosses no cut at its own start, but every other one
    start, info = cut_and_append(np.array([0, 1]), np.array([5, 2]), np.array([2.0, 3.0]), 6)
    assert info["cut"] == 0 and info["crossing"] == 0 and sorted(start.tolist()) == [0.0, 2.0]


def test_several_pinned_nodes_and_inflation_are_scheduled():
    plat = parse_io_platform("line:m=40,io=8")
    inst = IOInstance.from_jobs(plat, [(3, 3, (5, 15)), (2, 6, (15, 20)), (4, 2, (20,)), (1, 5, (0, 5, 10))])
    s = pinned_two_phase(inst)
    check(inst, s)
    assert s.alloc[0] == ((5, 16),)  # inflated to the 8 compute nodes between 5 and 15
    assert s.info["io"][3] == (0, 5, 10)


def test_deterministic_and_formulation_independent():
    inst = generate_io_instance(parse_io_platform("line:m=64,io=8"), 60, rng=np.random.default_rng(7))
    a, b = pinned_two_phase(inst), pinned_two_phase(inst)
    assert a.start.tolist() == b.start.tolist() and a.alloc == b.alloc
    c = pinned_two_phase(inst, formulation="windows")
    assert c.info["lp"] == pytest.approx(a.info["lp"])
    assert instance_to_json(inst) == instance_to_json(inst)


def test_unpinned_job_is_refused():
    inst = IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(1, 3, (4,)), (2, 2, 1)])
    with pytest.raises(InputError, match=r"jobs\[1\]\.io = 1, expected a list of pinned I/O node ids"):
        pinned_two_phase(inst)


def test_rounded_load_reported_is_the_schedule_load():
    inst = generate_io_instance(parse_io_platform("ring:m=30,io=5,mode=exclusive"), 40, rng=np.random.default_rng(2))
    s = pinned_two_phase(inst)
    check(inst, s)
    lows = np.zeros(inst.platform.m)
    for j in range(inst.n):
        for lo, hi in s.alloc[j]:
            lows[lo:hi] += inst.p[j]
    assert lows.max() == pytest.approx(s.info["rounded"])


@settings(max_examples=30)
@given(io_instances(max_jobs=8, max_p=9, multi=True))
def test_phase2_best_is_the_shorter_of_gergov_and_list(inst):
    """phase2 = best keeps whichever of Gergov and list scheduling ends first, on the same dedication."""
    gergov_, listed, best = (pinned_two_phase(inst, phase2=p) for p in ("gergov", "list", "best"))
    for s in (gergov_, listed, best):
        check(inst, s)
    assert best.makespan == min(gergov_.makespan, listed.makespan)
    assert best.info["phase2"] == ("gergov" if gergov_.makespan <= listed.makespan else "list")
    assert best.info["rounded"] == gergov_.info["rounded"] == listed.info["rounded"]


def test_phase2_is_checked():
    inst = IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(1, 3, (4,))])
    with pytest.raises(InputError, match="phase2 = fast, expected gergov or list or best"):
        pinned_two_phase(inst, phase2="fast")
