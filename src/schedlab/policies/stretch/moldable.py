"""Online policies for moldable tasks: DBOS, Iterative, Improved Iterative, a SCOJO-P-like approximation, FCFS.

Source: Saule, Bozdag and Catalyurek (2014), sections 5-7.

Every policy re-plans its pending tasks at each event time (after completions
and releases) and starts, on the lowest free processor ids, the tasks planned
to start now, with the processor count of the plan; the others are planned
again at the next event. Started tasks never move. A timer at the earliest
planned start later than now guards against a plan that no event would revisit.
Nothing is computed while no processor is free: no task could start.

The policies are clairvoyant (a task's run times are known at its release,
section 5): they read the table ``times[i, j - 1] = p_{i,j}`` of the
instance's :class:`~schedlab.runtime.moldable.MoldableTimes` model through
``ctx.runtime`` and choose each task's size at its start; the engine takes
the run time from the same model and the validator checks it.
"""

from __future__ import annotations

import numpy as np

from schedlab.errors import InputError
from schedlab.parameters import Param
from schedlab.policies.stretch.dbos import MoldablePlan, dbos_plan
from schedlab.policies.stretch.iterative import iterative_plan
from schedlab.policies.stretch.scojo import efficient_procs, scaled_procs, scojo_like_plan
from schedlab.runtime.moldable import MoldableTimes

__all__ = ["DBOS", "ImprovedIterative", "Iterative", "MoldableFCFS", "ScojoLike"]


class _MoldablePolicy:
    """Pending rows in (release, id) order, running tasks' ends and counts, and the start of planned tasks."""

    name: str
    clairvoyant = True
    parameters: dict[str, Param] = {}

    def reset(self, ctx) -> None:
        self.check()
        self.ctx = ctx
        model = ctx.runtime
        if not isinstance(model, MoldableTimes):
            raise InputError(
                "policy",
                field=f"{self.name} workload",
                value=model.describe() if model is not None else "no run-time model",
                expected="moldable tasks (a run-time table: schedlab moldable simulate)",
            )
        width = model.times.shape[1]
        if width < ctx.n_procs:
            raise InputError(
                "policy",
                field=f"{self.name} run-time table",
                value=f"{width} processor counts",
                expected=f"at least the machine size {ctx.n_procs}",
            )
        self.m = ctx.n_procs
        self.times = np.ascontiguousarray(model.times[:, : self.m])
        self.release = ctx.jobs.submit
        self.pending: list[int] = []
        self.running: dict[int, tuple[float, int]] = {}  # row -> (end, processors)

    def check(self) -> None:
        """Raise InputError on bad parameters."""

    def describe(self) -> str:
        return f"{self.name}()"

    def submit(self, rows: list[int], now: float) -> None:
        self.pending.extend(rows)

    def complete(self, rows: list[int], now: float) -> None:
        for row in rows:
            del self.running[row]

    def schedule(self, now: float) -> None:
        if not self.pending or self.ctx.free.size == 0:
            return
        rows = np.asarray(self.pending, dtype=np.int64)
        ends = np.fromiter((e for e, _ in self.running.values()), dtype=np.float64, count=len(self.running))
        counts = np.fromiter((k for _, k in self.running.values()), dtype=np.int64, count=len(self.running))
        plan = self.plan(now, rows, ends, counts)
        now_mask = plan.start <= now
        for row, k in zip(rows[now_mask].tolist(), plan.procs[now_mask].tolist()):
            self.ctx.start(row, self.ctx.free.first(k))
            self.running[row] = (now + float(self.times[row, k - 1]), k)
        self.pending = rows[~now_mask].tolist()
        later = plan.start[~now_mask]
        if later.size and np.isfinite(later.min()):
            self.ctx.wake_at(float(later.min()))

    def plan(self, now: float, rows: np.ndarray, run_end: np.ndarray, run_procs: np.ndarray) -> MoldablePlan:
        raise NotImplementedError


class DBOS(_MoldablePolicy):
    """DBOS: MoldableEDF at the smallest feasible target stretch, relaxed by the online factor rho.

    Source: Saule, Bozdag and Catalyurek (2014), section 6, Algorithm 2.
    Guarantee: none proven (the adversary of Theorem 2.2 applies); every plan
    meets the deadlines of its target stretch (tested). Not work-conserving.
    Cost: a binary search of MoldableEDF calls per event with a free processor.

    Parameters
    ----------
    rho : float, default 1.5
        Online factor, >= 1 (1: off; the paper uses 1 and 1.5).
    eps : float, default 1e-3
        Relative precision of the search on S.
    """

    name = "dbos"
    parameters = {
        "rho": Param("online factor: the plan's maximum stretch is relaxed to rho times itself (1: off)", low=1),
        "eps": Param(
            "relative precision of the binary search on the target stretch",
            low=0,
            high=1,
            open_low=True,
            open_high=True,
        ),
    }

    def __init__(self, *, rho: float = 1.5, eps: float = 1e-3) -> None:
        self.rho = rho
        self.eps = eps

    def check(self) -> None:
        if not (isinstance(self.rho, (int, float)) and 1.0 <= self.rho < np.inf):
            raise InputError("policy", field="dbos rho", value=self.rho, expected="a number >= 1 (1: no relaxation)")
        if not 0 < self.eps < 1:
            raise InputError("policy", field="dbos eps", value=self.eps, expected="0 < eps < 1")

    def describe(self) -> str:
        return f"dbos(rho={self.rho:g}, eps={self.eps:g})"

    def plan(self, now, rows, run_end, run_procs):
        return dbos_plan(now, self.m, run_end, run_procs, rows, self.release, self.times, rho=self.rho, eps=self.eps)


class Iterative(_MoldablePolicy):
    """Iterative allocation (Sabin et al. 2006) with conservative backfilling in FCFS order.

    Source: Saule, Bozdag and Catalyurek (2014), section 5.4.
    Guarantee: none proven. Cost: see :func:`~schedlab.policies.stretch.iterative.iterative_plan`.
    """

    name = "iterative"
    improved = False

    def plan(self, now, rows, run_end, run_procs):
        return iterative_plan(now, self.m, run_end, run_procs, rows, self.release, self.times, improved=self.improved)


class ImprovedIterative(Iterative):
    """Improved Iterative: adds the k processors with the best run-time drop per processor.

    Source: Saule, Bozdag and Catalyurek (2014), section 5.4 ("Improvements to the algorithm").
    Guarantee: none proven; equals Iterative on convex speed-ups.
    """

    name = "improved-iterative"
    improved = True


class ScojoLike(_MoldablePolicy):
    """APPROXIMATION of SCOJO-P (Barsanti and Sodan 2006), not SCOJO-P: see :mod:`schedlab.policies.stretch.scojo`.

    Parameters
    ----------
    utilisation : float, default 0.95
        Target busy fraction of the machine, in (0, 1].
    window : int, default 50
        Number of recent releases whose work predicts the arrivals' demand.
    """

    name = "scojo-like"
    parameters = {
        "utilisation": Param("target busy fraction of the machine", low=0, high=1, open_low=True),
        "window": Param("number of recent releases whose work predicts the arrivals' demand", low=2),
    }

    def __init__(self, *, utilisation: float = 0.95, window: int = 50) -> None:
        self.utilisation = utilisation
        self.window = window

    def check(self) -> None:
        if not 0 < self.utilisation <= 1:
            raise InputError("policy", field="scojo-like utilisation", value=self.utilisation, expected="0 < u <= 1")
        if self.window < 2:
            raise InputError("policy", field="scojo-like window", value=self.window, expected="an integer >= 2")

    def describe(self) -> str:
        return f"scojo-like(utilisation={self.utilisation:g}, window={self.window})"

    def reset(self, ctx) -> None:
        super().reset(ctx)
        self.optimal = efficient_procs(self.times)
        self.released: list[int] = []

    def submit(self, rows: list[int], now: float) -> None:
        super().submit(rows, now)
        self.released.extend(rows)

    def demand(self) -> float:
        """Processors the recent arrivals keep busy: their sequential work over their release span."""
        recent = self.released[-self.window :]
        span = self.release[recent[-1]] - self.release[recent[0]] if len(recent) > 1 else 0.0
        return float(self.times[recent, 0].sum() / span) if span > 0 else 0.0

    def plan(self, now, rows, run_end, run_procs):
        busy = int(run_procs.sum())
        target = scaled_procs(self.optimal[rows], self.m, busy, self.demand(), self.utilisation)
        return scojo_like_plan(now, self.m, run_end, run_procs, rows, self.times, target)


class MoldableFCFS(_MoldablePolicy):
    """FCFS-sequential: every task on one processor, in release order (the paper's section 7.2 baseline).

    Source: Saule, Bozdag and Catalyurek (2014), section 7.2.
    Guarantee: Theorem 3.1's bound on the sequential times. Cost: O(1) per started task.
    """

    name = "fcfs-sequential"

    def plan(self, now, rows, run_end, run_procs):
        free = self.ctx.free.size
        start = np.full(rows.shape[0], np.inf)
        start[:free] = now
        return MoldablePlan(start, np.ones(rows.shape[0], dtype=np.int64), float("nan"))
