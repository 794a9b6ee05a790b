"""Lower and upper bounds on the optimal makespan of a hybrid instance.

Source: Bleuse (2017), ch. 3 section 3.3 (the moldable case; the bounds of
the bisection are our choice where the thesis leaves them open) and Mendonca
(2017), ch. 2 section 2.3.2 (sequential case, the same formulas with l = 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from schedlab.workload.hybrid import HybridInstance

__all__ = [
    "Bounds",
    "area_bound",
    "best_lower_bound",
    "bounds",
    "longest_task_bound",
    "one_cpu_upper_bound",
    "sequential_upper_bound",
]


@dataclass(frozen=True, slots=True)
class Bounds:
    lower: float  # max(area, longest task) <= OPT
    area: float
    longest: float
    upper: float  # makespan of a feasible schedule (tasks one after another)


def longest_task_bound(instance: HybridInstance) -> float:
    """``max_j min(p_j, p̄_{j,max})``: every task needs at least its fastest time."""
    if instance.n == 0:
        return 0.0
    return float(np.minimum(instance.usable_gpu_time, instance.fastest_cpu_time).max())


def area_bound(instance: HybridInstance) -> float:
    """``Σ_j min(w_{j,1}, p_j) / (m + k)``: the least total work spread on all processors.

    Valid by work monotonicity (``w_{j,1}`` is the least CPU work of task j).
    """
    if instance.n == 0:
        return 0.0
    return float(np.minimum(instance.usable_gpu_time, instance.seq_time).sum() / (instance.m + instance.k))


def sequential_upper_bound(instance: HybridInstance) -> float:
    """``Σ_j min(p_j, p̄_{j,max})``: every task alone on its fastest resource, one after another."""
    return float(np.minimum(instance.usable_gpu_time, instance.fastest_cpu_time).sum())


def one_cpu_upper_bound(instance: HybridInstance) -> float:
    """``Σ_j min(p_j, p̄_{j,1})``: the same with one CPU per task (the upper bound of the sequential algorithms)."""
    return float(np.minimum(instance.usable_gpu_time, instance.seq_time).sum())


def bounds(instance: HybridInstance) -> Bounds:
    """All bounds of reading BH-7 (docs/readings.md): ``lower = max(area, longest)`` and ``upper``."""
    area, longest = area_bound(instance), longest_task_bound(instance)
    return Bounds(max(area, longest), area, longest, sequential_upper_bound(instance))


def best_lower_bound(lower: float, rejected, *, sequential: bool) -> float:
    """The largest proven lower bound on OPT: ``lower`` (:func:`bounds`' area and longest-task bound) and every
    guess a sound dual step rejected.

    ``rejected`` holds ``(guess, moldable_sound)`` pairs: the largest guess a
    bisection rejected (None or NaN for a one-shot algorithm) and whether the
    algorithm's step is sound for moldable tasks. A step sound only for
    sequential tasks proves a bound only when every task is ``sequential``.
    ``solve hybrid`` and the reproduction both measure ratios against this bound.
    """
    proven = lower
    for guess, moldable_sound in rejected:
        if guess is not None and not math.isnan(guess) and (moldable_sound or sequential):
            proven = max(proven, guess)
    return proven
