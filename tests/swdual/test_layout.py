"""The GPU kernel's warp-interleaved database layout (plain numpy)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.swdual.layout import LANES, QCHUNK, ROWS, interleave


def test_small_layout_by_hand():
    """Lengths 2, 3, 1: sorted (3, 2, 1) -> rows (1, 0, 2); one group of width 3."""
    codes = [np.array([1, 2], np.uint8), np.array([3, 4, 5], np.uint8), np.array([6], np.uint8)]
    layout = interleave(np.array([2, 3, 1]), codes)
    assert layout["order"].tolist() == [1, 0, 2]
    assert layout["length"].tolist() == [3, 2, 1]
    assert layout["start"].tolist() == [0]
    res = layout["residues"]
    assert len(res) == 3 * LANES
    assert res[[0, LANES, 2 * LANES]].tolist() == [3, 4, 5]  # lane 0: row 1
    assert res[[1, LANES + 1]].tolist() == [1, 2]  # lane 1: row 0
    assert res[2] == 6


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=0, max_size=100))
def test_every_residue_is_where_the_kernel_reads_it(lengths):
    rng = np.random.default_rng(len(lengths))
    codes = [rng.integers(0, 24, size=n).astype(np.uint8) for n in lengths]
    layout = interleave(np.array(lengths, dtype=np.int64), codes)
    order, length, start, res = layout["order"], layout["length"], layout["start"], layout["residues"]
    assert sorted(order.tolist()) == list(range(len(lengths)))
    assert (np.diff(length) <= 0).all()  # decreasing lengths: a warp's threads finish together
    for t, row in enumerate(order.tolist()):
        base = start[t // LANES] + t % LANES
        assert res[base + LANES * np.arange(length[t])].tolist() == codes[row].tolist()
    assert len(res) == sum(LANES * length[g * LANES] for g in range(len(start)))


def test_constants_fit_the_kernel():
    assert QCHUNK % ROWS == 0 and LANES == 32
