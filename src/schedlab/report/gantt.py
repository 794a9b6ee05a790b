"""Gantt charts and load-over-time plots of one run, from its ``jobs.csv``, readable at 10^5 jobs.

Readable and fast for 10^5 jobs (aggregate or window the view; utilization and
queue length over time): the idea of evalys ``visu/gantt.py`` (one rectangle per allocated range,
coloured per job) without its per-job Python loop.

A view with at most ``max_rectangles`` processor ranges draws every range as a
rectangle (one ``PolyCollection``, vertices built with numpy). A larger view is
aggregated: the time x processor plane is cut into a grid and each cell shows
its busy fraction (exact time integrals, through 2-D difference arrays), so
the cost is O(R log R + cells) for R ranges whatever the number of jobs.
Below the chart, utilization and queue length are drawn exactly, as step
functions over the run's events, or as time averages per bin when the view
holds too many events to see.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.errors import InputError
from schedlab.output import read_jobs_csv


@dataclass(frozen=True)
class Ranges:
    """The allocated processor ranges of a run: range r belongs to job row ``owner[r]`` and holds ``[lo, hi)``."""

    owner: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


def allocated_ranges(allocated: pd.Series) -> Ranges:
    """Parse Batsim interval notation (``"0-3 8-11"``, ``"5"``, ``""``) for every job at once (pandas string ops)."""
    tokens = allocated.fillna("").astype(str).str.split()
    exploded = tokens.explode()
    exploded = exploded[exploded.notna() & (exploded != "")]
    parts = exploded.str.partition("-")
    lo = parts[0].astype(np.int64).to_numpy()
    hi = (
        np.where(parts[2] == "", lo, pd.to_numeric(parts[2], errors="coerce").fillna(-1).astype(np.int64).to_numpy())
        + 1
    )
    owner = np.asarray(exploded.index, dtype=np.int64)
    return Ranges(owner, lo, hi)


def timeline(frame: pd.DataFrame, n_procs: int) -> dict[str, np.ndarray]:
    """Exact step functions of the run: at ``times[i]`` (and until ``times[i + 1]``), the busy fraction of the
    machine and the number of submitted jobs not yet started (rejected jobs never count). Cost: O(n log n)."""
    submit, start, finish, procs = _started_columns(frame)
    times = np.unique(np.concatenate([submit, start, finish]))
    busy = np.zeros(times.size + 1)
    np.add.at(busy, np.searchsorted(times, start), procs)
    np.add.at(busy, np.searchsorted(times, finish), -procs)
    queue = np.zeros(times.size + 1)
    np.add.at(queue, np.searchsorted(times, submit), 1)
    np.add.at(queue, np.searchsorted(times, start), -1)
    return {"times": times, "utilization": np.cumsum(busy)[:-1] / n_procs, "queue": np.cumsum(queue)[:-1]}


def binned_timeline(frame: pd.DataFrame, n_procs: int, edges: np.ndarray) -> dict[str, np.ndarray]:
    """Per bin ``[edges[j], edges[j + 1])``: the time averages of the utilization and of the queue length, and
    the least and the largest queue length reached (``queue_min``, ``queue_max``): what a plot can show when a
    bin holds thousands of events. An average alone hides the peaks (a queue of 2,000 jobs for an hour of a
    day-long bin reads as 80). Cost: O(n log n + bins)."""
    submit, start, finish, procs = _started_columns(frame)
    width = np.diff(edges)
    busy = np.diff(_ramp_integral(start, finish, procs.astype(np.float64), edges)) / width
    queued = np.diff(_ramp_integral(submit, start, np.ones(submit.size), edges)) / width
    line = timeline(frame, n_procs)
    low, high = step_range(line["times"], line["queue"], edges)
    return {"edges": edges, "utilization": busy / n_procs, "queue": queued, "queue_min": low, "queue_max": high}


def step_range(times: np.ndarray, values: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least and the largest value a step function takes over each bin ``[edges[j], edges[j + 1])``.

    The function is ``values[i]`` from ``times[i]`` (sorted, distinct) to ``times[i + 1]``, and 0 before
    ``times[0]``. Per bin: the value in force at its start and every step inside it. Cost: O((n + bins) log n).
    """
    if times.size == 0:
        return np.zeros(edges.size - 1), np.zeros(edges.size - 1)
    first = np.searchsorted(times, edges, side="left")  # steps at or after each edge
    before = first[:-1] - 1  # the step in force just before the bin (-1: none, the value is 0)
    at_start = np.where(before >= 0, values[np.maximum(before, 0)], 0.0).astype(np.float64)
    starts_on_step = (first[:-1] < times.size) & (times[np.minimum(first[:-1], times.size - 1)] == edges[:-1])
    low, high = at_start.copy(), at_start.copy()
    inside = first[1:] > first[:-1]  # bins with a step inside
    if inside.any():
        head = first[:-1][inside]
        segment = values[: first[-1]].astype(np.float64)  # reduceat runs from each head to the next one
        high[inside] = np.maximum.reduceat(segment, head)
        low[inside] = np.minimum.reduceat(segment, head)
        keep = inside & ~starts_on_step  # the value before the bin also holds at its start
        high[keep] = np.maximum(high[keep], at_start[keep])
        low[keep] = np.minimum(low[keep], at_start[keep])
    return low, high


def occupancy(
    ranges: Ranges, start: np.ndarray, finish: np.ndarray, n_procs: int, edges: np.ndarray, rows: int
) -> np.ndarray:
    """Busy fraction of each cell of a (``rows`` processor bins) x (time bins between ``edges``) grid: the time
    each range covers within the cell's time bin, for the processor at the bin's lower edge.

    Cost: O(R log R + rows x bins) for R ranges, through 2-D difference arrays of ramp integrals.
    """
    r0 = np.clip(np.ceil(ranges.lo / n_procs * rows), 0, rows).astype(np.int64)
    r1 = np.clip(np.ceil(ranges.hi / n_procs * rows), 0, rows).astype(np.int64)
    keep = r0 < r1
    s, f = start[ranges.owner][keep], finish[ranges.owner][keep]
    r0, r1 = r0[keep], r1[keep]
    integral = np.zeros((rows, edges.size))
    for x, sign in ((s, 1.0), (f, -1.0)):
        # G(t) = sum over ranges with x < t of (t - x): a count and a sum per (row, first edge after x)
        column = np.searchsorted(edges, x, side="right")
        inside = column < edges.size
        count = np.zeros((rows + 1, edges.size))
        total = np.zeros((rows + 1, edges.size))
        for r, row_sign in ((r0, 1.0), (r1, -1.0)):
            np.add.at(count, (r[inside], column[inside]), row_sign)
            np.add.at(total, (r[inside], column[inside]), row_sign * x[inside])
        count = count.cumsum(axis=0).cumsum(axis=1)[:rows]
        total = total.cumsum(axis=0).cumsum(axis=1)[:rows]
        integral += sign * (count * edges - total)
    return np.clip(np.diff(integral, axis=1) / np.diff(edges), 0.0, None)


def _ramp_integral(lo: np.ndarray, hi: np.ndarray, weight: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """At each edge t: sum of weight x |[lo, hi) & (-inf, t)|, by sorted cumulative sums (O(n log n))."""
    out = np.zeros(edges.size)
    for x, sign in ((lo, 1.0), (hi, -1.0)):
        order = np.argsort(x, kind="stable")
        xs, ws = x[order], weight[order]
        k = np.searchsorted(xs, edges, side="left")  # how many x < t
        cw = np.concatenate([[0.0], np.cumsum(ws)])
        cwx = np.concatenate([[0.0], np.cumsum(ws * xs)])
        out += sign * (cw[k] * edges - cwx[k])
    return out


def _started_columns(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    started = frame["starting_time"].notna().to_numpy()
    pick = lambda name: frame[name].to_numpy()[started]  # noqa: E731
    return pick("submission_time"), pick("starting_time"), pick("finish_time"), pick("requested_number_of_resources")


@dataclass(frozen=True)
class View:
    """What a Gantt chart of ``[t0, t1)`` shows: the run's table, the ranges in view, and how to draw them."""

    frame: pd.DataFrame
    ranges: Ranges  # only those of jobs running in the view
    start: np.ndarray  # per job row (NaN when never started)
    finish: np.ndarray
    t0: float
    t1: float
    n_procs: int
    jobs: int  # jobs in view
    mode: str  # "rectangles" or "aggregated"


def load_view(
    jobs_csv: str | os.PathLike, *, start: float | None, end: float | None, n_procs: int | None, max_rectangles: int
) -> View:
    """Read ``jobs_csv`` and select the view (default: first start to last end; machine: highest processor + 1).

    Raises InputError when no job started, ``n_procs`` is smaller than the processors used, or the window is empty.
    """
    frame = read_jobs_csv(jobs_csv)
    started = frame["starting_time"].notna().to_numpy()
    if not started.any():
        raise InputError(os.fspath(jobs_csv), message="no started job to draw")
    ranges = allocated_ranges(frame["allocated_resources"])
    size = int(ranges.hi.max()) if ranges.hi.size else 1
    n_procs = n_procs if n_procs is not None else size
    if n_procs < size:
        raise InputError(
            "--procs", field="--procs", value=n_procs, expected=f"at least {size} (the highest processor used + 1)"
        )
    s = frame["starting_time"].to_numpy(dtype=np.float64)
    f = frame["finish_time"].to_numpy(dtype=np.float64)
    t0 = float(np.nanmin(s)) if start is None else float(start)
    t1 = float(np.nanmax(f)) if end is None else float(end)
    if not t0 < t1:
        raise InputError("--from/--to", message=f"empty window [{t0:g}, {t1:g})")
    visible = started & (f > t0) & (s < t1)
    in_view = visible[ranges.owner]
    view = Ranges(ranges.owner[in_view], ranges.lo[in_view], ranges.hi[in_view])
    mode = "rectangles" if view.owner.size <= max_rectangles else "aggregated"
    return View(frame, view, s, f, t0, t1, n_procs, int(visible.sum()), mode)


DAY = 86400.0
"""Seconds per day: the time axes are in days of the run's clock (traces span weeks to years)."""

LABEL_JOBS = 60
"""A view of at most this many jobs (drawn as rectangles) writes each job's id on it."""

FORMATS = ("png", "svg", "pdf")
"""Image formats :func:`plot_gantt` writes."""


def _run_info(jobs_csv: str | os.PathLike) -> dict:
    """The ``run`` record of the ``metrics.json`` beside ``jobs_csv`` (``{}`` when there is none)."""
    try:
        run = json.loads((Path(jobs_csv).parent / "metrics.json").read_text(encoding="utf-8")).get("run", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return run if isinstance(run, dict) else {}


def trace_clock(jobs_csv: str | os.PathLike) -> tuple[int, str | None] | None:
    """``(UnixStartTime, TimeZoneString)`` of the SWF trace the run read (its path in ``metrics.json``), so
    that run times (the trace's seconds) become dates; None when the trace or its start time is unknown.
    Reads the trace's comment header only."""
    import gzip

    from schedlab.workload.swf import SwfHeader

    source = _run_info(jobs_csv).get("workload")
    if not source:
        return None
    lines = []
    try:
        with open(source, "rb") as raw:
            packed = raw.read(2) == b"\x1f\x8b"
        with gzip.open(source, "rt", encoding="latin-1") if packed else open(source, encoding="latin-1") as text:
            for line in text:
                if not line.lstrip().startswith(";"):
                    break
                lines.append(line.rstrip("\n"))
    except (OSError, EOFError):
        return None
    header = SwfHeader.from_lines(lines)
    return None if header.unix_start_time is None else (header.unix_start_time, header.time_zone_string)


def run_title(jobs_csv: str | os.PathLike) -> str:
    """What a chart of ``jobs_csv`` shows: ``trace, policy(k=v)`` from the run's ``metrics.json`` beside it
    (written by ``schedlab simulate``), else the folder's name (a Batsim output has no such file)."""
    path = Path(jobs_csv)
    run = _run_info(jobs_csv)
    if not run.get("policy"):
        return path.parent.name or path.name
    trace = os.path.basename(str(run.get("workload") or "")) or "run"
    return f"{trace}, {run['policy']}"  # the policy as the run names it, parameters included


def gantt_figure(v: View, *, title: str, max_rectangles: int = 20_000, clock: tuple[int, str | None] | None = None):
    """The figure of a view: the chart on top (a rectangle per range, job ids on small views; else busy
    fractions), utilization and queue length below; time in days on the run's clock, or dates when
    ``clock`` gives the trace's start (:func:`trace_clock`), in its time zone when it names a known one.

    Below, each step of the utilization and the queue length is drawn when the view holds at most
    ``4 * max_rectangles`` of them; else per bin of 1/1200 of the view: the utilization's time average, and
    the queue length's least-to-largest range (a band) with its largest value as a line, so no peak is lost.
    Returns a matplotlib Figure (object API, Agg canvas: no global state).
    """
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure

    frame, view, s, f, t0, t1, n_procs, mode = v.frame, v.ranges, v.start, v.finish, v.t0, v.t1, v.n_procs, v.mode
    # x = days; with a clock, days since 1970-01-01 UTC, which is what matplotlib's dates are
    origin = 0.0 if clock is None else clock[0] / DAY
    s, f, t0, t1 = s + origin * DAY, f + origin * DAY, t0 + origin * DAY, t1 + origin * DAY
    frame = frame.assign(**{c: frame[c] + origin * DAY for c in ("submission_time", "starting_time", "finish_time")})
    fig = Figure(figsize=(12, 7), layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, height_ratios=(3, 1), sharex=True)
    if mode == "rectangles":
        x0, x1 = np.maximum(s[view.owner], t0) / DAY, np.minimum(f[view.owner], t1) / DAY
        corners = [(x0, view.lo), (x0, view.hi), (x1, view.hi), (x1, view.lo)]
        verts = np.stack([np.stack(corner, 1) for corner in corners], axis=1)
        colors = colormaps["tab20"](np.asarray(frame.index)[view.owner] % 20)
        # matplotlib's stub wants a Sequence, but set_verts has a fast path for one (N, M, 2) array
        polygons = PolyCollection(verts, facecolors=colors, edgecolors="black", linewidths=0.2)  # type: ignore[arg-type]
        top.add_collection(polygons)
        if v.jobs <= LABEL_JOBS:
            first = np.unique(view.owner, return_index=True)[1]  # each job's first range in view
            ids = frame["job_id"].astype(str).to_numpy()
            for r in first:
                top.text(
                    (x0[r] + x1[r]) / 2, (view.lo[r] + view.hi[r]) / 2, ids[view.owner[r]],
                    ha="center", va="center", fontsize=7, clip_on=True,
                )  # fmt: skip
    else:
        edges = np.linspace(t0, t1, 1201)
        grid = occupancy(view, s, f, n_procs, edges, min(n_procs, 600))
        image = top.imshow(
            grid, origin="lower", aspect="auto", extent=(t0 / DAY, t1 / DAY, 0, n_procs), cmap="viridis",
            interpolation="nearest", vmin=0.0, vmax=1.0,
        )  # fmt: skip
        fig.colorbar(image, ax=top, label="busy fraction", pad=0.01)
    top.set_xlim(t0 / DAY, t1 / DAY)
    top.set_ylim(0, n_procs)
    top.set_ylabel("processor")
    top.set_title(f"{title}: {v.jobs:,} jobs in view ({mode})")

    queue_axis = bottom.twinx()
    line = timeline(frame, n_procs)
    in_window = np.count_nonzero((line["times"] >= t0) & (line["times"] < t1))
    if in_window <= 4 * max_rectangles:
        bottom.step(line["times"] / DAY, line["utilization"], where="post", color="tab:blue", label="utilization")
        queue_axis.step(
            line["times"] / DAY, line["queue"], where="post", color="tab:red", linewidth=0.8, label="queued jobs"
        )
        high = float(line["queue"][(line["times"] >= t0) & (line["times"] < t1)].max(initial=0.0))
    else:
        binned = binned_timeline(frame, n_procs, np.linspace(t0, t1, 1201))
        days = binned["edges"] / DAY
        bottom.stairs(binned["utilization"], days, color="tab:blue", label="utilization (mean per bin)")
        queue_axis.stairs(
            binned["queue_max"], days, baseline=binned["queue_min"], fill=True, color="tab:red", alpha=0.25,
            linewidth=0, label="queued jobs (least to largest per bin)",
        )  # fmt: skip
        queue_axis.stairs(binned["queue_max"], days, color="tab:red", linewidth=0.8, label="queued jobs (largest)")
        high = float(binned["queue_max"].max(initial=0.0))
    queue_axis.set_ylim(0, max(1.0, high) * 1.05)
    bottom.set_ylim(0, 1.05)
    bottom.set_ylabel("utilization", color="tab:blue")
    if clock is None:
        bottom.set_xlabel("time (days on the run's clock)")
    else:
        from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

        zone = _zone(clock[1])
        locator = AutoDateLocator(tz=zone)
        bottom.xaxis.set_major_locator(locator)
        bottom.xaxis.set_major_formatter(ConciseDateFormatter(locator, tz=zone))
        bottom.set_xlabel(f"date ({clock[1] if zone is not None else 'UTC'}; from the trace's UnixStartTime)")
    queue_axis.set_ylabel("queued jobs", color="tab:red")
    handles = bottom.get_legend_handles_labels()[0] + queue_axis.get_legend_handles_labels()[0]
    bottom.legend(handles=handles, loc="upper left", fontsize="x-small", framealpha=0.8)
    return fig


def _zone(name: str | None):
    """The time zone named by a trace header (``Europe/Stockholm``), None (UTC) when absent or unknown."""
    from zoneinfo import ZoneInfo

    try:
        return ZoneInfo(name) if name else None
    except (ValueError, OSError, LookupError):
        return None


def plot_gantt(
    jobs_csv: str | os.PathLike,
    out: str | os.PathLike,
    *,
    start: float | None = None,
    end: float | None = None,
    n_procs: int | None = None,
    max_rectangles: int = 20_000,
    title: str | None = None,
) -> dict:
    """Draw the Gantt chart of ``jobs_csv`` over ``[start, end)`` (default: the whole run) into ``out``
    (PNG, SVG or PDF by suffix; see :func:`gantt_figure`), creating its folder. The title names the trace and the policy
    (:func:`run_title`) unless ``title`` is given; the time axis shows dates when the trace's start is known
    (:func:`trace_clock`). Returns what was drawn:
    ``{"jobs", "ranges", "mode": "rectangles" | "aggregated", "n_procs", "window"}``.
    """
    v = load_view(jobs_csv, start=start, end=end, n_procs=n_procs, max_rectangles=max_rectangles)
    fig = gantt_figure(
        v, title=title or run_title(jobs_csv), max_rectangles=max_rectangles, clock=trace_clock(jobs_csv)
    )
    try:  # the folder is made only now, once the view is known to be drawable
        Path(out).parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(
            str(Path(out).parent), message=f"cannot create the folder: {error.strerror or error}"
        ) from None
    fig.savefig(out, dpi=120, metadata={"Software": None} if Path(out).suffix == ".png" else None)
    return {
        "jobs": v.jobs,
        "ranges": int(v.ranges.owner.size),
        "mode": v.mode,
        "n_procs": v.n_procs,
        "window": (v.t0, v.t1),
    }


__all__ = [
    "DAY",
    "FORMATS",
    "LABEL_JOBS",
    "Ranges",
    "View",
    "allocated_ranges",
    "binned_timeline",
    "gantt_figure",
    "load_view",
    "occupancy",
    "plot_gantt",
    "run_title",
    "step_range",
    "timeline",
    "trace_clock",
]
