"""Campaign reports: per-metric summary tables, box plots per policy, one self-contained HTML page.

Statistics are over the finished runs of each
(workload, policy label): windows and repetitions. The 95 % confidence
interval of the mean is Student's ``mean +- t(0.975, n-1) s / sqrt(n)``, or the
percentile bootstrap when the quantity cannot be negative and the t interval
would reach below 0 (:func:`confidence_interval`; undefined, left empty, for
n < 2). Axes name metrics in words with their units (:func:`metric_label`) and
a legend says what each mark of a box plot is. Plots use matplotlib's object API on an
Agg canvas (no pyplot, no global backend change) and are embedded in the page
as base64 PNG, so ``index.html`` is one file that opens anywhere.

With a ``baseline`` policy label, every metric is also normalised to it: each
run's value is divided by the baseline's value on the same workload, window
and repetition (common random numbers), and these ratios are summarised the
same way (:func:`normalize`). When a policy has a numeric parameter with
several values in the grid, the metric's mean (and 95 % CI) is drawn as a line
over that parameter, one line per workload and setting of the other parameters
(:func:`parameter_sweeps`, :func:`sweep`).
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.campaign.expand import expand
from schedlab.campaign.spec import Campaign
from schedlab.campaign.store import TIMING_COLUMNS, campaign_results
from schedlab.errors import InputError

__all__ = [
    "box_figure",
    "confidence_interval",
    "metric_label",
    "normalize",
    "parameter_sweeps",
    "summarize",
    "sweep",
    "sweep_figure",
    "t_quantile_975",
    "write_report",
]

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


_UNITS = {"wait": "s", "response": "s", "makespan": "s", "first_submit": "s", "last_end": "s"}
_NAMES = {
    "wait": "wait",
    "response": "response time",
    "slowdown": "slowdown",
    "bsld": "bounded slowdown",
    "bsld_unclamped": "bounded slowdown, unclamped",
    "first_submit": "first submission",
    "last_end": "last end",
    "utilization": "utilization (fraction of the machine)",
    "makespan": "makespan",
    "n_jobs": "jobs",
    "n_completed": "jobs completed",
    "n_killed": "jobs killed at walltime",
    "n_rejected": "jobs rejected",
    "n_aborted": "jobs redirected",
    "n_preempted": "jobs preempted",
}
_AGGREGATES = {"mean": "mean", "max": "max", "l2": "L2 norm of"}


def metric_label(metric: str) -> str:
    """An axis label for a stored metric: its name in words and its unit (``wait_mean`` -> ``mean wait
    (s)``, ``bsld_max`` -> ``max bounded slowdown``); other columns as they are."""
    base, _, aggregate = metric.rpartition("_")
    if base in _NAMES and aggregate in _AGGREGATES:
        unit = _UNITS.get(base)
        return f"{_AGGREGATES[aggregate]} {_NAMES[base]}" + (f" ({unit})" if unit else "")
    if metric in _NAMES:
        unit = _UNITS.get(metric)
        return _NAMES[metric] + (f" ({unit})" if unit else "")
    return metric


def summarize(table: pd.DataFrame, metrics: list[str], *, order: list[str] | None = None) -> pd.DataFrame:
    """One row per (metric, workload, label): n, mean, median, std, 95 % CI of the mean (and how it was
    computed, see :func:`confidence_interval`), min, max.

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
                stats = _stats(values.to_numpy(dtype=np.float64))
                if stats is not None:
                    rows.append({"metric": metric, "workload": workload, "label": label, **stats})
    return pd.DataFrame(rows, columns=["metric", "workload", "label", *_STATS])


_STATS = ("n", "mean", "median", "std", "ci95_low", "ci95_high", "ci95_method", "min", "max")

BOOTSTRAP_RESAMPLES = 2000
"""Resamples of the percentile bootstrap (:func:`confidence_interval`); drawn with a fixed seed, so the same
values give the same interval."""


def confidence_interval(values: np.ndarray) -> tuple[float, float, str]:
    """95 % confidence interval of the mean of ``values`` (n >= 2) and its method.

    Student's t (``mean +- t(0.975, n-1) s / sqrt(n)``, method ``"t"``), unless the values are all >= 0
    and that interval reaches below 0: a mean wait, slowdown or count cannot be negative, so then the
    percentile bootstrap of the mean (:data:`BOOTSTRAP_RESAMPLES` resamples, fixed seed; method
    ``"bootstrap"``), which stays within the values' range (Efron and Tibshirani 1993, ch. 13).
    """
    n = values.size
    mean = float(np.mean(values))
    half = t_quantile_975(n - 1) * float(np.std(values, ddof=1)) / math.sqrt(n)
    if mean - half >= 0 or float(np.min(values)) < 0:
        return mean - half, mean + half, "t"
    rng = np.random.default_rng(0)
    means = np.concatenate(
        [
            values[rng.integers(0, n, size=(chunk, n))].mean(axis=1)
            for chunk in np.diff(np.r_[0 : BOOTSTRAP_RESAMPLES : max(1, 2_000_000 // n), BOOTSTRAP_RESAMPLES])
        ]
    )
    low, high = np.clip(np.quantile(means, [0.025, 0.975]), np.min(values), np.max(values))  # rounding
    return float(low), float(high), "bootstrap"


def _stats(values: np.ndarray) -> dict | None:
    """n, mean, median, std, 95 % CI of the mean (:func:`confidence_interval`), min, max of ``values``;
    None when empty."""
    n = int(values.size)
    if n == 0:
        return None
    low, high, method = confidence_interval(values) if n > 1 else (math.nan, math.nan, "")
    return {
        "n": n,
        "mean": float(np.mean(values)),
        "median": float(np.median(values)),
        "std": float(np.std(values, ddof=1)) if n > 1 else math.nan,
        "ci95_low": low,
        "ci95_high": high,
        "ci95_method": method,
        "min": float(np.min(values)),
        "max": float(np.max(values)),
    }


_PAIRING = ("workload", "window_index", "repetition")
"""A run and its baseline share these: the same instance and the same random draws."""


def normalize(table: pd.DataFrame, metrics: list[str], baseline: str) -> pd.DataFrame:
    """The finished runs with each metric divided by the baseline label's value on the same workload, window
    and repetition: ``metric / metric_of_baseline`` (the baseline's own rows are all 1).

    Runs without a finished baseline partner are left out; a ratio whose baseline value is 0 or missing is
    NaN (a mean wait of 0 s has no meaningful ratio), so :func:`summarize` of the result counts only defined
    ratios in ``n``. Cost: one hash join, O(runs).

    Raises
    ------
    InputError
        ``baseline`` is not a label of a finished run.
    """
    done = table[table["state"] == "done"]
    labels = list(dict.fromkeys(done["label"]))
    if baseline not in labels:
        expected = f"a policy label with finished runs: {', '.join(map(repr, labels))}"
        raise InputError("--baseline", field="--baseline", value=repr(baseline), expected=expected)
    key_columns = [f"_key_{k}" for k in _PAIRING]
    # as text, with "" for null: runs on a whole trace (no window index) pair too
    left = done.assign(
        **{key: done[k].astype(object).where(done[k].notna(), "").astype(str) for key, k in zip(key_columns, _PAIRING)}
    )
    base = left.loc[left["label"] == baseline, key_columns + metrics]
    merged = left.merge(base, on=key_columns, how="inner", suffixes=("", "__baseline"), validate="many_to_one")
    for metric in metrics:
        reference = merged[f"{metric}__baseline"].astype(np.float64)
        merged[metric] = merged[metric].astype(np.float64) / reference.where(reference != 0)
    return merged.drop(columns=key_columns + [f"{metric}__baseline" for metric in metrics])


def parameter_sweeps(table: pd.DataFrame) -> list[tuple[str, str]]:
    """``(policy, parameter)`` pairs whose finished runs hold at least 2 distinct numeric values of the
    parameter (``param_<parameter>`` columns; booleans are not numeric), in order of appearance."""
    done = table[table["state"] == "done"]
    found = []
    for policy in dict.fromkeys(done["policy"]):
        rows = done[done["policy"] == policy]
        for column in sorted(c for c in rows.columns if c.startswith("param_")):
            text = rows[column].dropna().astype(str)
            if text.empty or text.str.lower().isin(["true", "false"]).any():
                continue
            values = pd.to_numeric(text, errors="coerce")
            if values.notna().all() and values.nunique() >= 2 and len(text) == len(rows):
                found.append((str(policy), column.removeprefix("param_")))
    return found


def sweep(table: pd.DataFrame, metric: str, policy: str, parameter: str) -> pd.DataFrame:
    """Statistics of ``metric`` (as :func:`summarize`) per workload, setting of the policy's other
    parameters (``series``, ``k=v ...``; empty when there are none) and numeric ``value`` of ``parameter``,
    over the finished runs of ``policy``; sorted by workload, series, value."""
    done = table[(table["state"] == "done") & (table["policy"] == policy)]
    others = sorted(
        c for c in done.columns if c.startswith("param_") and c != f"param_{parameter}" and done[c].notna().any()
    )
    series = pd.Series("", index=done.index)
    for column in others:
        series = (
            series
            + (series.str.len() > 0).map({True: " ", False: ""})
            + f"{column.removeprefix('param_')}="
            + done[column].astype(str)
        )
    value = pd.to_numeric(done[f"param_{parameter}"])
    frame = pd.DataFrame({"workload": done["workload"], "series": series, "value": value, metric: done[metric]})
    rows = []
    for (workload, name, value), group in frame.groupby(["workload", "series", "value"], sort=True):
        stats = _stats(group[metric].dropna().to_numpy(dtype=np.float64))
        if stats is not None:
            where = {"metric": metric, "workload": workload, "policy": policy, "parameter": parameter, "series": name}
            rows.append({**where, "value": float(value), **stats})
    return pd.DataFrame(rows, columns=["metric", "workload", "policy", "parameter", "series", "value", *_STATS])


def write_report(
    campaign: Campaign, out, *, force: bool = False, metrics: list[str] | None = None, baseline: str | None = None
) -> list[Path]:
    """Write the report of ``campaign``'s stored runs into directory ``out``; return the files written.

    Files: ``summary.csv`` (see :func:`summarize`), ``runs.parquet`` (the
    campaign's rows), ``<metric>.png`` (box plots per policy label, one panel
    per workload) and ``index.html`` (everything on one self-contained page).
    With ``baseline`` (a policy label), ``normalized.csv``: the summary of the
    ratios to the baseline (:func:`normalize`). For each numeric parameter
    grid (:func:`parameter_sweeps`), ``sweeps.csv`` and
    ``<metric>-<policy>-<parameter>.png`` (mean and 95 % CI over the values).

    Raises
    ------
    InputError
        ``out`` is a non-empty directory and not ``force``; no run of the campaign is stored;
        ``baseline`` is not a label with finished runs.
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
        raise InputError(
            str(campaign.path), message=f"no stored runs in {campaign.store} (run `schedlab campaign run` first)"
        )
    metrics = list(metrics or campaign.spec.metrics)
    table = arrow.to_pandas()
    summary = summarize(table, metrics, order=order)
    normalized = None if baseline is None else summarize(normalize(table, metrics, baseline), metrics, order=order)
    sweeps = [
        sweep(table, metric, policy, parameter) for metric in metrics for policy, parameter in parameter_sweeps(table)
    ]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    summary.to_csv(out / "summary.csv", index=False, float_format="%.6g")
    written.append(out / "summary.csv")
    if normalized is not None:
        normalized.to_csv(out / "normalized.csv", index=False, float_format="%.6g")
        written.append(out / "normalized.csv")
    if sweeps:
        pd.concat(sweeps, ignore_index=True).to_csv(out / "sweeps.csv", index=False, float_format="%.6g")
        written.append(out / "sweeps.csv")
    import pyarrow.parquet as pq

    pq.write_table(arrow, out / "runs.parquet")
    written.append(out / "runs.parquet")
    images = {}
    for metric in metrics:
        png = _png(box_figure(table, metric, order))
        (out / f"{metric}.png").write_bytes(png)
        written.append(out / f"{metric}.png")
        images[metric] = png
    sweep_images = []
    for frame in sweeps:
        if frame.empty:
            continue
        first = frame.iloc[0]
        name = f"{first['metric']}-{_slug(first['policy'])}-{_slug(first['parameter'])}.png"
        png = _png(sweep_figure(frame))
        (out / name).write_bytes(png)
        written.append(out / name)
        sweep_images.append((frame, png))
    page = _html(
        campaign, table, summary, images, len(runs), normalized=normalized, baseline=baseline, sweeps=sweep_images
    )
    (out / "index.html").write_text(page, encoding="utf-8")
    written.append(out / "index.html")
    return written


def box_figure(table: pd.DataFrame, metric: str, order: list[str]):
    """Box plots of ``metric`` per policy label, one panel per workload, over the finished runs; a legend
    says what each mark is. Returns a matplotlib Figure (object API, Agg canvas)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    done = table[table["state"] == "done"]
    workloads = sorted(done["workload"].unique())
    figure = Figure(figsize=(max(4.0, 1.2 * len(order)) * max(1, len(workloads)), 4.2), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, max(1, len(workloads)), squeeze=False)[0]
    for ax, workload in zip(axes, workloads or [""]):
        here = done[done["workload"] == workload]
        data = [here.loc[here["label"] == label, metric].dropna().to_numpy(dtype=np.float64) for label in order]
        shown = [(label, values) for label, values in zip(order, data) if values.size]
        if shown:
            ax.boxplot([values for _, values in shown], tick_labels=[label for label, _ in shown], showmeans=True)
        ax.set_title(workload)
        ax.set_ylabel(metric_label(metric))
        ax.tick_params(axis="x", labelrotation=20)
        ax.grid(axis="y", alpha=0.3)
    marks = [
        Patch(facecolor="none", edgecolor="black", label="box: middle half (quartiles)"),
        Line2D([], [], color="C1", label="median"),
        Line2D([], [], color="green", marker="^", linestyle="none", label="mean"),
        Line2D([], [], color="black", label="whiskers: last run within 1.5 box heights"),
        Line2D([], [], color="black", marker="o", markerfacecolor="none", linestyle="none", label="runs beyond"),
    ]
    figure.legend(handles=marks, loc="lower center", ncol=len(marks), fontsize="x-small", frameon=False)
    figure.tight_layout(rect=(0, 0.07, 1, 1))
    return figure


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(text))


def sweep_figure(frame: pd.DataFrame):
    """Mean of the metric over the parameter's values, 95 % CI as error bars (:func:`confidence_interval`),
    one line per (workload, series). Returns a matplotlib Figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    first = frame.iloc[0]
    figure = Figure(figsize=(6.0, 3.8), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    for (workload, series), line in frame.groupby(["workload", "series"], sort=True):
        below = (line["mean"] - line["ci95_low"]).fillna(0.0).to_numpy()
        above = (line["ci95_high"] - line["mean"]).fillna(0.0).to_numpy()
        name = f"{workload} {series}".strip()
        ax.errorbar(line["value"], line["mean"], yerr=[below, above], marker="o", capsize=3, label=name)
    ax.set_xlabel(f"{first['policy']}: {first['parameter']}")
    ax.set_ylabel(metric_label(str(first["metric"])))
    ax.set_title("dots: mean over windows and repetitions; bars: 95 % CI of the mean", fontsize="small")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    figure.tight_layout()
    return figure


def _stats_cells(record) -> str:
    star = "*" if record.ci95_method == "bootstrap" else ""
    ci = "" if math.isnan(record.ci95_low) else f"[{_fmt(record.ci95_low)}, {_fmt(record.ci95_high)}]{star}"
    return (
        f"<td>{record.n}</td><td>{_fmt(record.mean)}</td><td>{_fmt(record.median)}</td><td>{ci}</td>"
        f"<td>{_fmt(record.min)}</td><td>{_fmt(record.max)}</td>"
    )


_STATS_HEAD = "<th>n</th><th>mean</th><th>median</th><th>95 % CI</th><th>min</th><th>max</th>"


def _html(
    campaign: Campaign,
    table: pd.DataFrame,
    summary: pd.DataFrame,
    images: dict[str, bytes],
    n_runs: int,
    *,
    normalized: pd.DataFrame | None = None,
    baseline: str | None = None,
    sweeps: Sequence[tuple[pd.DataFrame, bytes]] = (),
) -> str:
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
        "<p>Statistics over windows and repetitions of each workload. 95 % CI of the mean: Student's t, or, "
        "for a quantity that cannot be negative whose t interval would reach below 0, the percentile bootstrap "
        f"({BOOTSTRAP_RESAMPLES:,} resamples; Efron and Tibshirani 1993, ch. 13), marked *. Box plots: the box "
        "holds the middle half of the runs, the line is the median, the triangle the mean, the whiskers reach the "
        "last run within 1.5 box heights, circles are the runs beyond.</p>",
    ]
    for metric, png in images.items():
        parts.append(f"<h2>{esc(metric_label(metric))} <code>{esc(metric)}</code></h2>")
        rows = summary[summary["metric"] == metric]
        parts.append(
            f'<table class="summary" data-metric="{esc(metric)}"><tr><th>workload</th><th>policy</th>{_STATS_HEAD}</tr>'
        )
        for record in rows.itertuples(index=False):
            names = f'<td class="l">{esc(record.workload)}</td><td class="l">{esc(record.label)}</td>'
            parts.append(f"<tr>{names}{_stats_cells(record)}</tr>")
        parts.append("</table>")
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<img alt="box plot of {esc(metric)} per policy" src="data:image/png;base64,{data}">')
        if normalized is not None:
            assert baseline is not None  # normalized holds the ratios to the baseline
            parts.append(f"<h3>{esc(metric)} relative to {esc(baseline)}</h3>")
            parts.append(
                f"<p>Per workload, window and repetition: {esc(metric)} / {esc(metric)} of {esc(baseline)}; "
                "ratios whose baseline value is 0 are left out.</p>"
            )
            parts.append(
                f'<table class="normalized" data-metric="{esc(metric)}" data-baseline="{esc(baseline)}">'
                f"<tr><th>workload</th><th>policy</th>{_STATS_HEAD}</tr>"
            )
            for record in normalized[normalized["metric"] == metric].itertuples(index=False):
                names = f'<td class="l">{esc(record.workload)}</td><td class="l">{esc(record.label)}</td>'
                parts.append(f"<tr>{names}{_stats_cells(record)}</tr>")
            parts.append("</table>")
        for frame, sweep_png in sweeps:
            if frame.iloc[0]["metric"] != metric:
                continue
            policy, parameter = frame.iloc[0]["policy"], frame.iloc[0]["parameter"]
            parts.append(f"<h3>{esc(metric)} over {esc(policy)} {esc(parameter)}</h3>")
            parts.append(
                f'<table class="sweep" data-metric="{esc(metric)}" data-policy="{esc(policy)}" data-parameter="{esc(parameter)}">'
                f"<tr><th>workload</th><th>other parameters</th><th>{esc(parameter)}</th>{_STATS_HEAD}</tr>"
            )
            for record in frame.itertuples(index=False):
                parts.append(
                    f'<tr><td class="l">{esc(record.workload)}</td><td class="l">{esc(record.series)}</td>'
                    f"<td>{record.value:g}</td>{_stats_cells(record)}</tr>"
                )
            parts.append("</table>")
            data = base64.b64encode(sweep_png).decode("ascii")
            parts.append(
                f'<img alt="{esc(metric)} over {esc(policy)} {esc(parameter)}" src="data:image/png;base64,{data}">'
            )
    if failed:
        parts.append("<h2>Failed runs</h2><table><tr><th>run</th><th>workload</th><th>policy</th><th>error</th></tr>")
        for record in table[table["state"] == "failed"].itertuples(index=False):
            parts.append(
                f'<tr><td class="l">{esc(record.run_id)}</td><td class="l">{esc(record.workload)}</td>'
                f'<td class="l">{esc(record.label)}</td><td class="l">{esc(str(record.error))}</td></tr>'
            )
        parts.append("</table>")
    parts.append(
        f"<p>Per-run data, timings included ({', '.join(TIMING_COLUMNS)}), are in <code>runs.parquet</code>.</p>"
    )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _fmt(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
