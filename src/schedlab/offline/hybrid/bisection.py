"""The dual-approximation driver: bisection on the guess λ between a lower and an upper bound.

Source: Bleuse (2017), ch. 2 Algorithm 2 and ch. 3 section 3.6.3; Mendonca (2017),
ch. 2 section 2.3 ("Binary Search"); reading BH-7 (docs/readings.md).

A step ``step(instance, lam) -> (schedule | None, info)`` is a ρ-dual
algorithm: given ``lam >= OPT`` it returns a schedule of makespan <= ρ·lam;
``None`` proves ``OPT > lam``. Acceptance need not be monotone in λ, which does
not matter: every rejection is sound, so ``lower <= OPT`` throughout.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from time import perf_counter

from schedlab.errors import ArgumentError
from schedlab.offline.hybrid.bounds import bounds
from schedlab.offline.hybrid.schedule import HybridError, SearchInfo, SearchStep, renamed
from schedlab.parameters import Param
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = ["CUTOFF", "Step", "dual_search"]

CUTOFF = Param("stop the bisection once the upper bound is within this factor of the lower one", low=1, open_low=True)
"""The ``cutoff`` parameter of every algorithm that bisects with :func:`dual_search`."""

Step = Callable[[HybridInstance, float], "tuple[Schedule | None, dict]"]


def dual_search(
    instance: HybridInstance,
    step: Step,
    *,
    cutoff: float | None = None,
    eps: float | None = None,
    lower: float | None = None,
    upper: float | None = None,
    name: str = "",
    max_steps: int = 200,
) -> Schedule:
    """Bisection over λ; returns the accepted schedule of smallest makespan, with its :class:`SearchInfo`.

    Source: reading BH-7 (docs/readings.md): bounds ``LB = max(longest, area)``
    and ``UB = Σ_j min(p_j, p̄_{j,max})``; the step is evaluated at ``UB``
    first (a feasible makespan, so a ρ-dual step must accept it).
    Guarantee: with ``cutoff`` c the result is <= ρ·c·OPT; with ``eps`` it is
    <= ρ·(OPT + eps).
    Cost: ``log2(log(UB/LB) / log c)`` steps (cutoff) or ``log2((UB-LB)/eps)`` (eps).

    Parameters
    ----------
    instance : HybridInstance
    step : callable
        ``step(instance, lam) -> (schedule or None, info dict)``.
    cutoff : float, optional
        Stop when ``upper <= cutoff * lower`` (ratio rule of ch. 3; 1.01 there).
    eps : float, optional
        Stop when ``upper - lower <= eps`` (absolute rule of ch. 2, Algorithm 2).
        Exactly one of ``cutoff`` and ``eps`` is given.
    lower, upper : float, optional
        Override the bounds of :func:`~schedlab.offline.hybrid.bounds.bounds`.
    name : str
        Algorithm name stored in the result.

    Returns
    -------
    Schedule
        Among accepted steps, the one of smallest makespan (ties: the smaller
        λ, i.e. the later step). ``search.lam`` is its λ, ``search.upper`` the
        smallest accepted λ and ``search.lower`` the largest rejected one (or LB).

    Raises
    ------
    HybridError
        When the step rejects the upper bound (a bug of the step: UB is feasible).
    ValueError
        On a bad cutoff / eps combination.
    """
    if (cutoff is None) == (eps is None):
        raise ArgumentError("give exactly one of cutoff and eps")
    if cutoff is not None and not cutoff > 1:
        raise ArgumentError(f"cutoff = {cutoff}, expected > 1")
    if eps is not None and not eps > 0:
        raise ArgumentError(f"eps = {eps}, expected > 0")
    b = bounds(instance)
    lo = b.lower if lower is None else float(lower)
    hi = b.upper if upper is None else float(upper)
    steps: list[SearchStep] = []

    def evaluate(lam: float) -> Schedule | None:
        t0 = perf_counter()
        schedule, info = step(instance, lam)
        seconds = perf_counter() - t0
        makespan = math.nan if schedule is None else schedule.makespan
        steps.append(SearchStep(lam, schedule is not None, makespan, seconds, info))
        return schedule

    best = evaluate(hi)
    if best is None:
        raise HybridError(f"{name or 'algorithm'} rejected the upper bound λ = {hi}, which is feasible")
    best_lam = hi
    if instance.n == 0 or hi <= 0:
        lo = hi

    def done() -> bool:
        if cutoff is not None:
            return hi <= cutoff * lo
        assert eps is not None  # exactly one of cutoff and eps (checked above)
        return hi - lo <= eps

    while not done() and len(steps) < max_steps:
        lam = (lo + hi) / 2
        if lam <= lo or lam >= hi:  # float resolution reached
            break
        schedule = evaluate(lam)
        if schedule is None:
            lo = lam
            continue
        hi = lam
        if schedule.makespan <= best.makespan:
            best, best_lam = schedule, lam
    return renamed(best, name, SearchInfo(best_lam, lo, hi, tuple(steps)))
