"""SWDUAL: Smith-Waterman protein database search on CPU cores and GPUs, split by dual approximation.

Source: Mendonca (2017), PhD thesis (Grenoble), chapter 2; published as
Kedad-Sidhoum, Mendonca, Monna, Mounie and Trystram, "Fast biological
sequence comparison on hybrid platforms", ICPP 2014.

Modules, one job each: :mod:`.scoring` (matrices, gap conventions),
:mod:`.sequences` (FASTA), :mod:`.synthetic` (seeded protein sets),
:mod:`.reference` (plain-Python Gotoh), :mod:`.cpu` and :mod:`.gpu` (engines;
the CUDA kernel in :mod:`.gpu_kernel`, its layout in :mod:`.layout`),
:mod:`.calibration` (performance models), :mod:`.scheduling` (plans through
the registry, as the common Schedule), :mod:`.runtime` (master-worker run),
:mod:`.hits`, :mod:`.search` (end to end), :mod:`.gantt` (predicted vs
measured), :mod:`.thesis` (the published tables). The reproduction is
:mod:`schedlab.experiments.swdual`, the commands :mod:`schedlab.cli.swdual`.
The GPU engine needs the optional ``gpu`` extra (numba-cuda).
"""

from __future__ import annotations

from schedlab.swdual.calibration import EngineModel, PerformanceModel, calibrate_engine, database_sample
from schedlab.swdual.cpu import CPU_ENGINES, Engine, EngineError, OpalEngine, ParasailEngine, make_cpu_engine
from schedlab.swdual.hits import hits_tsv, top_hits
from schedlab.swdual.reference import gotoh_score
from schedlab.swdual.runtime import RunResult, TaskRun, Worker, WorkerError, run_plan
from schedlab.swdual.scheduling import SCHEDULERS, Plan, make_plan, worker_names
from schedlab.swdual.scoring import PROTEIN_MATRICES, Scoring
from schedlab.swdual.search import SearchResult, make_workers, search, write_files
from schedlab.swdual.sequences import FastaIndex, SequenceSet, read_fasta, sequence_set
from schedlab.swdual.synthetic import generate_sequences, write_fasta

__all__ = [
    "CPU_ENGINES",
    "PROTEIN_MATRICES",
    "SCHEDULERS",
    "Engine",
    "EngineError",
    "EngineModel",
    "FastaIndex",
    "OpalEngine",
    "ParasailEngine",
    "PerformanceModel",
    "Plan",
    "RunResult",
    "Scoring",
    "SearchResult",
    "SequenceSet",
    "TaskRun",
    "Worker",
    "WorkerError",
    "calibrate_engine",
    "database_sample",
    "generate_sequences",
    "gotoh_score",
    "hits_tsv",
    "make_cpu_engine",
    "make_plan",
    "make_workers",
    "read_fasta",
    "run_plan",
    "search",
    "sequence_set",
    "top_hits",
    "worker_names",
    "write_fasta",
    "write_files",
]
