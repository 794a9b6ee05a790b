"""A zoomable Gantt chart of one run as a self-contained HTML page (plotly), with utilization and queue length.

Gantt charts that stay readable and fast for 10^5 jobs: the
interactive companion of :func:`schedlab.report.gantt.plot_gantt`: the same view
rules (window, machine size, rectangles up to ``max_rectangles`` ranges, busy
fractions beyond) and the same measures (:func:`~schedlab.report.gantt.timeline`,
:func:`~schedlab.report.gantt.binned_timeline`,
:func:`~schedlab.report.gantt.occupancy`), drawn with plotly so that the reader
can zoom and pan; the three panels share the time axis.

Notes
-----
Every rectangle is one closed polygon of ONE scatter trace (``fill="toself"``,
polygons separated by ``None``): plotly draws one SVG path instead of
thousands of shapes, so 20,000 ranges stay responsive. Hovering a corner shows
the job id, start, end and processors. One trace has one fill colour; jobs are
told apart by their outlines. An aggregated view is a heatmap computed once
for the window: zooming enlarges its cells, it does not refine them (draw a
narrower ``start``/``end`` for detail). The page embeds plotly.js (about
4.5 MB): it opens offline and fetches nothing.
"""

from __future__ import annotations

import os

import numpy as np

from schedlab.report.gantt import DAY, Ranges, binned_timeline, load_view, occupancy, run_title, timeline

__all__ = ["gantt_html"]

_BINS = 1200
"""Time bins of an aggregated view and of binned timelines, as :func:`plot_gantt`."""


def gantt_html(
    jobs_csv: str | os.PathLike,
    out_html: str | os.PathLike,
    *,
    start: float | None = None,
    end: float | None = None,
    n_procs: int | None = None,
    max_rectangles: int = 20_000,
    title: str | None = None,
) -> dict:
    """Write the zoomable Gantt chart of ``jobs_csv`` over ``[start, end)`` (default: the whole run) to
    ``out_html``, with utilization and queue length below.

    Guarantee: the same drawing as :func:`schedlab.report.gantt.plot_gantt` (same ranges or the same busy
    fractions), the same inputs give a byte-identical file.
    Cost: O(n log n + R) for n jobs and R ranges in view, O(R log R + cells) when aggregated.

    Parameters
    ----------
    jobs_csv : path
        A run's ``jobs.csv`` (ours or Batsim's).
    out_html : path
        The page to write.
    start, end : float, optional
        The view, seconds on the run's clock (default: first start, last end).
    n_procs : int, optional
        Machine size (default: the highest processor used + 1).
    max_rectangles : int, default 20000
        Draw ranges one by one up to this many in view; a heatmap of busy fractions beyond.
    title : str, optional
        What the run is (default: trace and policy, :func:`~schedlab.report.gantt.run_title`); the jobs in
        view and the mode follow.

    Returns
    -------
    dict
        ``{"jobs", "ranges", "mode": "rectangles" | "aggregated", "n_procs", "window"}``, as ``plot_gantt``.

    Raises
    ------
    InputError
        No started job, ``n_procs`` smaller than the processors used, an empty window.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    v = load_view(jobs_csv, start=start, end=end, n_procs=n_procs, max_rectangles=max_rectangles)
    frame, view, s, f, t0, t1, n_procs, mode = v.frame, v.ranges, v.start, v.finish, v.t0, v.t1, v.n_procs, v.mode
    title = f"{title or run_title(jobs_csv)}: {v.jobs:,} jobs in view ({mode})"

    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, row_heights=(0.64, 0.18, 0.18), vertical_spacing=0.04)
    if mode == "rectangles":
        fig.add_trace(_rectangles(go, frame, view, s, f, t0, t1), row=1, col=1)
    else:
        edges = np.linspace(t0, t1, _BINS + 1)
        rows = min(n_procs, 600)
        grid = occupancy(view, s, f, n_procs, edges, rows)
        lower = np.ceil(np.arange(rows + 1) * n_procs / rows)  # first processor of each row, as occupancy
        fig.add_trace(
            go.Heatmap(
                z=grid.astype(np.float32), x=(edges[:-1] + edges[1:]) / 2 / DAY, y=(lower[:-1] + lower[1:]) / 2, zmin=0.0, zmax=1.0,
                colorscale="Viridis", colorbar={"title": {"text": "busy"}, "len": 0.6, "y": 0.7},
                hovertemplate="t %{x:.4f} d<br>processor %{y:.0f}<br>busy %{z:.2f}<extra></extra>", name="busy fraction",
            ),
            row=1, col=1,
        )  # fmt: skip

    line = timeline(frame, n_procs)
    in_window = np.count_nonzero((line["times"] >= t0) & (line["times"] < t1))
    if in_window <= 4 * max_rectangles:  # the exact steps, from the one in force at t0 to the last at or before t1
        lo = max(int(np.searchsorted(line["times"], t0, side="right")) - 1, 0)
        hi = int(np.searchsorted(line["times"], t1, side="right"))
        times = np.maximum(line["times"][lo:hi], t0)
        utilization, queue = line["utilization"][lo:hi], line["queue"][lo:hi]
        least = None
    else:  # too many steps to send: per bin, the utilization's time average and the queue's least and largest
        binned = binned_timeline(frame, n_procs, np.linspace(t0, t1, _BINS + 1))
        times, utilization, queue = binned["edges"][:-1], binned["utilization"], binned["queue_max"]
        least = binned["queue_min"]
    if times.size and times[-1] < t1:  # hold the last value to the end of the view
        times, utilization, queue = (
            np.append(times, t1),
            np.append(utilization, utilization[-1]),
            np.append(queue, queue[-1]),
        )
        least = None if least is None else np.append(least, least[-1])
    shape = "hv"
    fig.add_trace(
        go.Scatter(x=times / DAY, y=utilization, mode="lines", line={"shape": shape, "color": "#1f77b4", "width": 1},
                   name="utilization", hovertemplate="t %{x:.4f} d<br>utilization %{y:.3f}<extra></extra>"),
        row=2, col=1,
    )  # fmt: skip
    if least is not None:  # the band from the least to the largest queue length of each bin, then the largest
        fig.add_trace(
            go.Scatter(x=times / DAY, y=least, mode="lines", line={"shape": shape, "width": 0}, name="queued jobs (least)",
                       hovertemplate="t %{x:.4f} d<br>least queued %{y:.0f}<extra></extra>"),
            row=3, col=1,
        )  # fmt: skip
    fig.add_trace(
        go.Scatter(x=times / DAY, y=queue, mode="lines", line={"shape": shape, "color": "#d62728", "width": 1},
                   fill=None if least is None else "tonexty", fillcolor="rgba(214, 39, 40, 0.25)",
                   name="queued jobs" if least is None else "queued jobs (largest per bin)",
                   hovertemplate="t %{x:.4f} d<br>queued %{y:.0f}" + ("" if least is None else " (largest in bin)")
                   + "<extra></extra>"),
        row=3, col=1,
    )  # fmt: skip
    fig.update_xaxes(range=[t0 / DAY, t1 / DAY])
    fig.update_xaxes(title_text="time (days on the run's clock)", row=3, col=1)
    fig.update_yaxes(title_text="processor", range=[0, n_procs], row=1, col=1)
    fig.update_yaxes(title_text="utilization", range=[0, 1.05], row=2, col=1)
    fig.update_yaxes(title_text="queued jobs", rangemode="tozero", row=3, col=1)
    fig.update_layout(
        title={"text": title},
        showlegend=False,
        height=800,
        template="plotly_white",
        margin={"l": 70, "r": 30, "t": 60, "b": 50},
    )
    fig.write_html(
        out_html,
        include_plotlyjs=True,
        full_html=True,
        div_id="gantt",
        config={"displaylogo": False, "responsive": True},
    )
    return {"jobs": v.jobs, "ranges": int(view.owner.size), "mode": mode, "n_procs": n_procs, "window": (t0, t1)}


def _rectangles(go, frame, view: Ranges, s: np.ndarray, f: np.ndarray, t0: float, t1: float):
    """One scatter trace: per range the polygon (x0, lo) (x0, hi) (x1, hi) (x1, lo) then a None gap;
    each corner carries (job id, start, end, procs) for the hover text."""
    n = view.owner.size
    x0, x1 = np.maximum(s[view.owner], t0) / DAY, np.minimum(f[view.owner], t1) / DAY
    x = np.empty((n, 5), dtype=object)
    y = np.empty((n, 5), dtype=object)
    x[:, 0], x[:, 1], x[:, 2], x[:, 3], x[:, 4] = x0, x0, x1, x1, None
    y[:, 0], y[:, 1], y[:, 2], y[:, 3], y[:, 4] = view.lo, view.hi, view.hi, view.lo, None
    ids = frame["job_id"].to_numpy()[view.owner]
    numeric = np.issubdtype(ids.dtype, np.number)  # Batsim ids such as "w0!1" are text
    info = np.stack(
        [
            ids.astype(np.float64) if numeric else ids.astype(object),
            s[view.owner],
            f[view.owner],
            frame["requested_number_of_resources"].to_numpy()[view.owner].astype(np.float64),
            view.lo.astype(np.float64),
            view.hi.astype(np.float64) - 1,
        ],
        axis=1,
    )
    custom = np.repeat(info, 5, axis=0)
    return go.Scatter(
        x=x.ravel().tolist(), y=y.ravel().tolist(), customdata=custom, mode="lines", fill="toself",
        fillcolor="rgba(31, 119, 180, 0.55)", line={"color": "rgba(8, 48, 107, 0.9)", "width": 0.5},
        hoveron="points", name="jobs",
        hovertemplate=("job %{customdata[0]:.0f}" if numeric else "job %{customdata[0]}") + "<br>start %{customdata[1]:.0f} s<br>end %{customdata[2]:.0f} s"
        "<br>procs %{customdata[3]:.0f} (range %{customdata[4]:.0f}-%{customdata[5]:.0f})<extra></extra>",
    )  # fmt: skip
