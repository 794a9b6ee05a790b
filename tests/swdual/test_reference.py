"""The plain-Python Gotoh reference on hand-computed cases (equations 2.2-2.4)."""

from __future__ import annotations

import pytest

from schedlab.swdual.reference import gotoh_score
from schedlab.swdual.scoring import Scoring

B62 = Scoring.load("BLOSUM62", 11, 1)


@pytest.mark.parametrize(
    ("query", "target", "score"),
    [
        ("", "WWW", 0),  # empty
        ("W", "W", 11),  # length 1
        ("W", "G", 0),  # no positive score: W/G = -2
        ("WWWW", "WWWW", 44),  # identical
        # 8 W against 4 W, GGG, 4 W: one gap of 3 costs 11 + 3 = 14, so 88 - 14 = 74 beats 4 W (44)
        # and the ungapped WWWWGGGW (44 - 6 + 11 = 49)
        ("WWWWWWWW", "WWWWGGGWWWW", 74),
        ("WWWWGGGWWWW", "WWWWWWWW", 74),  # symmetric: the gap is in the other sequence
    ],
)
def test_hand_cases(query, target, score):
    assert gotoh_score(query, target, B62) == score


def test_gap_start_matters():
    """With G_s = 0 the same gap costs 3: 88 - 3 = 85; with G_s = 40 it costs 43 > 88 - 49, so 49 wins."""
    assert gotoh_score("WWWWWWWW", "WWWWGGGWWWW", Scoring.load("BLOSUM62", 0, 1)) == 85
    assert gotoh_score("WWWWWWWW", "WWWWGGGWWWW", Scoring.load("BLOSUM62", 40, 1)) == 49


def test_identical_is_diagonal_sum():
    """BLOSUM62's diagonal dominates its rows on the 20 amino acids (not X), so a sequence against itself scores its diagonal sum."""
    text = "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEV"
    assert gotoh_score(text, text, B62) == sum(int(B62.matrix[c, c]) for c in B62.encode(text))
