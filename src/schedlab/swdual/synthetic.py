"""Seeded synthetic protein sets: UniProt-like residue frequencies and sequence lengths.

Source: Mendonca (2017), chapter 2, section 2.5 (40 queries of 100-5,000
residues against UniProt and four smaller proteomes, Table 2.3). The real sets
are not available, so tests, benchmarks and the reproduction draw sets with
the same statistics.

Residues are drawn independently with the amino-acid composition of
UniProtKB/Swiss-Prot (release statistics, percent); lengths follow a
log-normal law with median 300 and mean 360 residues, about Swiss-Prot's,
truncated to ``[min_length, max_length]`` (drawn by inverse CDF, so even a
narrow range far in the tail costs one draw per sequence). ``lengths="uniform"``
draws integer lengths uniformly in that range instead (the thesis's query
sets span 100-5,000 residues evenly enough for that).
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
from scipy.special import ndtr, ndtri

from schedlab.errors import InputError
from schedlab.swdual.sequences import SequenceSet

__all__ = ["LENGTH_MODELS", "RESIDUE_FREQUENCIES", "generate_sequences", "write_fasta"]

RESIDUE_FREQUENCIES = {
    "A": 8.25,
    "R": 5.53,
    "N": 4.06,
    "D": 5.45,
    "C": 1.37,
    "Q": 3.93,
    "E": 6.75,
    "G": 7.07,
    "H": 2.27,
    "I": 5.96,
    "L": 9.66,
    "K": 5.84,
    "M": 2.42,
    "F": 3.86,
    "P": 4.70,
    "S": 6.56,
    "T": 5.34,
    "W": 1.08,
    "Y": 2.92,
    "V": 6.87,
}
"""UniProtKB/Swiss-Prot amino-acid composition in percent (normalised before drawing)."""

LENGTH_MODELS = ("uniprot", "uniform")
_MEDIAN, _MEAN = 300.0, 360.0
_MU = math.log(_MEDIAN)
_SIGMA = math.sqrt(2.0 * math.log(_MEAN / _MEDIAN))


def _lengths(n: int, low: int, high: int, model: str, rng: np.random.Generator) -> np.ndarray:
    if model == "uniform":
        return rng.integers(low, high + 1, size=n).astype(np.int64)
    # inverse CDF of the log-normal truncated to the lengths that round into [low, high]
    lo = ndtr((math.log(low - 0.5) - _MU) / _SIGMA)
    hi = ndtr((math.log(high + 0.5) - _MU) / _SIGMA)
    u = rng.uniform(lo, hi, size=n)
    return np.clip(np.rint(np.exp(_MU + _SIGMA * ndtri(u))), low, high).astype(np.int64)


def generate_sequences(
    n: int,
    *,
    rng: np.random.Generator,
    min_length: int = 4,
    max_length: int = 35213,
    lengths: str = "uniprot",
    prefix: str = "seq",
) -> SequenceSet:
    """Draw ``n`` protein sequences named ``{prefix}{i:06d}``.

    Parameters
    ----------
    n : int
        Number of sequences (>= 1).
    rng : numpy.random.Generator
        The only source of randomness: lengths first, then all residues at once.
    min_length, max_length : int
        Length range (default: the extremes of the thesis's UniProt, 4 and 35,213).
    lengths : {"uniprot", "uniform"}
        Truncated log-normal (median 300, mean 360) or uniform integer lengths.
    prefix : str
        Name prefix.

    Raises
    ------
    InputError
        On a bad size, range or length model.

    Notes
    -----
    Cost: O(total residues) numpy work; 10^5 sequences (3.6 x 10^7 residues) in about a second.
    """
    for field, value, low in (("sequences", n, 1), ("min length", min_length, 1), ("max length", max_length, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise InputError("generate", field=field, value=value, expected=f"an integer >= {low}")
    if max_length < min_length:
        raise InputError("generate", field="max length", value=max_length, expected=f">= min length {min_length}")
    if lengths not in LENGTH_MODELS:
        raise InputError("generate", field="lengths", value=lengths, expected=" or ".join(LENGTH_MODELS))
    size = _lengths(int(n), int(min_length), int(max_length), lengths, rng)
    letters = np.frombuffer("".join(RESIDUE_FREQUENCIES).encode("ascii"), dtype=np.uint8)
    p = np.array(list(RESIDUE_FREQUENCIES.values()))
    residues = letters[rng.choice(len(letters), size=int(size.sum()), p=p / p.sum())].tobytes().decode("ascii")
    ends = np.cumsum(size)
    starts = ends - size
    texts = tuple(residues[s:e] for s, e in zip(starts.tolist(), ends.tolist()))
    names = tuple(f"{prefix}{i:06d}" for i in range(int(n)))
    return SequenceSet(f"generate(n={n})", names, texts)


def write_fasta(sequences: SequenceSet, path: str | Path, *, width: int = 60) -> None:
    """Write ``sequences`` as FASTA, ``width`` residues per line; gzip when ``path`` ends in ``.gz``.

    Guarantee: byte-identical files for equal sets (the gzip header carries no time stamp).
    """
    path = Path(path)
    lines = []
    for name, text in zip(sequences.names, sequences.texts):
        lines.append(f">{name}\n")
        lines.extend(text[i : i + width] + "\n" for i in range(0, len(text), width))
    data = "".join(lines).encode("ascii")
    if path.suffix == ".gz":
        with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as handle:
            handle.write(data)
    else:
        path.write_bytes(data)
