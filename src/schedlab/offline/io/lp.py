"""Dedication phase for pinned I/O: the LP over windows and its 1/2-rounding.

Source: Bleuse (2017), PhD thesis, section 5.3.2 (the LP with constraints
(C1)-(C5), the rounding "to the leftmost node whose cumulated load from j is
at least 0.5", Fig. 5.3; Lemma 5.7: rounding at most doubles the load) and the
ring "unrolled" (same section).

Every job ``j`` picks one of its windows ``s`` (see
:mod:`schedlab.platform.io_windows`) with fraction ``x_{j,s}``; the load of a
position is ``sum p_j x_{j,s}`` over the windows whose footprint covers it
(compute ranks with shared I/O, nodes with exclusive I/O; ambiguity A2); the LP
minimises the largest load ``Lambda``. ``Lambda_LP <= OPT`` since an optimal
schedule's allocations are an integral solution whose load is at most its
makespan.

Two formulations give the same optimum (tested against each other):

* ``"windows"``: the thesis's variables ``x_{j,s}``; constraint (C2) has
  ``sum_j q_j^2`` non-zeros.
* ``"cumulative"`` (default): ``y_{j,s} = x_{j,0} + ... + x_{j,s}``. The
  windows of a job are sorted by start and both ends of their footprints grow
  with it, so the windows covering a position form a range ``lo .. hi`` and
  its coverage is ``y_{j,hi} - y_{j,lo-1}``: two non-zeros per (job,
  position), and the rounding is "the first ``y >= 1/2``".

Guarantee: ``Lambda_LP <= OPT``; after rounding every position of a chosen
footprint has fractional coverage >= 1/2, so ``Lambda_round <= 2 Lambda_LP``
(Lemma 5.7; tested).
Cost: one HiGHS solve with ``sum_j K_j + 1`` variables (``K_j <= q_j + 1``
windows) and ``M + sum_j K_j`` rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from schedlab.errors import SchedlabError
from schedlab.platform.io_windows import footprint
from schedlab.workload.io_jobs import IOInstance

__all__ = ["FORMULATIONS", "Dedication", "LPSolution", "coverage", "dedicate", "footprints", "load", "round_half",
           "solve_lp"]

FORMULATIONS = ("cumulative", "windows")
_TOL = 1e-9


def footprints(inst: IOInstance) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Per job, the footprints of its windows as arrays ``L``, ``R`` (unrolled, inclusive), and the number
    ``M`` of positions (``m_c`` shared, ``m`` exclusive)."""
    plat = inst.platform
    lows, highs = [], []
    for j in range(inst.n):
        fps = [footprint(plat, w) for w in inst.windows(j)]
        lows.append(np.array([a for a, _ in fps], dtype=np.int64))
        highs.append(np.array([b for _, b in fps], dtype=np.int64))
    return lows, highs, plat.m if plat.exclusive else plat.m_c


@dataclass(frozen=True)
class LPSolution:
    """The LP optimum ``value`` and, per job, the fractions ``x`` over its windows (sorted by start)."""

    value: float
    x: list[np.ndarray]
    formulation: str


def _ranges(low: np.ndarray, high: np.ndarray, span_lo: int, span_hi: int):
    """For unrolled positions ``u`` in ``[span_lo, span_hi]``: the first and last window covering ``u``."""
    u = np.arange(span_lo, span_hi + 1)
    first = np.searchsorted(high, u, side="left")  # first s with R_s >= u
    last = np.searchsorted(low, u, side="right") - 1  # last s with L_s <= u
    return u, first, last


def solve_lp(inst: IOInstance, *, formulation: str = "cumulative") -> LPSolution:
    """Solve the dedication LP with HiGHS (``scipy.optimize.linprog``).

    Raises
    ------
    SchedlabError
        If HiGHS does not report an optimum (it always should: x uniform is feasible).
    """
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation {formulation!r}, expected one of {FORMULATIONS}")
    lows, highs, M = footprints(inst)
    n = inst.n
    if n == 0:
        return LPSolution(0.0, [], formulation)
    p = inst.p
    sizes = np.array([len(a) for a in lows])
    rows, cols, vals = [], [], []  # load rows 0..M-1
    const = np.zeros(M)
    eq_rows, eq_cols = [], []
    mono_rows, mono_cols, mono_vals = [], [], []
    offset = 0
    n_mono = 0
    for j in range(n):
        low, high, k = lows[j], highs[j], int(sizes[j])
        if np.any(np.diff(low) < 0) or np.any(np.diff(high) < 0):
            raise SchedlabError(f"job {inst.ids[j]}: window footprints not monotone")  # cannot happen (windows sorted)
        u, first, last = _ranges(low, high, int(low.min()), int(high.max()))
        ok = first <= last
        u, first, last = u[ok], first[ok], last[ok]
        pos = u % M
        if formulation == "windows":
            for s in range(k):
                covered = np.arange(low[s], high[s] + 1) % M
                rows.append(covered)
                cols.append(np.full(covered.size, offset + s))
                vals.append(np.full(covered.size, p[j]))
            eq_rows.append(np.full(k, j))
            eq_cols.append(np.arange(offset, offset + k))
            offset += k
            continue
        # cumulative: variables y_0 .. y_{k-2}; y_{k-1} = 1 is a constant
        plus = last < k - 1
        rows.append(pos[plus])
        cols.append(offset + last[plus])
        vals.append(np.full(int(plus.sum()), p[j]))
        np.add.at(const, pos[~plus], p[j])
        minus = first > 0
        rows.append(pos[minus])
        cols.append(offset + first[minus] - 1)
        vals.append(np.full(int(minus.sum()), -p[j]))
        if k > 2:  # y_{s-1} - y_s <= 0
            idx = np.arange(1, k - 1)
            mono_rows.extend([n_mono + idx - 1, n_mono + idx - 1])
            mono_cols.extend([offset + idx - 1, offset + idx])
            mono_vals.extend([np.ones(k - 2), -np.ones(k - 2)])
            n_mono += k - 2
        offset += k - 1
    n_var = offset + 1  # the last variable is Lambda
    lam = offset
    r = np.concatenate(rows + [np.arange(M)])
    c = np.concatenate(cols + [np.full(M, lam)])
    v = np.concatenate(vals + [np.full(M, -1.0)])
    a_load = sp.csr_matrix((v, (r, c)), shape=(M, n_var))
    b_load = -const
    if formulation == "windows":
        a_ub, b_ub = a_load, b_load
        a_eq = sp.csr_matrix((np.ones(offset), (np.concatenate(eq_rows), np.concatenate(eq_cols))), shape=(n, n_var))
        b_eq = np.ones(n)
    else:
        if n_mono:
            a_mono = sp.csr_matrix((np.concatenate(mono_vals), (np.concatenate(mono_rows), np.concatenate(mono_cols))),
                                   shape=(n_mono, n_var))
            a_ub = sp.vstack([a_load, a_mono], format="csr")
            b_ub = np.concatenate([b_load, np.zeros(n_mono)])
        else:
            a_ub, b_ub = a_load, b_load
        a_eq, b_eq = None, None
    cost = np.zeros(n_var)
    cost[lam] = 1.0
    bounds = np.zeros((n_var, 2))
    bounds[:, 1] = 1.0
    bounds[lam] = (0.0, None)
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if result.status != 0:
        raise SchedlabError(f"dedication LP: HiGHS stopped with status {result.status} ({result.message})")
    sol = result.x
    xs, offset = [], 0
    for j in range(n):
        k = int(sizes[j])
        if formulation == "windows":
            xs.append(np.clip(sol[offset: offset + k], 0.0, 1.0))
            offset += k
        else:
            y = np.concatenate([sol[offset: offset + k - 1], [1.0]])
            xs.append(np.clip(np.diff(y, prepend=0.0), 0.0, 1.0))
            offset += k - 1
    return LPSolution(float(result.fun), xs, formulation)


def round_half(x: list[np.ndarray]) -> np.ndarray:
    """Lemma 5.7's rounding: per job, the first window (by start) whose cumulated fraction reaches 1/2."""
    return np.array([int(np.argmax(np.cumsum(xj) >= 0.5 - _TOL)) for xj in x], dtype=np.int64)


def load(inst: IOInstance, chosen: np.ndarray) -> np.ndarray:
    """Per position (compute rank, or node with exclusive I/O), the total ``p`` of the chosen footprints."""
    lows, highs, M = footprints(inst)
    diff = np.zeros(M + 1)
    for j in range(inst.n):
        a, b = int(lows[j][chosen[j]]), int(highs[j][chosen[j]])
        for lo, hi in _wrap(a, b, M):
            diff[lo] += inst.p[j]
            diff[hi + 1] -= inst.p[j]
    return np.cumsum(diff[:-1])


def _wrap(a: int, b: int, M: int) -> list[tuple[int, int]]:
    """An unrolled inclusive interval of length <= M as one or two intervals of ``0 .. M-1``."""
    lo = a % M
    hi = lo + (b - a)
    return [(lo, hi)] if hi < M else [(lo, M - 1), (0, hi - M)]


def coverage(inst: IOInstance, x: list[np.ndarray], j: int, s: int) -> np.ndarray:
    """Fractional mass of job ``j`` on each position of its window ``s``'s footprint (the quantity Lemma 5.7
    bounds below by 1/2 after rounding)."""
    lows, highs, M = footprints(inst)
    low, high = lows[j], highs[j]
    u = np.arange(low[s], high[s] + 1)
    return np.array([x[j][(low <= v) & (high >= v)].sum() for v in u])


@dataclass(frozen=True)
class Dedication:
    """LP value, chosen window per job, the rounded load and its maximum."""

    lp: LPSolution
    chosen: np.ndarray
    load: np.ndarray
    rounded: float


def dedicate(inst: IOInstance, *, formulation: str = "cumulative") -> Dedication:
    """Solve the LP, round it, measure the rounded load (the whole dedication phase)."""
    lp = solve_lp(inst, formulation=formulation)
    chosen = round_half(lp.x)
    loads = load(inst, chosen)
    return Dedication(lp, chosen, loads, float(loads.max(initial=0.0)))
