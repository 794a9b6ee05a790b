"""Torus geometry: node ids, wrapped boxes, shapes and the size-rounding map.

Source: Krevat (2003), chapter 2 (rectangular partitions, impossible sizes
rounded up) and chapter 3 (FREEPART: coordinates modulo the dimensions); the
enumerated facts about 4x4x8 of the reimplementation notes (sections 2.2, 2.4).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.platform.torus import Box, Torus, parse_torus

T448 = Torus((4, 4, 8))

FEASIBLE_448 = (
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    12,
    14,
    15,
    16,
    18,
    20,
    21,
    24,
    27,
    28,
    30,
    32,
    36,
    40,
    42,
    45,
    48,
    54,
    56,
    60,
    63,
    64,
    72,
    80,
    84,
    96,
    112,
    128,
)

ROUNDING_448 = {
    11: 12,
    13: 14,
    17: 18,
    19: 20,
    22: 24,
    23: 24,
    25: 27,
    26: 27,
    29: 30,
    31: 32,
    **{s: 36 for s in range(33, 36)},
    **{s: 40 for s in range(37, 40)},
    41: 42,
    43: 45,
    44: 45,
    46: 48,
    47: 48,
    **{s: 54 for s in range(49, 54)},
    55: 56,
    **{s: 60 for s in range(57, 60)},
    61: 63,
    62: 63,
    **{s: 72 for s in range(65, 72)},
    **{s: 80 for s in range(73, 80)},
    **{s: 84 for s in range(81, 84)},
    **{s: 96 for s in range(85, 96)},
    **{s: 112 for s in range(97, 112)},
    **{s: 128 for s in range(113, 128)},
}


def test_feasible_sizes_and_rounding_map_on_4x4x8():
    """Notes 2.4: 38 feasible sizes; the 90 others map as listed (11->12, 65->72, 97->112, 127->128)."""
    assert T448.feasible_sizes == FEASIBLE_448
    assert len(ROUNDING_448) == 90
    for size in range(1, 129):
        expected = ROUNDING_448.get(size, size)
        assert T448.round_size(size) == expected, size
    assert [T448.round_size(2**k) for k in range(8)] == [2**k for k in range(8)]
    with pytest.raises(ValueError):
        T448.round_size(129)
    with pytest.raises(ValueError):
        T448.round_size(0)


def test_shape_counts_on_4x4x8():
    """Notes 2.2: 128 shapes, 16,384 (shape, base) pairs giving 9,633 distinct node sets;
    sizes 12 and 24 have the most shapes, 11 each; (1,1,2) and (2,1,1) are different shapes."""
    shapes = [s for q in T448.feasible_sizes for s in T448.shapes(q)]
    assert len(shapes) == 128
    counts = {q: len(T448.shapes(q)) for q in T448.feasible_sizes}
    assert max(counts.values()) == 11
    assert sorted(q for q, c in counts.items() if c == 11) == [12, 24]
    assert T448.shapes(2) == [(1, 1, 2), (1, 2, 1), (2, 1, 1)]
    sets = {
        frozenset(T448.box_nodes(Box((i, j, k), s)))
        for s in shapes
        for i in range(4)
        for j in range(4)
        for k in range(8)
    }
    assert len(sets) == 9633
    assert T448.shapes(11) == []


def test_node_ids_are_linear_with_z_fastest():
    assert T448.node_id(0, 0, 1) == 1
    assert T448.node_id(0, 1, 0) == 8
    assert T448.node_id(1, 0, 0) == 32
    assert T448.node_id(-1, 4, 9) == T448.node_id(3, 0, 1) == 97
    assert all(T448.node_id(*T448.coords(v)) == v for v in range(128))


def test_wrapped_box_nodes_mask_and_allocation():
    """A 2x2x3 box at (3,3,6) wraps in all three dimensions: x in {3,0}, y in {3,0}, z in {6,7,0}."""
    box = Box((3, 3, 6), (2, 2, 3))
    expected = sorted(T448.node_id(x, y, z) for x in (3, 0) for y in (3, 0) for z in (6, 7, 0))
    assert T448.box_nodes(box) == expected
    assert T448.mask_nodes(T448.box_mask(box)) == expected
    alloc = T448.box_allocation(box)
    assert [v for lo, hi in alloc for v in range(lo, hi)] == expected
    assert T448.box_of_nodes(expected) == box


def test_full_extent_boxes_are_canonical_and_merge_into_one_range():
    box = Box((2, 1, 5), (4, 4, 8))
    assert T448.canonical(box) == Box((0, 0, 0), (4, 4, 8))
    assert T448.box_allocation(box) == ((0, 128),)
    assert T448.box_of_nodes(range(128)) == Box((0, 0, 0), (4, 4, 8))
    plane = Box((1, 0, 0), (1, 4, 8))  # the x = 1 plane: ids 32..63
    assert T448.box_allocation(plane) == ((32, 64),)


def test_box_of_nodes_rejects_non_boxes():
    assert T448.box_of_nodes([0, 2]) is None  # a gap along z
    assert T448.box_of_nodes([0, 1, 8]) is None  # an L shape
    assert T448.box_of_nodes([]) is None
    assert T448.box_of_nodes([128]) is None
    assert T448.box_of_nodes([0, 7]) == Box((0, 0, 7), (1, 1, 2))  # wraps along z


@st.composite
def tori_and_boxes(draw):
    dims = tuple(draw(st.integers(1, 5)) for _ in range(3))
    torus = Torus(dims)
    shape = tuple(draw(st.integers(1, d)) for d in dims)
    base = tuple(draw(st.integers(0, d - 1)) for d in dims)
    return torus, Box(base, shape)


@given(tori_and_boxes())
def test_box_representations_agree(case):
    """Nodes, mask and allocation describe the same set, of the box's volume, and the box is recovered."""
    torus, box = case
    nodes = torus.box_nodes(box)
    assert len(nodes) == box.size == len(set(nodes))
    assert torus.mask_nodes(torus.box_mask(box)) == nodes
    alloc = torus.box_allocation(box)
    assert sum(hi - lo for lo, hi in alloc) == box.size
    assert [v for lo, hi in alloc for v in range(lo, hi)] == nodes
    assert torus.box_of_nodes(nodes) == torus.canonical(box)


def test_parse_torus():
    assert parse_torus("torus:4x4x8").dims == (4, 4, 8)
    assert parse_torus("1x1x8").name == "torus:1x1x8"
    for bad in ("torus:4x4", "torus:0x4x8", "torus:axbxc", "torus:4x4x8x2", "torus:"):
        with pytest.raises(InputError, match="torus dimensions"):
            parse_torus(bad)
    with pytest.raises(ValueError):
        Torus((4, 0, 8))


def test_platform_protocol_and_registry():
    """``--platform torus:4x4x8`` builds the torus; an allocation must be one (wrapped) box."""
    from schedlab.platform.base import Platform
    from schedlab.platform.registry import parse_platform

    torus = parse_platform("torus:4x4x8")
    assert isinstance(torus, Platform) and torus == T448
    assert torus.shaped and torus.spec() == "torus:4x4x8" and torus.kinds[0].ids == ((0, 128),)
    wrapped = T448.box_allocation(Box((3, 3, 6), (2, 2, 3)))
    assert torus.allocation_problem(wrapped) is None
    assert "is not a box" in torus.allocation_problem(((0, 2), (3, 4)))
    measures = torus.allocation_measures([wrapped, None, ((32, 64),)], None)
    assert [int(measures[k][0]) for k in ("box_x", "box_y", "box_z", "base_x", "base_y", "base_z")] == [
        2,
        2,
        3,
        3,
        3,
        6,
    ]
    assert [int(measures[k][1]) for k in measures] == [0] * 6
    assert [int(measures[k][2]) for k in measures] == [1, 4, 8, 1, 0, 0]
    with pytest.raises(InputError, match=r"--platform = torus:4x4, expected DXxDYxDZ"):
        parse_platform("torus:4x4")
