"""Unpinned I/O: the meta-algorithm of Bleuse (2017), Theorem 5.4, with LPT and shelf strip packing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from io_strategies import check, io_instances
from schedlab.errors import InputError
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.offline.io.strip import shelf_pack
from schedlab.offline.io.unpinned import exact_pcmax, lpt, unpinned_meta, unpinned_ratio
from schedlab.platform.io import parse_io_platform
from schedlab.workload.io_jobs import IOInstance, generate_io_instance


def test_lpt_hand_example():
    """Graham's 7-job example on 3 machines: LPT 11 (the 4/3 - 1/(3m) bound's worst case), OPT 9."""
    times = [5, 5, 4, 4, 3, 3, 3]
    machine, start = lpt(times, 3)
    assert (start + times).max() == 11
    assert machine.tolist() == [0, 1, 2, 2, 0, 1, 0] and start.tolist() == [0, 0, 0, 4, 5, 5, 8]
    m2, s2 = exact_pcmax(times, 3)
    assert (s2 + times).max() == 9


@given(st.lists(st.integers(1, 20), min_size=1, max_size=7), st.integers(1, 3))
def test_exact_pcmax_is_optimal(times, machines):
    best = min(
        max(sum(t for t, k in zip(times, a) if k == i) for i in range(machines))
        for a in itertools.product(range(machines), repeat=len(times))
    )
    machine, start = exact_pcmax(times, machines)
    assert (start + np.array(times)).max() == best


def test_small_and_big_jobs_hand_instance():
    """line:m=12,io=3 (delta 4): small jobs q < 4 go right of I/O nodes 0, 4, 8 by LPT; big ones follow."""
    plat = parse_io_platform("line:m=12,io=3,mode=exclusive")
    inst = IOInstance.from_jobs(plat, [(5, 3, 1), (4, 1, 1), (3, 2, 1), (2, 2, 1), (6, 5, 1), (2, 4, 1)])
    s = unpinned_meta(inst)
    check(inst, s)
    assert s.info["c1"] == 5.0 and s.info["n_small"] == 4 and s.info["n_big"] == 2
    # LPT: 5 -> I/O 0, 4 -> I/O 4, 3 -> I/O 8, 2 -> I/O 8 at 3
    assert s.alloc[:4] == [((0, 4),), ((4, 6),), ((8, 11),), ((8, 11),)]
    assert s.start[:4].tolist() == [0.0, 0.0, 0.0, 3.0]
    # NFDH: the 6-tall job of 5 ranks at x = 0, the 2-tall job of 4 ranks beside it at x = 5
    assert s.start[4:].tolist() == [5.0, 5.0] and s.info["c2"] == 6.0 and s.makespan == 11.0
    assert s.alloc[4] == ((1, 7),) and s.info["io"][4] == (4,)  # ranks 0-4 = nodes 1-3, 5, 6 around I/O 4
    assert s.alloc[5] == ((7, 12),) and s.info["io"][5] == (8,)


def test_ratios():
    assert unpinned_ratio(parse_io_platform("line:m=12,io=3,mode=exclusive")) == pytest.approx(4 / 3 - 1 / 9 + 3)
    assert unpinned_ratio(parse_io_platform("line:m=12,io=3")) == pytest.approx(2 * (4 / 3 - 1 / 9) + 3)
    assert unpinned_ratio(
        parse_io_platform("ring:m=12,io=3,mode=exclusive"), pcmax="exact", strip="ffdh"
    ) == pytest.approx(1 + 5.4)


@st.composite
def rectangles(draw):
    W = draw(st.integers(1, 12))
    n = draw(st.integers(1, 15))
    w = draw(st.lists(st.integers(1, W), min_size=n, max_size=n))
    h = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    return np.array(w), np.array(h, dtype=float), W


@given(rectangles(), st.sampled_from(["nfdh", "ffdh"]))
def test_shelf_packing_is_feasible_and_within_the_area_bound(case, method):
    """No two rectangles overlap, all inside the strip; NFDH and FFDH within 2 A / W + h_max."""
    w, h, W = case
    x, y, top = shelf_pack(w, h, W, method=method)
    assert np.all(x >= 0) and np.all(x + w <= W) and top == pytest.approx((y + h).max())
    for a in range(len(w)):
        for b in range(a + 1, len(w)):
            apart = x[a] + w[a] <= x[b] or x[b] + w[b] <= x[a] or y[a] + h[a] <= y[b] or y[b] + h[b] <= y[a]
            assert apart
    assert top <= 2 * (w * h).sum() / W + h.max() + 1e-9


@settings(max_examples=60)
@given(io_instances(kind="unpinned", uniform=True, max_jobs=10, max_p=9))
def test_shelves_c1_is_lpt_and_c2_within_the_strip_bound(inst):
    delta = inst.platform.delta
    s = unpinned_meta(inst)
    check(inst, s)
    small, big = inst.q < delta, inst.q >= delta
    if small.any():
        machine, start = lpt(inst.p[small], inst.platform.m_io)
        assert s.info["c1"] == pytest.approx((start + inst.p[small]).max())
    if big.any():
        area = (inst.p[big] * inst.q[big]).sum() / inst.platform.m_c
        assert s.info["c2"] <= 2 * area + inst.p[big].max() + 1e-9
    assert s.makespan == pytest.approx(s.info["c1"] + s.info["c2"])


@settings(max_examples=40, deadline=None)
@given(io_instances(kind="unpinned", uniform=True, max_jobs=4, max_p=5, max_m=10))
def test_never_above_the_proven_ratio_of_opt(inst):
    """Theorem 5.4 (exclusive, line), 2 rho + rho' (shared; A7), rho + 2 rho' (ring; A9) against brute force."""
    opt, _ = brute_force_opt(inst)
    for pcmax in ("lpt", "exact"):
        for strip in ("nfdh", "ffdh"):
            s = unpinned_meta(inst, pcmax=pcmax, strip=strip)
            assert s.makespan <= unpinned_ratio(inst.platform, pcmax=pcmax, strip=strip) * opt + 1e-9


def test_exclusive_small_jobs_only_is_pcmax():
    """delta > max q, exclusive: the problem is P||Cmax on the I/O nodes (A15); exact solver = OPT."""
    plat = parse_io_platform("line:m=12,io=3,mode=exclusive")
    inst = IOInstance.from_jobs(plat, [(5, 2, 1), (4, 3, 1), (4, 1, 1), (3, 3, 1), (3, 2, 1), (3, 1, 1)])
    s = unpinned_meta(inst, pcmax="exact")
    assert s.makespan == brute_force_opt(inst)[0] == 8.0
    shared = inst.with_platform(plat.with_mode("shared"))
    assert brute_force_opt(shared)[0] < 8.0  # two jobs per I/O node from both sides


def test_preconditions():
    with pytest.raises(InputError, match="uniformly spread"):
        unpinned_meta(IOInstance.from_jobs(parse_io_platform("line:layout=CICCI"), [(1, 1, 1)]))
    with pytest.raises(InputError, match=r"jobs\[1\]\.io = \(4,\), expected 1"):
        unpinned_meta(IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(1, 1, 1), (1, 1, (4,))]))


def test_deterministic():
    inst = generate_io_instance(parse_io_platform("ring:m=64,io=8"), 80, rng=np.random.default_rng(5), pinned=False)
    a, b = unpinned_meta(inst), unpinned_meta(inst)
    assert a.start.tolist() == b.start.tolist() and a.alloc == b.alloc
    check(inst, a)
