"""The binary search on the target stretch S that DASEDF and DBOS share.

Source: Saule, Bozdag and Catalyurek (2014), section 3.2 (dual approximation:
test a target stretch, keep the smallest valid one) and Algorithm 2, line 2.

Guarantee: returns a valid S within ``eps`` (relative) of an invalid one, or
``lo`` itself when it is valid; ``hi`` must be valid. Validity need not be
monotone in S (the EDF order depends on S), so this is the paper's heuristic,
not an exact minimum.
Cost: O(log log(hi / lo) + log(1 / eps)) calls of ``valid``; about 5 with a good hint.
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["smallest_valid"]


def smallest_valid(
    lo: float, hi: float, valid: Callable[[float], bool], *, eps: float = 1e-3, hint: float | None = None
) -> float:
    """The smallest target stretch found valid between ``lo`` and ``hi`` (both > 0).

    Parameters
    ----------
    lo, hi : float
        A lower bound (returned at once when valid) and a valid upper bound, ``0 < lo <= hi``.
    valid : callable(float) -> bool
        The validity test of a target stretch.
    eps : float, default 1e-3
        Relative precision: the search stops when ``hi - lo <= eps * hi``.
    hint : float, optional
        Where the answer probably is (the previous decision's S): the search first tests ``hint`` and its
        neighbour ``hint -/+ 4 eps hint``; when the answer lies between them, two more tests finish it.

    Notes
    -----
    The paper leaves the precision and the bounds open. The midpoint is
    geometric while ``hi > 2 lo`` (upper bounds such as ``sum p / min p`` span
    many orders of magnitude on real logs, where Delta reaches 1e8) and
    arithmetic after, so a search costs about ``log2 log2(hi / lo) + log2(1 / eps)`` tests (14 or so), and
    about 5 when the hint is within ``4 eps`` of the answer (online, S moves little from one event to the next).
    """
    if valid(lo):
        return lo
    if hint is not None and lo < hint < hi:
        step = 4.0 * eps * hint
        if valid(hint):
            hi, near = hint, hint - step
        else:
            lo, near = hint, hint + step
        if lo < near < hi:
            if valid(near):
                hi = near
            else:
                lo = near
    while hi - lo > eps * hi:
        mid = math.sqrt(lo * hi) if hi > 2.0 * lo else 0.5 * (lo + hi)
        if not lo < mid < hi:  # floating-point floor reached
            break
        if valid(mid):
            hi = mid
        else:
            lo = mid
    return hi
