"""Baselines without proven guarantee: greedy list scheduling, with and without the shape constraints.

Source: none in Bleuse (2017), PhD thesis, chapters 5-6, which prove bounds
but run no experiment; these are the natural heuristics the approximation
algorithms are measured against, and the relaxations that price the
constraints (convexity and locality) in the study.

All three place the jobs longest first (ties: widest, then index), each at the
earliest time the positions it would occupy are all free after the jobs
placed before it (no insertion into earlier holes):

* :func:`greedy`: over the job's convex and local allocations (its windows),
  a valid schedule of the model;
* :func:`relaxed_makespan` with ``"convex"``: any ``q`` consecutive compute
  ranks, I/O ignored (the price of locality);
* :func:`relaxed_makespan` with ``"none"``: any ``q`` compute nodes, the ``q``
  that free first (the price of both constraints).

Guarantee: none proven; every :func:`greedy` schedule passes the checker (tested).
Cost: O(n K q) for :func:`greedy` (K windows per job), O(n m_c q) for
``"convex"``, O(n m_c log m_c) for ``"none"``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from schedlab.offline.io.schedule import io_schedule
from schedlab.platform.io import IOPlatform
from schedlab.platform.io_windows import EMPTY_WINDOW, Window, footprint, unpinned_windows
from schedlab.schedule import Schedule
from schedlab.workload.io_jobs import IOInstance

__all__ = ["RELAXATIONS", "greedy", "list_schedule", "relaxed_makespan"]

RELAXATIONS = ("convex", "none")


def _order(inst: IOInstance) -> list[int]:
    return np.lexsort((np.arange(inst.n), -inst.q, -inst.p)).tolist()


@lru_cache(maxsize=1024)
def _unpinned(platform: IOPlatform, size: int, count: int) -> tuple[Window, ...]:
    return tuple(unpinned_windows(platform, size, count))


def list_schedule(inst: IOInstance, candidates: Callable[[int], Sequence[Window]], name: str) -> Schedule:
    """Jobs longest first, each on the candidate window that starts it first (the first one on ties), as
    early as the positions of its footprint are free after the jobs placed before it."""
    plat = inst.platform
    M = plat.m if plat.exclusive else plat.m_c
    avail = np.zeros(M)
    start = np.zeros(inst.n)
    chosen: list[Window] = [EMPTY_WINDOW] * inst.n
    for j in _order(inst):
        best: tuple[float, Window, np.ndarray] | None = None
        for w in candidates(j):
            a, b = footprint(plat, w)
            positions = np.arange(a, b + 1) % M
            t = float(avail[positions].max())
            if best is None or t < best[0]:
                best = (t, w, positions)
        assert best is not None  # every job has a window (checked when the instance is built)
        t, w, positions = best
        start[j], chosen[j] = t, w
        avail[positions] = t + float(inst.p[j])
    return io_schedule(inst, start, chosen, name)


def greedy(inst: IOInstance) -> Schedule:
    """List scheduling over convex and local allocations: each job on the window that starts it first
    (lowest start rank on ties)."""
    plat = inst.platform

    def windows(j: int) -> Sequence[Window]:
        request = inst.io[j]
        return _unpinned(plat, int(inst.q[j]), request) if isinstance(request, int) else inst.windows(j)

    return list_schedule(inst, windows, "greedy")


def relaxed_makespan(inst: IOInstance, constraints: str = "none") -> float:
    """Makespan of greedy list scheduling on a relaxation of the model (not a valid schedule of it).

    ``constraints``: ``"convex"`` keeps convexity (consecutive compute ranks,
    cyclically on a ring) and drops locality and I/O; ``"none"`` drops both.
    """
    if constraints not in RELAXATIONS:
        raise ValueError(f"constraints {constraints!r}, expected one of {RELAXATIONS}")
    plat = inst.platform
    m_c = plat.m_c
    avail = np.zeros(m_c)
    for j in _order(inst):
        q, p = int(inst.q[j]), float(inst.p[j])
        if constraints == "none":
            chosen = np.argsort(avail, kind="stable")[:q]
            t = float(avail[chosen].max())
            avail[chosen] = t + p
            continue
        ext = np.concatenate([avail, avail[: q - 1]]) if plat.ring else avail
        earliest = sliding_window_view(ext, q).max(axis=1)
        a = int(np.argmin(earliest))
        avail[np.arange(a, a + q) % m_c] = float(earliest[a]) + p
    return float(avail.max(initial=0.0))
