"""The discrete-event simulator that runs online policies on an instance."""

from schedlab.engine.policy import OnlinePolicy
from schedlab.engine.simulator import Context, simulate

__all__ = ["Context", "OnlinePolicy", "simulate"]
