"""Online policies for independent sequential tasks (Lucarelli, Mendonca and Trystram (2017); Mendonca 2017, ch.3): SPT families and redirection."""

from schedlab.policies.tasks.common_queue import GSPT, GSPTRD, GSPTRR
from schedlab.policies.tasks.dispatch import SPT, SPTRD, SPTRR
from schedlab.policies.tasks.preemptive import GSRPT, SRPT

__all__ = ["GSPT", "GSPTRD", "GSPTRR", "GSRPT", "SPT", "SPTRD", "SPTRR", "SRPT"]
