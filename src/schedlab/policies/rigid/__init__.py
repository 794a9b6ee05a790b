"""Online policies for rigid parallel jobs on a homogeneous machine."""

from schedlab.policies.rigid.conservative import Conservative
from schedlab.policies.rigid.fcfs import EASY, FCFS

__all__ = ["EASY", "FCFS", "Conservative"]
