"""What the task policies of Lucarelli, Mendonca and Trystram (2017) share: the main and dedicated pools, and the redirection rules.

Source: Lucarelli, Mendonca and Trystram (2017), section IV; readings LMT-A1, LMT-A5,
LMT-A7 and LMT-A12 (docs/readings.md).

Processors ``0 .. m - m_d - 1`` form the main pool and ``m - m_d .. m - 1``
the dedicated pool, which runs only redirected tasks. Every task is sequential
(one processor); its processing time is known at release, so these policies
are clairvoyant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.engine.simulator import Context
from schedlab.errors import InputError
from schedlab.parameters import Param

PARAMETERS = {
    "dedicated": Param("m_d, processors of the dedicated pool that runs redirected tasks (< m)", low=1),
    "tau": Param("redirect a running task once tau shorter tasks arrived during its run", low=1),
    "b": Param("tasks with p >= b p_max may be redirected at arrival", low=0),
    "c": Param("probability of redirecting such a task", low=0, high=1),
    "count_if_idle": Param(
        "also count an arrival that starts at once on an idle main processor (the literal reading; default: "
        "only arrivals that wait, delayed by the running tasks)"
    ),
    "batch": Param("queue all arrivals of one time before idle processors take any"),
}
"""The parameters every task policy draws from (each takes those of its ``__init__``)."""

REDIRECTIONS = ("none", "threshold", "random")


@dataclass(frozen=True, slots=True)
class Redirection:
    """How heavy tasks leave the main pool (the parameters every task policy shares).

    Attributes
    ----------
    mode : {"none", "threshold", "random"}
        ``threshold`` (RD): a running task is aborted and restarted on the
        dedicated pool when ``tau`` shorter tasks arrived during its run;
        ``random`` (RR): at arrival, a task with ``p >= b * p_max`` goes to the
        dedicated pool with probability ``c``.
    dedicated : int
        m_d, processors of the dedicated pool (0 for the base policies).
    tau, b, c : threshold (int >= 1), length fraction, probability (Lucarelli, Mendonca and Trystram 2017, section IV).
    """

    mode: str
    dedicated: int
    tau: int
    b: float
    c: float

    def check(self, policy: str, n_procs: int, procs) -> None:
        """Raise InputError when the parameters do not fit the machine (reading LMT-A7: one main processor at least)
        or a job is parallel (``procs``: processors per job; convert parallel jobs to tasks first)."""
        wide = np.flatnonzero(np.asarray(procs) != 1)
        if wide.size:
            raise InputError(
                "policy",
                field=f"{policy} workload",
                value=f"{wide.size} parallel job(s)",
                expected="sequential tasks (1 processor each); convert parallel jobs with schedlab.workload.tasks",
            )
        if self.mode not in REDIRECTIONS:
            raise InputError(
                "policy", field=f"{policy} redirect", value=self.mode, expected=f"one of {', '.join(REDIRECTIONS)}"
            )
        if self.mode == "none" and self.dedicated:
            raise InputError(
                "policy", field=f"{policy} dedicated", value=self.dedicated, expected="0 without redirection"
            )
        if self.mode != "none" and not 1 <= self.dedicated < n_procs:
            raise InputError(
                "policy",
                field=f"{policy} dedicated",
                value=self.dedicated,
                expected=f"1 <= m_d < {n_procs} (the machine size)",
            )
        if self.tau < 1:
            raise InputError("policy", field=f"{policy} tau", value=self.tau, expected="an integer >= 1")
        if not (0.0 <= self.b and 0.0 <= self.c <= 1.0):
            raise InputError(
                "policy", field=f"{policy} b, c", value=(self.b, self.c), expected="b >= 0 and 0 <= c <= 1"
            )


class RandomRedirector:
    """The RR test at arrival (section IV-C, reading LMT-A12): ``p_max`` includes the arriving task, and a uniform draw is
    made only for potentially heavy tasks, so the same seed gives the same redirections."""

    __slots__ = ("b", "c", "rng", "p_max")

    def __init__(self, b: float, c: float, rng: np.random.Generator) -> None:
        self.b, self.c, self.rng = b, c, rng
        self.p_max = 0.0

    def redirects(self, p: float) -> bool:
        if p > self.p_max:
            self.p_max = p
        return p >= self.b * self.p_max and self.rng.random() <= self.c


class TaskPolicy:
    """What every task policy shares: clairvoyance, parameters, their description, event semantics.

    Subclasses set ``name`` and call :meth:`_configure` from ``__init__``.
    """

    name: str  # set by each subclass
    clairvoyant = True  # processing times are known at release (section II of the paper)
    parameters = PARAMETERS
    sequential = True  # one processor per job: parallel jobs are refused in reset

    def _configure(self, redirection: Redirection, batch: bool, count_if_idle: bool = False) -> None:
        self.redirection = redirection
        self.batch = batch
        self.count_if_idle = count_if_idle

    def describe(self) -> str:
        r = self.redirection
        params = {
            "none": [],
            "threshold": [f"dedicated={r.dedicated}", f"tau={r.tau}"],
            "random": [f"dedicated={r.dedicated}", f"b={r.b:g}", f"c={r.c:g}"],
        }[r.mode]
        params += ["count_if_idle=True"] if self.count_if_idle else []
        params += ["batch=True"] if self.batch else []
        return f"{self.name}({', '.join(params)})"

    def _attach(self, ctx: Context) -> None:
        """Keep the context, an empty list of the actions decided at the current time, and room for each
        processor's allocation (built at its first start, then shared by all: a start is the commonest action)."""
        self.ctx = ctx
        self._actions: list[tuple[str, int, tuple[tuple[int, int], ...] | None]] = []
        self._single: list[tuple[tuple[int, int]] | None] = [None] * ctx.n_procs

    def _allocation(self, processor: int) -> tuple[tuple[int, int]]:
        """The allocation of ``processor`` alone, built once."""
        alloc = self._single[processor]
        if alloc is None:
            alloc = self._single[processor] = single(processor)
        return alloc

    def _order_start(self, row: int, processor: int) -> None:
        self._actions.append(("start", row, self._allocation(processor)))

    def _order_abort(self, row: int) -> None:
        self._actions.append(("abort", row, None))

    def _order_preempt(self, row: int) -> None:
        self._actions.append(("preempt", row, None))

    def schedule(self, now: float) -> None:
        """Apply, in the order they were decided, the starts, aborts and preemptions decided at this time's
        completions and arrivals.

        A task policy decides at each event, arrival by arrival (Lucarelli, Mendonca and Trystram 2017,
        section IV; each arrival is dispatched before the next one is seen); the engine receives the
        decisions in its one scheduling pass of the time, like every other policy's.
        """
        actions = self._actions
        if not actions:
            return
        ctx = self.ctx
        for action, row, alloc in actions:
            if action == "start":
                assert alloc is not None
                ctx.start(row, alloc)
            elif action == "abort":
                ctx.abort(row)
            else:
                ctx.preempt(row)
        actions.clear()


def single(processor: int) -> tuple[tuple[int, int]]:
    """The allocation of one processor."""
    return ((processor, processor + 1),)
