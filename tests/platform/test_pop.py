"""POP (Projection Of Partitions) against hand-computed values and the exhaustive search.

Source: Krevat (2003), chapter 3; the hand-checkable tables of the
reimplementation notes (section 8: POP on 4x4x8, the 2-D example of Figure 3-1).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from schedlab.platform.pop import mfp_exhaustive, occupancy_array, pop, pop_per_base, run_table_y
from schedlab.platform.torus import Torus


def occupancy(dims, nodes):
    occ = np.zeros(dims, dtype=bool)
    for node in nodes:
        occ[node] = True
    return occ


PLANE_Z0 = [(x, y, 0) for x in range(4) for y in range(4)]
POP_448 = [
    ("empty", [], 128),
    ("one node at (0,0,0)", [(0, 0, 0)], 112),
    ("plane z=0", PLANE_Z0, 112),
    ("planes z=0 and z=4", PLANE_Z0 + [(x, y, 4) for x in range(4) for y in range(4)], 48),
    ("plane x=1 (wraps x=2,3,0; 64 without wrap-around)", [(1, y, z) for y in range(4) for z in range(8)], 96),
    ("nodes (0,0,0) and (2,2,4)", [(0, 0, 0), (2, 2, 4)], 84),
]


@pytest.mark.parametrize("label,nodes,expected", POP_448, ids=[c[0] for c in POP_448])
def test_pop_table_on_4x4x8(label, nodes, expected):
    """Section 8, POP on 4x4x8; the returned box is free and has the MFP's volume."""
    occ = occupancy((4, 4, 8), nodes)
    value, box = pop(occ)
    assert value == expected == mfp_exhaustive(occ)
    assert box.size == value
    torus = Torus((4, 4, 8))
    assert all(not occ[torus.coords(v)] for v in torus.box_nodes(box))


def test_pop_checkerboard_and_full():
    checker = np.fromfunction(lambda x, y, z: (x + y + z) % 2 == 0, (4, 4, 8))
    assert pop(checker)[0] == 1 == mfp_exhaustive(checker)
    assert pop(np.ones((4, 4, 8), dtype=bool)) == (0, None)
    assert mfp_exhaustive(np.ones((4, 4, 8), dtype=bool)) == 0


def test_pop_plane_x1_box_wraps_around():
    """The 96-node box must wrap in x: 3 x 4 x 8 based at x = 2 (x = 2, 3, 0)."""
    value, box = pop(occupancy((4, 4, 8), [(1, y, z) for y in range(4) for z in range(8)]))
    assert value == 96
    assert box.base[0] == 2 and box.shape == (3, 4, 8)


def test_pop_2d_example():
    """Figure 3-1 reconstructed on a 5x5x1 torus with {(0,4), (1,3), (3,1)} allocated: at base (0,1)
    the Y-runs for x = 0..3 are 3, 2, 5, 0, so the 2-D scan gives 3, 4, 6 and stops; that base's
    largest box has 6 nodes, and the global MFP is 12 (3 x 4 at base (2,2), wrapping in y)."""
    occ = occupancy((5, 5, 1), [(0, 4, 0), (1, 3, 0), (3, 1, 0)])
    runs = run_table_y(occ)[:4, 1, 0]
    assert runs.tolist() == [3, 2, 5, 0]
    scan = [xt * m for xt, m in enumerate(np.minimum.accumulate(runs), start=1)]
    assert scan == [3, 4, 6, 0]
    assert pop_per_base(occ)[0, 1, 0] == 6
    value, box = pop(occ)
    assert value == 12 == mfp_exhaustive(occ)
    assert pop_per_base(occ)[2, 2, 0] == 12


def test_run_table_wraps_and_caps():
    occ = occupancy((1, 4, 1), [(0, 1, 0)])
    assert run_table_y(occ)[0, :, 0].tolist() == [1, 0, 3, 2]  # y=2: 2, 3, 0 free, then (0,1) allocated
    assert run_table_y(np.zeros((1, 4, 1), dtype=bool))[0, :, 0].tolist() == [4, 4, 4, 4]


def test_occupancy_array_from_mask():
    torus = Torus((4, 4, 8))
    occ = occupancy_array(torus, (1 << 0) | (1 << 97))
    assert occ.sum() == 2 and occ[0, 0, 0] and occ[3, 0, 1]


SHAPES = [(4, 4, 8), (3, 4, 5), (4, 4, 4), (2, 3, 4), (5, 5, 1), (1, 1, 8), (1, 6, 1), (3, 1, 2), (1, 1, 1)]


@st.composite
def occupancies(draw):
    """A torus of one of the notes' shapes (dimensions of 1 included) with a random density in [0, 1]."""
    dims = draw(st.sampled_from(SHAPES))
    density = draw(st.floats(0, 1))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return rng.random(dims) < density


@given(occupancies())
@example(np.zeros((4, 4, 8), dtype=bool))
@example(np.array([[[False, True, False, False, False, False, False, False]]]))  # a ring with one node taken
def test_pop_equals_exhaustive(occ):
    """POP equals the exhaustive search, and its box is free with the MFP's volume."""
    value, box = pop(occ)
    assert value == mfp_exhaustive(occ)
    assert pop_per_base(occ).max() == value
    if value:
        torus = Torus(occ.shape)
        nodes = torus.box_nodes(box)
        assert len(nodes) == value and not any(occ[torus.coords(v)] for v in nodes)
