"""Campaign reports: summary statistics by hand, files written, one self-contained HTML page."""

from __future__ import annotations

import base64
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.campaign import load_campaign, run_campaign
from schedlab.campaign.report import confidence_interval, summarize, t_quantile_975, write_report
from schedlab.errors import InputError


def test_summary_by_hand():
    table = pd.DataFrame(
        {
            "workload": ["w"] * 5,
            "label": ["a", "a", "a", "b", "b"],
            "state": ["done", "done", "done", "done", "failed"],
            "bsld_mean": [10.0, 11.0, 15.0, 4.0, None],
        }
    )
    summary = summarize(table, ["bsld_mean"], order=["b", "a"])
    assert summary["label"].tolist() == ["b", "a"]
    b, a = summary.to_dict("records")
    # a: mean 12, median 11, s^2 = (4 + 1 + 9) / 2 = 7, half width t(2) * sqrt(7 / 3) with t(2) = 4.303
    assert (a["n"], a["mean"], a["median"], a["min"], a["max"]) == (3, 12.0, 11.0, 10.0, 15.0)
    assert a["std"] == pytest.approx(math.sqrt(7))
    assert a["ci95_low"] == pytest.approx(12 - 4.303 * math.sqrt(7 / 3)) and a["ci95_method"] == "t"
    assert a["ci95_high"] == pytest.approx(12 + 4.303 * math.sqrt(7 / 3))
    # b: one finished run, the failed one does not count: no interval
    assert (b["n"], b["mean"]) == (1, 4.0) and math.isnan(b["ci95_low"])


def test_t_quantiles():
    assert t_quantile_975(1) == 12.706
    assert t_quantile_975(9) == 2.262
    assert t_quantile_975(35) == 2.021
    assert t_quantile_975(10_000) == 1.960
    with pytest.raises(ValueError):
        t_quantile_975(0)


def test_write_report(small_spec, tmp_path):
    campaign = load_campaign(small_spec)
    with pytest.raises(InputError, match="no stored runs"):
        write_report(campaign, tmp_path / "empty")
    run_campaign(campaign, jobs=1)
    out = tmp_path / "report"
    written = write_report(campaign, out)
    names = sorted(p.name for p in written)
    assert names == ["bsld_mean.png", "index.html", "runs.parquet", "summary.csv", "utilization.png", "wait_mean.png"]
    summary = pd.read_csv(out / "summary.csv")
    assert len(summary) == 3 * 4  # 3 metrics x 4 policy labels, one workload
    assert (summary["n"] == 3).all()
    page = (out / "index.html").read_text()
    assert "<h1>spec</h1>" in page and "12 runs, 12 done, 0 failed, 0 pending" in page
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == 3 and base64.b64decode(images[0]).startswith(b"\x89PNG")
    assert not re.search(r'(src|href)="(?!data:)', page)  # self-contained: nothing fetched
    assert (out / "bsld_mean.png").read_bytes() == base64.b64decode(images[0])
    with pytest.raises(InputError, match="not empty"):
        write_report(campaign, out)
    again = write_report(campaign, out, force=True, metrics=["makespan"])
    assert (out / "makespan.png") in again
    assert (out / "index.html").read_text() != page


def test_a_mean_that_cannot_be_negative_gets_a_bootstrap_interval_by_hand():
    """[1, 2, 6]: the t interval is 3 +- 6.57, below 0 for a slowdown. The exact bootstrap of the mean has
    27 equally likely resamples; the least mean, 1, has probability 1/27 > 2.5 % (the largest, 6, too), so
    the percentile interval is [1, 6]."""
    low, high, method = confidence_interval(np.array([1.0, 2.0, 6.0]))
    assert (low, high, method) == (1.0, 6.0, "bootstrap")
    assert confidence_interval(np.array([-1.0, 2.0, 6.0]))[2] == "t"  # a quantity that can be negative


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=2, max_size=40))
def test_confidence_intervals_of_non_negative_values_never_go_below_zero(values):
    array = np.array(values)
    low, high, method = confidence_interval(array)
    assert low >= 0 and low <= high
    half = t_quantile_975(array.size - 1) * array.std(ddof=1) / math.sqrt(array.size)
    if method == "t":
        assert (low, high) == pytest.approx((array.mean() - half, array.mean() + half))
    else:  # the bootstrap only where the t interval reaches below 0; it stays within the values
        assert array.mean() - half < 0 and array.min() <= low <= high <= array.max()
    assert confidence_interval(array) == (low, high, method)  # the same values, the same interval
