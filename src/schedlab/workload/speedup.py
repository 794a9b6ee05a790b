"""Downey's speed-up model: how fast a moldable job runs on n processors, from its average parallelism A and variance sigma.

Source: A. B. Downey, "A parallel workload model and its implications for
processor allocation", HPDC 1997 (Cluster Computing 1(1), 1998), section 3;
used by Saule, Bozdag and Catalyurek (2014), section 7, as in Sabin et al. (2006).

With ``S(n)`` the speed-up on n processors, ``p(n) = p(1) / S(n)``:

* sigma <= 1: ``S(n) = A n / (A + sigma (n - 1) / 2)`` for ``1 <= n <= A``;
  ``A n / (sigma (A - 1/2) + n (1 - sigma / 2))`` for ``A <= n <= 2A - 1``; ``A`` beyond;
* sigma > 1: ``S(n) = n A (sigma + 1) / (sigma (n + A - 1) + A)`` for
  ``1 <= n <= A + A sigma - sigma``; ``A`` beyond.

``S(1) = 1``, S is continuous and non-decreasing in n, and sigma = 0 gives
``min(n, A)`` (tested), so run times never grow with more processors.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_downey", "downey_speedup", "downey_times"]


def check_downey(a: np.ndarray | float, sigma: np.ndarray | float) -> np.ndarray:
    """Boolean mask of the parameter pairs out of the model's range: ``A >= 1`` and ``sigma >= 0``, finite."""
    a = np.asarray(a, dtype=np.float64)
    sigma = np.asarray(sigma, dtype=np.float64)
    return ~(np.isfinite(a) & (a >= 1.0) & np.isfinite(sigma) & (sigma >= 0.0))


def downey_speedup(n, a, sigma) -> np.ndarray:
    """``S(n)`` for arrays (broadcast) of processor counts ``n >= 1``, ``A >= 1`` and ``sigma >= 0``.

    Cost: O(size of the broadcast) numpy.
    """
    n, a, sigma = np.broadcast_arrays(
        np.asarray(n, dtype=np.float64), np.asarray(a, dtype=np.float64), np.asarray(sigma, dtype=np.float64)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        low = a * n / (a + sigma * (n - 1) / 2)
        mid = a * n / (sigma * (a - 0.5) + n * (1 - sigma / 2))
        high = n * a * (sigma + 1) / (sigma * (n + a - 1) + a)
    small = np.where(n <= a, low, np.where(n <= 2 * a - 1, mid, a))
    large = np.where(n <= a + a * sigma - sigma, high, a)
    return np.where(sigma <= 1, small, large)


def downey_times(p1, a, sigma, m: int) -> np.ndarray:
    """Run times ``p(1) / S(j)`` for j = 1..m: an (n, m) table, one row per job.

    A running minimum along j removes rounding wiggles, so each row is exactly non-increasing.
    """
    p1 = np.asarray(p1, dtype=np.float64)[:, None]
    j = np.arange(1, m + 1, dtype=np.float64)[None, :]
    times = p1 / downey_speedup(
        j, np.asarray(a, dtype=np.float64)[:, None], np.asarray(sigma, dtype=np.float64)[:, None]
    )
    times[:, 0] = p1[:, 0]
    return np.minimum.accumulate(times, axis=1)
