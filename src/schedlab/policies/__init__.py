"""Online policies, one package per family; :mod:`schedlab.registry` lists them under their papers' names."""

from typing import TYPE_CHECKING

from schedlab._lazy import exports

if TYPE_CHECKING:
    from schedlab.policies.rigid import EASY, FCFS, Conservative
    from schedlab.policies.tasks import GSPT, GSPTRD, GSPTRR, GSRPT, SPT, SPTRD, SPTRR, SRPT

__all__ = ["EASY", "FCFS", "GSPT", "GSPTRD", "GSPTRR", "GSRPT", "SPT", "SPTRD", "SPTRR", "SRPT", "Conservative"]

__getattr__, __dir__ = exports(
    __name__,
    {
        "EASY": "schedlab.policies.rigid",
        "FCFS": "schedlab.policies.rigid",
        "Conservative": "schedlab.policies.rigid",
        "GSPT": "schedlab.policies.tasks",
        "GSPTRD": "schedlab.policies.tasks",
        "GSPTRR": "schedlab.policies.tasks",
        "GSRPT": "schedlab.policies.tasks",
        "SPT": "schedlab.policies.tasks",
        "SPTRD": "schedlab.policies.tasks",
        "SPTRR": "schedlab.policies.tasks",
        "SRPT": "schedlab.policies.tasks",
    },
)
