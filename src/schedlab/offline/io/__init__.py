"""Offline I/O-aware scheduling of rigid jobs on a line or a ring of compute and I/O nodes.

Source: Bleuse (2017), PhD thesis, chapters 4-5. Every algorithm is a pure
function ``IOInstance -> IOSchedule`` registered under its name in
:data:`IO_ALGORITHMS`, with what the contract tests check: when it applies,
and its proven ratio to OPT on a given instance (None when none is proven).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from schedlab.offline.io.baselines import greedy, relaxed_makespan
from schedlab.offline.io.bounds import IOBounds, io_bounds
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.offline.io.check import check_io_schedule
from schedlab.offline.io.gergov import GergovResult, gergov, tight_instance
from schedlab.offline.io.lp import dedicate, solve_lp
from schedlab.offline.io.pinned import pinned_two_phase
from schedlab.offline.io.schedule import IOSchedule
from schedlab.offline.io.special import per_io_node, right_window, sequential, unit_pinned
from schedlab.offline.io.unpinned import unpinned_meta, unpinned_ratio
from schedlab.workload.io_jobs import IOInstance

__all__ = [
    "IO_ALGORITHMS", "GergovResult", "IOAlgorithm", "IOBounds", "IOSchedule", "brute_force_opt", "check_io_schedule",
    "dedicate", "gergov", "greedy", "io_bounds", "per_io_node", "pinned_two_phase", "relaxed_makespan", "sequential",
    "solve_lp", "tight_instance", "unit_pinned", "unpinned_meta", "unpinned_ratio",
]


@dataclass(frozen=True, slots=True)
class IOAlgorithm:
    """A registered algorithm: ``applies(inst)`` says whether its preconditions hold, ``ratio(inst)`` its
    proven makespan / OPT on that instance (None: no guarantee)."""

    name: str
    run: Callable[[IOInstance], IOSchedule]
    applies: Callable[[IOInstance], bool]
    ratio: Callable[[IOInstance], float | None]


def _pinned(inst: IOInstance) -> bool:
    return bool(inst.pinned.all())


def _unpinned_ok(inst: IOInstance) -> bool:
    plat = inst.platform
    return plat.delta is not None and plat.delta >= 2 and all(v == 1 for v in inst.io)


def _unit_ok(inst: IOInstance) -> bool:
    return _pinned(inst) and not inst.platform.ring and bool(np.all(inst.p == inst.p[:1]))


def _per_io_ok(inst: IOInstance) -> bool:
    return _pinned(inst) and all(right_window(inst, j) is not None for j in range(inst.n))


def _reg(name, run, applies, ratio):
    return name, IOAlgorithm(name, run, applies, ratio)


IO_ALGORITHMS: dict[str, IOAlgorithm] = dict([
    _reg("pinned", pinned_two_phase, _pinned, lambda inst: 8.0 if inst.platform.ring else 6.0),
    _reg("unpinned", unpinned_meta, _unpinned_ok, lambda inst: unpinned_ratio(inst.platform)),
    _reg("unpinned-ffdh", partial(unpinned_meta, strip="ffdh"), _unpinned_ok,
         lambda inst: unpinned_ratio(inst.platform, strip="ffdh")),
    _reg("unit-pinned", unit_pinned, _unit_ok, lambda inst: 2.0),
    # exact with exclusive I/O; with shared I/O an I/O node serves at most 2 jobs at once (Prop. 4.2)
    _reg("per-io-node", per_io_node, _per_io_ok, lambda inst: 1.0 if inst.platform.exclusive else 2.0),
    _reg("greedy", greedy, lambda inst: True, lambda inst: None),
    _reg("sequential", sequential, lambda inst: True, lambda inst: None),
])
