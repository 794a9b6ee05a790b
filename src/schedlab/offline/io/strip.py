"""Strip packing by shelves: Next-Fit and First-Fit Decreasing Height.

Source: Coffman, Garey, Johnson and Tarjan (1980), "Performance bounds for
level-oriented two-dimensional packing algorithms", SIAM J. Comput. 9(4);
used as the strip-packing step of the unpinned meta-algorithm of Bleuse
(2017), PhD thesis, section 5.2.2 (Lemma 5.3), which names Steinberg's
algorithm; shelf algorithms are the simpler choices with known bounds.

Rectangles of integer width ``w_j <= W`` and height ``h_j`` are sorted by
height, tallest first (ties by index), and packed left to right into shelves
whose height is their first rectangle's. NFDH only ever tries the current
shelf; FFDH tries every shelf from the bottom.

Guarantee: ``NFDH <= 2 A / W + h_max`` and ``FFDH <= 1.7 OPT + h_max``, with
``A`` the total area, so at most 3 and 2.7 times the optimal strip height
(``h_max <= OPT``); the NFDH area bound is tested.
Cost: O(n log n) for NFDH, O(n * shelves) for FFDH.
"""

from __future__ import annotations

import numpy as np

__all__ = ["STRIP_PACKERS", "STRIP_RATIOS", "shelf_pack"]

STRIP_PACKERS = ("nfdh", "ffdh")
STRIP_RATIOS = {"nfdh": 3.0, "ffdh": 2.7}
"""Absolute ratio to the optimal strip height of each packer (``rho'`` in Theorem 5.4)."""


def shelf_pack(widths, heights, strip_width: int, *, method: str = "nfdh") -> tuple[np.ndarray, np.ndarray, float]:
    """Pack rectangles into a strip of width ``strip_width``: returns ``(x, y, height)``.

    ``x`` is each rectangle's left edge (an integer position), ``y`` its
    bottom; ``height`` is the packing's total height.
    """
    if method not in STRIP_PACKERS:
        raise ValueError(f"strip packer {method!r}, expected one of {STRIP_PACKERS}")
    w = np.asarray(widths, dtype=np.int64)
    h = np.asarray(heights, dtype=float)
    n = w.size
    x, y = np.zeros(n, dtype=np.int64), np.zeros(n)
    order = np.lexsort((np.arange(n), -h))
    bases: list[float] = []  # shelf bottoms
    used: list[int] = []  # width used per shelf
    top = 0.0
    for j in order.tolist():
        shelves = range(max(len(bases) - 1, 0), len(bases)) if method == "nfdh" else range(len(bases))
        k = next((s for s in shelves if used[s] + w[j] <= strip_width), None)
        if k is None:
            bases.append(top)
            used.append(0)
            top += float(h[j])
            k = len(bases) - 1
        x[j], y[j] = used[k], bases[k]
        used[k] += int(w[j])
    return x, y, top
