"""The :class:`Platform` protocol: the resources jobs run on, their kinds, and what an allocation may be.

Every platform numbers its resources ``0 .. n_procs - 1`` (processors, CPU
cores and GPUs, compute and I/O nodes, torus nodes), so the engine's free set,
the :class:`~schedlab.schedule.Schedule`'s allocations (sorted id ranges) and
``jobs.csv``'s ``allocated_resources`` never change with the platform. A
platform adds structure on top of the ids:

* its **kinds** (:class:`ResourceKind`): which ids are CPUs and which GPUs,
  which are compute and which I/O nodes; a *shared* kind may serve several
  jobs at once (shared I/O nodes), every other id runs one job at a time;
* the **shape** an allocation must have on it (a torus partition is a box),
  checked by :meth:`Platform.allocation_problem` when ``shaped`` is true;
* the per-job **measures** of an allocation's shape (fat tree: blocks,
  clusters, level), which ``jobs.csv`` and the metrics report;
* its **spec**, the text :func:`schedlab.platform.registry.parse_platform`
  reads back (``fat-tree:1,2,8,240``), or None for the plain machine sized by
  the workload.

Which allocation a given *job* accepts (its size, one GPU or some CPUs) is the
run-time model's business (:mod:`schedlab.runtime`), not the platform's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from schedlab.platform.intervals import Allocation

__all__ = ["MAX_PROCS", "Platform", "ResourceKind", "kind_ids"]

MAX_PROCS = 2**26
"""The most resources a platform may have (67,108,864): far beyond any machine of the Parallel Workloads
Archive, and small enough that the per-processor state some policies keep (the task policies' idle lists,
the validator's busy bitset) fits in memory. A larger ``--procs`` is refused, not attempted."""


@dataclass(frozen=True, slots=True)
class ResourceKind:
    """A named class of resources: the ids it holds and whether several jobs may use one at once."""

    name: str
    ids: Allocation
    shared: bool = False


@runtime_checkable
class Platform(Protocol):
    """What the engine, the validator, the metrics and the outputs ask of a platform."""

    # Read-only properties, so that frozen dataclasses (and plain attributes) satisfy the protocol.
    @property
    def name(self) -> str:
        """The platform's name, for messages."""
        ...

    @property
    def n_procs(self) -> int:
        """The number of resources; their ids are ``0 .. n_procs - 1``."""
        ...

    @property
    def shaped(self) -> bool:
        """Whether :meth:`allocation_problem` can refuse an allocation (False: any set of ids is fine)."""
        ...

    @property
    def kinds(self) -> tuple[ResourceKind, ...]:
        """The resource kinds, covering ``0 .. n_procs - 1`` between them."""
        ...

    def spec(self) -> str | None:
        """The ``--platform`` text that builds this platform again, or None for a plain machine."""
        ...

    def allocation_problem(self, alloc: Allocation) -> str | None:
        """Why ``alloc`` is not a legal shape on this platform, or None (called only when ``shaped``)."""
        ...

    def allocation_measures(self, allocs: Sequence[Allocation | None], sizes: np.ndarray) -> dict[str, np.ndarray]:
        """Per-job integer measures of the allocations' shapes (0 where ``allocs[i]`` is None); {} if none."""
        ...


def kind_ids(platform: Platform, name: str) -> Allocation:
    """The ids of the kind called ``name`` (empty if the platform has no such kind)."""
    for kind in platform.kinds:
        if kind.name == name:
            return kind.ids
    return ()
