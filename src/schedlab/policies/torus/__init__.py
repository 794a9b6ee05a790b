"""Schedulers for machines whose jobs need rectangular partitions of a 3-D torus (Krevat 2003)."""

from typing import TYPE_CHECKING

from schedlab._lazy import exports

if TYPE_CHECKING:
    from schedlab.policies.torus.policy import TorusPolicy
    from schedlab.policies.torus.scheduler import Move, Start, TorusScheduler

__all__ = ["Move", "Start", "TorusPolicy", "TorusScheduler"]

__getattr__, __dir__ = exports(
    __name__,
    {
        "TorusPolicy": "schedlab.policies.torus.policy",
        "Move": "schedlab.policies.torus.scheduler",
        "Start": "schedlab.policies.torus.scheduler",
        "TorusScheduler": "schedlab.policies.torus.scheduler",
    },
)
