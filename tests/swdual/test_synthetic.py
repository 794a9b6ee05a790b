"""Synthetic protein sets: seeded, in range, UniProt-like composition and lengths."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.sequences import read_fasta
from schedlab.swdual.synthetic import RESIDUE_FREQUENCIES, generate_sequences, write_fasta


def test_same_seed_same_bytes(tmp_path):
    for name in ("a.fa.gz", "b.fa.gz"):
        write_fasta(generate_sequences(50, rng=np.random.default_rng(3)), tmp_path / name)
    assert (tmp_path / "a.fa.gz").read_bytes() == (tmp_path / "b.fa.gz").read_bytes()
    other = generate_sequences(50, rng=np.random.default_rng(4))
    assert other.texts != generate_sequences(50, rng=np.random.default_rng(3)).texts


def test_round_trip_through_fasta(tmp_path):
    seqs = generate_sequences(30, rng=np.random.default_rng(1), max_length=200)
    for name in ("s.fa", "s.fa.gz"):
        write_fasta(seqs, tmp_path / name, width=7)
        back = read_fasta(tmp_path / name, alphabet=Scoring.load().alphabet)
        assert back.names == seqs.names and back.texts == seqs.texts


def test_uniprot_like_statistics():
    """Median 300 and mean 360 (Swiss-Prot-like log-normal); composition within 0.1 point of the table."""
    seqs = generate_sequences(20000, rng=np.random.default_rng(0))
    lengths = seqs.lengths
    assert abs(np.median(lengths) - 300) < 10 and abs(lengths.mean() - 360) < 10
    text = "".join(seqs.texts)
    total = sum(RESIDUE_FREQUENCIES.values())
    for letter, percent in RESIDUE_FREQUENCIES.items():
        assert abs(100 * text.count(letter) / len(text) - 100 * percent / total) < 0.1, letter


@pytest.mark.parametrize(
    ("low", "high", "model"),
    [(100, 5000, "uniform"), (4500, 5000, "uniprot"), (3000, 3000, "uniprot"), (1, 5, "uniprot")],
)
def test_lengths_in_range(low, high, model):
    lengths = generate_sequences(
        500, rng=np.random.default_rng(2), min_length=low, max_length=high, lengths=model
    ).lengths
    assert lengths.min() >= low and lengths.max() <= high
    if high - low > 100:
        assert lengths.max() - lengths.min() > (high - low) / 4  # spread, not piled on a bound


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0}, "sequences = 0, expected an integer >= 1"),
        ({"n": 5, "min_length": 10, "max_length": 5}, "max length = 5, expected >= min length 10"),
        ({"n": 5, "lengths": "zipf"}, "lengths = zipf, expected uniprot or uniform"),
    ],
)
def test_bad_arguments(kwargs, message):
    n = kwargs.pop("n")
    with pytest.raises(InputError, match=message):
        generate_sequences(n, rng=np.random.default_rng(0), **kwargs)
