"""Gantt charts and timelines of a run (issue 3): parsing, exact step functions, bin averages, busy cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.engine import simulate
from schedlab.output import write_jobs_csv
from schedlab.platform import Machine
from schedlab.registry import make_policy
from schedlab.report.gantt import (
    DAY,
    Ranges,
    allocated_ranges,
    binned_timeline,
    gantt_figure,
    load_view,
    occupancy,
    plot_gantt,
    run_title,
    step_range,
    timeline,
)
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


def axes_of(figure):
    """The chart, the utilization panel and the queue panel (its twin) of a Gantt figure."""
    top, bottom = figure.axes[0], figure.axes[1]
    queue = next(ax for ax in figure.axes[2:] if ax.get_ylabel() == "queued jobs")
    return top, bottom, queue


def test_small_view_labels_jobs_and_spans_the_data_in_days(tmp_path):
    path = small_run(tmp_path)
    figure = gantt_figure(load_view(path, start=None, end=None, n_procs=None, max_rectangles=100), title="t")
    top, bottom, queue = axes_of(figure)
    assert top.get_xlim() == (0.0, 10.0 / DAY)  # first start to last end, in days
    assert bottom.get_xlabel() == "time (days on the run's clock)" and top.get_ylim() == (0.0, 4.0)
    labels = {text.get_text(): text.get_position() for text in top.texts}
    # job 1 on processors 0-1 over [0, 10): its label sits in the middle of its rectangle
    assert set(labels) == {"1", "2", "3"} and labels["1"] == pytest.approx((5 / DAY, 1.0))
    assert labels["3"] == pytest.approx((5 / DAY, 3.0))
    (step,) = [line for line in queue.get_lines()]
    assert step.get_ydata().max() == 1 and queue.get_ylim()[1] >= 1  # job 3 waits [1, 4)


def peak_run(tmp_path):
    """One 1,000-processor job over [0, 100 s); 2,000 one-processor jobs submitted at 50 s wait for it,
    then run in two waves; a last job at day 100 stretches the view, so a bin (1/1200 of it) is 2 hours."""
    n = 2000
    submit = np.concatenate([[0.0], np.full(n, 50.0), [100 * DAY]])
    run_time = np.concatenate([[100.0], np.full(n, 10.0), [10.0]])
    procs = np.concatenate([[1000], np.ones(n, dtype=np.int64), [1]])
    instance = Instance(JobTable.from_arrays(submit=submit, run_time=run_time, procs=procs), Machine(1000))
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, simulate(instance, make_policy("fcfs")))
    return path


def test_aggregated_queue_draws_the_largest_length_not_the_mean(tmp_path):
    path = peak_run(tmp_path)
    view = load_view(path, start=None, end=None, n_procs=None, max_rectangles=1)
    figure = gantt_figure(view, title="peak", max_rectangles=1)  # 7 event times > 4 x 1: bins
    top, _, queue = axes_of(figure)
    line = timeline(pd.read_csv(path), 1000)
    assert line["queue"].max() == 2000
    band, largest = queue.patches  # the least-to-largest band, then the largest as a line
    values, edges, baseline = largest.get_data()
    assert values.max() == 2000  # the peak is drawn...
    binned = binned_timeline(pd.read_csv(path), 1000, edges * DAY)
    assert binned["queue"].max() < 20  # ...where the bin mean reads about 14
    np.testing.assert_array_equal(band.get_data().baseline, binned["queue_min"])
    np.testing.assert_array_equal(band.get_data().values, binned["queue_max"])
    assert queue.get_ylim()[1] >= 2000
    assert top.get_xlim() == pytest.approx((0.0, float(pd.read_csv(path)["finish_time"].max()) / DAY))
    assert not top.texts  # 2,002 jobs: no labels


@settings(max_examples=60, deadline=None)
@given(
    times=st.lists(st.integers(0, 30), max_size=12, unique=True),
    values=st.lists(st.integers(0, 9), min_size=12, max_size=12),
    edges=st.lists(st.integers(-3, 33), min_size=2, max_size=8, unique=True),
)
def test_step_range_is_the_least_and_largest_value_over_each_bin(times, values, edges):
    t = np.array(sorted(times), dtype=np.float64)
    v = np.array(values[: t.size], dtype=np.float64)
    e = np.array(sorted(edges), dtype=np.float64)
    low, high = step_range(t, v, e)
    for j in range(e.size - 1):  # brute force: the value at the bin's start and at each step inside it
        points = [e[j]] + [x for x in t if e[j] <= x < e[j + 1]]
        seen = [v[np.searchsorted(t, x, side="right") - 1] if x >= t[0] else 0.0 for x in points] if t.size else [0]
        assert (low[j], high[j]) == (min(seen), max(seen))


def test_title_names_the_trace_and_the_policy(tmp_path, data_dir):
    from schedlab import load_instance, run

    instance, report = load_instance(data_dir / "tiny.swf")
    run(instance, "easy", {"order": "sjf"}, report=report).write(tmp_path / "run")
    assert run_title(tmp_path / "run" / "jobs.csv") == "tiny.swf, easy(order=sjf)"
    figure = gantt_figure(
        load_view(tmp_path / "run" / "jobs.csv", start=None, end=None, n_procs=None, max_rectangles=100),
        title=run_title(tmp_path / "run" / "jobs.csv"),
    )
    assert figure.axes[0].get_title().startswith("tiny.swf, easy(order=sjf): ")
    assert run_title(small_run(tmp_path)) == tmp_path.name  # no metrics.json: the folder's name


@pytest.mark.slow
def test_hpc2n_easy_queue_peak_is_drawn(traces_dir, tmp_path):
    """The issue's case: HPC2N under EASY peaks at 2,438 queued jobs; the whole-run chart shows that peak."""
    from schedlab import load_instance, run

    instance, report = load_instance(traces_dir / "HPC2N-2002-2.2-cln.swf.gz")
    run(instance, "easy", report=report, check=False).write(tmp_path / "run")
    path = tmp_path / "run" / "jobs.csv"
    figure = gantt_figure(load_view(path, start=None, end=None, n_procs=None, max_rectangles=20_000), title="x")
    _, _, queue = axes_of(figure)
    assert max(patch.get_data().values.max() for patch in queue.patches) == 2438


def test_gantt_cli_writes_into_a_folder_and_refuses_mistakes(tmp_path):
    path = small_run(tmp_path)
    runner = CliRunner()
    out = tmp_path / "new" / "folder"
    ok = runner.invoke(app, ["gantt", str(path), "--out", str(out), "--format", "svg", "--window", "0:5"])
    assert ok.exit_code == 0, ok.output
    assert "3 jobs" in ok.stdout and (out / "gantt.svg").read_text().lstrip().startswith("<?xml")
    again = runner.invoke(app, ["gantt", str(path), "--out", str(out), "--format", "svg"])
    assert again.exit_code == 1 and again.stderr.splitlines() == [
        f"error: {out}: gantt.svg already there (use --force to overwrite)"
    ]
    assert runner.invoke(app, ["gantt", str(path), "--out", str(out), "--format", "svg", "--force"]).exit_code == 0
    cases = {
        ("--format", "jpg2"): "--format = jpg2, expected one of png, svg, pdf",
        ("--window", "9:3"): "--window = 9:3, expected START < END",
        ("--procs", "2"): "--procs = 2, expected at least 4",
    }
    for option, message in cases.items():
        bad = runner.invoke(app, ["gantt", str(path), "--out", str(tmp_path / "x"), *option])
        assert bad.exit_code == 1 and len(bad.stderr.splitlines()) == 1 and message in bad.stderr, bad.output
    for name, hint in (("g.png", "--format png"), ("g.jpg2", "--format one of png, svg, pdf")):
        meant_a_file = runner.invoke(app, ["gantt", str(path), "--out", str(tmp_path / name)])
        assert meant_a_file.exit_code == 1 and "--out is a folder" in meant_a_file.stderr
        assert hint in meant_a_file.stderr and not (tmp_path / name).exists()
    a_file = runner.invoke(app, ["gantt", str(path), "--out", str(path)])
    assert a_file.exit_code == 1 and "--out must be a folder" in a_file.stderr
    assert not (tmp_path / "x").exists()  # nothing written on a refusal
