"""Figures of the chapter 3 experiment of Bleuse (2017) (Figs 3.4-3.7 analogues), from ``runs.csv``/``steps.csv`` rows.

Source: Bleuse (2017), ch. 3 section 3.6.3 (Figs 3.4-3.7).
Each function takes the rows of :func:`schedlab.experiments.hybrid.run_experiment`
and writes one PNG (matplotlib, Agg backend, imported lazily); none prints.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from schedlab.report.figures import is_number, pyplot, save_figure

__all__ = [
    "FIGURES",
    "plot_bisection_steps",
    "plot_filtering",
    "plot_hybrid_figures",
    "plot_ratio_lower_bound",
    "plot_relative_makespan",
    "plot_runtime",
]

# algorithms drawn in the quality figures, in this order (others are in the CSV only);
# the PAR heuristics are left out as in the thesis ("largely inferior")
QUALITY = ("approx32", "approx32-mk", "approx2", "lpt-seq", "spt-seq", "ratio-seq", "heft", "da2", "dual2")
RUNTIME = ("approx32", "approx32-mk", "approx2", "lpt-seq", "heft", "da2")


def _present(rows: Sequence[dict], names: Sequence[str]) -> list[str]:
    seen = {r["algorithm"] for r in rows}
    return [a for a in names if a in seen]


def plot_relative_makespan(
    runs: Sequence[dict], path: Path, *, column: str = "ratio_reference", ylabel: str = "makespan / APPROX-3/2"
) -> Path:
    """Fig. 3.4: per n, a box plot per algorithm of the makespan relative to APPROX-3/2 (1.0, dashed)."""
    plt = pyplot()
    names = _present(runs, QUALITY)
    ns = sorted({r["n"] for r in runs})
    fig, axes = plt.subplots(1, len(ns), figsize=(3.2 * len(ns) + 1, 4), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], ns):
        data = [
            [r[column] for r in runs if r["n"] == n and r["algorithm"] == a and is_number(r[column])] for a in names
        ]
        ax.boxplot([d if d else [math.nan] for d in data], showfliers=False)
        ax.set_xticks(range(1, len(names) + 1), names, rotation=60, ha="right", fontsize=8)
        ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title(f"n = {n}")
    axes[0][0].set_ylabel(ylabel)
    fig.suptitle("Relative makespan (boxes: all m, k, samples)")
    return save_figure(fig, path)


def plot_ratio_lower_bound(runs: Sequence[dict], path: Path) -> Path:
    """Mean makespan / best lower bound against m, one line per algorithm, one panel per n."""
    plt = pyplot()
    names = _present(runs, QUALITY)
    ns = sorted({r["n"] for r in runs})
    ms = sorted({r["m"] for r in runs})
    fig, axes = plt.subplots(1, len(ns), figsize=(3.2 * len(ns) + 1, 4), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], ns):
        for a in names:
            means = []
            for m in ms:
                vals = [
                    r["ratio_lower_bound"]
                    for r in runs
                    if r["n"] == n and r["m"] == m and r["algorithm"] == a and is_number(r["ratio_lower_bound"])
                ]
                means.append(sum(vals) / len(vals) if vals else math.nan)
            ax.plot(range(len(ms)), means, marker="o", markersize=3, label=a)
        ax.set_xticks(range(len(ms)), [str(m) for m in ms])
        ax.set_xlabel("m (CPUs)")
        ax.set_title(f"n = {n}")
    axes[0][0].set_ylabel("mean makespan / best lower bound")
    axes[0][-1].legend(fontsize=7)
    return save_figure(fig, path)


def plot_runtime(runs: Sequence[dict], path: Path) -> Path:
    """Fig. 3.5: mean solver wall time (log scale) against n, one line per algorithm (mean over m, k)."""
    plt = pyplot()
    names = _present(runs, RUNTIME)
    ns = sorted({r["n"] for r in runs})
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for a in names:
        means = []
        for n in ns:
            vals = [r["seconds"] for r in runs if r["n"] == n and r["algorithm"] == a]
            means.append(max(sum(vals) / len(vals), 1e-6) if vals else math.nan)
        ax.plot(ns, means, marker="o", label=a)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (tasks)")
    ax.set_ylabel("mean wall time (s)")
    ax.set_title("Solver time")
    ax.legend(fontsize=7)
    return save_figure(fig, path)


def plot_filtering(steps: Sequence[dict], path: Path, *, algorithm: str = "approx32") -> Path:
    """Fig. 3.6: per n, the distribution of mean |F(j)| (eligible sets per task), one value per bisection step."""
    plt = pyplot()
    by_n: dict[int, list[float]] = defaultdict(list)
    for s in steps:
        if s["algorithm"] == algorithm and is_number(s["mean_sets"]):
            by_n[s["n"]].append(s["mean_sets"])
    ns = sorted(by_n)
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.boxplot([by_n[n] for n in ns] if ns else [[math.nan]])
    ax.set_xticks(range(1, len(ns) + 1), [str(n) for n in ns])
    ax.set_ylim(0, 4.2)
    ax.set_xlabel("n (tasks)")
    ax.set_ylabel("mean |F(j)| per bisection step")
    ax.set_title(f"{algorithm}: eligible sets per task after filtering")
    return save_figure(fig, path)


def plot_bisection_steps(
    runs: Sequence[dict], path: Path, *, algorithms: Sequence[str] = ("approx32", "approx2")
) -> Path:
    """Fig. 3.7: histogram of the number of bisection steps per run."""
    plt = pyplot()
    names = _present(runs, algorithms)
    fig, ax = plt.subplots(figsize=(5.5, 4))
    values = [[r["steps"] for r in runs if r["algorithm"] == a] for a in names]
    top = max((max(v) for v in values if v), default=1)
    ax.hist(values, bins=range(0, int(top) + 2), label=names, align="left")
    ax.set_xlabel("bisection steps")
    ax.set_ylabel("runs")
    ax.set_title("Bisection steps (cutoff 1.01)")
    if names:
        ax.legend(fontsize=8)
    return save_figure(fig, path)


FIGURES = {
    "fig3_4_relative_makespan.png": "makespan relative to APPROX-3/2 per algorithm and n (Fig. 3.4)",
    "fig3_4b_ratio_lower_bound.png": "mean makespan / best lower bound against m (companion of Fig. 3.4)",
    "fig3_5_runtime.png": "mean solver time against n (Fig. 3.5)",
    "fig3_6_filtering.png": "mean |F(j)| per bisection step of APPROX-3/2 (Fig. 3.6)",
    "fig3_7_bisection_steps.png": "bisection steps of APPROX-3/2 and APPROX-2 (Fig. 3.7)",
}


def plot_hybrid_figures(runs: Sequence[dict], steps: Sequence[dict], out: Path) -> list[Path]:
    """Write every figure of :data:`FIGURES` into ``out``; returns their paths."""
    out = Path(out)
    names = list(FIGURES)
    return [
        plot_relative_makespan(runs, out / names[0]),
        plot_ratio_lower_bound(runs, out / names[1]),
        plot_runtime(runs, out / names[2]),
        plot_filtering(steps, out / names[3]),
        plot_bisection_steps(runs, out / names[4]),
    ]
