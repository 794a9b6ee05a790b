"""The MFP-maximising placement: hand-computed tables, growth, and the plain loop it must equal.

Source: Krevat (2003), chapter 2 (Scheduler 1's heuristic and growth; the
4x4 torus example with one free 2x2 block); the placement table on an empty
4x4x8 torus and the growth example of the reimplementation notes (section 8).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.platform.placement import FlatPlacement, TorusPlacement, mask_allocation
from schedlab.platform.pop import mfp_exhaustive, occupancy_array, pop
from schedlab.platform.torus import Box, Torus

T448 = Torus((4, 4, 8))
P448 = TorusPlacement(T448)


def best_by_shape(q):
    """Per shape of size q, the best remaining MFP over all bases of an empty 4x4x8 torus."""
    return {s: max(P448.mfp(T448.box_mask(Box(b, s))) for b in [(0, 0, 0)]) for s in T448.shapes(q)}


PLACEMENT_TABLE = [
    # size, best remaining MFP, shapes achieving it
    (1, 112, {(1, 1, 1)}),
    (2, 112, {(1, 2, 1), (2, 1, 1)}),
    (4, 112, {(1, 4, 1), (2, 2, 1), (4, 1, 1)}),
    (8, 112, {(2, 4, 1), (4, 2, 1)}),
    (16, 112, {(4, 4, 1)}),
    (32, 96, {(1, 4, 8), (4, 1, 8), (4, 4, 2)}),
    (64, 64, {(2, 4, 8), (4, 2, 8), (4, 4, 4)}),
    (96, 32, {(3, 4, 8), (4, 3, 8), (4, 4, 6)}),
]


@pytest.mark.parametrize("q,best,shapes", PLACEMENT_TABLE)
def test_placement_table_on_empty_4x4x8(q, best, shapes):
    """Section 8, placement on an empty 4x4x8 torus; on an empty torus every base of a shape is
    equivalent, so base (0,0,0) gives each shape's value. The chosen box is the first best shape."""
    values = best_by_shape(q)
    assert {s for s, v in values.items() if v == best} == shapes
    assert max(values.values()) == best
    mask, box = P448.best_placement(0, q)
    assert box == Box((0, 0, 0), min(shapes)) and P448.mfp(mask) == best


def test_worse_shapes_on_empty_4x4x8():
    """Section 8: (1,1,2) leaves 96; for size 16, (2,2,4) leaves 64 and the other six 96; for size 32,
    (2,2,8), (2,4,4), (4,2,4) leave 64."""
    assert best_by_shape(2)[(1, 1, 2)] == 96
    v16 = best_by_shape(16)
    assert v16[(2, 2, 4)] == 64
    assert sorted(v for s, v in v16.items() if s not in {(2, 2, 4), (4, 4, 1)}) == [96] * 6
    v32 = best_by_shape(32)
    assert {s for s, v in v32.items() if v == 64} == {(2, 2, 8), (2, 4, 4), (4, 2, 4)}


def test_growth_example_4x4_with_one_free_2x2_block():
    """Chapter 2: a 4x4 torus whose only free area is one 2x2 block cannot hold a size-3 job (1x3 or
    3x1); FCFS grows it to 4 (shape 2x2x1). Growth by at most I=1 gives 4; with I=0 it does not run."""
    torus = Torus((4, 4, 1))
    place = TorusPlacement(torus)
    free = [torus.node_id(x, y, 0) for x in (1, 2) for y in (1, 2)]
    occ = torus.full_mask & ~sum(1 << v for v in free)
    assert place.mfp(occ) == 4
    assert place.best_placement(occ, 3) is None
    q, (mask, box) = place.place_grow(occ, 3, 16)
    assert q == 4 and box == Box((1, 1, 0), (2, 2, 1)) and mask == sum(1 << v for v in free)
    assert place.place_grow(occ, 3, 3 + 1)[0] == 4
    assert place.place_grow(occ, 3, 3 + 0) is None


def test_forbid_and_shadow():
    """A box must miss ``forbid``; with ``shadow`` it must leave ``need`` nodes in one partition there."""
    torus = Torus((1, 1, 8))
    place = TorusPlacement(torus)
    occ = 0b00111111  # nodes 0..5 taken
    assert place.best_placement(occ, 2)[1] == Box((0, 0, 6), (1, 1, 2))
    assert place.best_placement(occ, 2, forbid=1 << 7) is None
    # at the shadow, nodes 0..1 are still held; a job on 6,7 leaves 2..5: a 4-node partition
    assert place.best_placement(occ, 2, shadow=0b11, need=4) is not None
    assert place.best_placement(occ, 2, shadow=0b11, need=5) is None


def reference_best(torus, occ_mask, q, forbid=0, shadow=None, need=0):
    """The plain loop: every shape (lexicographic) at every base (lexicographic), first occurrence of each
    node set, MFP by the exhaustive search, the first maximum wins."""
    dx, dy, dz = torus.dims
    seen = set()
    best, bestv = None, -1
    for shape in torus.shapes(q):
        for base in [(i, j, k) for i in range(dx) for j in range(dy) for k in range(dz)]:
            box = Box(base, shape)
            mask = torus.box_mask(box)
            if mask in seen:
                continue
            seen.add(mask)
            if mask & (occ_mask | forbid):
                continue
            if shadow is not None and mfp_exhaustive(occupancy_array(torus, shadow | mask)) < need:
                continue
            v = mfp_exhaustive(occupancy_array(torus, occ_mask | mask))
            if v > bestv:
                best, bestv = (mask, box), v
    return best


@st.composite
def placement_cases(draw):
    dims = draw(st.sampled_from([(2, 3, 4), (1, 1, 8), (3, 3, 2), (4, 4, 1), (2, 2, 2), (1, 5, 3)]))
    torus = Torus(dims)
    n = torus.n_procs
    density = draw(st.floats(0, 0.8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    occ = sum(1 << v for v in range(n) if rng.random() < density)
    q = draw(st.sampled_from(torus.feasible_sizes))
    forbid = 0
    if draw(st.booleans()):
        forbid = sum(1 << v for v in range(n) if rng.random() < 0.2)
    shadow = need = None
    if draw(st.booleans()):
        shadow = occ & sum(1 << v for v in range(n) if rng.random() < 0.5)
        need = draw(st.integers(1, n))
    return torus, occ, q, forbid, shadow, need


@settings(max_examples=150)
@given(placement_cases())
def test_best_placement_equals_plain_loop(case):
    torus, occ, q, forbid, shadow, need = case
    place = TorusPlacement(torus)
    kwargs = {"forbid": forbid}
    if shadow is not None:
        kwargs.update(shadow=shadow, need=need)
    expected = reference_best(torus, occ, q, forbid, shadow, need or 0)
    assert place.best_placement(occ, q, **kwargs) == expected
    assert place.best_placement(occ, q, **kwargs) == expected  # memo hit gives the same
    assert place.mfp(occ) == pop(occupancy_array(torus, occ))[0]


@given(placement_cases())
def test_mfp_and_largest_free_equal_pop(case):
    torus, occ, *_ = case
    place = TorusPlacement(torus)
    value, box = place.largest_free(occ)
    assert value == place.mfp(occ) == pop(occupancy_array(torus, occ))[0]
    if value:
        assert box.size == value and not torus.box_mask(box) & occ


def test_base_shape_tie_break_changes_only_the_order():
    """With bases outermost, a size-2 job on an empty 4x4x8 takes the first best shape at base (0,0,0)."""
    place = TorusPlacement(T448, tie_break="base-shape")
    assert place.best_placement(0, 2)[1] == Box((0, 0, 0), (1, 2, 1))
    occ = T448.box_mask(Box((0, 0, 0), (4, 4, 1)))
    a, b = place.best_placement(occ, 8), P448.best_placement(occ, 8)
    assert place.mfp(occ | a[0]) == P448.mfp(occ | b[0])
    with pytest.raises(ValueError):
        TorusPlacement(T448, tie_break="random")


def test_memo_counts_and_results_independent_of_cache_size():
    small = TorusPlacement(T448, cache_size=1)
    occ = T448.box_mask(Box((1, 0, 0), (1, 4, 8)))
    assert small.best_placement(occ, 5) == P448.best_placement(occ, 5)
    before = small.mfp_calls
    small.mfp(occ)
    small.mfp(occ)
    assert small.cache_hits >= 1 and small.mfp_calls >= before


def test_flat_placement_lowest_ids_and_extra():
    flat = FlatPlacement(8)
    occ = 0b00100101
    assert flat.mfp(occ) == 5
    mask, box = flat.best_placement(occ, 3)
    assert mask == 0b00011010 and box is None
    assert flat.best_placement(occ, 6) is None
    assert flat.best_placement(occ, 2, forbid=0b00011010) == (0b11000000, None)
    # EASY's extra: 5 free at the shadow; the head needs 3, so 2 extra nodes
    assert flat.best_placement(occ, 2, shadow=0b00000111, need=3) is not None
    assert flat.best_placement(occ, 3, shadow=0b00000111, need=3) is None
    assert flat.place_grow(occ, 3, 4)[0] == 3
    assert flat.round_size(7) == 7
    assert flat.allocation((0b01011010, None)) == ((1, 2), (3, 5), (6, 7))
    assert flat.allocation((mask, None)) == ((1, 2), (3, 5))


@given(st.integers(0, 2**70))
def test_mask_allocation_lists_the_set_bits(mask):
    alloc = mask_allocation(mask)
    assert sum(1 << v for lo, hi in alloc for v in range(lo, hi)) == mask
    assert all(hi < lo2 for (_, hi), (lo2, _) in zip(alloc, alloc[1:]))
