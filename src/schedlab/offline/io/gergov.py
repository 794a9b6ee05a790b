"""Gergov's algorithm for jobs on fixed intervals of a line (``P|fix_j|Cmax`` with interval footprints).

Source: Bleuse (2017), PhD thesis, section 5.3.2, Algorithm 3 (reconstructed
from a garbled extraction), Lemma 5.8 and Theorem 5.10; Gergov (1999),
"Algorithms for compile-time memory optimization", SODA.

Phase 1, *incremental 2-allocation*: pillars ``(h, l, r)`` (a height over
positions ``l .. r``) in a min-priority queue, starting from ``(0, 0, M - 1)``.
Pop the lowest pillar; stack on it the first job, in list order, whose
interval meets the pillar and no other live pillar; replace the pillar by the
pillar on top of the job and the uncovered parts left and right of it. A
pillar no job fits is discarded (jobs may later reach into its positions,
which is where two jobs can overlap). Phase 2, *feasible scheduling*: colour
the jobs first-fit in list order so that jobs of one colour never overlap,
then run the colours one after another, each shelf compressed to its own
height ``hi - lo``.

Guarantee: no position and time is covered by three jobs, the phase-1 height
is at most the maximum load ``Lambda``, three colours suffice, so
``Cmax <= 3 Lambda`` (Lemma 5.8, tested on random instances); on the
instance of Theorem 5.10 with jobs in index order the makespan is ``3M - 2``
against ``OPT = Lambda = M`` (tested for M = 2 .. 10).
Cost: O(n) pops, each scanning the unplaced jobs with numpy (O(n^2) in all),
and O(n^2) for the colouring.

Notes
-----
Choices where the text is silent or garbled (ambiguities A4-A6): pillars are
closed intervals and the side pillars are ``[l, L - 1]`` and ``[R + 1, r]``;
"j only intersects with p" means j meets p and no *live* pillar (discarded
regions may be entered); the first such job in list order is taken; pillars
pop by ``(h, l, r)``; colours are first-fit in list order and shelves are
compressed by default, the two conventions that reproduce Theorem 5.10's
``3M - 2``; both are parameters.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from dataclasses import dataclass

import numpy as np

__all__ = ["COLOUR_ORDERS", "SHELVES", "GergovResult", "gergov", "tight_instance"]


@dataclass(frozen=True)
class GergovResult:
    """Final ``start`` per job, the phase-1 (infeasible) starts ``phase1``, the ``colour`` per job, the
    phase-1 ``height`` and the ``makespan``."""

    start: np.ndarray
    phase1: np.ndarray
    colour: np.ndarray
    height: float
    makespan: float

    @property
    def n_colours(self) -> int:
        return int(self.colour.max()) + 1 if self.colour.size else 0


SHELVES = ("compressed", "uncompressed")
COLOUR_ORDERS = ("list", "placement")


def gergov(
    low, high, p, n_positions: int, order=None, *, shelves: str = "compressed", colour_order: str = "list"
) -> GergovResult:
    """Schedule jobs on fixed closed intervals ``[low_j, high_j]`` of positions ``0 .. n_positions - 1``.

    Parameters
    ----------
    low, high : int arrays (n,)
        Each job's leftmost and rightmost position.
    p : float array (n,)
        Processing times, > 0.
    n_positions : int
        ``M``: compute ranks with shared I/O, nodes with exclusive I/O.
    order : int array, optional
        The list order (default: index order, the order of Theorem 5.10).
    shelves : {"compressed", "uncompressed"}
        A colour's shelf spans its jobs' phase-1 times ``[lo, hi]``
        (compressed, ``3M - 2`` on Theorem 5.10's instance) or ``[0, hi]``
        (``3M``); ambiguity A6.
    colour_order : {"list", "placement"}
        First-fit colouring in list order, or in the order phase 1 placed the
        jobs (2 colours on Theorem 5.10's instance); ambiguity A6.
    """
    if shelves not in SHELVES or colour_order not in COLOUR_ORDERS:
        raise ValueError(f"shelves {shelves!r} / colour_order {colour_order!r}: expected {SHELVES} / {COLOUR_ORDERS}")
    low = np.asarray(low, dtype=np.int64)
    high = np.asarray(high, dtype=np.int64)
    p = np.asarray(p, dtype=float)
    n = low.size
    order = np.arange(n) if order is None else np.asarray(order, dtype=np.int64)
    lo_o, hi_o = low[order], high[order]
    placed = np.zeros(n, dtype=bool)  # by list position
    phase1 = np.zeros(n)
    placement: list[int] = []
    heap = [(0.0, 0, n_positions - 1)]
    live_l: list[int] = [0]  # left ends of live pillars, sorted (live pillars are disjoint)
    live_r: dict[int, int] = {0: n_positions - 1}
    remaining = n
    while remaining:
        h, l, r = heapq.heappop(heap)
        k = bisect_left(live_l, l)
        del live_l[k]
        del live_r[l]
        left_end = live_r[live_l[k - 1]] if k > 0 else -1  # right end of the live pillar on the left
        right_start = live_l[k] if k < len(live_l) else n_positions  # left end of the live pillar on the right
        fits = ~placed & (lo_o > left_end) & (hi_o < right_start) & (lo_o <= r) & (hi_o >= l)
        if not fits.any():
            continue  # discarded pillar
        i = int(np.argmax(fits))
        placed[i] = True
        remaining -= 1
        job = int(order[i])
        placement.append(job)
        phase1[job] = h
        L, R = int(lo_o[i]), int(hi_o[i])
        for pillar in ((h + float(p[job]), max(l, L), min(r, R)), (h, l, L - 1), (h, R + 1, r)):
            if pillar[1] <= pillar[2]:
                heapq.heappush(heap, pillar)
                insort(live_l, pillar[1])
                live_r[pillar[1]] = pillar[2]
    height = float((phase1 + p).max(initial=0.0))
    colour = _first_fit(low, high, phase1, p, order if colour_order == "list" else np.array(placement))
    start = np.zeros(n)
    offset = 0.0
    for c in range(int(colour.max(initial=-1)) + 1):
        members = colour == c
        lo_t = float(phase1[members].min()) if shelves == "compressed" else 0.0
        hi_t = float((phase1[members] + p[members]).max())
        start[members] = offset + phase1[members] - lo_t
        offset += hi_t - lo_t
    return GergovResult(start, phase1, colour, height, offset)


def _first_fit(low, high, s, p, order) -> np.ndarray:
    """Smallest colour not used by an already coloured job that overlaps in space and in time."""
    n = low.size
    colour = np.full(n, -1, dtype=np.int64)
    end = s + p
    for job in order.tolist():
        done = colour >= 0
        clash = done & (low <= high[job]) & (high >= low[job]) & (s < end[job]) & (s[job] < end)
        used = set(colour[clash].tolist())
        c = 0
        while c in used:
            c += 1
        colour[job] = c
    return colour


def tight_instance(M: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Theorem 5.10's instance: ``3M + 1`` positions and ``4M`` unit jobs in four families.

    For k = 0 .. M - 1: ``q_{4k} = [0, M - k]``, ``q_{4k+1} = [3M - k, 3M]``,
    ``q_{4k+2} = [M - k, M + k]``, ``q_{4k+3} = [M + k, 3M - k]`` (k = 0 gives
    the single positions 0, 3M, M and 2M). The load is M everywhere, so OPT = M.
    Returns ``(low, high, p, n_positions)``.
    """
    low, high = [], []
    for k in range(M):
        fam = (
            ((0, M - k), (3 * M - k, 3 * M), (M - k, M + k), (M + k, 3 * M - k))
            if k
            else ((0, 0), (3 * M, 3 * M), (M, M), (2 * M, 2 * M))
        )
        for a, b in fam:
            low.append(a)
            high.append(b)
    return np.array(low), np.array(high), np.ones(4 * M), 3 * M + 1
