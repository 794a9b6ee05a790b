"""Ranked hit lists: the best database sequences of each query, and their TSV form.

Source: Mendonca (2017), chapter 2, section 2.4: the master merges the
workers' results and presents them; SWIPE and CUDASW++ report the best
scores per query (scores only, no traceback). Ties are
broken by database index, so hits never depend on which worker ran a query.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HEADER", "hits_tsv", "top_hits"]

HEADER = "query\ttarget\tscore\trank\n"


def top_hits(scores: np.ndarray, top: int) -> np.ndarray:
    """Database rows of the ``top`` best scores, by decreasing score then increasing row.

    ``top <= 0`` ranks every row. Cost: O(n) selection plus a sort of the
    rows scoring at least the ``top``-th best score.
    """
    scores = np.asarray(scores)
    n = len(scores)
    if top <= 0 or top >= n:
        candidates = np.arange(n)
    else:
        threshold = np.partition(scores, n - top)[n - top]
        candidates = np.nonzero(scores >= threshold)[0]
    order = np.lexsort((candidates, -scores[candidates]))
    ranked = candidates[order]
    return ranked if top <= 0 else ranked[:top]


def hits_tsv(query_names, target_names, rows: list[np.ndarray], scores: list[np.ndarray]) -> str:
    """The hit table: one line per (query, hit), queries in input order, ranks from 1.

    ``rows[j]`` are query ``j``'s ranked database rows and ``scores[j]`` their scores.
    """
    lines = [HEADER]
    for name, hit_rows, hit_scores in zip(query_names, rows, scores, strict=True):
        lines.extend(
            f"{name}\t{target_names[int(r)]}\t{int(s)}\t{rank}\n"
            for rank, (r, s) in enumerate(zip(hit_rows, hit_scores), 1)
        )
    return "".join(lines)
