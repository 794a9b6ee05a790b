"""FASTA reading through pyfastx: normalisation, random access, and one-line errors naming file and line."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.sequences import FastaIndex, read_fasta, sequence_set

ALPHABET = Scoring.load().alphabet
GOOD = ">P1 first protein\nMKV\nlla\n>P2\nWU*O J\n>P3\nA\n"


@pytest.fixture(params=["plain", "gzip"])
def good_fasta(request, tmp_path):
    path = tmp_path / ("db.fa" if request.param == "plain" else "db.fa.gz")
    data = GOOD.encode()
    path.write_bytes(data if request.param == "plain" else gzip.compress(data))
    return path


def test_read_and_normalise(good_fasta):
    """Lower case upper-cased, spaces dropped, U, O and J (not in BLOSUM62) read as X, '*' kept."""
    seqs = read_fasta(good_fasta, alphabet=ALPHABET)
    assert seqs.names == ("P1", "P2", "P3")
    assert seqs.texts == ("MKVLLA", "WX*XX", "A")
    assert seqs.lengths.tolist() == [6, 5, 1] and seqs.residues == 12


@pytest.mark.parametrize("suffix", [".fa", ".fa.gz"])
def test_index_random_access(tmp_path, suffix):
    path = tmp_path / f"db{suffix}"
    data = b">P1 first\nMKVL\nlA\n>P2\nWU*OJ\n>P3\nA\n"
    path.write_bytes(gzip.compress(data) if suffix.endswith("gz") else data)
    index = FastaIndex(path, alphabet=ALPHABET)
    assert len(index) == 3 and index.residues == 12
    assert index.lengths.tolist() == [6, 5, 1]
    assert index.sequence(1) == ("P2", "WX*XX")
    assert index.subset([2, 0]).texts == ("A", "MKVLLA")


def _write(tmp_path, text: str, name: str = "bad.fa"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("MKV\n>P1\nAA\n", r"bad.fa:1: expected a '>' header line, found 'MKV'"),
        ("\n\nMKV\n>P1\nAA\n", r"bad.fa:3: expected a '>' header line"),
        ("", r"bad.fa: no FASTA record \(empty file\)"),
        (">P1\nMKV\n>P2\n>P3\nAA\n", r"bad.fa:3: record 'P2' has no residue"),
        (">P1\nMKV\nMK1V\n", r"bad.fa:3: record 'P1' = '1', expected residue letters A-Z or '\*'"),
        (">P1\nMKV\n>P2\nAA-A\n", r"bad.fa:4: record 'P2' = '-'"),
    ],
)
def test_malformed_fasta_is_one_line(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=message) as info:
        read_fasta(path, alphabet=ALPHABET)
    assert "\n" not in str(info.value)


def test_gzip_error_has_line(tmp_path):
    path = tmp_path / "bad.fa.gz"
    path.write_bytes(gzip.compress(b">P1\nMKV\nAAAA\nAA#A\n"))
    with pytest.raises(InputError, match=r"bad.fa.gz:4: record 'P1' = '#'"):
        read_fasta(path, alphabet=ALPHABET)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="nope.fa: no such file"):
        read_fasta(tmp_path / "nope.fa", alphabet=ALPHABET)
    with pytest.raises(InputError, match="nope.fa: no such file"):
        FastaIndex(tmp_path / "nope.fa", alphabet=ALPHABET)


def test_allow_empty(tmp_path):
    seqs = read_fasta(_write(tmp_path, ">a\n>b\nW\n"), alphabet=ALPHABET, allow_empty=True)
    assert seqs.texts == ("", "W")


def test_sequence_set_in_memory():
    seqs = sequence_set(["mk v", ""], alphabet=ALPHABET)
    assert seqs.names == ("s0", "s1") and seqs.texts == ("MKV", "")
    with pytest.raises(InputError, match="sequence 's0' = '3'"):
        sequence_set(["A3"], alphabet=ALPHABET)
    assert np.array_equal(seqs.subset([1]).lengths, [0])
