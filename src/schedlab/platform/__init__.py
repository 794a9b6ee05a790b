"""Platforms: the resources jobs run on and how a set of them is written down."""

from schedlab.platform.homogeneous import Machine
from schedlab.platform.intervals import Allocation, IntervalSet, format_allocation, parse_allocation

__all__ = ["Allocation", "IntervalSet", "Machine", "format_allocation", "parse_allocation"]
