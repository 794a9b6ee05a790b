"""Online policies, one package per family; :mod:`schedlab.registry` lists them under their papers' names."""

from schedlab.policies.rigid import EASY, FCFS, Conservative
from schedlab.policies.tasks import GSPT, GSPTRD, GSPTRR, GSRPT, SPT, SPTRD, SPTRR, SRPT

__all__ = ["EASY", "FCFS", "GSPT", "GSPTRD", "GSPTRR", "GSRPT", "SPT", "SPTRD", "SPTRR", "SRPT", "Conservative"]
