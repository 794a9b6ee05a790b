"""A hybrid node: ``m`` identical CPU cores and ``k`` identical GPUs in one id space.

Source: Bleuse (2017), ch. 2 section 2.1 and ch. 3 section 3.1 (the
``(Pm,Pk)`` machine); Mendonca (2017), ch. 2 section 2.3.

CPU cores are ids ``0 .. m-1`` and GPUs ids ``m .. m+k-1``, so a hybrid
schedule is an ordinary :class:`~schedlab.schedule.Schedule` whose
allocations are id ranges, checked by the one validator: a task on a GPU holds
one id of the ``gpu`` kind, a task on CPUs holds ids of the ``cpu`` kind.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.base import ResourceKind
from schedlab.platform.intervals import Allocation

__all__ = ["HybridPlatform", "parse_hybrid"]


@dataclass(frozen=True, slots=True)
class HybridPlatform:
    """``m`` identical CPUs and ``k`` identical GPUs (either may be 0, not both)."""

    m: int
    k: int
    shaped = False  # which kind a task may use is the run-time model's rule

    def __post_init__(self) -> None:
        for name, value in (("m", self.m), ("k", self.k)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError("platform", field=name, value=value, expected="an integer >= 0")
        if self.m + self.k == 0:
            raise InputError("platform", field="m + k", value=0, expected="at least one processor")

    @property
    def n_procs(self) -> int:
        return self.m + self.k

    @property
    def name(self) -> str:
        return f"hybrid:{self.m},{self.k}"

    @property
    def kinds(self) -> tuple[ResourceKind, ...]:
        return (
            ResourceKind("cpu", ((0, self.m),) if self.m else ()),
            ResourceKind("gpu", ((self.m, self.m + self.k),) if self.k else ()),
        )

    def spec(self) -> str:
        return self.name

    def allocation_problem(self, alloc: Allocation) -> None:
        return None

    def allocation_measures(self, allocs, sizes) -> dict[str, np.ndarray]:
        return {}


def parse_hybrid(values: str) -> HybridPlatform:
    """``16,4`` (CPU cores, GPUs) as a :class:`HybridPlatform`; the registry's ``hybrid:`` reader."""
    try:
        m, k = (int(v) for v in values.split(","))
    except ValueError:
        raise InputError("--platform", field="hybrid", value=values, expected="CPUS,GPUS with integers >= 0") from None
    return HybridPlatform(m, k)
