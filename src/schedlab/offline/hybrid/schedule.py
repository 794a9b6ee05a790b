"""What a hybrid CPU+GPU algorithm returns: per task a start, an end, a kind and its processors.

Source: spec 003-part1-hybrid section 7.1 (``Schedule`` = task, kind, resources,
start, end). Columns are row-aligned with the instance's tasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from schedlab.errors import SchedlabError

__all__ = ["HybridError", "HybridSchedule", "SearchStep", "SearchInfo", "schedule_to_json"]


class HybridError(SchedlabError):
    """An algorithm cannot produce a schedule for this instance (e.g. GPU-only with k = 0)."""


@dataclass(frozen=True, slots=True)
class SearchStep:
    """One evaluated guess of a dual-approximation search."""

    lam: float
    accepted: bool
    makespan: float  # nan when rejected
    seconds: float
    info: dict = field(default_factory=dict)  # per-algorithm statistics (ILP status, mean |F(j)|...)


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """How the bisection ended: the returned guess, the final bounds and every step."""

    lam: float  # guess whose schedule is returned
    lower: float  # <= OPT (every rejection is sound)
    upper: float  # smallest accepted guess
    steps: tuple[SearchStep, ...]

    @property
    def n_steps(self) -> int:
        return len(self.steps)


@dataclass(frozen=True, eq=False)
class HybridSchedule:
    """Start, end, kind and processors of every task.

    ``on_gpu[j]`` tells the kind; ``resources[j]`` is a sorted tuple of ids:
    one GPU id, or the CPU ids (``0 .. m-1``) the task runs on. ``search`` is
    set by dual-approximation algorithms.
    """

    start: np.ndarray
    end: np.ndarray
    on_gpu: np.ndarray
    resources: tuple[tuple[int, ...], ...]
    algorithm: str = ""
    search: SearchInfo | None = None

    @property
    def makespan(self) -> float:
        return float(self.end.max()) if len(self.end) else 0.0

    @classmethod
    def from_lists(cls, start, end, on_gpu, resources, algorithm: str = "") -> HybridSchedule:
        return cls(
            np.asarray(start, dtype=float),
            np.asarray(end, dtype=float),
            np.asarray(on_gpu, dtype=bool),
            tuple(tuple(int(r) for r in res) for res in resources),
            algorithm,
        )

    def with_info(self, *, algorithm: str | None = None, search: SearchInfo | None = None) -> HybridSchedule:
        return HybridSchedule(
            self.start,
            self.end,
            self.on_gpu,
            self.resources,
            self.algorithm if algorithm is None else algorithm,
            self.search if search is None else search,
        )


def _ranges(ids: tuple[int, ...]) -> str:
    """``(0, 1, 2, 5)`` -> ``"0-2 5"`` (evalys' allocated_resources style)."""
    parts, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(parts)


def schedule_to_json(schedule: HybridSchedule, ids) -> list[dict]:
    """One object per task: id, kind (``cpu``/``gpu``), resources as ranges, start, end."""
    return [
        {
            "id": int(ids[j]),
            "kind": "gpu" if schedule.on_gpu[j] else "cpu",
            "resources": _ranges(schedule.resources[j]),
            "start": float(schedule.start[j]),
            "end": float(schedule.end[j]),
        }
        for j in range(len(schedule.start))
    ]
