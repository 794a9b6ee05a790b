"""The reproductions' own figures (max stretch, torus, ch. 5 bars) read back from their artists: the drawn points
and bars are the table's numbers, the axes say what they show, and nothing is drawn that the table lacks."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from schedlab.experiments import locality_ch5, stretch, torus


@pytest.fixture
def drawn(monkeypatch):
    """Capture the matplotlib figure an experiment module would turn into PNG bytes."""
    figures = []

    def capture(module):
        def png(figure) -> bytes:
            figures.append(figure)
            return b"png"

        monkeypatch.setattr(module, "png", png)
        return figures

    return capture


def test_stretch_fig1_draws_each_instance_at_its_load_and_max_stretch(drawn):
    figures = drawn(stretch)
    rows = pd.DataFrame(
        [
            {"workload": "seq-d5-l280", "label": "FCFS", "load": 279.5, "max_stretch": 2.5, "state": "done"},
            {"workload": "seq-d5-l280", "label": "DASEDF", "load": 279.5, "max_stretch": 1.4, "state": "done"},
            {"workload": "seq-d100-l300", "label": "FCFS", "load": 301.0, "max_stretch": 40.0, "state": "done"},
            {"workload": "seq-d100-l300", "label": "DASEDF", "load": 301.0, "max_stretch": 1.8, "state": "done"},
            {"workload": "seq-d100-l300", "label": "DASEDF", "load": 999.0, "max_stretch": 9.9, "state": "failed"},
        ]
    )
    assert stretch.fig1(rows, stretch.Plan(seed=0, traces_dir=".")) == b"png"
    axes = [ax for ax in figures[0].axes if ax.axison]
    assert [ax.get_title() for ax in axes] == ["Delta = 5", "Delta = 100"]
    assert axes[0].get_ylabel() == "max stretch" and axes[0].get_yscale() == "log"
    for ax, delta_rows in zip(axes, (rows.iloc[:2], rows.iloc[2:4]), strict=True):
        points = {c.get_label(): c.get_offsets().tolist() for c in ax.collections if len(c.get_offsets())}
        assert points == {r.label: [[r.load, r.max_stretch]] for r in delta_rows.itertuples()}  # failed run left out


def test_torus_curve_follows_capacity_utilized_in_order_of_c(drawn):
    figures = drawn(torus)
    results = pd.DataFrame(
        {
            "trace": ["SDSC"] * 3 + ["NASA"],
            "policy": ["fcfs"] * 3 + ["fcfs"],
            "c": [1.2, 0.8, 1.0, 1.0],
            "w_util": [0.9, 0.6, 0.75, 0.5],
            "wait_mean": [5000.0, 100.0, 900.0, 7.0],
        }
    )
    torus.curve_figure(results, "SDSC", "wait_mean", ["fcfs", "backfill"], "SDSC: wait")
    (ax,) = figures[0].axes
    (line,) = ax.get_lines()  # no curve for a policy without rows, none from the other log
    assert line.get_xdata().tolist() == [0.6, 0.75, 0.9] and line.get_ydata().tolist() == [100.0, 900.0, 5000.0]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "mean wait (s)" and ax.get_title() == "SDSC: wait"


def test_ch5_bars_are_the_normalised_means_with_basic_at_one(drawn):
    figures = drawn(locality_ch5)
    norm = pd.DataFrame(
        {
            "workload": ["KTH", "KTH", "HPC2N", "HPC2N"],
            "label": ["basic", "beloc", "basic", "beloc"],
            "metric": ["sum_flow"] * 4,
            "normalised": [1.0, 0.93, 1.0, 1.07],
        }
    )
    locality_ch5.bar_figure(norm, "sum_flow")
    (ax,) = figures[0].axes
    heights = {container.get_label(): [round(bar.get_height(), 6) for bar in container] for container in ax.containers}
    assert heights == {"basic": [1.0, 1.0], "beloc": [0.93, 1.07]}
    assert [t.get_text() for t in ax.get_xticklabels()] == ["KTH", "HPC2N"]
    assert ax.get_yscale() == "linear"  # bars on a linear axis, never a cut log one
    reference = [line for line in ax.get_lines() if np.allclose(line.get_ydata(), 1.0)]
    assert reference and not math.isnan(ax.get_ylim()[0]) and ax.get_ylim()[0] <= 0.0
