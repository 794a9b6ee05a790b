"""Ranked hits: decreasing score, ties by database index; the TSV table."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.swdual.hits import HEADER, hits_tsv, top_hits


def test_ties_by_index():
    scores = np.array([5, 9, 5, 9, 1, 5])
    assert top_hits(scores, 3).tolist() == [1, 3, 0]
    assert top_hits(scores, 4).tolist() == [1, 3, 0, 2]
    assert top_hits(scores, 0).tolist() == [1, 3, 0, 2, 5, 4]
    assert top_hits(scores, 10).tolist() == [1, 3, 0, 2, 5, 4]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=40), st.integers(-1, 45))
def test_equals_full_sort(values, top):
    scores = np.array(values)
    full = sorted(range(len(values)), key=lambda i: (-values[i], i))
    assert top_hits(scores, top).tolist() == (full if top <= 0 else full[:top])


def test_tsv():
    text = hits_tsv(
        ["q1", "q2"], ["d0", "d1", "d2"], [np.array([2, 0]), np.array([1])], [np.array([30, 7]), np.array([4])]
    )
    assert text == HEADER + "q1\td2\t30\t1\nq1\td0\t7\t2\nq2\td1\t4\t1\n"
