"""Offline scheduling of independent tasks on hybrid CPU+GPU nodes (seed 003 part 1, seed 000 ch. 2).

Every algorithm is a pure function ``tasks -> Schedule`` (the common schedule; see
:mod:`~schedlab.offline.hybrid.schedule`) registered
under the seed's name in :data:`HYBRID_ALGORITHMS`, with what the contract
tests check: its proven ratio to OPT (None when none is proven), whether its
CPU sets are contiguous, and whether the guarantee covers moldable tasks
(``False``: one CPU per task, ratio relative to the sequential optimum).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from schedlab.offline.hybrid.approx2 import approx2, approx2_step
from schedlab.offline.hybrid.approx32 import approx32, approx32_detail, approx32_step
from schedlab.offline.hybrid.baselines import cpu_only, eft, equal, gpu_only, proportional, self_scheduling
from schedlab.offline.hybrid.bisection import dual_search
from schedlab.offline.hybrid.bounds import Bounds, bounds
from schedlab.offline.hybrid.bruteforce import brute_force_opt
from schedlab.offline.hybrid.dada import dada, dada_step
from schedlab.offline.hybrid.dual2 import da2, da2_step, dual2, dual2_step
from schedlab.offline.hybrid.heft import heft, heft_like
from schedlab.offline.hybrid.schedule import (
    HybridError,
    SearchInfo,
    SearchStep,
    hybrid_instance,
    hybrid_schedule,
    schedule_to_json,
    search_of,
    task_kinds,
    task_resources,
)

__all__ = [
    "HYBRID_ALGORITHMS",
    "Bounds",
    "HybridAlgorithm",
    "HybridError",
    "SearchInfo",
    "SearchStep",
    "approx2",
    "approx2_step",
    "approx32",
    "approx32_detail",
    "approx32_step",
    "bounds",
    "brute_force_opt",
    "cpu_only",
    "da2",
    "da2_step",
    "dada",
    "dada_step",
    "dual2",
    "dual2_step",
    "dual_search",
    "eft",
    "equal",
    "gpu_only",
    "heft",
    "heft_like",
    "hybrid_instance",
    "hybrid_schedule",
    "proportional",
    "schedule_to_json",
    "search_of",
    "self_scheduling",
    "task_kinds",
    "task_resources",
]


@dataclass(frozen=True, slots=True)
class HybridAlgorithm:
    name: str
    run: Callable
    ratio: float | None  # proven makespan / OPT before the bisection cutoff; None: no guarantee
    cutoff: float  # bisection cutoff of the default parameters (1.0 for one-shot algorithms)
    contiguous: bool  # CPU sets always contiguous
    moldable: bool  # guarantee relative to the moldable optimum (else: one CPU per task)


def _reg(name, run, ratio=None, cutoff=1.0, contiguous=True, moldable=False):
    return name, HybridAlgorithm(name, run, ratio, cutoff, contiguous, moldable)


HYBRID_ALGORITHMS: dict[str, HybridAlgorithm] = dict(
    [
        _reg("approx32", approx32, 1.5, 1.01, True, True),
        # same accepted guesses and guarantee; the ILP minimises the longest task above lambda, then list re-packing
        _reg("approx32-mk", partial(approx32, objective="makespan", repack=True), 1.5, 1.01, True, True),
        _reg("approx2", approx2, 2.0, 1.01, False, True),
        _reg("da2", da2, 2.0, 1.001),
        _reg("dual2", dual2, 2.0, 1.001),
        _reg("dada", partial(dada, alpha=0.5), 2.5, 1.001),  # 2 + alpha without affinity data
        _reg("heft", heft),
        *(
            _reg(f"{p}-{a}", partial(heft_like, priority=p, alloc=a))
            for a in ("seq", "par")
            for p in ("lpt", "spt", "ratio")
        ),
        _reg("eft", eft),
        _reg("equal", equal),
        _reg("proportional", proportional),
        _reg("self-scheduling", self_scheduling),
        _reg("cpu-only", cpu_only),
        _reg("gpu-only", gpu_only),
    ]
)
