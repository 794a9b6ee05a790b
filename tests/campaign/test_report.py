"""Campaign reports: summary statistics by hand, files written, one self-contained HTML page."""

from __future__ import annotations

import base64
import math
import re

import pandas as pd
import pytest

from schedlab.campaign import load_campaign, run_campaign
from schedlab.campaign.report import summarize, t_quantile_975, write_report
from schedlab.errors import InputError


def test_summary_by_hand():
    table = pd.DataFrame(
        {
            "workload": ["w"] * 5,
            "label": ["a", "a", "a", "b", "b"],
            "state": ["done", "done", "done", "done", "failed"],
            "bsld_mean": [1.0, 2.0, 6.0, 4.0, None],
        }
    )
    summary = summarize(table, ["bsld_mean"], order=["b", "a"])
    assert summary["label"].tolist() == ["b", "a"]
    b, a = summary.to_dict("records")
    # a: mean 3, median 2, s^2 = (4 + 1 + 9) / 2 = 7, half width t(2) * sqrt(7 / 3) with t(2) = 4.303
    assert (a["n"], a["mean"], a["median"], a["min"], a["max"]) == (3, 3.0, 2.0, 1.0, 6.0)
    assert a["std"] == pytest.approx(math.sqrt(7))
    assert a["ci95_low"] == pytest.approx(3 - 4.303 * math.sqrt(7 / 3))
    assert a["ci95_high"] == pytest.approx(3 + 4.303 * math.sqrt(7 / 3))
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
