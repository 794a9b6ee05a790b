"""Plans for pending sequential tasks: in which order list scheduling takes them (FCFS or DASEDF's EDF).

Source: Saule, Bozdag and Catalyurek (2014), sections 3.1 (FCFS) and 3.2
(DASEDF: binary search on the target stretch S with EDF list scheduling).

A plan is an order of the pending tasks; list scheduling that order on the
processors' availabilities gives every start, and the tasks that start now
are the first ones, one per idle processor. Pending tasks are given in
(release, id) order, which breaks every tie.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.errors import InputError
from schedlab.policies.stretch.edf import VALIDITY_TESTS, edf_order, list_schedule, meets_deadlines, paper_test
from schedlab.policies.stretch.search import smallest_valid

__all__ = ["DasedfPlanner", "FcfsPlanner", "dasedf_stretch", "predicted_stretch"]


def dasedf_stretch(
    now: float,
    avail: np.ndarray,
    release: np.ndarray,
    p: np.ndarray,
    *,
    eps: float = 1e-3,
    validity: str = "exact",
    hint: float | None = None,
) -> float:
    """DASEDF's target stretch: the smallest S found valid by binary search.

    Source: Saule, Bozdag and Catalyurek (2014), section 3.2 and Theorem 3.3.
    Guarantee: with ``validity="paper"``, EDF at the returned S gives every
    task a stretch below ``S + 1 - 1/m`` (Lemma 3.2, tested); with ``"exact"``
    EDF meets every deadline ``r_i + S p_i``.
    Cost: O(n log n) per test, O(log log(UB / LB) + log(1 / eps)) tests.

    Parameters
    ----------
    now : float
        Decision time.
    avail : float array (m,)
        When each processor is free (>= now): the end of the task it runs, or now.
    release, p : float arrays (n,)
        Pending tasks, in (release, id) order.
    eps : float
        Relative precision of the search.
    hint : float, optional
        Where S probably is (the previous decision's), see :func:`~schedlab.policies.stretch.search.smallest_valid`.
    validity : {"exact", "paper"}
        ``exact``: EDF(S) meets every deadline; ``paper``: the necessary
        condition of Lemma 3.2, ``d_i >= now + (sum_q (a_q - now) + sum_{i' <= i} p_i') / m``.

    Notes
    -----
    Bounds (the paper's, completed): LB = max_i (now - r_i + p_i) / p_i,
    every task starting now; UB = LB + (sum p + max_q (a_q - now)) / min p,
    where every deadline is met by any list schedule. The paper writes its
    test with ``i' < i``; the ``<=`` form of the proof of Lemma 3.2 is used,
    which is still necessary and is the one Theorem 3.3's bound needs.
    """
    lower = float(np.max((now - release + p) / p))
    if release.shape[0] <= np.count_nonzero(avail <= now):
        return lower  # every task starts now
    p_min = float(p.min())
    upper = lower + (float(p.sum()) + float(avail.max()) - now) / p_min
    if validity == "exact":

        def valid(s: float) -> bool:
            return meets_deadlines(avail, release, p, s)
    else:

        def valid(s: float) -> bool:
            return paper_test(avail, now, release, p, s)

    return smallest_valid(lower, upper, valid, eps=eps, hint=hint)


def predicted_stretch(avail: np.ndarray, order: np.ndarray, release: np.ndarray, p: np.ndarray) -> float:
    """Largest stretch ``(C_i - r_i) / p_i`` of the pending tasks when list scheduling takes them in ``order``."""
    start = list_schedule(avail, order, p)
    return float(np.max((start + p - release) / p))


class FcfsPlanner:
    """FCFS: the pending tasks in release order (Saule et al. 2014, section 3.1)."""

    name = "fcfs"

    def order(
        self, now: float, avail: np.ndarray, release: np.ndarray, p: np.ndarray, hint: float | None = None
    ) -> tuple[np.ndarray, float]:
        """(the plan's order, nan): FCFS has no target stretch."""
        return np.arange(release.shape[0]), float("nan")


@dataclass(frozen=True)
class DasedfPlanner:
    """DASEDF: EDF order at the smallest valid target stretch (Saule et al. 2014, section 3.2)."""

    eps: float = 1e-3
    validity: str = "exact"
    name = "dasedf"

    def __post_init__(self) -> None:
        if self.validity not in VALIDITY_TESTS:
            raise InputError(
                "policy", field="dasedf validity", value=self.validity, expected=" or ".join(VALIDITY_TESTS)
            )
        if not 0 < self.eps < 1:
            raise InputError("policy", field="dasedf eps", value=self.eps, expected="0 < eps < 1")

    def order(
        self, now: float, avail: np.ndarray, release: np.ndarray, p: np.ndarray, hint: float | None = None
    ) -> tuple[np.ndarray, float]:
        """(EDF order at the target stretch S, S); ``hint``: the part's previous S, to start the search there."""
        s = dasedf_stretch(now, avail, release, p, eps=self.eps, validity=self.validity, hint=hint)
        return edf_order(release, p, s), s
