"""Functions for notebooks and scripts: the metrics of a run, and runs compared (``schedlab.metrics``,
``schedlab.compare``), taking finished :class:`~schedlab.runner.Run` objects or run folders alike.

``schedlab.metrics`` the function shadows the module of the same name as an attribute of the package;
``from schedlab.metrics import aggregate`` still imports the module's functions.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from schedlab.measure import RunFiles, read_run
from schedlab.runner import Run

if TYPE_CHECKING:  # the comparison (pandas) loads when compare() is called, not with schedlab
    from schedlab.report.compare import Comparison

__all__ = ["compare", "metrics"]


def metrics(run: Run | str | os.PathLike, *, procs: int | None = None, tau: float | None = None) -> dict:
    """Every metric of ``metrics.json`` for a :class:`Run`, a run folder or a ``jobs.csv`` (ours or Batsim's),
    by the code ``simulate`` measures with (:mod:`schedlab.measure`). ``procs`` and ``tau`` apply to files:
    the machine size and bounded-slowdown threshold when the run's ``metrics.json`` is absent or overruled."""
    if isinstance(run, Run):
        return dict(run.metrics) if tau is None else _files(run).metrics(tau=tau)
    return read_run(run, procs=procs).metrics(tau=tau)


def compare(*runs: Run | str | os.PathLike, procs: int | None = None) -> Comparison:
    """Runs of the same jobs side by side, the first as the base (:func:`schedlab.report.compare.compare`):
    ``.metrics`` (every metric and ratio), ``.deltas`` (start-time deltas by job class), ``.wait`` and
    ``.bsld`` (per-job values for CDFs), ``.utilization`` (over time); write the HTML page with
    :func:`schedlab.report.compare.write_comparison`."""
    from schedlab.report.compare import compare as _compare

    return _compare([_files(r) if isinstance(r, Run) else r for r in runs], procs=procs)


def _files(run: Run) -> RunFiles:
    """A Run in memory as :class:`RunFiles`, labelled by its policy."""
    stored = {**run.metrics, "run": run.info}
    return RunFiles(
        Path(str(run.info.get("policy", "run"))), run.jobs, run.instance, run.schedule, stored, "the run", []
    )
