"""Gantt chart of a hybrid schedule: one row per CPU, then one per GPU (matplotlib, imported lazily).

Source: the issue's ``--gantt`` option; evalys ``visu/gantt.py`` (``plot_gantt(jobset, *, ...)``) for the shape.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["plot_hybrid_gantt"]


def _runs(ids: tuple[int, ...]) -> list[tuple[int, int]]:
    """Sorted ids as ``(first, count)`` runs of consecutive ids."""
    runs: list[tuple[int, int]] = []
    for r in ids:
        if runs and runs[-1][0] + runs[-1][1] == r:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((r, 1))
    return runs


def plot_hybrid_gantt(instance, schedule, path: str | Path, *, title: str | None = None) -> None:
    """Write a PNG (or any matplotlib format, by suffix) of ``schedule``: CPUs at the bottom, GPUs on top.

    A task on several consecutive CPUs is one box spanning their rows, labelled with its id.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m, k = instance.m, instance.k
    fig, ax = plt.subplots(figsize=(10, max(2.5, min(12, 0.25 * (m + k) + 1.5))))
    cmap = plt.get_cmap("tab20")
    label = (m + k) <= 64 and instance.n <= 200
    for j in range(instance.n):
        s, e = float(schedule.start[j]), float(schedule.end[j])
        base = m if schedule.on_gpu[j] else 0
        for first, count in _runs(tuple(schedule.resources[j])):
            ax.add_patch(
                plt.Rectangle((s, base + first), e - s, count, facecolor=cmap(j % 20), edgecolor="black", linewidth=0.4)
            )
            if label:
                ax.text(
                    (s + e) / 2, base + first + count / 2, str(instance.ids[j]), ha="center", va="center", fontsize=6
                )
    if m and k:
        ax.axhline(m, color="black", linewidth=1.2)
    ax.set_xlim(0, max(schedule.makespan, 1e-9) * 1.02)
    ax.set_ylim(0, m + k)
    ax.set_xlabel("time")
    ax.set_ylabel(f"CPUs 0..{m - 1} | GPUs 0..{k - 1}" if m and k else ("CPUs" if m else "GPUs"))
    ax.set_title(title or f"{schedule.algorithm}: makespan {schedule.makespan:.4g}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
