"""Run-time models: how long a job runs on the allocation it gets (rigid, topology penalties, CPU+GPU times,
partitions that may be larger than the job)."""

from schedlab.runtime.base import RigidRuntime, RuntimeModel
from schedlab.runtime.hybrid import HybridTimes
from schedlab.runtime.io import IORequests
from schedlab.runtime.partition import PartitionRuntime
from schedlab.runtime.penalty import FUNCTIONS, TopologyPenalty, parse_penalty

__all__ = [
    "FUNCTIONS",
    "HybridTimes",
    "IORequests",
    "PartitionRuntime",
    "RigidRuntime",
    "RuntimeModel",
    "TopologyPenalty",
    "parse_penalty",
]
