"""Campaign report additions (issue 3): ratios to a baseline policy and line plots over a numeric parameter.

Every number checked here is read back from the HTML page (the table cells, as a reader sees them) and
compared with values computed independently from the Parquet store with pandas.
"""

from __future__ import annotations

import math
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from schedlab.campaign import load_campaign, run_campaign
from schedlab.campaign.report import normalize, parameter_sweeps, write_report
from schedlab.cli import app
from schedlab.errors import InputError
from schedlab.workload.jobs import JobTable
from schedlab.workload.swf import write_swf

DAY = 86400.0


class Tables(HTMLParser):
    """Every ``<table>`` of a page: its attributes and its rows of cell texts (header row included)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[dict, list[list[str]]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append((dict(attrs), []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def page_tables(path, css_class: str) -> list[tuple[dict, pd.DataFrame]]:
    parser = Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    return [
        (attrs, pd.DataFrame(rows[1:], columns=rows[0]))
        for attrs, rows in parser.tables
        if attrs.get("class") == css_class
    ]


def number(cell: str) -> float:
    return float(cell.replace(",", "")) if cell else math.nan


def store_frame(campaign) -> pd.DataFrame:
    """All rows of the store, read file by file with pandas (rows have different param_<key> columns): the
    latest compacted file, then the one-row files, which replace compacted rows of the same run."""
    compacted = sorted((campaign.store / "compacted").glob("*.parquet"))[-1:]
    files = compacted + sorted((campaign.store / "runs").glob("*.parquet"))
    frame = pd.concat([pd.read_parquet(path) for path in files], ignore_index=True)
    return frame.drop_duplicates("run_id", keep="last").reset_index(drop=True)


def check_stats(row: pd.Series, values: np.ndarray) -> None:
    """A table row (n, mean, median, 95 % CI, min, max as printed, 4 significant digits) against ``values``."""
    approx = lambda x: pytest.approx(x, rel=1e-3, abs=1e-9)  # noqa: E731
    assert int(row["n"]) == values.size
    assert number(row["mean"]) == approx(values.mean())
    assert number(row["median"]) == approx(np.median(values))
    assert number(row["min"]) == approx(values.min()) and number(row["max"]) == approx(values.max())
    if values.size > 1:
        half = stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size)
        cell = row["95 % CI"]
        low, high = (number(part) for part in cell.rstrip("*").strip("[]").split(", "))
        if cell.endswith("*"):  # the bootstrap: where the t interval of values >= 0 reaches below 0
            assert values.min() >= 0 and values.mean() - half < 0
            assert values.min() * (1 - 1e-3) <= low <= high <= values.max() * (1 + 1e-3)  # as printed
        else:
            assert low == pytest.approx(values.mean() - half, rel=2e-3, abs=1e-6)
            assert high == pytest.approx(values.mean() + half, rel=2e-3, abs=1e-6)
    else:
        assert row["95 % CI"] == ""


def test_ratios_to_the_baseline_match_the_store(small_spec, tmp_path):
    """Each run divided by FCFS on the same window and repetition, summarised per policy label."""
    campaign = load_campaign(small_spec)
    run_campaign(campaign, jobs=1)
    out = tmp_path / "report"
    written = write_report(campaign, out, baseline="fcfs")
    assert out / "normalized.csv" in written and not (out / "sweeps.csv").exists()  # `order` is not numeric
    store = store_frame(campaign)
    store = store[store["state"] == "done"]
    tables = page_tables(out / "index.html", "normalized")
    assert [attrs["data-metric"] for attrs, _ in tables] == ["bsld_mean", "wait_mean", "utilization"]
    for attrs, table in tables:
        metric = attrs["data-metric"]
        assert attrs["data-baseline"] == "fcfs"
        wide = store.pivot_table(index=["window_index", "repetition"], columns="label", values=metric)
        reference = wide["fcfs"].where(wide["fcfs"] != 0)
        assert table["policy"].tolist() == ["fcfs", "easy order=fcfs", "easy order=sjf", "conservative"]
        for _, row in table.iterrows():
            ratios = (wide[row["policy"]] / reference).dropna().to_numpy()
            check_stats(row, ratios)
        baseline_row = table[table["policy"] == "fcfs"].iloc[0]
        assert number(baseline_row["min"]) == number(baseline_row["max"]) == 1.0
    csv = pd.read_csv(out / "normalized.csv")
    assert set(csv["metric"]) == {"bsld_mean", "wait_mean", "utilization"} and len(csv) == 12


def test_normalize_by_hand():
    """Pairs by (workload, window, repetition); a zero baseline gives no ratio; a lone run has no partner."""
    table = pd.DataFrame(
        {
            "workload": ["w"] * 6,
            "window_index": [0, 0, 1, 1, 2, None],
            "repetition": [0] * 6,
            "label": ["a", "b", "a", "b", "b", "a"],
            "state": ["done"] * 6,
            "wait_mean": [10.0, 5.0, 0.0, 3.0, 7.0, 4.0],
        }
    )
    ratios = normalize(table, ["wait_mean"], "a")
    got = sorted(zip(ratios["label"], ratios["window_index"].fillna(-1), ratios["wait_mean"].fillna(-9)))
    assert got == [("a", -1, 1.0), ("a", 0, 1.0), ("a", 1, -9), ("b", 0, 0.5), ("b", 1, -9)]
    with pytest.raises(InputError, match="--baseline = 'c', expected a policy label with finished runs: 'a', 'b'"):
        normalize(table, ["wait_mean"], "c")


def sequential_trace(path, *, n_jobs: int = 120, days: float = 4.0, procs: int = 8, seed: int = 3) -> None:
    rng = np.random.default_rng(seed)
    submit = np.sort(np.floor(rng.uniform(0, days * DAY, n_jobs)))
    run_time = np.floor(rng.exponential(2 * 3600, n_jobs)) + 1
    jobs = JobTable.from_arrays(
        submit=submit, run_time=run_time, requested_time=run_time * 2, procs=np.ones(n_jobs, dtype=np.int64)
    )
    write_swf(path, jobs, {"MaxProcs": procs})


SWEEP = """
    seed = 5
    repetitions = 2
    metrics = ["bsld_mean", "wait_mean"]

    [[workloads]]
    trace = "sequential.swf"
    windows = { sample = "random", count = 2, length = "1d" }

    [[policies]]
    name = "spt"

    [[policies]]
    name = "spt-rr"
    params = { c = [0.5, 0.8], dedicated = 2 }

    [[policies]]
    name = "spt-rd"
    params = { tau = [1, 3, 10], dedicated = [1, 2], batch = [true, false] }
"""


def test_lines_over_a_numeric_parameter_match_the_store(make_spec, tmp_path):
    sequential_trace(tmp_path / "sequential.swf")
    campaign = load_campaign(make_spec(SWEEP))
    outcome = run_campaign(campaign, jobs=1)
    assert not outcome.failed
    store = store_frame(campaign)
    assert sorted(parameter_sweeps(store)) == [
        ("spt-rd", "dedicated"),
        ("spt-rd", "tau"),
        ("spt-rr", "c"),
    ]  # not `batch`
    out = tmp_path / "report"
    written = {path.name for path in write_report(campaign, out, baseline="spt")}
    assert {
        "sweeps.csv",
        "bsld_mean-spt-rd-tau.png",
        "wait_mean-spt-rr-c.png",
        "wait_mean-spt-rd-dedicated.png",
    } <= written
    tables = page_tables(out / "index.html", "sweep")
    assert len(tables) == 2 * 3
    for attrs, table in tables:
        metric, policy, parameter = attrs["data-metric"], attrs["data-policy"], attrs["data-parameter"]
        here = store[(store["policy"] == policy) & (store["state"] == "done")]
        others = sorted(
            c for c in here.columns if c.startswith("param_") and c != f"param_{parameter}" and here[c].notna().any()
        )
        expected_rows = here.groupby(others + [f"param_{parameter}"]).ngroups
        assert len(table) == expected_rows
        for _, row in table.iterrows():
            chosen = here[pd.to_numeric(here[f"param_{parameter}"]) == float(row[parameter])]
            for setting in filter(None, row["other parameters"].split(" ")):
                key, value = setting.split("=")
                chosen = chosen[chosen[f"param_{key}"] == value]
            values = chosen[metric].dropna().to_numpy(dtype=np.float64)
            assert values.size == 2 * 2  # windows x repetitions
            check_stats(row, values)
    lines = pd.read_csv(out / "sweeps.csv")
    tau = lines[(lines["metric"] == "bsld_mean") & (lines["parameter"] == "tau")]
    assert sorted(tau["value"].unique()) == [1, 3, 10] and len(tau) == 3 * 2 * 2  # 3 values x dedicated x batch


def test_report_cli_baseline(small_spec, tmp_path):
    run_campaign(load_campaign(small_spec), jobs=1)
    runner = CliRunner()
    out = tmp_path / "r"
    ok = runner.invoke(app, ["campaign", "report", str(small_spec), "--out", str(out), "--baseline", "easy order=fcfs"])
    assert ok.exit_code == 0, ok.output
    [(attrs, table)] = page_tables(out / "index.html", "normalized")[:1]
    assert attrs["data-baseline"] == "easy order=fcfs" and len(table) == 4
    bad = runner.invoke(
        app, ["campaign", "report", str(small_spec), "--out", str(tmp_path / "x"), "--baseline", "easy"]
    )
    assert bad.exit_code == 1
    assert bad.stderr.count("\n") == 1 and "--baseline = 'easy', expected a policy label" in bad.stderr
