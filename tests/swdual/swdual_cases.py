"""Shared inputs of the SWDUAL tests: sequences that exercise every corner of the engines."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from schedlab.swdual.synthetic import generate_sequences

BLOSUM62_LETTERS = "ARNDCQEGHILKMFPSTWYVBZX*"


def proteins(min_size: int = 0, max_size: int = 40):
    """Hypothesis strategy: normalised protein strings over BLOSUM62's alphabet."""
    return st.text(alphabet=BLOSUM62_LETTERS, min_size=min_size, max_size=max_size)


def edge_targets(rng: np.random.Generator) -> list[str]:
    """Empty, length 1, identical to the query made by :func:`edge_query`, no positive score, random."""
    query = edge_query()
    random = generate_sequences(12, rng=rng, min_length=1, max_length=90, lengths="uniform").texts
    return ["", "W", "****", query, query[:37], "PPPP", "GGGGGGGG", query[50:] + "AAAA" + query[:50], *random]


def edge_query() -> str:
    """A 173-residue query (crosses the GPU kernel's 128-row profile chunk, not a multiple of 4 rows)
    whose self-score (BLOSUM62 diagonal, 892) overflows 8-bit lanes."""
    return (
        "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMK"
        "ALRPDEDRLSPLHSVYVDQWDWERVMGDGERQFSTLKSTVEAIWAGIKATEAAVSEEFGLAPFLPDQIHFVHSQEL"
    )
