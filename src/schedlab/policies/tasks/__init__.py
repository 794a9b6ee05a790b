"""Online policies for independent sequential tasks (seed 004, seed 000 ch.3): SPT families and redirection."""

from schedlab.policies.tasks.common_queue import GSPT, GSPTRD, GSPTRR
from schedlab.policies.tasks.dispatch import SPT, SPTRD, SPTRR

__all__ = ["GSPT", "GSPTRD", "GSPTRR", "SPT", "SPTRD", "SPTRR"]
