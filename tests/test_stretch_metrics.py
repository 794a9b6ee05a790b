"""Stretch metrics (Saule, Bozdag and Catalyurek 2014): spec case 11 and hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.stretch_metrics import delta, fairness_histogram, load, stretch, stretch_summary


def test_load_is_two():
    """Spec case 11: p = (2, 2, 2), r = (0, 1, 3): load = 6 / 3 = 2."""
    assert load(np.array([0.0, 1, 3]), np.array([2.0, 2, 2])) == 2.0


def test_summary_values():
    """Spec case 1 under DASEDF: flows 10, 20, 9; stretches 1, 2, 9; load 21 / 2."""
    release, start = np.array([0.0, 1, 2]), np.array([0.0, 11, 10])
    p1 = np.array([10.0, 10, 1])
    end = start + p1
    summary = stretch_summary(release, start, end, p1)
    assert summary == {
        "max_stretch": 9.0,
        "mean_stretch": pytest.approx(4.0),
        "max_flow": 20.0,
        "mean_flow": 13.0,
        "load": 10.5,
        "delta": 10.0,
    }


def test_moldable_stretch_below_one():
    """A task of p_1 = 100 run on 10 processors in 10 s right at release has stretch 0.1."""
    assert stretch(np.array([5.0]), np.array([15.0]), np.array([100.0])).tolist() == [0.1]


def test_fairness_histogram():
    p1 = np.array([10.0, 30, 100, 7200, 90000, 1e6])
    s = np.array([2.0, 0.5, 1.0, 1.5, 0.2, 3.0])
    hist = fairness_histogram(s, p1)
    assert hist["seconds"] == {"n": 2, "share_above_1": 50.0}
    assert hist["minutes"] == {"n": 1, "share_above_1": 0.0}
    assert hist["hours"] == {"n": 1, "share_above_1": 100.0}
    assert hist["days"] == {"n": 1, "share_above_1": 0.0}
    assert hist["weeks"] == {"n": 1, "share_above_1": 100.0}
    assert delta(p1) == 1e5
