"""Campaign figures read back from their matplotlib artists: what is drawn is the data, labelled in words
with units, marks explained, intervals of non-negative means never below 0 (issue 17, point 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedlab.campaign.report import box_figure, metric_label, sweep, sweep_figure


def frame() -> pd.DataFrame:
    """Two labels on one workload; the mean waits of ``b`` are skewed (t interval below 0)."""
    return pd.DataFrame(
        {
            "workload": ["w"] * 7,
            "label": ["a", "a", "a", "b", "b", "b", "b"],
            "policy": ["easy"] * 3 + ["easy"] * 4,
            "param_reserve": ["1", "1", "1", "2", "2", "2", "2"],
            "state": ["done"] * 7,
            "wait_mean": [10.0, 12.0, 14.0, 0.0, 0.0, 0.0, 900.0],
        }
    )


def test_metric_labels_name_the_quantity_and_its_unit():
    assert metric_label("wait_mean") == "mean wait (s)"
    assert metric_label("bsld_max") == "max bounded slowdown"
    assert metric_label("response_l2") == "L2 norm of response time (s)"
    assert metric_label("utilization") == "utilization (fraction of the machine)"
    assert metric_label("n_killed") == "jobs killed at walltime"
    assert metric_label("task_load") == "task_load"  # not a metric of aggregate: as it is


def test_box_plot_draws_each_label_s_values_and_explains_its_marks():
    figure = box_figure(frame(), "wait_mean", ["a", "b"])
    ax = figure.axes[0]
    assert ax.get_ylabel() == "mean wait (s)" and ax.get_title() == "w"
    assert [tick.get_text() for tick in ax.get_xticklabels()] == ["a", "b"]
    medians = [line for line in ax.get_lines() if line.get_color() == "C1"]
    assert [float(np.mean(line.get_ydata())) for line in medians] == [12.0, 0.0]
    low, high = ax.get_ylim()
    assert low <= 0.0 and high >= 900.0  # every run inside the axis, the outlier included
    (legend,) = figure.legends
    texts = [text.get_text() for text in legend.get_texts()]
    assert texts[:3] == ["box: middle half (quartiles)", "median", "mean"] and "runs beyond" in texts


def test_sweep_error_bars_of_a_mean_wait_stay_at_or_above_zero():
    table = frame()
    figure = sweep_figure(sweep(table, "wait_mean", "easy", "reserve"))
    ax = figure.axes[0]
    assert ax.get_ylabel() == "mean wait (s)" and "bars: 95 % CI" in ax.get_title()
    (bars,) = [c for c in ax.collections if c.get_segments()]
    bottoms = [min(segment[:, 1]) for segment in bars.get_segments()]
    tops = [max(segment[:, 1]) for segment in bars.get_segments()]
    # label b, [0, 0, 0, 900]: the t interval 225 +- 716 would reach -491. A bootstrap mean is 225 k for k
    # draws of 900 among 4: P(k = 0) = 0.32 > 2.5 %, P(k >= 3) = 0.051 > 2.5 % > P(k = 4): [0, 675]
    assert bottoms[1] == 0.0 and tops[1] == 675.0
    assert bottoms[0] > 0 and tops[0] > 12.0  # label a: Student's t, 12 +- 4.97
    (line,) = ax.get_lines()[:1]
    assert line.get_ydata().tolist() == [12.0, 225.0]
