"""CPU engines: one query against the whole database with SIMD Smith-Waterman (Opal or parasail).

Source: Mendonca (2017), chapter 2, section 2.2.3: each CPU worker runs an
inter-sequence SIMD engine (SWIPE there) on one core. Here:

* :class:`OpalEngine` (the default) calls Opal through pyopal: the query
  against the database in SIMD lanes of 8 bits, rescoring the targets that
  overflow with 16 and then 32 bits (Opal's ``overflow="simple"``).
* :class:`ParasailEngine` calls parasail's striped query-profile kernels
  (Farrar 2007) target by target: 8 bits, then 16 and 32 bits for the targets
  whose score saturated. It is the cross-check of the tests.

Both release the GIL while aligning, so one thread per core runs them in
parallel. Both score an empty query or target 0 (Opal returns a positive
score for empty targets and parasail refuses them, so the engines mask them).
pyopal 0.7 refuses ``*`` in sequences, so :class:`OpalEngine` renames the
matrix's alphabet onto the letters ``A..`` (same scores, other letters).
``benchmarks/bench_swdual.py`` measures their GCUPS on this machine.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import numpy as np

from schedlab.errors import SchedlabError
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.sequences import SequenceSet

__all__ = [
    "CPU_ENGINES",
    "Engine",
    "EngineError",
    "OpalEngine",
    "ParasailEngine",
    "check_cpu_engine",
    "make_cpu_engine",
]


class EngineError(SchedlabError):
    """An alignment engine failed (a library error, an overflow, a device fault)."""


class Engine(Protocol):
    """What a worker runs: the scores of one query against every database sequence.

    ``scores`` is called concurrently by several worker threads and must be
    thread-safe; it returns int64 scores in database order.
    """

    name: str
    kind: str

    def scores(self, query: str) -> np.ndarray: ...


def _with_empty(database: SequenceSet, query: str, compute) -> np.ndarray:
    out = np.zeros(len(database), dtype=np.int64)
    if query and len(database):
        out[:] = compute()
        out[database.lengths == 0] = 0
    return out


class OpalEngine:
    """Opal's inter-sequence SIMD search (pyopal), one aligner per calling thread.

    Guarantee: exact scores (8 -> 16 -> 32-bit rescoring on overflow); tested
    against :func:`~schedlab.swdual.reference.gotoh_score` and parasail.
    Cost: O(|q| Σ|d|) cell updates, about 7-12 GCUPS per core here.
    """

    name = "pyopal"
    kind = "cpu"

    def __init__(self, database: SequenceSet, scoring: Scoring) -> None:
        import pyopal
        import scoring_matrices

        self.database = database
        self.scoring = scoring
        # pyopal 0.7 refuses '*' (not a letter): rename the alphabet onto upper-case letters
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(scoring.alphabet)]
        self._rename = str.maketrans(scoring.alphabet, letters)
        self._matrix = scoring_matrices.ScoringMatrix(scoring.matrix.tolist(), alphabet=letters, name=scoring.name)
        self._db = pyopal.Database(
            [t.translate(self._rename) for t in database.texts], alphabet=pyopal.Alphabet(letters)
        )
        self._local = threading.local()

    def _aligner(self):
        aligner = getattr(self._local, "aligner", None)
        if aligner is None:
            import pyopal

            aligner = pyopal.Aligner(
                self._matrix, gap_open=self.scoring.open_penalty, gap_extend=self.scoring.extend_penalty
            )
            self._local.aligner = aligner
        return aligner

    def scores(self, query: str) -> np.ndarray:
        def compute():
            try:
                results = self._aligner().align(
                    query.translate(self._rename), self._db, mode="score", overflow="simple", algorithm="sw"
                )
            except (OverflowError, ValueError, MemoryError) as error:
                raise EngineError(f"pyopal: {error}") from None
            return np.fromiter((r.score for r in results), dtype=np.int64, count=len(self.database))

        return _with_empty(self.database, query, compute)


class ParasailEngine:
    """parasail's striped query-profile Smith-Waterman, target by target, widening on saturation.

    Guarantee: exact scores (a saturated 8-bit score is recomputed with 16
    bits, a saturated 16-bit one with 32 bits).
    Cost: O(|q| Σ|d|) cell updates plus one library call per target.

    Notes
    -----
    With ``G_s = 0`` (engine open = extend: linear gaps) parasail 1.3.4's
    striped kernels return too low a score (``BAAB`` against ``BB`` in
    BLOSUM62 with open = extend = 1: 4 instead of 6, found by the tests), so
    the engine uses parasail's scan kernels (Rognes and Seeberg's prefix scan)
    then; they are exact there.
    """

    name = "parasail"
    kind = "cpu"

    def __init__(self, database: SequenceSet, scoring: Scoring) -> None:
        import parasail

        self.database = database
        self.scoring = scoring
        matrix = parasail.matrix_create(scoring.alphabet, 0, 0)
        for a in range(len(scoring.alphabet)):
            for b in range(len(scoring.alphabet)):
                matrix[a, b] = int(scoring.matrix[a, b])
        self._matrix = matrix

    def scores(self, query: str) -> np.ndarray:
        import parasail

        go, ge = self.scoring.open_penalty, self.scoring.extend_penalty
        texts = self.database.texts

        def compute():
            out = np.zeros(len(texts), dtype=np.int64)
            kernel = "striped" if go > ge else "scan"
            widths = [
                (getattr(parasail, f"profile_create_{bits}"), getattr(parasail, f"sw_{kernel}_profile_{bits}"))
                for bits in (8, 16, 32)
            ]
            todo = [i for i, t in enumerate(texts) if t]
            for make_profile, align in widths:  # 8, then 16, then 32 bits
                if not todo:
                    break
                profile = make_profile(query, self._matrix)
                again = []
                for i in todo:
                    result = align(profile, texts[i], go, ge)
                    if result.saturated:
                        again.append(i)
                    else:
                        out[i] = result.score
                todo = again
            if todo:
                raise EngineError(f"parasail: 32-bit score saturated for target {self.database.names[todo[0]]!r}")
            return out

        return _with_empty(self.database, query, compute)


CPU_ENGINES: dict[str, Callable[[SequenceSet, Scoring], Engine]] = {"pyopal": OpalEngine, "parasail": ParasailEngine}


def check_cpu_engine(name: str) -> None:
    """InputError (one line) unless ``name`` is in :data:`CPU_ENGINES`."""
    from schedlab.errors import InputError

    if name not in CPU_ENGINES:
        raise InputError("engine", field="cpu engine", value=name, expected=" or ".join(CPU_ENGINES))


def make_cpu_engine(name: str, database: SequenceSet, scoring: Scoring) -> Engine:
    """The CPU engine called ``name`` (:data:`CPU_ENGINES`) over ``database``."""
    check_cpu_engine(name)
    return CPU_ENGINES[name](database, scoring)
