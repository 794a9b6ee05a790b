"""Gantt chart of any :class:`~schedlab.schedule.Schedule` held in memory: one row per resource id.

Source: evalys ``visu/gantt.py`` (``plot_gantt(jobset, *, ...)``) for the shape.
Unlike :mod:`schedlab.report.gantt`, which reads a run's ``jobs.csv`` and
aggregates millions of ranges, this draws the small schedules of offline
algorithms (CPU+GPU tasks, I/O-aware jobs) exactly: each allocation range is a
box labelled with its job id, and the platform's resource kinds (CPUs, GPUs)
are separated by a line and named on the axis.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schedlab.schedule import Instance, Schedule

__all__ = ["plot_schedule", "schedule_figure"]


def plot_schedule(instance: Instance, schedule: Schedule, path: str | Path, *, title: str | None = None) -> None:
    """Write a PNG (or any matplotlib format, by suffix) of :func:`schedule_figure`."""
    schedule_figure(instance, schedule, title=title).savefig(path, dpi=120)


def schedule_figure(instance: Instance, schedule: Schedule, *, title: str | None = None):
    """The chart of ``schedule``: resource ids upwards, time rightwards (a matplotlib Figure, Agg canvas).

    Boxes are labelled with job ids when there are at most 64 resources and 200 jobs. Aborted pieces
    are drawn hatched; a migrated job is drawn on each placement it held (its moved pieces, then its final
    allocation from its last move).
    """
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    n_res = instance.platform.n_procs
    fig = Figure(figsize=(10, max(2.5, min(12, 0.25 * n_res + 1.5))))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    cmap = colormaps["tab20"]
    ids = instance.jobs.id
    label = n_res <= 64 and len(ids) <= 200
    pieces = [(p.job, p.start, p.end, p.alloc, not p.moved) for p in schedule.aborted]
    placed = {p.job: max(p.end, 0.0) for p in sorted(schedule.aborted, key=lambda p: p.end) if p.moved}
    finals = [
        (j, placed.get(j, schedule.start[j]), schedule.end[j], a, False) for j, a in enumerate(schedule.alloc) if a
    ]
    for j, s, e, alloc, aborted in finals + pieces:
        for lo, hi in alloc:
            ax.add_patch(
                Rectangle(
                    (s, lo),
                    e - s,
                    hi - lo,
                    facecolor=cmap(j % 20),
                    edgecolor="black",
                    linewidth=0.4,
                    hatch="//" if aborted else None,
                )
            )
            if label:
                ax.text((s + e) / 2, (lo + hi) / 2, str(ids[j]), ha="center", va="center", fontsize=6)
    ticks, names = [], []
    for kind in instance.platform.kinds:
        for lo, hi in kind.ids:
            if lo > 0:
                ax.axhline(lo, color="black", linewidth=1.2)
            ticks.append((lo + hi) / 2)
            names.append(f"{kind.name} {lo}..{hi - 1}")
    ax.set_yticks(ticks, names)
    ends = np.asarray(schedule.end, dtype=np.float64)
    ax.set_xlim(0, max(float(np.nanmax(ends)) if np.isfinite(ends).any() else 0.0, 1e-9) * 1.02)
    ax.set_ylim(0, n_res)
    ax.set_xlabel("time")
    ax.set_title(title or f"{schedule.policy}: makespan {schedule.makespan:.4g}")
    fig.tight_layout()
    return fig
