"""What an I/O-aware algorithm returns: per job a start, an allocation and the I/O nodes it targets.

The allocation is the job's node hull as sorted half-open ranges
(:data:`~schedlab.platform.intervals.Allocation`): its compute nodes, the I/O
nodes it targets and the I/O nodes bridging them. ``info`` carries what the
algorithm measured on the way (LP value, rounded load, colours...), for reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from schedlab.platform.intervals import Allocation
from schedlab.platform.io_windows import Window
from schedlab.workload.io_jobs import IOInstance

__all__ = ["IOSchedule"]


@dataclass(frozen=True, eq=False)
class IOSchedule:
    """Start, end, allocation and targeted I/O nodes of every job, row-aligned with the instance."""

    start: np.ndarray
    end: np.ndarray
    alloc: tuple[Allocation, ...]
    io: tuple[tuple[int, ...], ...]
    algorithm: str
    info: dict = field(default_factory=dict)

    @property
    def makespan(self) -> float:
        return float(self.end.max(initial=0.0))

    @classmethod
    def from_windows(cls, inst: IOInstance, start, windows: list[Window], algorithm: str,
                     info: dict | None = None) -> "IOSchedule":
        """Build from one window per job and its start time (``end = start + p``)."""
        start = np.asarray(start, dtype=float)
        return cls(start, start + inst.p, tuple(w.alloc(inst.platform) for w in windows),
                   tuple(w.io for w in windows), algorithm, dict(info or {}))

    def to_json(self, inst: IOInstance) -> dict:
        """Plain JSON: per job id, start, end, allocation ranges and I/O nodes."""
        return {
            "algorithm": self.algorithm,
            "makespan": self.makespan,
            "info": {k: v for k, v in self.info.items() if isinstance(v, (int, float, str, bool))},
            "jobs": [{"id": int(inst.ids[j]), "start": float(self.start[j]), "end": float(self.end[j]),
                      "alloc": [list(r) for r in self.alloc[j]], "io": list(self.io[j])} for j in range(inst.n)],
        }
