"""Schedulers for machines whose jobs need rectangular partitions of a 3-D torus (Krevat 2003)."""

from schedlab.policies.torus.policy import TorusPolicy
from schedlab.policies.torus.scheduler import Move, Start, TorusScheduler

__all__ = ["Move", "Start", "TorusPolicy", "TorusScheduler"]
