"""Figures of the I/O-aware allocation study, from the rows of :func:`schedlab.experiments.io.run_experiment`.

Source: the evaluation plan for Bleuse (2017), chapters 5-6 (the thesis has
no experiment). Each function writes one PNG (matplotlib, Agg backend,
imported lazily); none prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from schedlab.report.figures import is_number, pyplot, save_figure

__all__ = ["FIGURES", "plot_io_figures", "plot_price", "plot_ratio_lb", "plot_ratio_opt"]

FIGURES = {
    "fig-ratio-lb.png": "Makespan over the best lower bound, per algorithm, by I/O request and topology",
    "fig-ratio-opt.png": "Makespan over the optimum on tiny instances, with the proven ratio",
    "fig-price.png": "Price of the constraints: best convex and local makespan over greedy without them",
}

ORDER = ("pinned", "unit-pinned", "per-io-node", "unpinned", "unpinned-ffdh", "greedy", "sequential")


def _algorithms(rows: Sequence[dict], skip: Sequence[str] = ()) -> list[str]:
    seen = {r["algorithm"] for r in rows}
    return [a for a in ORDER if a in seen and a not in skip] + sorted(seen - set(ORDER) - set(skip))


def plot_ratio_lb(rows: Sequence[dict], path: Path) -> Path:
    """Box plots of makespan / best lower bound per algorithm; one panel per (request kind, topology),
    boxes split by I/O mode (left shared, right exclusive). ``sequential`` is left out (off the scale)."""
    plt = pyplot()
    rows = [r for r in rows if not is_number(r["opt"])]  # instances solved exactly have their own figure
    panels = sorted({(r["kind"], r["topology"]) for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels) + 1, 4), sharey=True, squeeze=False)
    for ax, (kind, topology) in zip(axes[0], panels, strict=True):
        sub = [r for r in rows if r["kind"] == kind and r["topology"] == topology]
        names = _algorithms(sub, skip=("sequential",))
        data, labels = [], []
        for a in names:
            for mode in ("shared", "exclusive"):
                values = [
                    r["ratio_lb"] for r in sub if r["algorithm"] == a and r["mode"] == mode and is_number(r["ratio_lb"])
                ]
                if values:
                    data.append(values)
                    labels.append(f"{a}\n{mode[:4]}")
        ax.boxplot(data, showfliers=True, flierprops={"markersize": 2})
        ax.set_xticks(range(1, len(labels) + 1), labels, rotation=70, ha="right", fontsize=7)
        ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title(f"{kind}, {topology}")
    axes[0][0].set_ylabel("makespan / best lower bound")
    fig.suptitle("Synthetic and trace families (all widths, pressures, samples)")
    return save_figure(fig, path)


def plot_ratio_opt(rows: Sequence[dict], path: Path) -> Path:
    """Per algorithm, the ratios to the optimum on tiny instances (dots) and the proven ratio (bar top)."""
    plt = pyplot()
    rows = [r for r in rows if is_number(r["ratio_opt"])]
    names = _algorithms(rows)
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2, 4))
    for i, a in enumerate(names, 1):
        values = [r["ratio_opt"] for r in rows if r["algorithm"] == a]
        jitter = [i + 0.25 * ((k * 0.618) % 1 - 0.5) for k in range(len(values))]
        ax.scatter(jitter, values, s=6, alpha=0.5)
        proven = [r["proven_ratio"] for r in rows if r["algorithm"] == a and is_number(r["proven_ratio"])]
        if proven:
            ax.hlines(max(proven), i - 0.35, i + 0.35, color="red", linewidth=1.5)
    ax.set_xticks(range(1, len(names) + 1), names, rotation=40, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("makespan / optimum (log)")
    ax.set_title("Tiny instances solved exactly; red: largest proven ratio among them")
    return save_figure(fig, path)


def plot_price(rows: Sequence[dict], path: Path) -> Path:
    """Per family group, the best convex-and-local makespan over the relaxed greedy makespans (mean)."""
    plt = pyplot()
    best: dict[tuple, dict] = {}
    for r in rows:
        key = (r["family"], r["sample"])
        if key not in best or r["makespan"] < best[key]["makespan"]:
            best[key] = r
    groups: dict[tuple, list[dict]] = {}
    for r in best.values():
        groups.setdefault((r["kind"], r["topology"], r["mode"]), []).append(r)
    keys = sorted(groups)
    fig, ax = plt.subplots(figsize=(1.1 * len(keys) + 2, 4))
    width = 0.38
    for offset, column, label in (
        (-width / 2, "relaxed_convex", "over convex only"),
        (width / 2, "relaxed_none", "over no constraint"),
    ):
        means = [sum(r["makespan"] / r[column] for r in groups[k]) / len(groups[k]) for k in keys]
        ax.bar([i + offset for i in range(len(keys))], means, width, label=label)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(keys)), ["\n".join(k) for k in keys], fontsize=7)
    ax.set_ylabel("best makespan / relaxed greedy makespan")
    ax.legend(fontsize=8)
    ax.set_title("Price of convexity + locality (best algorithm per instance)")
    return save_figure(fig, path)


def plot_io_figures(rows: Sequence[dict], out_dir: Path) -> list[Path]:
    """The figures of :data:`FIGURES` that ``rows`` can draw, into ``out_dir``: the ratios to the bound when some
    instance was not solved exactly, to the optimum when some was, the price when there is any row."""
    out_dir = Path(out_dir)
    paths = []
    if any(not is_number(r["opt"]) for r in rows):
        paths.append(plot_ratio_lb(rows, out_dir / "fig-ratio-lb.png"))
    if any(is_number(r["ratio_opt"]) for r in rows):
        paths.append(plot_ratio_opt(rows, out_dir / "fig-ratio-opt.png"))
    if rows:
        paths.append(plot_price(rows, out_dir / "fig-price.png"))
    return paths
