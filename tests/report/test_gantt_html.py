"""Zoomable HTML Gantt (issue 3): the figure's data against hand-computed rectangles and the shared timelines."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.engine import simulate
from schedlab.output import write_jobs_csv
from schedlab.platform import Machine
from schedlab.registry import make_policy
from schedlab.report.gantt import DAY, allocated_ranges, binned_timeline, occupancy, timeline
from schedlab.report.gantt_html import gantt_html
from schedlab.schedule import Instance
from schedlab.workload.jobs import JobTable


def small_run(tmp_path):
    """4 processors: job 1 [0, 10) on 0-1; job 2 [0, 4) on 2-3; job 3 (submitted 1) [4, 6) on 2-3."""
    jobs = JobTable.from_arrays(submit=[0, 0, 1], run_time=[10, 4, 2], procs=[2, 2, 2])
    instance = Instance(jobs, Machine(4))
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, simulate(instance, make_policy("fcfs")))
    return path


def seconds(days) -> list:
    """Times drawn in days, back in seconds (rounded to the microsecond; None kept: a gap between polygons)."""
    return [None if x is None else round(float(x) * DAY, 6) for x in days]


def figure_data(page: str) -> list[dict]:
    """The traces plotly.newPlot receives, decoded (base64 typed arrays as numpy arrays)."""
    start = page.rindex("Plotly.newPlot(") + len("Plotly.newPlot(")
    decoder = json.JSONDecoder()
    rest = page[start:].lstrip()
    div, end = decoder.raw_decode(rest)
    assert div == "gantt"
    traces, _ = decoder.raw_decode(rest[end:].lstrip(", \n"))
    return [{key: _decode(value) for key, value in trace.items()} for trace in traces]


def _decode(value):
    if isinstance(value, dict) and "bdata" in value:
        import base64

        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return array.reshape([int(n) for n in shape.split(",")]) if shape else array
    return value


def test_rectangles_by_hand(tmp_path):
    path = small_run(tmp_path)
    drawn = gantt_html(path, tmp_path / "g.html")
    assert drawn == {"jobs": 3, "ranges": 3, "mode": "rectangles", "n_procs": 4, "window": (0.0, 10.0)}
    page = (tmp_path / "g.html").read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=", page)  # plotly.js is embedded: nothing fetched
    gantt, utilization, queue = figure_data(page)
    assert gantt["type"] == "scatter" and gantt["fill"] == "toself"
    # one polygon per range, separated by None: job 1 on 0-1 over [0, 10), job 2 on 2-3 [0, 4), job 3 on 2-3 [4, 6)
    assert seconds(gantt["x"]) == [0, 0, 10, 10, None, 0, 0, 4, 4, None, 4, 4, 6, 6, None]  # drawn in days
    assert gantt["y"] == [0, 2, 2, 0, None, 2, 4, 4, 2, None, 2, 4, 4, 2, None]
    custom = np.asarray(gantt["customdata"])  # job id, start, end, procs, first and last processor, per corner
    assert custom[::5].tolist() == [[1, 0, 10, 2, 0, 1], [2, 0, 4, 2, 2, 3], [3, 4, 6, 2, 2, 3]]
    line = timeline(pd.read_csv(path), 4)
    assert utilization["line"]["shape"] == "hv"
    np.testing.assert_allclose(np.asarray(utilization["x"]) * DAY, line["times"])
    np.testing.assert_array_equal(utilization["y"], line["utilization"])
    np.testing.assert_array_equal(queue["y"], [0, 1, 0, 0, 0])
    gantt_html(path, tmp_path / "again.html")
    assert (tmp_path / "again.html").read_bytes() == (tmp_path / "g.html").read_bytes()  # reproducible


def test_window_clips_and_large_views_aggregate(tmp_path):
    path = small_run(tmp_path)
    clipped = gantt_html(path, tmp_path / "w.html", start=5, end=8)
    assert clipped["jobs"] == 2
    gantt, utilization, queue = figure_data((tmp_path / "w.html").read_text())
    assert seconds(gantt["x"]) == [5, 5, 8, 8, None, 5, 5, 6, 6, None]
    # only the steps in view: the one in force at 5 (from 4), the drop at 6, held to 8
    assert seconds(utilization["x"]) == [5, 6, 8] and utilization["y"].tolist() == [1, 0.5, 0.5]
    assert queue["y"].tolist() == [0, 0, 0]
    drawn = gantt_html(path, tmp_path / "a.html", max_rectangles=1, n_procs=8)
    assert drawn["mode"] == "aggregated" and drawn["n_procs"] == 8
    heat, _, _ = figure_data((tmp_path / "a.html").read_text())
    assert heat["type"] == "heatmap" and heat["zmin"] == 0 and heat["zmax"] == 1
    frame = pd.read_csv(path)
    edges = np.linspace(0.0, 10.0, 1201)
    expected = occupancy(allocated_ranges(frame["allocated_resources"]), frame["starting_time"].to_numpy(),
                         frame["finish_time"].to_numpy(), 8, edges, 8)  # fmt: skip
    np.testing.assert_allclose(heat["z"], expected, atol=1e-6)  # sent as float32
    assert heat["z"][:2, :480].min() == 1.0 and heat["z"][4:].max() == 0.0  # processors 0-1 busy [0, 4); 4-7 never


def test_many_events_are_binned(tmp_path):
    """Past 4 x max_rectangles events in view, the panels below show bin averages (binned_timeline)."""
    path = small_run(tmp_path)
    gantt_html(path, tmp_path / "b.html", max_rectangles=0)  # 4 event times in [0, 10) > 4 x 0
    _, utilization, least, largest = figure_data((tmp_path / "b.html").read_text())
    binned = binned_timeline(pd.read_csv(path), 4, np.linspace(0.0, 10.0, 1201))
    np.testing.assert_allclose(np.asarray(utilization["x"]) * DAY, binned["edges"])
    np.testing.assert_allclose(utilization["y"][:-1], binned["utilization"])
    # the queue: a band from the least to the largest length per bin; job 3 waits [1, 4): 1 at its peak
    np.testing.assert_allclose(least["y"][:-1], binned["queue_min"])
    np.testing.assert_allclose(largest["y"][:-1], binned["queue_max"])
    assert largest["fill"] == "tonexty" and largest["y"].max() == 1 and binned["queue"].max() == pytest.approx(1)


def test_errors(tmp_path):
    path = small_run(tmp_path)
    from schedlab.errors import InputError

    with pytest.raises(InputError, match="empty window"):
        gantt_html(path, tmp_path / "x.html", start=9, end=3)
    with pytest.raises(InputError, match="--procs = 2, expected at least 4"):
        gantt_html(path, tmp_path / "x.html", n_procs=2)


def test_cli_html_beside_the_image(tmp_path):
    path = small_run(tmp_path)
    runner = CliRunner()
    both = runner.invoke(app, ["gantt", str(path), "--out", str(tmp_path / "g"), "--html"])
    assert both.exit_code == 0, both.output
    assert both.stdout.count("3 jobs") == 2
    assert sorted(p.name for p in (tmp_path / "g").iterdir()) == ["gantt.html", "gantt.png"]
    window = runner.invoke(app, ["gantt", str(path), "-o", str(tmp_path / "h"), "--html", "--window", "5:8"])
    assert window.exit_code == 0 and window.stdout.count("2 jobs") == 2
