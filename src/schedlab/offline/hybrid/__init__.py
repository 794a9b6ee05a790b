"""Offline scheduling of independent tasks on hybrid CPU+GPU nodes (Bleuse 2017, ch. 2-3; Mendonca 2017, ch. 2).

Every algorithm is a pure function ``tasks -> Schedule`` (the common schedule;
see :mod:`~schedlab.offline.hybrid.schedule`), registered in
:mod:`schedlab.registry` with what the contract tests check: its proven ratio
to OPT, whether its CPU sets are contiguous (trait ``contiguous``), and whether
the guarantee covers moldable tasks (trait ``moldable``; else one CPU per task,
ratio relative to the sequential optimum).
"""

from __future__ import annotations

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
    "Bounds",
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
