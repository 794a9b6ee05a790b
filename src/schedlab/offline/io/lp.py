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

* ``"windows"``: the thesis's constraints (C2), one row per position with one
  non-zero per (window, position it covers): ``sum_j K_j q_j`` non-zeros,
  about ``sum_j q_j^2``.
* ``"differences"`` (default): the same ``x_{j,s}`` plus one load variable
  ``L_u`` per position, tied by ``L_u - L_{u-1} = (mass of the footprints
  starting at u) - (mass of those ending at u - 1)``: three non-zeros per
  window at most, whatever its width. On 1,000 jobs of up to 64 compute
  nodes HiGHS solves it several times faster (``benchmarks/bench_io.py``).

The rounding reads ``x`` per job: "the first window whose cumulated ``x``
reaches 1/2".

Guarantee: ``Lambda_LP <= OPT``; after rounding every position of a chosen
footprint has fractional coverage >= 1/2, so ``Lambda_round <= 2 Lambda_LP``
(Lemma 5.7; tested).
Cost: one HiGHS solve with ``sum_j K_j + M + 1`` variables (``K_j <= q_j + 1``
windows) and ``n + 2M`` rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.errors import SchedlabError
from schedlab.offline.quiet import quiet_solver
from schedlab.platform.io_windows import footprint
from schedlab.workload.io_jobs import IOInstance

__all__ = [
    "FORMULATIONS",
    "Dedication",
    "LPSolution",
    "coverage",
    "dedicate",
    "footprints",
    "load",
    "round_half",
    "solve_lp",
]

FORMULATIONS = ("differences", "windows")
_TOL = 1e-7  # solver noise on x


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
    """The LP optimum ``value``, per job the fractions ``x`` over its windows (sorted by start), and the
    LP's size: variables and constraint-matrix non-zeros."""

    value: float
    x: list[np.ndarray]
    formulation: str
    n_vars: int = 0
    nnz: int = 0


def _window_columns(lows, highs, M: int, p) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All windows as flat arrays: owning job, unrolled footprint ``[low, high]`` and the job's ``p``."""
    job = np.concatenate([np.full(len(a), j) for j, a in enumerate(lows)])
    low = np.concatenate(lows)
    high = np.concatenate(highs)
    return job, low, high, p[job]


def solve_lp(inst: IOInstance, *, formulation: str = "differences") -> LPSolution:
    """Solve the dedication LP with HiGHS (``scipy.optimize.linprog``).

    Raises
    ------
    SchedlabError
        If HiGHS does not report an optimum (it always should: x uniform is feasible).
    """
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation {formulation!r}, expected one of {FORMULATIONS}")
    import scipy.sparse as sp  # imported here: scipy costs every command's start
    from scipy.optimize import linprog

    lows, highs, M = footprints(inst)
    n = inst.n
    if n == 0:
        return LPSolution(0.0, [], formulation)
    scale = float(inst.p.max())  # times in units of the longest job: HiGHS needs well-scaled coefficients
    job, low, high, pw = _window_columns(lows, highs, M, inst.p / scale)
    K = job.size  # x variables 0 .. K-1, then (differences) the loads L_0 .. L_{M-1}, then Lambda
    col = np.arange(K)
    eq_r, eq_c, eq_v = [job], [col], [np.ones(K)]  # (C3): sum_s x_{j,s} = 1
    ub_r, ub_c, ub_v = [], [], []
    if formulation == "windows":
        length = high - low + 1
        rep = np.repeat(col, length)
        pos = (np.repeat(low, length) + np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)) % M
        ub_r += [pos, np.arange(M)]
        ub_c += [rep, np.full(M, K)]
        ub_v += [pw[rep], -np.ones(M)]
        n_var, lam = K + 1, K
        b_eq = np.ones(n)
    else:
        # row n + u: L_u - L_{u-1} - (mass of footprints starting at u) + (mass of those ending at u - 1) = 0;
        # a footprint wrapping past M - 1 also starts at 0, one covering all M positions only starts at 0
        first = low % M
        end = first + (high - low)
        full = high - low + 1 >= M
        starts = np.where(full, 0, first)
        stops = ~full & (end + 1 != M)
        wraps = ~full & (end >= M)
        loads = K + np.arange(M)
        eq_r += [
            n + starts,
            n + (end[stops] + 1) % M,
            n + np.zeros(int(wraps.sum()), dtype=np.int64),
            n + np.arange(M),
            n + np.arange(1, M),
        ]
        eq_c += [col, col[stops], col[wraps], loads, loads[:-1]]
        eq_v += [-pw, pw[stops], -pw[wraps], np.ones(M), -np.ones(M - 1)]
        ub_r += [np.arange(M), np.arange(M)]  # L_u - Lambda <= 0
        ub_c += [loads, np.full(M, K + M)]
        ub_v += [np.ones(M), -np.ones(M)]
        n_var, lam = K + M + 1, K + M
        b_eq = np.concatenate([np.ones(n), np.zeros(M)])
    a_eq = sp.csr_matrix((np.concatenate(eq_v), (np.concatenate(eq_r), np.concatenate(eq_c))), shape=(b_eq.size, n_var))
    a_ub = sp.csr_matrix((np.concatenate(ub_v), (np.concatenate(ub_r), np.concatenate(ub_c))), shape=(M, n_var))
    cost = np.zeros(n_var)
    cost[lam] = 1.0
    bounds = np.zeros((n_var, 2))
    bounds[:K, 1] = 1.0
    bounds[K:, 1] = np.inf  # loads and Lambda: >= 0
    # the interior-point method (with HiGHS's crossover to a basic solution) is 3-7x faster than the simplex
    # here; the LP is always feasible, so should it stop short, the simplex solves it again
    for method in ("highs-ipm", "highs-ds"):
        with quiet_solver():  # HiGHS's own messages never reach the terminal
            result = linprog(cost, A_ub=a_ub, b_ub=np.zeros(M), A_eq=a_eq, b_eq=b_eq, bounds=bounds, method=method)
        if result.status == 0:
            break
    if result.status != 0:
        raise SchedlabError(f"dedication LP: HiGHS stopped with status {result.status} ({result.message})")
    x = np.clip(result.x[:K], 0.0, 1.0)
    xs = np.split(x, np.cumsum([len(a) for a in lows])[:-1])
    return LPSolution(float(result.fun) * scale, xs, formulation, n_var, int(a_eq.nnz + a_ub.nnz))


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


def dedicate(inst: IOInstance, *, formulation: str = "differences") -> Dedication:
    """Solve the LP, round it, measure the rounded load (the whole dedication phase)."""
    lp = solve_lp(inst, formulation=formulation)
    chosen = round_half(lp.x)
    loads = load(inst, chosen)
    return Dedication(lp, chosen, loads, float(loads.max(initial=0.0)))
