"""The offline and experiment figures read back from their artists: what is drawn is the data (issue 17,
point 5): the Gantt of a Schedule, the CPU+GPU study's figures and the I/O study's figures."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.patches import Rectangle

from schedlab.engine import simulate
from schedlab.platform import Machine
from schedlab.registry import make_policy
from schedlab.report import hybrid_plots, io_plots
from schedlab.report.schedule_gantt import schedule_figure
from schedlab.schedule import Instance
from schedlab.workload.jobs import JobTable


def test_schedule_gantt_draws_each_allocation_and_labels_it():
    jobs = JobTable.from_arrays(submit=[0, 0, 1], run_time=[10, 4, 2], procs=[2, 2, 2])
    instance = Instance(jobs, Machine(4))
    schedule = simulate(instance, make_policy("fcfs"))
    figure = schedule_figure(instance, schedule)
    ax = figure.axes[0]
    boxes = sorted((r.get_x(), r.get_y(), r.get_width(), r.get_height()) for r in ax.patches)
    expected = sorted(
        (schedule.start[j], lo, schedule.end[j] - schedule.start[j], hi - lo)
        for j, alloc in enumerate(schedule.alloc)
        for lo, hi in alloc
    )
    assert boxes == expected
    assert sorted(t.get_text() for t in ax.texts) == sorted(str(i) for i in jobs.id)
    assert ax.get_xlim() == pytest.approx((0.0, schedule.makespan * 1.02)) and ax.get_ylim() == (0.0, 4.0)
    assert ax.get_title() == f"{schedule.policy}: makespan 10"  # job 1 runs [0, 10)


@pytest.fixture
def captured(monkeypatch):
    """Keep the figures the plot functions would save and close."""
    figures = []
    for module in (hybrid_plots, io_plots):
        monkeypatch.setattr(module, "save_figure", lambda fig, path: figures.append(fig) or path)
    return figures


def hybrid_rows():
    rng = np.random.default_rng(3)
    runs = []
    for n in (10, 100):
        for m in (4, 16):
            for algorithm in ("approx32", "heft"):
                for sample in range(3):
                    runs.append(
                        {
                            "n": n, "m": m, "algorithm": algorithm, "sample": sample,
                            "ratio_reference": 1.0 + float(rng.random()) * (algorithm == "heft"),
                            "ratio_lower_bound": 1.0 + float(rng.random()),
                            "seconds": float(rng.random()) / 10, "steps": int(rng.integers(1, 8)),
                        }
                    )  # fmt: skip
    return runs


def test_hybrid_figures_draw_the_rows(captured):
    runs = hybrid_rows()
    hybrid_plots.plot_relative_makespan(runs, "unused.png")
    hybrid_plots.plot_runtime(runs, "unused.png")
    relative, runtime = captured
    for ax, n in zip(relative.axes, (10, 100)):
        medians = [float(np.mean(line.get_ydata())) for line in ax.get_lines() if line.get_color() == "C1"]
        for median, algorithm in zip(medians, ("approx32", "heft")):
            values = [r["ratio_reference"] for r in runs if r["n"] == n and r["algorithm"] == algorithm]
            assert median == pytest.approx(float(np.median(values)))
    ax = runtime.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log" and not ax.patches  # lines on log axes, no bars
    for line, algorithm in zip(ax.get_lines(), ("approx32", "heft")):
        means = [
            np.mean([r["seconds"] for r in runs if r["n"] == n and r["algorithm"] == algorithm]) for n in (10, 100)
        ]
        assert line.get_ydata().tolist() == pytest.approx(means) and line.get_label() == algorithm


def io_rows():
    rows = []
    for sample in range(4):
        for algorithm, makespan in (("pinned", 12.0 + sample), ("greedy", 10.0 + sample)):
            rows.append(
                {
                    "family": "f", "sample": sample, "kind": "synthetic", "topology": "line", "mode": "shared",
                    "algorithm": algorithm, "makespan": makespan, "opt": math.nan, "ratio_opt": math.nan,
                    "proven_ratio": math.nan, "ratio_lb": makespan / 10.0, "relaxed_convex": 10.0, "relaxed_none": 8.0,
                }
            )  # fmt: skip
    return rows


def test_io_figures_draw_the_rows_and_bars_start_at_zero(captured):
    rows = io_rows()
    io_plots.plot_ratio_lb(rows, "unused.png")
    io_plots.plot_price(rows, "unused.png")
    ratio, price = captured
    medians = [float(np.mean(line.get_ydata())) for line in ratio.axes[0].get_lines() if line.get_color() == "C1"]
    assert medians == pytest.approx([np.median([1.2, 1.3, 1.4, 1.5]), np.median([1.0, 1.1, 1.2, 1.3])])
    ax = price.axes[0]
    heights = sorted(round(p.get_height(), 9) for p in ax.patches if isinstance(p, Rectangle) and p.get_width() < 1)
    # best makespan per sample is greedy's 10 + s: over 10 (convex) and over 8 (no constraint), averaged
    assert heights == pytest.approx(
        sorted([np.mean([(10 + s) / 10 for s in range(4)]), np.mean([(10 + s) / 8 for s in range(4)])])
    )
    assert ax.get_yscale() == "linear" and ax.get_ylim()[0] == 0.0
