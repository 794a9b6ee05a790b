"""Run-time models: how long a job runs on the allocation it gets (rigid, topology penalties, CPU+GPU times)."""

from schedlab.runtime.base import RigidRuntime, RuntimeModel
from schedlab.runtime.hybrid import HybridTimes
from schedlab.runtime.penalty import FUNCTIONS, TopologyPenalty, parse_penalty

__all__ = ["FUNCTIONS", "HybridTimes", "RigidRuntime", "RuntimeModel", "TopologyPenalty", "parse_penalty"]
