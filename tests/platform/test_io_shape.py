"""Allocation shape: Def. 4.3-4.8 and Props. 4.1, 5.1, 5.2 of Bleuse (2017), with the spec's hand values."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.platform import io_shape as shape
from schedlab.platform.io import IOPlatform, parse_io_platform
from schedlab.platform.io_shape import Grid2D


def grid_ids(cells, cols=8):
    return [x + y * cols for x, y in cells]


def test_compacity_hand_values_on_a_torus():
    """Spec 2.6: 2x2 square 8/6 = 4/3; T-tetromino 9/6 = 3/2 (thesis Fig. 4.5 values)."""
    torus = Grid2D(8, 8)
    assert shape.compacity(torus, grid_ids([(0, 0), (1, 0), (0, 1), (1, 1)])) == pytest.approx(4 / 3)
    assert shape.compacity(torus, grid_ids([(0, 0), (1, 0), (2, 0), (1, 1)])) == pytest.approx(3 / 2)
    assert shape.compacity(torus, grid_ids([(3, 3)])) == 0.0  # A12: q = 1


def test_compacity_of_line_runs_is_q_plus_one_over_three():
    """Spec 2.6: four consecutive line nodes 20/12 = 5/3; in general (q + 1) / 3."""
    line = parse_io_platform("line:layout=" + "C" * 30)
    assert shape.compacity(line, [3, 4, 5, 6]) == pytest.approx(5 / 3)
    for q in range(2, 20):
        assert Fraction(shape.compacity(line, range(q))).limit_denominator(1000) == Fraction(q + 1, 3)


def test_hand_values_around_an_io_node():
    """Spec 2.6: nodes {-2, -1, 1, 2} around I/O node 0: gamma 7/3, rho 3/4; nodes {1..4} next to 0: rho 5/4."""
    line = parse_io_platform("line:layout=CCICCCC")  # I/O node at 2 plays the role of 0
    around = [0, 1, 3, 4]
    assert shape.compacity(line, around) == pytest.approx(7 / 3)
    assert shape.proximity(line, around, [2]) == pytest.approx(0.75)
    assert shape.proximity(line, [3, 4, 5, 6], [2]) == pytest.approx(1.25)
    assert shape.proximity(line, [3, 4], []) is None  # A12: no I/O node
    assert shape.local(line, around, [2]) and shape.convex(line, around)


def test_fig_4_6_proximities_on_a_torus():
    """Spec 2.6 figure values 1 and 3/4: a 2x2 square beside an I/O node (1 + 3) / 4; a row of four with
    the I/O node bridging its middle (1 + 2) / 4."""
    io = grid_ids([(2, 0)], cols=9)
    torus = Grid2D(9, 9, io=frozenset(io))  # odd: no tie between the two ways round
    square = grid_ids([(0, 0), (1, 0), (0, 1), (1, 1)], cols=9)
    assert shape.proximity(torus, square, io) == pytest.approx(1.0)
    assert shape.local(torus, square, io) and shape.convex(torus, square)
    row = grid_ids([(0, 0), (1, 0), (3, 0), (4, 0)], cols=9)
    assert shape.proximity(torus, row, io) == pytest.approx(0.75)
    assert shape.local(torus, row, io) and shape.convex(torus, row)
    far = grid_ids([(3, 0), (4, 0), (5, 0), (6, 0)], cols=9)
    assert shape.proximity(torus, far, io) == pytest.approx(1.25)  # (1 + 4) / 4


def test_convexity_on_a_grid_is_routing_closure():
    """A16: under x-then-y routing an L-shape is not convex (one of its routes turns at the missing
    corner), yet connected (Prop. 4.1 is one-way); an I/O node at the corner bridges it."""
    mesh = Grid2D(5, 5, torus=False)
    for cells in ([(0, 0), (0, 1), (1, 1)], [(0, 0), (1, 0), (1, 1)]):
        ell = grid_ids(cells, cols=5)
        assert not shape.convex(mesh, ell) and shape.connected(mesh, ell)
    corner = grid_ids([(1, 0)], cols=5)
    bridged = Grid2D(5, 5, torus=False, io=frozenset(corner))
    assert shape.convex(bridged, grid_ids([(0, 0), (0, 1), (1, 1)], cols=5))
    assert shape.convex(mesh, grid_ids([(0, 0), (1, 0), (0, 1), (1, 1)], cols=5))


def subsets(m):
    for bits in range(1, 1 << m):
        yield [i for i in range(m) if bits >> i & 1]


@pytest.mark.parametrize("m", range(2, 9))
def test_props_5_1_and_5_2_exhaustively(m):
    """On a line, for every layout and every allocation: connected = convex = contiguous."""
    for layout in itertools.product([False, True], repeat=m):
        if all(layout):
            continue
        plat = IOPlatform("line", np.array(layout))
        for nodes in subsets(m):
            c = shape.connected(plat, nodes)
            assert c == shape.convex(plat, nodes) == shape.contiguous(plat, nodes), (layout, nodes)


def test_props_on_a_line_of_ten_for_a_few_layouts():
    for text in ("CCCCCCCCCC", "ICCCCICCCC", "CIICCICICC", "IICCCCCCII"):
        plat = parse_io_platform(f"line:layout={text}")
        for nodes in subsets(10):
            assert shape.connected(plat, nodes) == shape.convex(plat, nodes) == shape.contiguous(plat, nodes)


@given(cols=st.integers(2, 5), rows=st.integers(2, 5), torus=st.booleans(), data=st.data())
def test_prop_4_1_convex_implies_connected(cols, rows, torus, data):
    m = cols * rows
    io = frozenset(data.draw(st.sets(st.integers(0, m - 1), max_size=m // 3)))
    grid = Grid2D(cols, rows, torus=torus, io=io)
    nodes = data.draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=m))
    if shape.convex(grid, nodes):
        assert shape.connected(grid, nodes)
    if shape.local(grid, nodes):
        assert shape.connected(grid, nodes)


def test_ring_convexity_arc_and_shortest():
    arc = parse_io_platform("ring:m=12,io=3")  # I/O at 0, 4, 8
    short = parse_io_platform("ring:m=12,io=3,routing=shortest")
    wrapped = [10, 11, 1, 2]  # a cyclic run across node 0
    assert shape.convex(arc, wrapped) and shape.connected(arc, wrapped)
    assert not shape.contiguous(arc, wrapped)  # contiguity reads the linear order
    long_arc = [1, 2, 3, 5, 6, 7, 9]  # spans 8 hops > 12 // 2
    assert shape.convex(arc, long_arc) and not shape.convex(short, long_arc)
    assert not shape.convex(arc, [1, 3])
