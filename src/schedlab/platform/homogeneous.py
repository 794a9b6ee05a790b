"""A homogeneous machine: ``n_procs`` identical processors with ids ``0 .. n_procs - 1``."""

from __future__ import annotations

from dataclasses import dataclass

from schedlab.errors import InputError


@dataclass(frozen=True, slots=True)
class Machine:
    """P identical processors. Allocations are sets of processor ids held as ranges.

    Later platforms (fat trees, tori, hybrid nodes) keep the same id space and
    add structure on top, so the engine's resource bookkeeping never changes.
    """

    n_procs: int
    name: str = "machine"

    def __post_init__(self) -> None:
        if not isinstance(self.n_procs, int) or self.n_procs < 1:
            raise InputError(self.name, field="processors", value=self.n_procs, expected="an integer >= 1")
