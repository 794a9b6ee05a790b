"""The reference Smith-Waterman-Gotoh score in plain Python: equations (2.2)-(2.4) cell by cell.

Source: Mendonca (2017), chapter 2, section 2.2.2; Gotoh (1982). Every engine
is tested against this function; it is far too slow for real searches
(about a million cells per second).
"""

from __future__ import annotations

from schedlab.swdual.scoring import Scoring

__all__ = ["gotoh_score"]


def gotoh_score(query: str, target: str, scoring: Scoring) -> int:
    """Best local alignment score of two normalised sequences.

    Source: equations (2.2)-(2.4): ``H_ij = max(H_{i-1,j-1} + S(q_i, d_j),
    E_ij, F_ij, 0)``, ``E_ij = max(E_{i,j-1}, H_{i,j-1} - G_s) - G_e`` and
    ``F_ij = max(F_{i-1,j}, H_{i-1,j} - G_s) - G_e``; first row and column of
    ``H`` are 0, ``E`` and ``F`` start at minus infinity (the thesis is
    silent; Gotoh's initialisation); the score is ``max_ij H_ij``, 0 for an empty sequence.
    Cost: O(|query| |target|) Python steps, O(|target|) memory.
    """
    a = scoring.encode(query).tolist()
    b = scoring.encode(target).tolist()
    rows = scoring.matrix.tolist()
    gs, ge = scoring.gap_start, scoring.gap_extend
    neg = float("-inf")
    h_prev = [0] * (len(b) + 1)  # H row i-1
    f = [neg] * (len(b) + 1)  # F row i-1, then i
    best = 0
    for ca in a:
        row = rows[ca]
        h = [0] * (len(b) + 1)
        e = neg
        for j in range(1, len(b) + 1):
            e = max(e, h[j - 1] - gs) - ge
            f[j] = max(f[j], h_prev[j] - gs) - ge
            cell = max(h_prev[j - 1] + row[b[j - 1]], e, f[j], 0)
            h[j] = cell
            if cell > best:
                best = cell
        h_prev = h
    return int(best)
