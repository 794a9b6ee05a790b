"""The protocol every online policy implements.

The engine owns the clock and the resources. At each event time it tells the
policy what completed, then what was submitted, then asks for exactly one
scheduling pass. The policy acts only through the :class:`~schedlab.engine.Context`
it received in ``reset`` (start, abort, reject, timer), which the engine checks and
applies at once, so the next choice in the same pass sees the previous one.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from schedlab.engine.simulator import Context


@runtime_checkable
class OnlinePolicy(Protocol):
    """An online scheduler: events in, actions on the context out.

    ``clairvoyant`` says whether the policy may read actual run times; a policy
    that is not gets a job view whose ``run_time`` is None. A policy may also
    have a ``report()`` method returning a dict of what it did beyond the
    schedule (counters, sizes it used); the engine stores it in
    :attr:`~schedlab.schedule.Schedule.info`.
    """

    name: str
    clairvoyant: bool

    def reset(self, ctx: Context) -> None:
        """Validate parameters against the platform and build empty state."""

    def complete(self, rows: list[int], now: float) -> None:
        """Jobs (row indices) that ended at ``now``: completed, or killed at their walltime."""

    def submit(self, rows: list[int], now: float) -> None:
        """Jobs released at ``now``, in (submit, id) order."""

    def schedule(self, now: float) -> None:
        """One scheduling pass at ``now``, after completions and submissions."""

    def describe(self) -> str:
        """Name and parameters, recorded in every output."""
