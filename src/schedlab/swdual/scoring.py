"""Scoring of protein local alignments: a substitution matrix and affine gaps in the thesis's convention.

Source: Mendonca (2017), chapter 2, section 2.2.2, equations (2.2)-(2.4)
(Gotoh's affine gaps): a gap of length ``L`` costs ``G_s + L * G_e``, the
BLAST/SWIPE convention. Engines (Opal, parasail, Biopython) charge
``open + (L - 1) * extend`` instead, so the same model is
``open = G_s + G_e`` and ``extend = G_e`` there.

The matrices come from Biopython's ``Bio.Align.substitution_matrices`` (the
NCBI BLOSUM and PAM tables), so every engine scores with the same integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from schedlab.errors import InputError

__all__ = ["PROTEIN_MATRICES", "Scoring"]

PROTEIN_MATRICES = ("BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "BLOSUM90", "PAM30", "PAM70", "PAM250")
"""Matrix names accepted by :meth:`Scoring.load` (integer protein matrices with an ``X`` column)."""


@dataclass(frozen=True, eq=False)
class Scoring:
    """A substitution matrix over ``alphabet`` and the gap costs ``G_s`` (start) and ``G_e`` (per residue).

    Build it with :meth:`load`. ``matrix[a, b]`` is the score of residue codes
    ``a`` and ``b`` (positions in ``alphabet``), an int32 array made read-only.
    """

    name: str
    alphabet: str
    matrix: np.ndarray
    gap_start: int
    gap_extend: int

    @classmethod
    def load(cls, name: str = "BLOSUM62", gap_start: int = 11, gap_extend: int = 1) -> Scoring:  # spec amb. 6
        """Load a standard matrix by name (case-insensitive) with the gap costs of equations (2.3)-(2.4).

        Parameters
        ----------
        name : str, default "BLOSUM62"
            One of :data:`PROTEIN_MATRICES`.
        gap_start : int, default 11
            ``G_s`` >= 0, paid once per gap (SWIPE's ``-G``).
        gap_extend : int, default 1
            ``G_e`` >= 1, paid per gap residue (SWIPE's ``-E``).

        Raises
        ------
        InputError
            On an unknown matrix or a gap cost out of range, in one line.

        Notes
        -----
        Defaults are SWIPE's (BLOSUM62, ``-G 11 -E 1``); the thesis does not
        give the values of its experiments.
        """
        from Bio.Align import substitution_matrices

        upper = str(name).upper()
        if upper not in PROTEIN_MATRICES:
            raise InputError("scoring", field="matrix", value=name, expected=", ".join(PROTEIN_MATRICES))
        for field, value, low in (("gap start", gap_start, 0), ("gap extend", gap_extend, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise InputError("scoring", field=field, value=value, expected=f"an integer >= {low}")
        table = substitution_matrices.load(upper)
        matrix = np.asarray(table, dtype=float)
        if not np.array_equal(matrix, np.round(matrix)):  # pragma: no cover - the NCBI tables are integral
            raise InputError("scoring", field="matrix", value=name, expected="an integer matrix")
        matrix = matrix.astype(np.int32)
        matrix.setflags(write=False)
        return cls(upper, str(table.alphabet), matrix, int(gap_start), int(gap_extend))

    @property
    def open_penalty(self) -> int:
        """The engines' gap-open penalty ``G_s + G_e`` (cost of a gap of length 1)."""
        return self.gap_start + self.gap_extend

    @property
    def extend_penalty(self) -> int:
        """The engines' gap-extension penalty ``G_e``."""
        return self.gap_extend

    def gap_cost(self, length: int) -> int:
        """Cost of a gap of ``length`` >= 1 residues: ``G_s + length * G_e`` (equation 2.3)."""
        return self.gap_start + length * self.gap_extend

    def encode(self, text: str) -> np.ndarray:
        """Residue codes (uint8 positions in :attr:`alphabet`) of a normalised sequence.

        ``text`` must hold only letters of the alphabet, as
        :func:`~schedlab.swdual.sequences.read_fasta` returns them.
        """
        codes = self._lookup[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]
        if (codes == 255).any():
            bad = text[int(np.argmax(codes == 255))]
            raise InputError("sequence", field="residue", value=repr(bad), expected=f"a letter of {self.alphabet}")
        return codes

    @cached_property
    def _lookup(self) -> np.ndarray:
        """Byte -> residue code (255: not in the alphabet)."""
        lookup = np.full(256, 255, dtype=np.uint8)
        lookup[np.frombuffer(self.alphabet.encode("ascii"), dtype=np.uint8)] = np.arange(len(self.alphabet))
        return lookup

    def describe(self) -> dict:
        """The scoring parameters as JSON-ready values (both gap conventions)."""
        return {
            "matrix": self.name,
            "gap_start": self.gap_start,
            "gap_extend": self.gap_extend,
            "engine_gap_open": self.open_penalty,
            "engine_gap_extend": self.extend_penalty,
        }
