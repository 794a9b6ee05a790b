"""Campaign reports: per-metric summary tables, box plots per policy, one self-contained HTML page.

Source: issue 3, point 4. Statistics are over the finished runs of each
(workload, policy label): windows and repetitions. The 95 % confidence
interval of the mean is Student's ``mean +- t(0.975, n-1) s / sqrt(n)``
(undefined, left empty, for n < 2). Plots use matplotlib's object API on an
Agg canvas (no pyplot, no global backend change) and are embedded in the page
as base64 PNG, so ``index.html`` is one file that opens anywhere.
"""

from __future__ import annotations

import base64
import html
import io
import math
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.campaign.expand import expand
from schedlab.campaign.spec import Campaign
from schedlab.campaign.store import TIMING_COLUMNS, campaign_results
from schedlab.errors import InputError

__all__ = ["summarize", "t_quantile_975", "write_report"]

# Student's t 0.975 quantiles for 1..30 degrees of freedom, then 40, 60, 120 (standard tables).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_T975_LARGE = ((40, 2.021), (60, 2.000), (120, 1.980))


def t_quantile_975(df: int) -> float:
    """Student's t 0.975 quantile for ``df`` >= 1 degrees of freedom (table, 3 decimals; 1.960 beyond 120)."""
    if df < 1:
        raise ValueError(f"df = {df}, expected >= 1")
    if df <= 30:
        return _T975[df - 1]
    for bound, value in _T975_LARGE:
        if df <= bound:
            return value
    return 1.960


def summarize(table: pd.DataFrame, metrics: list[str], *, order: list[str] | None = None) -> pd.DataFrame:
    """One row per (metric, workload, label): n, mean, median, std, 95 % CI of the mean, min, max.

    Only rows with ``state == "done"`` and a non-null value count. ``order``
    gives the label order (default: sorted).
    """
    done = table[table["state"] == "done"]
    labels = order if order is not None else sorted(done["label"].unique())
    rows = []
    for metric in metrics:
        for workload in sorted(done["workload"].unique()):
            for label in labels:
                values = done.loc[(done["workload"] == workload) & (done["label"] == label), metric].dropna()
                values = values.to_numpy(dtype=np.float64)
                n = int(values.size)
                if n == 0:
                    continue
                mean = float(np.mean(values))
                std = float(np.std(values, ddof=1)) if n > 1 else math.nan
                half = t_quantile_975(n - 1) * std / math.sqrt(n) if n > 1 else math.nan
                rows.append(
                    {
                        "metric": metric,
                        "workload": workload,
                        "label": label,
                        "n": n,
                        "mean": mean,
                        "median": float(np.median(values)),
                        "std": std,
                        "ci95_low": mean - half,
                        "ci95_high": mean + half,
                        "min": float(np.min(values)),
                        "max": float(np.max(values)),
                    }
                )
    columns = ["metric", "workload", "label", "n", "mean", "median", "std", "ci95_low", "ci95_high", "min", "max"]
    return pd.DataFrame(rows, columns=columns)


def write_report(campaign: Campaign, out, *, force: bool = False, metrics: list[str] | None = None) -> list[Path]:
    """Write the report of ``campaign``'s stored runs into directory ``out``; return the files written.

    Files: ``summary.csv`` (see :func:`summarize`), ``runs.parquet`` (the
    campaign's rows), ``<metric>.png`` (box plots per policy label, one panel
    per workload) and ``index.html`` (everything on one self-contained page).

    Raises
    ------
    InputError
        ``out`` is a non-empty directory and not ``force``; no run of the campaign is stored.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(str(out), message="--out exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise InputError(str(out), message="output directory is not empty (use --force to overwrite)")
    runs = expand(campaign)
    order = list(dict.fromkeys(config.label for config in runs))
    arrow = campaign_results(campaign, runs)
    if arrow.num_rows == 0:
        raise InputError(str(campaign.path), message=f"no stored runs in {campaign.store} (run `schedlab campaign run` first)")
    metrics = list(metrics or campaign.spec.metrics)
    table = arrow.to_pandas()
    summary = summarize(table, metrics, order=order)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    summary.to_csv(out / "summary.csv", index=False, float_format="%.6g")
    written.append(out / "summary.csv")
    import pyarrow.parquet as pq

    pq.write_table(arrow, out / "runs.parquet")
    written.append(out / "runs.parquet")
    images = {}
    for metric in metrics:
        png = _box_plot(table, metric, order)
        (out / f"{metric}.png").write_bytes(png)
        written.append(out / f"{metric}.png")
        images[metric] = png
    page = _html(campaign, table, summary, images, len(runs))
    (out / "index.html").write_text(page, encoding="utf-8")
    written.append(out / "index.html")
    return written


def _box_plot(table: pd.DataFrame, metric: str, order: list[str]) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    done = table[table["state"] == "done"]
    workloads = sorted(done["workload"].unique())
    figure = Figure(figsize=(max(4.0, 1.2 * len(order)) * max(1, len(workloads)), 3.6), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, max(1, len(workloads)), squeeze=False)[0]
    for ax, workload in zip(axes, workloads or [""]):
        here = done[done["workload"] == workload]
        data = [here.loc[here["label"] == label, metric].dropna().to_numpy(dtype=np.float64) for label in order]
        shown = [(label, values) for label, values in zip(order, data) if values.size]
        if shown:
            ax.boxplot([values for _, values in shown], tick_labels=[label for label, _ in shown], showmeans=True)
        ax.set_title(workload)
        ax.set_ylabel(metric)
        ax.tick_params(axis="x", labelrotation=20)
        ax.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _html(campaign: Campaign, table: pd.DataFrame, summary: pd.DataFrame, images: dict[str, bytes], n_runs: int) -> str:
    esc = html.escape
    states = table["state"].value_counts().to_dict()
    done, failed = int(states.get("done", 0)), int(states.get("failed", 0))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(campaign.name)}: campaign report</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:80em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}"
        "th{background:#f4f4f4}td.l{text-align:left}img{max-width:100%}</style></head><body>",
        f"<h1>{esc(campaign.name)}</h1>",
        f"<p>Specification <code>{esc(str(campaign.path))}</code>: {n_runs} runs, "
        f"{done} done, {failed} failed, {n_runs - done - failed} pending.</p>",
        "<p>Statistics over windows and repetitions of each workload; 95 % CI of the mean (Student's t).</p>",
    ]
    for metric, png in images.items():
        parts.append(f"<h2>{esc(metric)}</h2>")
        rows = summary[summary["metric"] == metric]
        parts.append("<table><tr><th>workload</th><th>policy</th><th>n</th><th>mean</th><th>median</th><th>95 % CI</th><th>min</th><th>max</th></tr>")
        for record in rows.itertuples(index=False):
            ci = "" if math.isnan(record.ci95_low) else f"[{_fmt(record.ci95_low)}, {_fmt(record.ci95_high)}]"
            parts.append(
                f'<tr><td class="l">{esc(record.workload)}</td><td class="l">{esc(record.label)}</td><td>{record.n}</td>'
                f"<td>{_fmt(record.mean)}</td><td>{_fmt(record.median)}</td><td>{ci}</td>"
                f"<td>{_fmt(record.min)}</td><td>{_fmt(record.max)}</td></tr>"
            )
        parts.append("</table>")
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<img alt="box plot of {esc(metric)} per policy" src="data:image/png;base64,{data}">')
    if failed:
        parts.append("<h2>Failed runs</h2><table><tr><th>run</th><th>workload</th><th>policy</th><th>error</th></tr>")
        for record in table[table["state"] == "failed"].itertuples(index=False):
            parts.append(
                f'<tr><td class="l">{esc(record.run_id)}</td><td class="l">{esc(record.workload)}</td>'
                f'<td class="l">{esc(record.label)}</td><td class="l">{esc(str(record.error))}</td></tr>'
            )
        parts.append("</table>")
    parts.append(f"<p>Per-run data, timings included ({', '.join(TIMING_COLUMNS)}), are in <code>runs.parquet</code>.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _fmt(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
