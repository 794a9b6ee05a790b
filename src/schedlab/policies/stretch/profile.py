"""Free-processor profiles for planning moldable tasks: earliest fits, smallest allocations, reservations.

Source: the availability profile of conservative backfilling (Mu'alem and
Feitelson 2001), counted rather than per processor, as the moldable
schedulers of Saule, Bozdag and Catalyurek (2014), sections 5.4-6, need.

A profile is two arrays and a length: ``T[0] = now < T[1] < ... < T[K-1]``
and ``F[k]`` free processors on ``[T[k], T[k+1])`` (the last segment runs
forever with every processor free). Processors are bound to tasks only when
they start, so a count is exact (interval colouring).

Cost: an earliest fit is O(K); inserting a reservation O(K); the smallest
allocation meeting a deadline O(W log W + log m) for W segments before the deadline.
"""

from __future__ import annotations

import numpy as np

from schedlab.policies.stretch.jit import njit

__all__ = ["build_profile", "copy_profile", "earliest_fit", "reserve", "smallest_fit"]

TOLERANCE = 1e-9
"""Relative slack on time comparisons (times reach 1e8 s; bisection rounds)."""


@njit
def _slack(time):
    return TOLERANCE * max(1.0, abs(time))


@njit
def build_profile(now, m, run_end, run_procs, capacity):
    """The profile at ``now`` of running tasks (end time, processors), in arrays of ``capacity`` entries."""
    cap = max(capacity, run_end.shape[0] + 1)
    T = np.empty(cap)
    F = np.empty(cap, dtype=np.int64)
    busy = 0
    for k in range(run_end.shape[0]):
        if run_end[k] > now:
            busy += run_procs[k]
    T[0] = now
    F[0] = m - busy
    size = 1
    for k in np.argsort(run_end, kind="mergesort"):
        e = run_end[k]
        if e <= now:
            continue
        if e == T[size - 1]:
            F[size - 1] += run_procs[k]
        else:
            T[size] = e
            F[size] = F[size - 1] + run_procs[k]
            size += 1
    return T, F, size


@njit
def copy_profile(T0, F0, size0, n):
    """A copy of the profile ``T0, F0`` (``size0`` segments) with room for ``n`` more reservations (2 segments each)."""
    T = np.empty(size0 + 2 * n + 2)
    F = np.empty(size0 + 2 * n + 2, dtype=np.int64)
    T[:size0] = T0[:size0]
    F[:size0] = F0[:size0]
    return T, F


@njit
def earliest_fit(T, F, size, procs, duration):
    """Earliest ``x`` with ``procs`` processors free over ``[x, x + duration)``, and the end of that free run."""
    inside = False
    begin = 0.0
    for k in range(size):
        if F[k] >= procs:
            if not inside:
                inside = True
                begin = T[k]
            end = T[k + 1] if k + 1 < size else np.inf
            if end - begin + _slack(end) >= duration:
                return begin, end
        else:
            inside = False
    return np.inf, np.inf  # unreachable when procs <= m: the last segment is all free


@njit
def _breakpoint(T, F, size, time):
    """Index of the segment starting at ``time``, splitting the one that contains it; returns (index, size)."""
    k = np.searchsorted(T[:size], time, side="right") - 1
    if T[k] == time:
        return k, size
    T[k + 2 : size + 1] = T[k + 1 : size].copy()
    F[k + 2 : size + 1] = F[k + 1 : size].copy()
    T[k + 1] = time
    F[k + 1] = F[k]
    return k + 1, size + 1


@njit
def reserve(T, F, size, begin, end, procs):
    """Take ``procs`` processors over ``[begin, end)``; returns the new size (at most 2 more segments)."""
    first, size = _breakpoint(T, F, size, begin)
    if end == np.inf:
        last = size
    else:
        last, size = _breakpoint(T, F, size, end)
    for k in range(first, last):
        F[k] -= procs
    return size


@njit
def smallest_fit(T, F, size, times, deadline):
    """The smallest j such that j processors are free for ``times[j - 1]`` within ``[now, deadline]``.

    Returns ``(j, x, run_end)`` with x the earliest such start on j processors
    and the end of its free run, or ``(0, inf, inf)`` when no j fits.
    ``times`` must be non-increasing. For every window segment the widest
    interval around it with at least as many free processors is found with a
    stack; the widest interval with >= j free is then a step function of j, and
    each of its steps is searched by bisection on ``times``.
    """
    m = times.shape[0]
    w = 0
    while w < size and T[w] < deadline:
        w += 1
    if w == 0:
        return 0, np.inf, np.inf
    seg_end = np.empty(w)
    for k in range(w):
        seg_end[k] = min(T[k + 1] if k + 1 < size else np.inf, deadline)
    left = np.empty(w)
    width = np.empty(w)
    stack = np.empty(w, dtype=np.int64)
    top = 0
    for k in range(w):
        while top > 0 and F[stack[top - 1]] >= F[k]:
            top -= 1
        left[k] = T[stack[top - 1] + 1] if top > 0 else T[0]
        stack[top] = k
        top += 1
    top = 0
    for k in range(w - 1, -1, -1):
        while top > 0 and F[stack[top - 1]] >= F[k]:
            top -= 1
        right = seg_end[stack[top - 1] - 1] if top > 0 else seg_end[w - 1]
        width[k] = right - left[k]
        stack[top] = k
        top += 1
    order = np.argsort(-F[:w], kind="mergesort")
    levels = np.empty(w, dtype=np.int64)
    best = np.empty(w)
    n_levels = 0
    widest = 0.0
    for idx in range(w):  # levels by decreasing free count: widest run with at least that many free
        k = order[idx]
        widest = max(widest, width[k])
        if n_levels > 0 and levels[n_levels - 1] == F[k]:
            best[n_levels - 1] = widest
        else:
            levels[n_levels] = F[k]
            best[n_levels] = widest
            n_levels += 1
    slack = _slack(deadline)
    low = 1
    for idx in range(n_levels - 1, -1, -1):  # increasing levels: j in [low, level] sees the widest run best[idx]
        level = min(levels[idx], m)
        if level < low:
            continue
        if times[level - 1] <= best[idx] + slack:
            lo, hi = low, level
            while lo < hi:
                mid = (lo + hi) // 2
                if times[mid - 1] <= best[idx] + slack:
                    hi = mid
                else:
                    lo = mid + 1
            x, run_end = earliest_fit(T, F, size, lo, times[lo - 1])
            return lo, x, run_end
        low = level + 1
    return 0, np.inf, np.inf
