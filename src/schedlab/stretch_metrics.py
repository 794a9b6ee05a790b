"""Stretch objectives of independent tasks: stretch, flow, load, Delta and the fairness histogram.

Source: Saule, Bozdag and Catalyurek (2014): stretch ``(C_i - r_i) / p_i``
(section 2.1), for moldable tasks relative to the one-processor time p_{i,1}
(section 5), load (section 4.1), Delta = p_max / p_min, and the fairness
histogram of section 7 (share of tasks with stretch > 1 per size class).

Free functions over numpy arrays, row-aligned; they move into
:mod:`schedlab.metrics` when the architecture rework lands.
Cost: O(n) numpy each.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FAIRNESS_BINS", "delta", "fairness_histogram", "load", "stretch", "stretch_summary"]

FAIRNESS_BINS = (("seconds", 60.0), ("minutes", 3600.0), ("hours", 86400.0), ("days", 604800.0), ("weeks", np.inf))
"""Size classes of the sequential time: below 1 min, 1 h, 1 day, 1 week, and beyond (upper bounds in seconds)."""


def stretch(release: np.ndarray, end: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """``(C_i - r_i) / p_{i,1}``: below 1 only for a moldable task that ran on several processors."""
    return (np.asarray(end, dtype=np.float64) - release) / p1


def load(release: np.ndarray, p1: np.ndarray) -> float:
    """``sum_i p_{i,1} / (max_i r_i - min_i r_i)``: how many processors the work keeps busy (section 4.1); inf for one release time."""
    span = float(np.max(release) - np.min(release))
    return float(np.sum(p1)) / span if span > 0 else float("inf")


def delta(p1: np.ndarray) -> float:
    """``max p / min p`` of the sequential times."""
    return float(np.max(p1) / np.min(p1))


def fairness_histogram(stretches: np.ndarray, p1: np.ndarray, bins=FAIRNESS_BINS) -> dict[str, dict[str, float | int]]:
    """Per size class of p_{i,1}: the number of tasks and the share (in %) whose stretch exceeds 1.

    Source: Saule, Bozdag and Catalyurek (2014), section 7.1, Figs. 3(e), 4(e), 5(e).
    Classes with no task have share None.
    """
    out: dict[str, dict[str, float | int]] = {}
    low = 0.0
    for name, high in bins:
        inside = (p1 >= low) & (p1 < high)
        n = int(np.count_nonzero(inside))
        share = 100.0 * float(np.count_nonzero(stretches[inside] > 1.0)) / n if n else None
        out[name] = {"n": n, "share_above_1": share}
        low = high
    return out


def stretch_summary(release: np.ndarray, start: np.ndarray, end: np.ndarray, p1: np.ndarray) -> dict[str, float]:
    """Maximum and average stretch and flow time, load and Delta of one run, as plain floats."""
    s = stretch(release, end, p1)
    flow = np.asarray(end, dtype=np.float64) - release
    return {
        "max_stretch": float(np.max(s)),
        "mean_stretch": float(np.mean(s)),
        "max_flow": float(np.max(flow)),
        "mean_flow": float(np.mean(flow)),
        "load": load(release, p1),
        "delta": delta(p1),
    }
