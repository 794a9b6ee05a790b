"""Online policies for independent sequential tasks (Lucarelli, Mendonca and Trystram (2017); Mendonca 2017, ch.3): SPT families and redirection."""

from typing import TYPE_CHECKING

from schedlab._lazy import exports

if TYPE_CHECKING:
    from schedlab.policies.tasks.common_queue import GSPT, GSPTRD, GSPTRR
    from schedlab.policies.tasks.dispatch import SPT, SPTRD, SPTRR
    from schedlab.policies.tasks.preemptive import GSRPT, SRPT

__all__ = ["GSPT", "GSPTRD", "GSPTRR", "GSRPT", "SPT", "SPTRD", "SPTRR", "SRPT"]

__getattr__, __dir__ = exports(
    __name__,
    {
        "GSPT": "schedlab.policies.tasks.common_queue",
        "GSPTRD": "schedlab.policies.tasks.common_queue",
        "GSPTRR": "schedlab.policies.tasks.common_queue",
        "SPT": "schedlab.policies.tasks.dispatch",
        "SPTRD": "schedlab.policies.tasks.dispatch",
        "SPTRR": "schedlab.policies.tasks.dispatch",
        "GSRPT": "schedlab.policies.tasks.preemptive",
        "SRPT": "schedlab.policies.tasks.preemptive",
    },
)
