"""Online max-stretch policies for sequential tasks: FCFS and DASEDF, with machine reservation or Split.

Source: Saule, Bozdag and Catalyurek (2014): FCFS (section 3.1), DASEDF
(section 3.2), Split (Algorithm 1, section 3.3), the machine-reservation
scheme (section 4.1).

The processors are cut into parts, each running its own copy of the base
planner (FCFS or DASEDF) on the tasks assigned to it at release:

* one part: the plain policy;
* reservation (X, T): a main part of m - X processors and an auxiliary part of
  X. A released task joins the main part if the main part's planned maximum
  stretch with it stays below T; otherwise the part whose plan with it has the
  smaller maximum stretch (ties: main);
* Split (rho): rho groups of m / rho processors; group j takes the tasks with
  ``p_min Delta^(j/rho) <= p < p_min Delta^((j+1)/rho)`` (the last group
  also takes ``p = p_max``).

At each event time, after completions and releases, each part's planner
orders its pending tasks and its idle processors take the first ones (lowest
processor id first), so both policies are work-conserving. Started tasks
never move; pending ones are re-planned at every event.

Cost: per event, O(log m) without a queue; with one, one plan of the part's
pending tasks (FCFS: O(n); DASEDF: a binary search of O(n log n) tests) and
one O(m) numpy read of the availabilities. Idle processors are heaps.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from schedlab.engine.simulator import Context
from schedlab.errors import InputError
from schedlab.parameters import Param
from schedlab.policies.stretch.planners import DasedfPlanner, FcfsPlanner, predicted_stretch

__all__ = ["DASEDF", "Split", "StretchFCFS", "split_groups"]

RESERVATION = {
    "reserved": Param("X, processors of the auxiliary part (0: no reservation)", low=0),
    "threshold": Param(
        "T: a released task stays on the main part while its planned maximum stretch is below T", low=0, open_low=True
    ),
}
"""The machine-reservation parameters (X, T) of section 4.1, shared by FCFS and DASEDF."""


class _Part:
    """Processors ``lo .. hi - 1``: their idle ids, the end of the task each runs, the pending rows."""

    __slots__ = ("lo", "idle", "end", "pending", "hint")

    def __init__(self, lo: int, hi: int) -> None:
        self.lo = lo
        self.idle = list(range(lo, hi))  # a sorted list is a heap
        self.end = np.zeros(hi - lo)
        self.pending: list[int] = []
        self.hint: float | None = None  # the target stretch of the part's last plan, where the next search starts

    def avail(self, now: float) -> np.ndarray:
        return np.maximum(self.end, now)


def _single(processor: int) -> tuple[tuple[int, int]]:
    return ((processor, processor + 1),)


class _PartedPolicy:
    """What FCFS, DASEDF and Split share: parts, their planners, the start of planned tasks."""

    name: str
    clairvoyant = True  # p_i is known at release (Saule et al. 2014, section 2.1)
    sequential = True
    planner: FcfsPlanner | DasedfPlanner

    def _bounds(self, n_procs: int) -> list[tuple[int, int]]:
        return [(0, n_procs)]

    def _assign(self, row: int, now: float) -> int:
        """The part a released task joins."""
        raise NotImplementedError

    def reset(self, ctx: Context) -> None:
        jobs = ctx.jobs
        wide = np.flatnonzero(jobs.procs != 1)
        if wide.size:
            raise InputError(
                "policy",
                field=f"{self.name} workload",
                value=f"{wide.size} parallel job(s)",
                expected="sequential tasks (1 processor each)",
            )
        assert jobs.run_time is not None  # clairvoyant: the engine shows the processing times
        self.ctx = ctx
        self.release = jobs.submit
        self.p: np.ndarray = jobs.run_time
        self.parts = [_Part(lo, hi) for lo, hi in self._bounds(ctx.n_procs)]
        self.part_of_processor = np.repeat(np.arange(len(self.parts)), [len(part.end) for part in self.parts]).tolist()
        self._processor: dict[int, int] = {}  # running row -> processor

    def submit(self, rows: list[int], now: float) -> None:
        for row in rows:
            self.parts[self._assign(row, now)].pending.append(row)

    def complete(self, rows: list[int], now: float) -> None:
        for row in rows:
            processor = self._processor.pop(row)
            heapq.heappush(self.parts[self.part_of_processor[processor]].idle, processor)

    def schedule(self, now: float) -> None:
        for part in self.parts:
            if part.idle and part.pending:
                self._start(part, now)

    def _start(self, part: _Part, now: float) -> None:
        pending, idle = part.pending, part.idle
        if len(pending) <= len(idle):
            chosen = pending
            part.pending = []
        else:
            rows = np.asarray(pending)
            order, s = self.planner.order(now, part.avail(now), self.release[rows], self.p[rows], part.hint)
            part.hint = s if math.isfinite(s) else None
            picked = order[: len(idle)]
            chosen = rows[picked].tolist()
            keep = np.ones(len(pending), dtype=bool)
            keep[picked] = False
            part.pending = rows[keep].tolist()
        for row in chosen:
            processor = heapq.heappop(idle)
            self.ctx.start(row, _single(processor))
            self._processor[row] = processor
            part.end[processor - part.lo] = now + self.p[row]

    def _plan_stretch(self, part: _Part, row: int, now: float) -> float:
        """Maximum stretch of the part's plan if ``row`` joined its pending tasks."""
        rows = np.asarray(part.pending + [row])
        release, p = self.release[rows], self.p[rows]
        avail = part.avail(now)
        order, _ = self.planner.order(now, avail, release, p, part.hint)
        return predicted_stretch(avail, order, release, p)


class _Reserving(_PartedPolicy):
    """FCFS or DASEDF on one part, or on a main and an auxiliary part (reservation X, T)."""

    reserved: int
    threshold: float

    def _planner(self) -> FcfsPlanner | DasedfPlanner:
        raise NotImplementedError

    def _planner_params(self) -> list[str]:
        raise NotImplementedError

    def reset(self, ctx: Context) -> None:
        self.planner = self._planner()
        super().reset(ctx)

    def describe(self) -> str:
        params = self._planner_params()
        if self.reserved:
            params.append(f"reserved={self.reserved}, threshold={self.threshold:g}")
        return f"{self.name}({', '.join(params)})"

    def _bounds(self, n_procs: int) -> list[tuple[int, int]]:
        if not 0 <= self.reserved < n_procs:
            raise InputError(
                "policy",
                field=f"{self.name} reserved",
                value=self.reserved,
                expected=f"0 <= X < {n_procs} (the machine size)",
            )
        if not self.threshold > 0:
            raise InputError("policy", field=f"{self.name} threshold", value=self.threshold, expected="T > 0")
        main = n_procs - self.reserved
        return [(0, main)] + ([(main, n_procs)] if self.reserved else [])

    def _assign(self, row: int, now: float) -> int:
        if self.reserved == 0 or self.threshold == math.inf:
            return 0
        main = self._plan_stretch(self.parts[0], row, now)
        if main < self.threshold:
            return 0
        return 1 if self._plan_stretch(self.parts[1], row, now) < main else 0


class DASEDF(_Reserving):
    """DASEDF: at every event, EDF list scheduling at the smallest target stretch found valid.

    Source: Saule, Bozdag and Catalyurek (2014), section 3.2; reservation (X, T) of section 4.1.
    Guarantee: per re-plan, maximum stretch below S + 1 - 1/m, or no schedule
    of maximum stretch S exists (Theorem 3.3, tested with ``validity="paper"``);
    no global ratio better than Delta.
    Cost: a binary search of O(n log n) tests per event with a queue, started at the previous S (about 5 tests
    when S moves little, 14 or so otherwise).

    Parameters
    ----------
    eps : float, default 1e-3
        Relative precision of the search on S.
    validity : {"exact", "paper"}, default "exact"
        How a target stretch is tested (see :func:`~schedlab.policies.stretch.planners.dasedf_stretch`).
    reserved : int, default 0
        X, processors of the auxiliary part (0: no reservation).
    threshold : float, default inf
        T: a released task stays on the main part while its planned maximum stretch is below T.
    """

    name = "dasedf"
    parameters = {
        "eps": Param(
            "relative precision of the binary search on the target stretch S",
            low=0,
            high=1,
            open_low=True,
            open_high=True,
        ),
        "validity": Param(
            "how a target S is tested: EDF meets every deadline (exact), or Lemma 3.2's condition (paper)",
            choices=("exact", "paper"),
        ),
        **RESERVATION,
    }

    def __init__(
        self, *, eps: float = 1e-3, validity: str = "exact", reserved: int = 0, threshold: float = math.inf
    ) -> None:
        self.eps = eps
        self.validity = validity
        self.reserved = reserved
        self.threshold = threshold

    def _planner(self) -> DasedfPlanner:
        return DasedfPlanner(self.eps, self.validity)

    def _planner_params(self) -> list[str]:
        return [f"eps={self.eps:g}", f"validity={self.validity}"]


class StretchFCFS(_Reserving):
    """FCFS on sequential tasks, with the machine-reservation option of the stretch study.

    Source: Saule, Bozdag and Catalyurek (2014), section 3.1; reservation (X, T) of section 4.1.
    Guarantee: maximum stretch at most ``Delta + (1 - 1/m)(Delta + 1)`` times
    the optimum (Theorem 3.1, tested against brute force).
    Cost: O(log m) per event.

    Parameters
    ----------
    reserved : int, default 0
        X, processors of the auxiliary part.
    threshold : float, default inf
        T, as for :class:`DASEDF`.
    """

    name = "fcfs-stretch"
    parameters = RESERVATION

    def __init__(self, *, reserved: int = 0, threshold: float = math.inf) -> None:
        self.reserved = reserved
        self.threshold = threshold

    def _planner(self) -> FcfsPlanner:
        return FcfsPlanner()

    def _planner_params(self) -> list[str]:
        return []


def split_groups(p: np.ndarray, groups: int, p_min: float, p_max: float) -> np.ndarray:
    """Split's group of each processing time: how many thresholds ``p_min Delta^(j/rho)``, j = 1..rho-1, it reaches.

    Source: Saule, Bozdag and Catalyurek (2014), Algorithm 1 (its ``j <= rho`` read as j = 0..rho-1).
    Comparing with the thresholds, not with a floating-point logarithm, puts
    ``p = p_min Delta^(j/rho)`` in group j exactly.
    """
    delta = p_max / p_min
    thresholds = p_min * delta ** (np.arange(1, groups) / groups)
    return np.searchsorted(thresholds, p, side="right")


class Split(_PartedPolicy):
    """Split: rho groups of m' processors, each running the base policy on one range of processing times.

    Source: Saule, Bozdag and Catalyurek (2014), Algorithm 1 and Theorem 3.6.
    Guarantee: an f(Delta)-approximation on m' machines gives an
    f(Delta^(1/rho))-approximation on rho m' machines (Theorem 3.6); with
    FCFS, ``2 Delta^(1/rho) + 1``. Equals independent runs of the base
    policy on each group's tasks (tested).
    Cost: that of the base policy, plus O(log rho) per release.

    Parameters
    ----------
    groups : int, default 2
        rho >= 2, at most the machine size.
    p_min, p_max : float, default 0 (read from the instance)
        The processing-time range known in advance; tasks outside it are clamped to the first or last group.
    base : {"fcfs", "dasedf"}, default "fcfs"
        The policy each group runs.

    Notes
    -----
    When rho does not divide the machine size m, the first ``m mod rho``
    groups get one processor more: every group has at least
    ``m' = floor(m / rho)`` processors, so Theorem 3.6's bound still holds
    against the optimum on m' processors.
    """

    name = "split"
    parameters = {
        "groups": Param("rho, the number of groups of processors (and of processing-time ranges)", low=2),
        "p_min": Param("smallest processing time known in advance (0: the instance's)", low=0),
        "p_max": Param("largest processing time known in advance (0: the instance's)", low=0),
        "base": Param("the policy each group runs", choices=("fcfs", "dasedf")),
    }

    def __init__(self, *, groups: int = 2, p_min: float = 0.0, p_max: float = 0.0, base: str = "fcfs") -> None:
        self.groups = groups
        self.p_min = p_min
        self.p_max = p_max
        self.base = base

    def describe(self) -> str:
        return f"split(groups={self.groups}, p_min={self.p_min:g}, p_max={self.p_max:g}, base={self.base})"

    def _bounds(self, n_procs: int) -> list[tuple[int, int]]:
        if not 2 <= self.groups <= n_procs:
            raise InputError(
                "policy",
                field="split groups",
                value=self.groups,
                expected=f"an integer from 2 to the machine size {n_procs}",
            )
        width, extra = divmod(n_procs, self.groups)
        bounds = np.cumsum([0] + [width + (g < extra) for g in range(self.groups)]).tolist()
        return list(zip(bounds[:-1], bounds[1:]))

    def reset(self, ctx: Context) -> None:
        if self.base not in ("fcfs", "dasedf"):
            raise InputError("policy", field="split base", value=self.base, expected="fcfs or dasedf")
        self.planner = FcfsPlanner() if self.base == "fcfs" else DasedfPlanner()
        super().reset(ctx)
        p = self.p
        p_min = self.p_min or (float(p.min()) if len(p) else 1.0)
        p_max = self.p_max or (float(p.max()) if len(p) else 1.0)
        if not 0 < p_min <= p_max:
            raise InputError("policy", field="split p_min, p_max", value=(p_min, p_max), expected="0 < p_min <= p_max")
        self.group = split_groups(p, self.groups, p_min, p_max).tolist()

    def _assign(self, row: int, now: float) -> int:
        return self.group[row]
