"""Runs side by side: every metric with its ratio to the first run, per-job start deltas, CDFs, utilization.

Each run is a run folder or a ``jobs.csv`` (ours or Batsim's), read back and
measured by :mod:`schedlab.measure`, the code ``simulate`` measures with.
Runs are compared job by job, so they must hold the same jobs (same ids,
submission times and sizes): anything else is refused with one line saying
how they differ.

What :func:`compare` gives:

- ``metrics``: one row per metric, one column per run, then ``ratio <run>``
  = the run's value / the first run's (empty where undefined); every run is
  measured with the first run's ``tau``;
- ``deltas``: per run after the first, per class of jobs (all jobs, size
  classes by processors, run-time classes by the trace's run time), the jobs
  started in both runs, how many started earlier, later or at the same time
  as in the first run, and the mean and median start delta in seconds
  (negative: earlier, better);
- ``wait``, ``bsld``: each run's per-job waits and bounded slowdowns (started
  jobs), for the empirical CDFs;
- ``utilization``: busy processors / machine size, averaged over
  :data:`BINS` equal spans of the common time range, per run.

:func:`write_comparison` writes ``metrics.csv``, ``deltas.csv`` and one
self-contained ``compare.html`` (tables, and the figures as embedded PNGs).
"""

from __future__ import annotations

import base64
import html
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.errors import InputError
from schedlab.measure import RunFiles, read_run
from schedlab.metrics import job_metrics
from schedlab.report.figures import pyplot
from schedlab.report.tables import html_table, png
from schedlab.schedule import JobStatus

__all__ = ["BINS", "RUNTIME_CLASSES", "SIZE_CLASSES", "Comparison", "compare", "write_comparison"]

BINS = 400
"""Time bins of the utilization curves."""

SIZE_CLASSES = ((1, 1), (2, 4), (5, 16), (17, 64), (65, 256), (257, 1024), (1025, math.inf))
"""Processor-count classes of the per-job deltas (inclusive bounds); empty classes are left out."""

RUNTIME_CLASSES = (
    ("< 1 min", 0.0, 60.0),
    ("1-10 min", 60.0, 600.0),
    ("10 min-1 h", 600.0, 3600.0),
    ("1-10 h", 3600.0, 36000.0),
    (">= 10 h", 36000.0, math.inf),
)
"""Run-time classes of the per-job deltas, by the trace's run time (half-open ``[low, high)`` seconds)."""


@dataclass(eq=False)
class Comparison:
    """What :func:`compare` found; see the module docstring for each field."""

    labels: list[str]
    paths: list[Path]
    metrics: pd.DataFrame
    deltas: pd.DataFrame
    wait: list[np.ndarray]
    bsld: list[np.ndarray]
    utilization: pd.DataFrame
    tau: float

    def __repr__(self) -> str:
        return f"Comparison({', '.join(self.labels)}: {len(self.metrics)} metrics)"


def _labels(paths: list[Path]) -> list[str]:
    """Each run's folder name (the folder of a ``jobs.csv``, the stem of another CSV file; a run in memory
    is named by its policy), made unique by a ``#k`` suffix."""
    names = [
        p.parent.name if p.name == "jobs.csv" else p.stem if p.suffix == ".csv" and not p.is_dir() else p.name
        for p in paths
    ]
    out: list[str] = []
    seen: dict[str, int] = {}
    for name in names:
        name = name or "run"
        seen[name] = seen.get(name, 0) + 1
        out.append(name if names.count(name) == 1 else f"{name}#{seen[name]}")
    return out


def _check_same_jobs(runs: list[RunFiles]) -> list[np.ndarray]:
    """Per run, the row of each of the first run's jobs; InputError when the job sets differ."""
    first = runs[0].instance.jobs
    order = np.argsort(first.id, kind="stable")
    rows = []
    for run in runs:
        jobs = run.instance.jobs
        if len(jobs) != len(first) or not np.array_equal(np.sort(jobs.id), first.id[order]):
            only = len(set(first.id.tolist()) ^ set(jobs.id.tolist()))
            raise InputError(
                str(run.path),
                message=f"its jobs differ from those of {runs[0].path} ({only} job ids in one run only): "
                "compare needs runs of the same jobs",
            )
        by_id = np.argsort(jobs.id, kind="stable")
        row = np.empty(len(first), dtype=np.int64)
        row[order] = by_id
        for label, mine, theirs in (
            ("submission time", first.submit, jobs.submit[row]),
            ("size", first.procs, jobs.procs[row]),
        ):
            differ = np.flatnonzero(mine != theirs)
            if differ.size:
                raise InputError(
                    str(run.path),
                    message=f"its jobs differ from those of {runs[0].path} ({differ.size} jobs with another "
                    f"{label}, first job {int(first.id[differ[0]])}): compare needs runs of the same jobs",
                )
        rows.append(row)
    return rows


def compare(runs: list[str | os.PathLike | RunFiles], *, procs: int | None = None) -> Comparison:
    """Compare runs (folders, ``jobs.csv`` files, or :class:`~schedlab.measure.RunFiles`) with the first.

    Raises
    ------
    InputError
        Fewer than two runs, an unreadable run, or runs of different jobs.
    """
    if len(runs) < 2:
        raise InputError("runs", message=f"compare needs at least two runs, given {len(runs)}")
    files = [r if isinstance(r, RunFiles) else read_run(r, procs=procs) for r in runs]
    paths = [f.path for f in files]
    labels = _labels([Path(r.path) if isinstance(r, RunFiles) else Path(r) for r in runs])
    rows = _check_same_jobs(files)
    measured = [f.metrics() for f in files]
    tau = float(measured[0]["tau"])
    measured = [measured[0]] + [f.metrics(tau=tau) for f in files[1:]]
    return Comparison(
        labels=labels,
        paths=paths,
        metrics=_metrics_table(labels, measured),
        deltas=_deltas(labels, files, rows),
        wait=[_per_job(f, tau)["wait"] for f in files],
        bsld=[_per_job(f, tau)["bsld"] for f in files],
        utilization=_utilization(labels, files),
        tau=tau,
    )


def _metrics_table(labels: list[str], measured: list[dict]) -> pd.DataFrame:
    keys = [k for k, v in measured[0].items() if isinstance(v, (int, float)) or v is None]
    keys += [k for m in measured[1:] for k in m if k not in keys and isinstance(m[k], (int, float))]
    data: dict[str, list] = {"metric": keys}
    for label, m in zip(labels, measured):
        data[label] = [m.get(k) for k in keys]
    base = data[labels[0]]
    for label in labels[1:]:
        data[f"ratio {label}"] = [_ratio(v, b) for v, b in zip(data[label], base)]
    return pd.DataFrame(data)


def _ratio(value, base) -> float | None:
    if not isinstance(value, (int, float)) or not isinstance(base, (int, float)) or base == 0:
        return None
    return float(value) / float(base)


def _per_job(run: RunFiles, tau: float) -> dict[str, np.ndarray]:
    per_job = job_metrics(run.instance, run.schedule, tau=tau)
    started = np.isfinite(per_job["wait"])
    return {"wait": per_job["wait"][started], "bsld": per_job["bsld"][started]}


def _classes(run: RunFiles) -> list[tuple[str, np.ndarray]]:
    jobs = run.instance.jobs
    out = [("all jobs", np.ones(len(jobs), dtype=bool))]
    size_classes: tuple[tuple[int, float], ...] = SIZE_CLASSES
    for low, high in size_classes:
        mask = (jobs.procs >= low) & (jobs.procs <= high)
        name = f"{low} processor{'s' if high > 1 else ''}" if low == high else f"{low}-{high} processors"
        if math.isinf(high):
            name = f">= {low} processors"
        if mask.any():
            out.append((name, mask))
    for name, shortest, longest in RUNTIME_CLASSES:
        mask = (jobs.run_time >= shortest) & (jobs.run_time < longest)
        if mask.any():
            out.append((f"run time {name}", mask))
    return out


def _deltas(labels: list[str], files: list[RunFiles], rows: list[np.ndarray]) -> pd.DataFrame:
    first = files[0].schedule
    base_start = np.where(_started(first), first.start, np.nan)
    records = []
    for label, run, row in zip(labels[1:], files[1:], rows[1:]):
        start = np.where(_started(run.schedule), run.schedule.start, np.nan)[row]
        delta = start - base_start
        for name, mask in _classes(files[0]):
            d = delta[mask & np.isfinite(delta)]
            records.append(
                {
                    "run": label,
                    "jobs": name,
                    "started in both": int(d.size),
                    "earlier": int(np.count_nonzero(d < 0)),
                    "same": int(np.count_nonzero(d == 0)),
                    "later": int(np.count_nonzero(d > 0)),
                    "mean delta (s)": float(np.mean(d)) if d.size else None,
                    "median delta (s)": float(np.median(d)) if d.size else None,
                }
            )
    return pd.DataFrame(records)


def _started(schedule) -> np.ndarray:
    status = np.asarray(schedule.status)
    return (status == JobStatus.COMPLETED) | (status == JobStatus.KILLED)


def _utilization(labels: list[str], files: list[RunFiles]) -> pd.DataFrame:
    """Mean busy fraction per bin: the busy-processor integral (piecewise linear between events) at the bin
    edges, by interpolation, so each bin's value is exact."""
    spans = []
    for f in files:
        ok = _started(f.schedule)
        spans.append((float(np.min(f.instance.jobs.submit)), float(np.max(f.schedule.end[ok])) if ok.any() else 0.0))
    t0, t1 = min(s[0] for s in spans), max(s[1] for s in spans)
    edges = np.linspace(t0, t1, BINS + 1) if t1 > t0 else np.array([t0, t0 + 1.0])
    frame = pd.DataFrame({"time": (edges[:-1] + edges[1:]) / 2})
    for label, f in zip(labels, files):
        ok = _started(f.schedule)
        size = f.instance.jobs.procs[ok].astype(np.float64)
        times = np.concatenate([f.schedule.start[ok], f.schedule.end[ok]])
        change = np.concatenate([size, -size])
        order = np.argsort(times, kind="stable")
        times, change = times[order], change[order]
        busy = np.cumsum(change)
        area = np.concatenate([[0.0], np.cumsum(busy[:-1] * np.diff(times))]) if times.size else np.zeros(0)
        at = np.interp(edges, times, area, left=0.0, right=area[-1] if area.size else 0.0)
        frame[label] = np.diff(at) / (np.diff(edges) * f.instance.platform.n_procs)
    return frame


def _figures(c: Comparison) -> list[tuple[str, bytes]]:
    plt = pyplot()

    out = []
    styles = ("-", "--", ":", "-.")  # runs often overlap: each its own dash pattern
    for title, values, xlabel, floor in (
        ("Waiting time, empirical CDF", c.wait, "wait (s, log scale; waits below 0.1 s drawn at 0.1 s)", 0.1),
        (f"Bounded slowdown (tau = {c.tau:g} s), empirical CDF", c.bsld, "bounded slowdown (log scale)", 1.0),
    ):
        fig, ax = plt.subplots(figsize=(7, 4))
        for k, (label, v) in enumerate(zip(c.labels, values)):
            x = np.sort(v)
            y = np.arange(1, x.size + 1) / max(1, x.size)
            ax.step(np.maximum(x, floor), y, where="post", label=label, linestyle=styles[k % len(styles)])
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("fraction of started jobs")
        ax.set_title(title)
        ax.legend()
        ax.grid(alpha=0.3)
        out.append((title, png(fig)))
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(9, 4))
    days = (c.utilization["time"] - c.utilization["time"].iloc[0]) / 86400.0
    for k, label in enumerate(c.labels):
        ax.plot(days, c.utilization[label], label=label, linewidth=1, linestyle=styles[k % len(styles)])
    ax.set_xlabel(f"days from the first submission ({BINS} bins)")
    ax.set_ylabel("utilization")
    ax.set_ylim(0, 1.05)
    ax.set_title("Utilization over time")
    ax.legend()
    ax.grid(alpha=0.3)
    out.append(("Utilization over time", png(fig)))
    plt.close(fig)
    return out


_STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
    "img{max-width:100%}"
)


def write_comparison(c: Comparison, out: str | os.PathLike) -> list[Path]:
    """Write ``metrics.csv``, ``deltas.csv`` and the self-contained ``compare.html`` into folder ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    metrics_csv, deltas_csv, page = out / "metrics.csv", out / "deltas.csv", out / "compare.html"
    c.metrics.to_csv(metrics_csv, index=False, lineterminator="\n")
    c.deltas.to_csv(deltas_csv, index=False, lineterminator="\n")
    esc = html.escape
    runs = "".join(f"<li><b>{esc(label)}</b>: {esc(str(p))}</li>" for label, p in zip(c.labels, c.paths))
    figures = "".join(
        f'<h2>{esc(title)}</h2><img alt="{esc(title)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'
        for title, data in _figures(c)
    )
    text = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>schedlab compare: {esc(', '.join(c.labels))}"
        f"</title><style>{_STYLE}</style></head><body><h1>{esc(' vs '.join(c.labels))}</h1><ul>{runs}</ul>"
        f"<h2>Metrics (ratios to {esc(c.labels[0])})</h2>{html_table(c.metrics)}"
        f"<h2>Start times against {esc(c.labels[0])}, job by job (negative: earlier)</h2>{html_table(c.deltas)}"
        f"{figures}</body></html>\n"
    )
    page.write_text(text, encoding="utf-8")
    return [metrics_csv, deltas_csv, page]
