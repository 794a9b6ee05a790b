"""Scoring: Biopython's matrices and the thesis's gap convention mapped onto the engines' (spec section 4)."""

from __future__ import annotations

import pytest

from schedlab.errors import InputError
from schedlab.swdual.scoring import PROTEIN_MATRICES, Scoring


def test_gap_conventions():
    """Equation (2.3): a gap of length L costs G_s + L G_e; engines charge open + (L-1) extend."""
    scoring = Scoring.load("BLOSUM62", gap_start=11, gap_extend=1)
    assert (scoring.open_penalty, scoring.extend_penalty) == (12, 1)
    for length in (1, 2, 7):
        engine_cost = scoring.open_penalty + (length - 1) * scoring.extend_penalty
        assert scoring.gap_cost(length) == engine_cost == 11 + length


def test_blosum62_values():
    scoring = Scoring.load("blosum62")
    code = {c: i for i, c in enumerate(scoring.alphabet)}
    assert scoring.name == "BLOSUM62" and scoring.alphabet == "ARNDCQEGHILKMFPSTWYVBZX*"
    assert scoring.matrix[code["W"], code["W"]] == 11
    assert scoring.matrix[code["W"], code["G"]] == -2
    assert scoring.matrix[code["A"], code["A"]] == 4
    assert (scoring.matrix == scoring.matrix.T).all()


@pytest.mark.parametrize("name", PROTEIN_MATRICES)
def test_every_matrix_loads_with_x(name):
    scoring = Scoring.load(name)
    assert "X" in scoring.alphabet and scoring.matrix.shape == (len(scoring.alphabet),) * 2


def test_encode():
    scoring = Scoring.load()
    assert scoring.encode("ARW*").tolist() == [0, 1, 17, 23]
    with pytest.raises(InputError, match="residue = 'J'"):
        scoring.encode("AJ")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "BLOSUM99"}, "matrix = BLOSUM99, expected BLOSUM45"),
        ({"gap_extend": 0}, "gap extend = 0, expected an integer >= 1"),
        ({"gap_start": -1}, "gap start = -1, expected an integer >= 0"),
        ({"gap_start": 1.5}, "gap start = 1.5"),
    ],
)
def test_bad_scoring_is_one_line(kwargs, message):
    with pytest.raises(InputError, match=message) as info:
        Scoring.load(**kwargs)
    assert "\n" not in str(info.value)
