"""Workloads: job tables, trace readers and writers, filters."""

from schedlab.workload.jobs import JobTable

__all__ = ["JobTable"]
