"""Workloads: job tables, trace readers and writers, filters."""

from typing import TYPE_CHECKING

from schedlab._lazy import exports

if TYPE_CHECKING:
    from schedlab.workload.batsim import read_batsim, write_batsim
    from schedlab.workload.filters import FilterReport, estimates, processors, to_jobs
    from schedlab.workload.jobs import JobTable
    from schedlab.workload.stats import trace_summary
    from schedlab.workload.swf import SWF_FIELDS, SwfHeader, SwfTrace, machine_size, read_swf, write_swf

__all__ = [
    "SWF_FIELDS",
    "FilterReport",
    "JobTable",
    "SwfHeader",
    "SwfTrace",
    "estimates",
    "machine_size",
    "processors",
    "read_batsim",
    "read_swf",
    "to_jobs",
    "trace_summary",
    "write_batsim",
    "write_swf",
]

__getattr__, __dir__ = exports(
    __name__,
    {
        "read_batsim": "schedlab.workload.batsim",
        "write_batsim": "schedlab.workload.batsim",
        "FilterReport": "schedlab.workload.filters",
        "estimates": "schedlab.workload.filters",
        "processors": "schedlab.workload.filters",
        "to_jobs": "schedlab.workload.filters",
        "JobTable": "schedlab.workload.jobs",
        "trace_summary": "schedlab.workload.stats",
        "SWF_FIELDS": "schedlab.workload.swf",
        "SwfHeader": "schedlab.workload.swf",
        "SwfTrace": "schedlab.workload.swf",
        "machine_size": "schedlab.workload.swf",
        "read_swf": "schedlab.workload.swf",
        "write_swf": "schedlab.workload.swf",
    },
)
