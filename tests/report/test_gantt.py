"""Gantt charts and timelines of a run (issue 3): parsing, exact step functions, bin averages, busy cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.engine import simulate
from schedlab.output import write_jobs_csv
from schedlab.platform import Machine
from schedlab.registry import make_policy
from schedlab.report.gantt import Ranges, allocated_ranges, binned_timeline, occupancy, plot_gantt, timeline
from schedlab.schedule import Instance
from schedlab.workload.jobs import JobTable
from strategies import rigid_instances


def small_run(tmp_path):
    """4 processors: job 1 [0, 10) on 0-1; job 2 [0, 4) on 2-3; job 3 (submitted 1) [4, 6) on 2-3."""
    jobs = JobTable.from_arrays(submit=[0, 0, 1], run_time=[10, 4, 2], procs=[2, 2, 2])
    instance = Instance(jobs, Machine(4))
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, simulate(instance, make_policy("fcfs")))
    return path


def test_allocated_ranges_parse_batsim_notation():
    ranges = allocated_ranges(pd.Series(["0-3 8-11", "5", "", None]))
    assert ranges.owner.tolist() == [0, 0, 1]
    assert ranges.lo.tolist() == [0, 8, 5] and ranges.hi.tolist() == [4, 12, 6]


def test_timeline_by_hand(tmp_path):
    frame = pd.read_csv(small_run(tmp_path))
    line = timeline(frame, 4)
    assert line["times"].tolist() == [0, 1, 4, 6, 10]
    assert line["utilization"].tolist() == [1, 1, 1, 0.5, 0]
    assert line["queue"].tolist() == [0, 1, 0, 0, 0]


def test_bin_averages_by_hand(tmp_path):
    frame = pd.read_csv(small_run(tmp_path))
    binned = binned_timeline(frame, 4, np.array([0.0, 5.0, 10.0]))
    assert binned["utilization"].tolist() == pytest.approx([1.0, (1 * 1 + 0.5 * 4) / 5])  # [5,6) full, [6,10) half
    assert binned["queue"].tolist() == pytest.approx([3 / 5, 0])  # job 3 waits [1, 4)


@settings(max_examples=30)
@given(instance=rigid_instances(max_jobs=10, max_procs=6))
def test_busy_cells_match_a_direct_computation(instance):
    schedule = simulate(instance, make_policy("easy"))
    owner, lo, hi = [], [], []
    for row, alloc in enumerate(schedule.alloc):
        for a, b in alloc:
            owner.append(row), lo.append(a), hi.append(b)
    ranges = Ranges(np.array(owner), np.array(lo), np.array(hi))
    n = instance.platform.n_procs
    edges = np.linspace(0.0, float(np.max(schedule.end)), 7)
    grid = occupancy(ranges, schedule.start, schedule.end, n, edges, n)
    expected = np.zeros((n, edges.size - 1))
    for row, a, b in zip(owner, lo, hi):
        for p in range(a, b):
            for j in range(edges.size - 1):
                overlap = min(schedule.end[row], edges[j + 1]) - max(schedule.start[row], edges[j])
                expected[p, j] += max(0.0, overlap) / (edges[j + 1] - edges[j])
    np.testing.assert_allclose(grid, expected, atol=1e-9)


def test_plot_gantt_draws_rectangles_or_aggregates(tmp_path):
    path = small_run(tmp_path)
    drawn = plot_gantt(path, tmp_path / "g.png")
    assert drawn == {"jobs": 3, "ranges": 3, "mode": "rectangles", "n_procs": 4, "window": (0.0, 10.0)}
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    window = plot_gantt(path, tmp_path / "w.png", start=5, end=8, max_rectangles=1, n_procs=8)
    assert window["jobs"] == 2 and window["mode"] == "aggregated" and window["n_procs"] == 8


def test_gantt_cli_and_its_errors(tmp_path):
    path = small_run(tmp_path)
    runner = CliRunner()
    ok = runner.invoke(app, ["gantt", str(path), "--out", str(tmp_path / "g.svg"), "--from", "0", "--to", "5"])
    assert ok.exit_code == 0, ok.output
    assert "3 jobs" in ok.stdout and (tmp_path / "g.svg").read_text().lstrip().startswith("<?xml")
    bad = runner.invoke(app, ["gantt", str(path), "--out", str(tmp_path / "x.png"), "--from", "9", "--to", "3"])
    assert bad.exit_code == 1 and "empty window" in bad.stderr
    small = runner.invoke(app, ["gantt", str(path), "--out", str(tmp_path / "x.png"), "--procs", "2"])
    assert small.exit_code == 1 and "--procs = 2, expected at least 4" in small.stderr
