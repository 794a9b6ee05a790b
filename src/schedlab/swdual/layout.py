"""The GPU kernel's database layout and launch constants, in plain numpy (no CUDA needed to test them).

Source: Liu, Schmidt and Maskell (2010), CUDASW++ 2.0, section 3.1 (the
inter-task kernel: sequences sorted by length, one thread each, residues
interleaved so a warp reads coalesced); Mendonca (2017), chapter 2, section
2.2.3, uses that kernel on its GPU workers.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ALPHA_MAX", "LANES", "NEG", "QCHUNK", "ROWS", "THREADS", "interleave"]

LANES = 32  # sequences per group (one warp)
ROWS = 4  # query rows per pass over a database sequence (kept in registers)
QCHUNK = 128  # query rows of the profile held in shared memory (a multiple of ROWS)
ALPHA_MAX = 32  # profile rows in shared memory (alphabet size bound)
THREADS = 128  # threads per block
NEG = -(1 << 29)  # minus infinity that cannot overflow int32 after subtracting gap costs


def interleave(lengths: np.ndarray, texts_codes: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The warp-interleaved layout of the database : residue ``p`` of lane ``l`` in group ``g`` at ``start[g] + 32 p + l``.

    Returns ``order`` (sorted position -> database row: decreasing length,
    ties by row), ``length`` (per sorted position), ``start`` (per group: the
    offset of its residue 0, lane 0) and ``residues`` (uint8 codes; padding is 0).
    Cost: O(Σ|d| + n log n).
    """
    n = len(lengths)
    order = np.lexsort((np.arange(n), -np.asarray(lengths))).astype(np.int64)
    length = np.asarray(lengths, dtype=np.int64)[order]
    groups = math.ceil(n / LANES)
    width = np.zeros(groups, dtype=np.int64)
    if n:
        width[:] = length[::LANES]  # the first sequence of a group is its longest
    start = np.zeros(groups, dtype=np.int64)
    np.cumsum(width[:-1] * LANES, out=start[1:])
    residues = np.zeros(int((width * LANES).sum()), dtype=np.uint8)
    for t, row in enumerate(order.tolist()):
        g, lane = divmod(t, LANES)
        residues[start[g] + lane : start[g] + lane + LANES * length[t] : LANES] = texts_codes[row]
    return {"order": order, "length": length, "start": start, "residues": residues}
