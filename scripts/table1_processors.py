"""Which definition of Q (and of m) gives the processors per instance of Lucarelli et al. (2017), Table I?

Conversion C runs an instance on m/Q processors. This script draws each trace's 20 random windows as
``schedlab reproduce redirections`` does (seed 0, Table I lengths, Table I machine sizes m) and prints,
per trace, the mean over windows of m/Q for several plausible definitions, next to Table I's value:

* ``mean q``: Q = the mean allocated processors of the window's jobs (the paper's formula; ours);
* ``requested``: the same with requested processors (SWF field 8);
* ``work-weighted``: Q = sum(q e) / sum(e);
* ``trace Q``: Q = the mean over the whole filtered trace;
* ``widest / Q``: m replaced by the widest job of the window (what a reader without the machine size
  takes as the machine), Q = the window's mean q.

Usage: ``python scripts/table1_processors.py [TRACES_DIR]`` (default ``../shared/traces``; a few minutes).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from schedlab.campaign.expand import _redraw_empty, task_jobs
from schedlab.experiments.redirections import TRACES
from schedlab.workload.tasks import job_processors
from schedlab.workload.windows import cut, random_windows

DAY = 86400.0


def definitions(path: Path, m: int, days: float, count: int = 20, seed: int = 0) -> dict[str, float]:
    """Mean over ``count`` random windows of m/Q for each definition of the module docstring."""
    instance, _ = task_jobs(str(path), procs=m)
    jobs = instance.jobs
    rng = np.random.default_rng(seed)
    drawn = _redraw_empty(jobs, random_windows(jobs, days * DAY, count, rng=rng), days * DAY, rng, "", str(path))
    whole = float(job_processors(jobs).mean())
    values: dict[str, list[float]] = {k: [] for k in ("mean q", "requested", "work-weighted", "trace Q", "widest / Q")}
    for window in drawn:
        part = cut(jobs, window)
        q, e = job_processors(part).astype(float), part.run_time
        values["mean q"].append(m / q.mean())
        values["requested"].append(m / part.procs.mean())
        values["work-weighted"].append(m / ((q * e).sum() / e.sum()))
        values["trace Q"].append(m / whole)
        values["widest / Q"].append(q.max() / q.mean())
    return {k: float(np.mean(v)) for k, v in values.items()}


def main(folder: Path) -> None:
    names = None
    for name, info in TRACES.items():
        row = definitions(folder / info.file, info.table1[0], info.days)
        if names is None:
            names = list(row)
            print("| trace | m | Table I | " + " | ".join(names) + " |")
            print("|---|--:|--:|" + "--:|" * len(names))
        cells = " | ".join(f"{row[k]:.1f}" for k in names)
        print(f"| {name} | {info.table1[0]:,} | {info.table1[3]} | {cells} |", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("../shared/traces"))
