"""Workloads: job tables, trace readers and writers, filters."""

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
