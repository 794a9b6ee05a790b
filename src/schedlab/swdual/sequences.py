"""Protein sequences from FASTA files (plain or gzip), checked and normalised for the scoring alphabet.

Source: Mendonca (2017), chapter 2, section 2.4: workers load the query set
and the database, and need "direct access to any sequence, with all lengths
known in advance" (the thesis made its own binary format for that). Here
pyfastx parses the files (kseq for the sequential read, its index for random
access), so no FASTA parser is written by hand.

A normalised sequence holds only letters of the scoring matrix's alphabet:
lower case is upper-cased, spaces and tabs inside sequence lines are dropped,
and upper-case letters absent from the matrix (``J``, ``O``, ``U`` for the
BLOSUM and PAM tables) become ``X``. Anything else is an error.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from schedlab.errors import InputError

__all__ = ["FastaIndex", "Normaliser", "SequenceSet", "read_fasta", "sequence_set"]

_DROP = " \t"


class Normaliser:
    """Maps raw residue text onto an alphabet (see the module docstring); finds the first illegal character.

    Cost: one ``str.translate`` per sequence (C speed).
    """

    def __init__(self, alphabet: str) -> None:
        self.alphabet = alphabet
        fallback = "X" if "X" in alphabet else None
        table: dict[int, int | None] = {ord(c): None for c in _DROP}
        for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ*":
            target = letter if letter in alphabet else fallback
            if target is None:
                continue
            table[ord(letter)] = ord(target)
            if letter != "*":
                table[ord(letter.lower())] = ord(target)
        self._table = table
        self._legal = frozenset(chr(c) for c in table)

    def __call__(self, text: str) -> str:
        """The normalised text; illegal characters are left in place (see :meth:`first_illegal`)."""
        return text.translate(self._table)

    def first_illegal(self, text: str) -> int:
        """Index in ``text`` (raw) of the first illegal character, or -1."""
        for i, c in enumerate(text):
            if c not in self._legal:
                return i
        return -1

    def is_clean(self, normalised: str) -> bool:
        """Whether a normalised text has only alphabet letters."""
        return not normalised.strip(self.alphabet)


@dataclass(frozen=True, eq=False)
class SequenceSet:
    """Named, normalised sequences in file order: the rows of a query set or a database.

    ``lengths`` is an int64 array (read-only); ``texts[i]`` is the normalised sequence of ``names[i]``.
    """

    source: str
    names: tuple[str, ...]
    texts: tuple[str, ...]

    @cached_property
    def lengths(self) -> np.ndarray:
        out = np.fromiter((len(t) for t in self.texts), dtype=np.int64, count=len(self.texts))
        out.setflags(write=False)
        return out

    @property
    def residues(self) -> int:
        """``Σ |d|`` over the set."""
        return int(self.lengths.sum())

    def __len__(self) -> int:
        return len(self.texts)

    def subset(self, rows) -> SequenceSet:
        """The sequences at ``rows`` (in that order)."""
        return SequenceSet(self.source, tuple(self.names[i] for i in rows), tuple(self.texts[i] for i in rows))


def sequence_set(texts, *, alphabet: str, names=None, source: str = "sequences") -> SequenceSet:
    """Normalise and check in-memory sequences (named ``s0, s1, ...`` by default).

    Empty sequences are allowed here (the engines score them 0); files reject them.

    Raises
    ------
    InputError
        On an illegal character, naming the sequence.
    """
    normalise = Normaliser(alphabet)
    texts = list(texts)
    names = [f"s{i}" for i in range(len(texts))] if names is None else [str(n) for n in names]
    out = []
    for name, text in zip(names, texts, strict=True):
        clean = normalise(text)
        if not normalise.is_clean(clean):
            bad = text[normalise.first_illegal(text)]
            raise InputError(source, field=f"sequence {name!r}", value=repr(bad), expected="residue letters A-Z or '*'")
        out.append(clean)
    return SequenceSet(source, tuple(names), tuple(out))


def _open_text(path: Path):
    with path.open("rb") as raw:
        magic = raw.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="ascii", errors="replace")
    return path.open("r", encoding="ascii", errors="replace")


def _locate(path: Path, record: int, offset: int | None) -> int:
    """1-based line of record ``record``'s header (``offset`` None) or of its raw residue ``offset``."""
    seen, count = -1, 0
    with _open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            if line.startswith(">"):
                seen += 1
                if seen == record and offset is None:
                    return number
                continue
            if seen == record:
                text = line.rstrip("\r\n")
                if offset is not None and count + len(text) > offset:
                    return number
                count += len(text)
    return 0  # pragma: no cover - the record exists


def _first_content_line(path: Path) -> tuple[int, str] | None:
    with _open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                return number, line.rstrip("\r\n")
    return None


def _check_starts_with_header(path: Path, source: str) -> None:
    """The first non-blank line must be a header (pyfastx's reader would skip what precedes it)."""
    first = _first_content_line(path)
    if first is None:
        raise InputError(source, message="no FASTA record (empty file)")
    number, line = first
    if not line.startswith(">"):
        raise InputError(source, number, message=f"expected a '>' header line, found {line[:20]!r}")


def read_fasta(path: str | Path, *, alphabet: str, allow_empty: bool = False) -> SequenceSet:
    """Read every record of a FASTA file (plain or gzip), normalised onto ``alphabet``.

    Parameters
    ----------
    path : str or Path
    alphabet : str
        The scoring matrix's alphabet (:attr:`Scoring.alphabet`).
    allow_empty : bool, default False
        Accept records with no residue (they score 0 everywhere).

    Returns
    -------
    SequenceSet
        Names are the header's first word (pyfastx's ``name``).

    Raises
    ------
    InputError
        One line naming the file and line: missing or unreadable file, no
        header before the first residue line, a file without records, an empty
        record, an illegal residue character (``db.fa:12: record 'P1' =
        '1', expected residue letters A-Z or '*'``).

    Notes
    -----
    Cost: one pass of pyfastx's C parser plus one ``str.translate`` per
    record; line numbers are searched only when reporting an error.
    """
    import pyfastx

    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise InputError(source, message="no such file")
    _check_starts_with_header(path, source)
    try:
        records = list(pyfastx.Fastx(str(path), format="fasta"))
    except RuntimeError:  # pragma: no cover - the header check above catches what kseq refuses
        raise InputError(source, message="not a FASTA file") from None
    except OSError as error:  # pragma: no cover - permissions
        raise InputError(source, message=f"cannot read: {error}") from None
    normalise = Normaliser(alphabet)
    names, texts = [], []
    for index, (name, raw) in enumerate(records):
        text = normalise(raw)
        if not normalise.is_clean(text):
            at = normalise.first_illegal(raw)
            raise InputError(
                source,
                _locate(path, index, at),
                field=f"record {name!r}",
                value=repr(raw[at]),
                expected="residue letters A-Z or '*'",
            )
        if not text and not allow_empty:
            raise InputError(
                source, _locate(path, index, None), field=f"record {name!r}", message=f"record {name!r} has no residue"
            )
        names.append(name)
        texts.append(text)
    return SequenceSet(source, tuple(names), tuple(texts))


class FastaIndex:
    """Random access to a FASTA file's records and their lengths, without reading every sequence.

    Built on pyfastx's index (kept in memory: nothing is written beside the
    file). Used where only lengths or a few records are needed: the task
    times of a plan, or a calibration sample of a large database. The index
    assumes the usual layout (no spaces inside sequence lines); on other
    files :meth:`sequence` refuses the records it cannot read back, and
    :func:`read_fasta` still reads them.

    Cost: one indexing pass (about 0.1 s for 10^5 records); ``sequence(i)`` is O(|d_i|).
    """

    def __init__(self, path: str | Path, *, alphabet: str) -> None:
        import pyfastx

        self.path = Path(path)
        self.source = str(self.path)
        if not self.path.is_file():
            raise InputError(self.source, message="no such file")
        _check_starts_with_header(self.path, self.source)
        try:
            self._fasta = pyfastx.Fasta(self.source, memory_index=True)
        except RuntimeError:  # pragma: no cover - the header check catches what pyfastx refuses
            raise InputError(self.source, message="not a FASTA file") from None
        self._normalise = Normaliser(alphabet)

    def __len__(self) -> int:
        return len(self._fasta)

    @cached_property
    def lengths(self) -> np.ndarray:
        """Residues per record (raw counts from the index), int64, read-only."""
        out = np.fromiter((len(r) for r in self._fasta), dtype=np.int64, count=len(self._fasta))
        out.setflags(write=False)
        return out

    @property
    def residues(self) -> int:
        return int(self._fasta.size)

    def sequence(self, i: int) -> tuple[str, str]:
        """``(name, normalised text)`` of record ``i`` (0-based)."""
        record = self._fasta[int(i)]
        text = self._normalise(record.seq)
        if not self._normalise.is_clean(text):
            raise InputError(
                self.source,
                _locate(self.path, int(i), None),
                field=f"record {record.name!r}",
                message="illegal residue characters (or irregular line lengths)",
            )
        return record.name, text

    def subset(self, rows) -> SequenceSet:
        """The records at ``rows`` as a :class:`SequenceSet`."""
        pairs = [self.sequence(i) for i in rows]
        return SequenceSet(self.source, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs))
