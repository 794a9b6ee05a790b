"""Run-time models: how long a job runs on the allocation it gets (rigid, topology penalties, CPU+GPU times,
partitions that may be larger than the job, moldable tasks)."""

from typing import TYPE_CHECKING

from schedlab._lazy import exports

if TYPE_CHECKING:
    from schedlab.runtime.base import RigidRuntime, RuntimeModel
    from schedlab.runtime.hybrid import HybridTimes
    from schedlab.runtime.io import IORequests
    from schedlab.runtime.moldable import MoldableTimes, moldable_jobs
    from schedlab.runtime.partition import PartitionRuntime
    from schedlab.runtime.penalty import FUNCTIONS, TopologyPenalty, parse_penalty

__all__ = [
    "FUNCTIONS",
    "HybridTimes",
    "IORequests",
    "MoldableTimes",
    "PartitionRuntime",
    "RigidRuntime",
    "RuntimeModel",
    "TopologyPenalty",
    "moldable_jobs",
    "parse_penalty",
]

__getattr__, __dir__ = exports(
    __name__,
    {
        "RigidRuntime": "schedlab.runtime.base",
        "RuntimeModel": "schedlab.runtime.base",
        "HybridTimes": "schedlab.runtime.hybrid",
        "IORequests": "schedlab.runtime.io",
        "MoldableTimes": "schedlab.runtime.moldable",
        "moldable_jobs": "schedlab.runtime.moldable",
        "PartitionRuntime": "schedlab.runtime.partition",
        "FUNCTIONS": "schedlab.runtime.penalty",
        "TopologyPenalty": "schedlab.runtime.penalty",
        "parse_penalty": "schedlab.runtime.penalty",
    },
)
