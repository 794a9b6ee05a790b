"""A homogeneous machine: ``n_procs`` identical processors with ids ``0 .. n_procs - 1``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.base import MAX_PROCS, ResourceKind
from schedlab.platform.intervals import Allocation
from schedlab.platform.tree import FatTree

__all__ = ["Machine"]


@dataclass(frozen=True, slots=True)
class Machine:
    """P identical processors, any set of which may run a job: the platform of a plain trace.

    It implements :class:`~schedlab.platform.base.Platform` with one kind
    (``processor``), no shape rule and no measures; its :attr:`tree` is a
    single cluster, so the topology-aware allocators run on it unchanged.
    """

    n_procs: int
    name: str = "machine"
    shaped = False

    def __post_init__(self) -> None:
        if isinstance(self.n_procs, bool) or not isinstance(self.n_procs, int) or not 1 <= self.n_procs <= MAX_PROCS:
            raise InputError(
                self.name, field="processors", value=self.n_procs, expected=f"an integer from 1 to {MAX_PROCS:,}"
            )

    @property
    def kinds(self) -> tuple[ResourceKind, ...]:
        return (ResourceKind("processor", ((0, self.n_procs),)),)

    def spec(self) -> None:
        """None: a plain machine is rebuilt from its size alone (``--procs``)."""
        return None

    def allocation_problem(self, alloc: Allocation) -> None:
        return None

    def allocation_measures(self, allocs, sizes) -> dict[str, np.ndarray]:
        return {}

    @property
    def tree(self) -> FatTree:
        """The machine as a one-cluster fat tree (``levels = (1, P)``), for the allocators."""
        return FatTree.flat(self.n_procs)
