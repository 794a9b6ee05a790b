"""Offline I/O-aware scheduling of rigid jobs on a line or a ring of compute and I/O nodes.

Source: Bleuse (2017), PhD thesis, chapters 4-5. Every algorithm is a
function ``IOInstance -> Schedule`` registered in :mod:`schedlab.registry`
(family ``I/O-aware rigid jobs``); :func:`io_instance` gives the common
instance its schedules are validated against. Each registration names what
the algorithm needs of an instance (:data:`REQUIREMENTS`, read by
:func:`meets`) and how its proven ratio depends on the instance.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from schedlab.offline.io.baselines import greedy, relaxed_makespan
from schedlab.offline.io.bounds import IOBounds, io_bounds
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.offline.io.gergov import GergovResult, gergov, tight_instance
from schedlab.offline.io.lp import dedicate, solve_lp
from schedlab.offline.io.pinned import pinned_ratio, pinned_two_phase
from schedlab.offline.io.schedule import io_instance, io_schedule, schedule_to_json
from schedlab.offline.io.special import per_io_node, right_window, sequential, unit_pinned
from schedlab.offline.io.unpinned import unpinned_meta, unpinned_ratio
from schedlab.platform.io import IOPlatform
from schedlab.workload.io_jobs import IOInstance

__all__ = [
    "REQUIREMENTS",
    "GergovResult",
    "IOBounds",
    "brute_force_opt",
    "dedicate",
    "gergov",
    "greedy",
    "io_bounds",
    "io_instance",
    "io_schedule",
    "meets",
    "per_io_node",
    "pinned_ratio",
    "pinned_two_phase",
    "proven_ratio",
    "relaxed_makespan",
    "schedule_to_json",
    "sequential",
    "solve_lp",
    "tight_instance",
    "unit_pinned",
    "unpinned_meta",
    "unpinned_ratio",
]


def _pinned(inst: IOInstance) -> bool:
    return bool(inst.pinned.all())


REQUIREMENTS = {
    "any": lambda inst: True,
    "pinned": _pinned,
    # I/O nodes m / m_IO >= 2 apart from node 0, one I/O node per job (section 5.2.2)
    "unpinned": lambda inst: (
        inst.platform.delta is not None and inst.platform.delta >= 2 and all(v == 1 for v in inst.io)
    ),
    "unit-pinned": lambda inst: _pinned(inst) and not inst.platform.ring and bool(np.all(inst.p == inst.p[:1])),
    "per-io-node": lambda inst: _pinned(inst) and all(right_window(inst, j) is not None for j in range(inst.n)),
}
"""What each registered algorithm needs of an instance (the registry's ``requires`` trait)."""


def proven_ratio(traits: Mapping[str, object], platform: IOPlatform) -> float | None:
    """The proven ratio a registry entry's ``ratio_of`` trait gives on ``platform`` (None without one)."""
    ratio_of = traits.get("ratio_of")
    return float(ratio_of(platform)) if callable(ratio_of) else None


def meets(requirement: str, inst: IOInstance) -> bool:
    """Whether ``inst`` meets the requirement named ``requirement`` (a key of :data:`REQUIREMENTS`)."""
    return bool(REQUIREMENTS[requirement](inst))
