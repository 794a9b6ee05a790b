"""Gantt chart of a search: the plan's predicted intervals above, the measured ones below, one row per worker.

Source: the SWDUAL issue's "Gantt of predicted vs actual"; Mendonca (2017),
chapter 2, section 2.5.2 claims "almost no idle time", which the lower panel shows.
Drawn from the run report (``report.json``), so a past run can be drawn again.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["plot_search_gantt"]


def plot_search_gantt(report: dict, path: str | Path) -> None:
    """Write a PNG (or any matplotlib format, by suffix) of ``report``'s predicted and measured task intervals.

    Each task keeps its colour in both panels; a task that ran on another
    worker than planned (self-scheduling) shows where it really ran below.
    A report without measured times (a plan only: tasks without ``start``)
    has the predicted panel alone.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [w["name"] for w in report["workers"]]
    row = {name: i for i, name in enumerate(names)}
    tasks = report["tasks"]
    measured = bool(tasks) and "start" in tasks[0]
    panels = [("predicted", "planned_worker", "predicted_start", "predicted_end", report["predicted_makespan"])]
    if measured:
        panels.append(("measured", "worker", "start", "end", report["makespan"]))
    end = max([p[-1] for p in panels] + [1e-9])
    fig, axes = plt.subplots(
        len(panels), 1, sharex=True, squeeze=False, figsize=(10, 1.6 + 0.5 * len(names) * len(panels))
    )
    axes = axes[:, 0]
    cmap = plt.get_cmap("tab20")
    label = len(tasks) <= 60
    for ax, (title, worker, start, stop, makespan) in zip(axes, panels):
        for j, task in enumerate(tasks):
            y = row[task[worker]]
            ax.barh(
                y,
                task[stop] - task[start],
                left=task[start],
                height=0.8,
                color=cmap(j % 20),
                edgecolor="black",
                linewidth=0.3,
            )
            if label:
                ax.text(
                    (task[start] + task[stop]) / 2, y, str(task["query"])[-6:], ha="center", va="center", fontsize=5
                )
        ax.axvline(makespan, color="black", linestyle="--", linewidth=0.8)
        ax.set_yticks(range(len(names)), names)
        ax.set_title(f"{title}: makespan {makespan:.3g} s", fontsize=9)
    axes[-1].set_xlim(0, end * 1.02)
    axes[-1].set_xlabel("seconds")
    title = f"{report['scheduler']}: {len(tasks)} tasks"
    if measured:
        title += (
            f", {report['cells']:.3g} cells, {report['gcups']:.3g} GCUPS, idle {100 * report['idle_fraction']:.1f} %"
        )
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
