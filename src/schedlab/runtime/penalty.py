"""Run-time penalty models: how an allocation's spread over a fat tree lengthens a job.

Source: Mendonca (2017), ch. 5 section 5.3.4, eqs. 5.1 and 5.2 (the
"quadratic" model is implemented literally, as the exponential it writes).

With ``R = L(A_j) - L_min(size_j) >= 0`` (the platform levels an allocation
crosses beyond the fewest its size allows, see
:class:`~schedlab.platform.tree.FatTree`) and a factor ``F``:

* linear: ``T' = T + T * R * F`` (eq. 5.1);
* quadratic (really exponential, implemented literally): ``T' = T * F ** R`` (eq. 5.2).

A job whose penalised time exceeds its walltime ``w`` fails: it runs ``w``
seconds and is KILLED (equality is a success). Only the engine and the
validator use a model: policies never see penalised times.

Cost: O(D) per job (the level of an allocation reads its lowest and highest id).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.base import Platform
from schedlab.platform.intervals import Allocation
from schedlab.platform.tree import FatTree
from schedlab.runtime.base import RigidRuntime, RuntimeModel
from schedlab.workload.jobs import JobTable

__all__ = ["FUNCTIONS", "TopologyPenalty", "parse_penalty"]

FUNCTIONS = ("linear", "quadratic")


@dataclass(frozen=True, slots=True)
class TopologyPenalty:
    """Penalised run time ``T'`` of a job from the platform level of its allocation.

    A :class:`~schedlab.runtime.base.RuntimeModel` once bound to a job table
    (``jobs``); :meth:`penalised` is the formula alone.

    Parameters
    ----------
    tree : FatTree
        The platform the levels are measured on.
    function : {"linear", "quadratic"}
        Eq. 5.1 or eq. 5.2.
    factor : float
        ``F``: >= 0 for linear, >= 1 for quadratic (a penalty never shortens a run).
    jobs : JobTable, optional
        The rigid jobs (run time, walltime, size) the model answers for.

    Raises
    ------
    InputError
        Unknown function or a factor out of range.
    """

    tree: FatTree
    function: str = "quadratic"
    factor: float = 2.0
    jobs: JobTable | None = None
    fixed = False

    def __post_init__(self) -> None:
        if self.function not in FUNCTIONS:
            raise InputError(
                "--penalty", field="penalty function", value=self.function, expected=f"one of {', '.join(FUNCTIONS)}"
            )
        low = 0.0 if self.function == "linear" else 1.0
        if not (isinstance(self.factor, (int, float)) and self.factor >= low and self.factor < float("inf")):
            raise InputError(
                "--penalty",
                field=f"{self.function} penalty factor",
                value=self.factor,
                expected=f"a finite number >= {low:g}",
            )

    def describe(self) -> str:
        return f"{self.function}:{self.factor:g}"

    def multiplier(self, excess: int) -> float:
        """``g(R)``: ``1 + R F`` (linear) or ``F ** R`` (quadratic)."""
        if self.function == "linear":
            return 1.0 + excess * self.factor
        return float(self.factor) ** excess

    def excess(self, size: int, alloc: Allocation) -> int:
        """``R = L(alloc) - L_min(size)``."""
        return self.tree.level(alloc) - self.tree.min_level(size)

    def penalised(self, run_time: float, walltime: float, size: int, alloc: Allocation) -> tuple[float, bool]:
        """``(min(w, T * g(R)), T * g(R) > w)``: how long the job runs on ``alloc`` and whether it fails."""
        penalised = run_time * self.multiplier(self.excess(size, alloc))
        if penalised > walltime:
            return walltime, True
        return penalised, False

    # -- the RuntimeModel protocol, on the bound job table ---------------------
    def allocation_problem(self, row: int, alloc: Allocation, size: int) -> str | None:
        return RigidRuntime(self._jobs()).allocation_problem(row, alloc, size)

    def duration(self, row: int, alloc: Allocation) -> tuple[float, bool]:
        jobs = self._jobs()
        return self.penalised(float(jobs.run_time[row]), float(jobs.requested_time[row]), int(jobs.procs[row]), alloc)

    def run_times(self, allocs: Sequence[Allocation | None]) -> np.ndarray:
        """``T * g(L - L_min)`` per job (``T`` for a job never started)."""
        jobs = self._jobs()
        shape = self.tree.allocation_measures(allocs, jobs.procs)
        excess = shape["level"] - shape["min_level"]  # >= 0; 0 for jobs never started
        g = np.array([self.multiplier(r) for r in range(int(excess.max(initial=0)) + 1)], dtype=np.float64)
        return jobs.run_time.astype(np.float64) * g[excess]

    def _jobs(self) -> JobTable:
        if self.jobs is None:
            raise TypeError("TopologyPenalty: bind a job table first (jobs=...)")
        return self.jobs


def parse_penalty(text: str | None, platform: Platform | None, jobs: JobTable | None = None) -> RuntimeModel:
    """The run-time model ``--penalty`` names for ``jobs`` on ``platform``: :class:`RigidRuntime` for ``none``
    (or None), else a :class:`TopologyPenalty` ``linear:F`` or ``quadratic:F`` (``F`` defaults to 2).

    Without ``jobs`` the text is only checked (the model returned answers nothing), so a command can refuse
    a bad option before it reads a trace.

    Raises
    ------
    InputError
        Malformed text, or a penalty on a platform with no tree levels to measure.
    """
    if text is None or text == "none":
        return RigidRuntime(jobs)  # type: ignore[arg-type]  # unbound when only checking
    function, sep, value = text.partition(":")
    try:
        factor = float(value) if sep else 2.0
    except ValueError:
        factor = None
    if function not in FUNCTIONS or factor is None:
        raise InputError(
            "--penalty", field="--penalty", value=text, expected="none, linear:F or quadratic:F (e.g. quadratic:2)"
        )
    tree = getattr(platform, "tree", None) if platform is not None and platform.spec() is not None else None
    if tree is None:
        raise InputError(
            "--penalty",
            field="--penalty",
            value=text,
            expected="a --platform fat-tree:... or clusters:... to measure levels on",
        )
    return TopologyPenalty(tree, function, factor, jobs)
