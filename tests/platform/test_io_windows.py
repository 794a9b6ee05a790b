"""Convex and local allocations on a line or a ring (Bleuse 2017, section 5.3.2 and Fig. 5.6)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.platform import io_shape as shape
from schedlab.platform.io import IOPlatform, parse_io_platform
from schedlab.platform.io_windows import (
    compute_nodes,
    first_unpinned_window,
    footprint,
    max_local_io,
    pinned_windows,
    unpinned_windows,
)


def nodes_of(plat, w):
    return [v for lo, hi in w.alloc(plat) for v in range(lo, hi)]


def test_interior_pinned_node_has_q_plus_one_windows():
    """Spec 2.5: exactly q + 1 windows for an I/O node far from the ends and other I/O nodes."""
    plat = parse_io_platform("line:m=40,io=2")  # I/O nodes 0 and 20
    for q in range(1, 10):
        ws = pinned_windows(plat, q, (20,))
        assert len(ws) == q + 1
        starts = [int(compute_nodes(plat, w)[0]) for w in ws]
        assert starts == list(range(20 - q, 21))[:q] + [21]  # q windows ending left of 20 or across it, one right


def test_fig_5_3_window_of_node_3():
    """I/O nodes at 0, 5, 10; a job of 4 compute nodes pinned to 5: alpha^C(3, 4) is nodes 3, 4, 6, 7."""
    plat = parse_io_platform("line:m=15,io=3")
    ws = pinned_windows(plat, 4, (5,))
    assert [compute_nodes(plat, w).tolist() for w in ws] == [
        [1, 2, 3, 4],
        [2, 3, 4, 6],
        [3, 4, 6, 7],
        [4, 6, 7, 8],
        [6, 7, 8, 9],
    ]
    assert ws[2].alloc(plat) == ((3, 8),)  # the hull keeps I/O node 5 as its bridge


@given(layout=st.lists(st.booleans(), min_size=3, max_size=11), q=st.integers(1, 6), data=st.data())
def test_windows_are_convex_local_and_at_most_q_plus_one(layout, q, data):
    is_io = np.array(layout)
    if is_io.all() or not is_io.any():
        return
    ring = data.draw(st.booleans())
    plat = IOPlatform("ring" if ring else "line", is_io)
    if q > plat.m_c:
        return
    s = data.draw(st.sampled_from(plat.io_nodes.tolist()))
    ws = pinned_windows(plat, q, (s,))
    assert len(ws) <= q + 1
    for w in ws:
        comp = compute_nodes(plat, w).tolist()
        assert len(set(comp)) == q
        assert shape.convex(plat, comp) and shape.local(plat, comp, [s])
        assert s in nodes_of(plat, w)
    # completeness on a line: every convex local run of q compute nodes is listed
    if not ring:
        expected = [
            list(plat.compute[a : a + q])
            for a in range(plat.m_c - q + 1)
            if shape.local(plat, list(plat.compute[a : a + q]), [s])
        ]
        assert [compute_nodes(plat, w).tolist() for w in ws] == [list(map(int, e)) for e in expected]
    # footprints grow with the start: the LP's cumulative form relies on it
    for a, b in itertools.pairwise(ws):
        assert footprint(plat, a) <= footprint(plat, b) and footprint(plat, a)[1] <= footprint(plat, b)[1]


def test_several_pinned_nodes_count_q_minus_k_plus_one():
    """Fig. 5.6: pinned to a < c with k compute nodes between them, q > k gives q - k + 1 windows."""
    plat = parse_io_platform("line:m=40,io=8")  # I/O nodes every 5: 0, 5, 10, ...
    for q in range(5, 12):
        ws = pinned_windows(plat, q, (15, 20))  # k = 4 compute nodes between 15 and 20
        assert len(ws) == q - 4 + 1
        for w in ws:
            assert {16, 17, 18, 19} <= set(compute_nodes(plat, w).tolist())


def test_several_pinned_nodes_far_apart_inflate_or_reject():
    """A10: k >= q compute nodes between the extreme pinned nodes: one allocation of all k (inflate)."""
    plat = parse_io_platform("line:m=40,io=8")
    ws = pinned_windows(plat, 3, (5, 15))  # 8 compute nodes between 5 and 15 (I/O node 10 bridges)
    assert len(ws) == 1
    assert compute_nodes(plat, ws[0]).tolist() == [6, 7, 8, 9, 11, 12, 13, 14]
    assert ws[0].alloc(plat) == ((5, 16),)
    assert pinned_windows(plat, 3, (5, 15), inflate=False) == []
    assert len(pinned_windows(plat, 8, (5, 15))) == 1  # k == q: the same single window, not inflated
    three = pinned_windows(plat, 3, (5, 10, 15))  # only the extreme nodes matter
    assert [(w.start, w.lo, w.hi, w.size) for w in three] == [(ws[0].start, 5, 15, 8)]


def test_adjacent_pinned_nodes_need_both_sides():
    """A10, k = 0: two adjacent I/O nodes; a window must touch both, so it straddles them (q - 1 windows)."""
    plat = parse_io_platform("line:layout=CCCCIICCCC")
    ws = pinned_windows(plat, 3, (4, 5))
    assert [compute_nodes(plat, w).tolist() for w in ws] == [[2, 3, 6], [3, 6, 7]]


def test_ring_windows_wrap_and_rotate():
    """Spec 3.4: windows around the origin on the unrolled ring; the same for every rotation."""
    plat = parse_io_platform("ring:m=12,io=3")  # I/O at 0, 4, 8
    ws = pinned_windows(plat, 3, (0,))
    assert [compute_nodes(plat, w).tolist() for w in ws] == [[9, 10, 11], [10, 11, 1], [11, 1, 2], [1, 2, 3]]
    assert ws[1].alloc(plat) == ((0, 2), (10, 12))
    layout = np.array([c == "I" for c in "ICCICCCCICCC"])
    base = IOPlatform("ring", layout)
    reference = [compute_nodes(base, w).tolist() for w in pinned_windows(base, 4, (3,))]
    for t in range(1, 12):
        rotated = IOPlatform("ring", np.roll(layout, t))
        got = [
            [(v - t) % 12 for v in compute_nodes(rotated, w).tolist()]
            for w in pinned_windows(rotated, 4, ((3 + t) % 12,))
        ]
        assert got == reference


def test_ring_shortest_routing_limits_the_span():
    arc = parse_io_platform("ring:m=12,io=3")
    short = parse_io_platform("ring:m=12,io=3,routing=shortest")
    assert len(pinned_windows(arc, 6, (0,))) == 7
    for w in pinned_windows(short, 6, (0,)):
        nodes = compute_nodes(short, w).tolist()
        assert shape.convex(short, nodes)
    assert len(pinned_windows(short, 6, (0,))) < 7


@given(layout=st.lists(st.booleans(), min_size=3, max_size=10), ring=st.booleans())
def test_max_local_io_matches_the_enumeration(layout, ring):
    is_io = np.array(layout)
    if is_io.all() or not is_io.any():
        return
    for routing in ("arc", "shortest"):
        plat = IOPlatform("ring" if ring else "line", is_io, routing=routing)
        for q in range(1, plat.m_c + 1):
            most = max((len(w.io) for c in range(1, plat.m_io + 1) for w in unpinned_windows(plat, q, c)), default=0)
            assert max_local_io(plat, q) == most
            first = first_unpinned_window(plat, q, 1)
            listed = unpinned_windows(plat, q, 1)
            assert (first is None) == (not listed)
            if first is not None:
                assert first.start == listed[0].start


def test_unpinned_windows_choose_io_subsets():
    plat = parse_io_platform("line:m=12,io=3")
    ws = unpinned_windows(plat, 4, 2)
    assert {w.io for w in ws} == {(0, 4), (4, 8)}
    for w in ws:
        assert shape.local(plat, compute_nodes(plat, w).tolist(), w.io)
    with pytest.raises(AssertionError):
        assert unpinned_windows(plat, 4, 3)
