"""CPU engines (Opal via pyopal, parasail) against the Gotoh reference and Biopython's local aligner."""

from __future__ import annotations

import numpy as np
import pytest
from Bio.Align import PairwiseAligner, substitution_matrices
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.swdual.cpu import EngineError, OpalEngine, ParasailEngine, make_cpu_engine
from schedlab.swdual.reference import gotoh_score
from schedlab.swdual.scoring import PROTEIN_MATRICES, Scoring
from schedlab.swdual.sequences import sequence_set
from schedlab.swdual.synthetic import generate_sequences
from swdual.swdual_cases import edge_query, edge_targets, proteins

ENGINES = [OpalEngine, ParasailEngine]
B62 = Scoring.load()


def _db(texts, scoring=B62):
    return sequence_set(texts, alphabet=scoring.alphabet)


def _biopython(query: str, target: str, scoring: Scoring) -> int:
    """Biopython's local PairwiseAligner with the engines' penalties (open = G_s + G_e, extend = G_e)."""
    if not query or not target:
        return 0
    aligner = PairwiseAligner(
        mode="local",
        substitution_matrix=substitution_matrices.load(scoring.name),
        open_gap_score=-scoring.open_penalty,
        extend_gap_score=-scoring.extend_penalty,
    )
    return int(aligner.score(query, target))


@pytest.mark.parametrize("engine", ENGINES)
def test_edge_cases_equal_reference_and_biopython(engine):
    """Empty, length 1, identical, no positive score, 8-bit saturating (query self-score 892)."""
    targets = edge_targets(np.random.default_rng(5))
    query = edge_query()
    scores = engine(_db(targets), B62).scores(query)
    reference = [gotoh_score(query, t, B62) for t in targets]
    assert scores.tolist() == reference == [_biopython(query, t, B62) for t in targets]
    assert scores[:4].tolist() == [0, 11, 0, 892]  # empty, "W", "****" (no positive score), identical


@pytest.mark.parametrize("engine", ENGINES)
def test_linear_gaps(engine):
    """G_s = 0: BAAB against BB is B, a gap of 2 (cost 2), B: 4 + 4 - 2 = 6 (parasail's striped kernel says 4)."""
    scoring = Scoring.load("BLOSUM62", 0, 1)
    assert engine(_db(["BB"], scoring), scoring).scores("BAAB").tolist() == [6]
    assert gotoh_score("BAAB", "BB", scoring) == 6


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_query_scores_zero(engine):
    assert engine(_db(["", "AW", "WWW"]), B62).scores("").tolist() == [0, 0, 0]


@pytest.mark.parametrize("engine", ENGINES)
def test_16_bit_saturation_widens_to_32(engine):
    """Identical 7,000-residue sequences score their diagonal sum, > 32,767 (16-bit lanes saturate)."""
    text = generate_sequences(1, rng=np.random.default_rng(2), min_length=7000, max_length=7000).texts[0]
    expected = int(sum(int(B62.matrix[c, c]) for c in B62.encode(text)))
    assert expected > 32767
    scores = engine(_db([text[:3000], text, "W"]), B62).scores(text)
    assert scores[1] == expected
    assert scores[0] == sum(int(B62.matrix[c, c]) for c in B62.encode(text[:3000])) > 255


@settings(max_examples=40, deadline=None)
@given(
    proteins(0, 30),
    st.lists(proteins(0, 30), min_size=1, max_size=6),
    st.sampled_from(PROTEIN_MATRICES),
    st.integers(0, 12),
    st.integers(1, 4),
)
def test_random_pairs_equal_reference(query, targets, matrix, gap_start, gap_extend):
    scoring = Scoring.load(matrix, gap_start, gap_extend)
    reference = [gotoh_score(query, t, scoring) for t in targets]
    for engine in ENGINES:
        assert engine(_db(targets, scoring), scoring).scores(query).tolist() == reference, engine.name


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_engines_agree_on_synthetic_proteins(seed):
    """Opal and parasail agree on longer UniProt-like sequences (where the reference would be slow)."""
    rng = np.random.default_rng(seed)
    db = generate_sequences(30, rng=rng, max_length=600)
    query = generate_sequences(1, rng=rng, min_length=50, max_length=400).texts[0]
    assert OpalEngine(db, B62).scores(query).tolist() == ParasailEngine(db, B62).scores(query).tolist()


def test_make_cpu_engine():
    db = _db(["AW"])
    assert make_cpu_engine("parasail", db, B62).name == "parasail"
    with pytest.raises(InputError, match="cpu engine = swipe, expected pyopal or parasail"):
        make_cpu_engine("swipe", db, B62)


def test_engine_error_is_schedlab_error():
    from schedlab.errors import SchedlabError

    assert issubclass(EngineError, SchedlabError)
