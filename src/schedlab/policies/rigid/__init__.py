"""Online policies for rigid parallel jobs on a homogeneous machine."""

from typing import TYPE_CHECKING

from schedlab._lazy import exports

if TYPE_CHECKING:
    from schedlab.policies.rigid.conservative import Conservative
    from schedlab.policies.rigid.fcfs import EASY, FCFS

__all__ = ["EASY", "FCFS", "Conservative"]

__getattr__, __dir__ = exports(
    __name__,
    {
        "Conservative": "schedlab.policies.rigid.conservative",
        "EASY": "schedlab.policies.rigid.fcfs",
        "FCFS": "schedlab.policies.rigid.fcfs",
    },
)
