"""``schedlab compare``: identical runs give ratio 1 and no delta; a hand-made pair gives the right deltas."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli import app
from schedlab.errors import InputError
from schedlab.report.compare import compare, write_comparison

runner = CliRunner()
HEADER = (
    "job_id,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,"
    "execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources\n"
)


def jobs_csv(path, rows):
    """Rows (id, submit, procs, start, run, allocation) of completed jobs, Batsim's columns."""
    path.mkdir(parents=True, exist_ok=True)
    lines = [
        f"{i},{r},{q},10000,1,COMPLETED_SUCCESSFULLY,{s},{p},{s + p},{s - r},{s + p - r},{(s + p - r) / p},{a}\n"
        for i, r, q, s, p, a in rows
    ]
    (path / "jobs.csv").write_text(HEADER + "".join(lines))
    return path


BASE = [(1, 0, 1, 0, 100, "0"), (2, 0, 2, 10, 30, "1-2"), (3, 20, 8, 50, 4000, "2-9")]
# job 1 starts 5 s later, job 2 10 s earlier, job 3 at the same time
OTHER = [(1, 0, 1, 5, 100, "0"), (2, 0, 2, 0, 30, "1-2"), (3, 20, 8, 50, 4000, "2-9")]


def test_a_hand_made_pair_gives_the_deltas_by_class(tmp_path):
    c = compare([jobs_csv(tmp_path / "base", BASE), jobs_csv(tmp_path / "other", OTHER)], procs=10)
    assert c.labels == ["base", "other"]
    d = c.deltas.set_index("jobs")
    assert d.loc["all jobs", ["started in both", "earlier", "same", "later"]].tolist() == [3, 1, 1, 1]
    assert d.loc["all jobs", "mean delta (s)"] == pytest.approx(-5 / 3)
    assert d.loc["all jobs", "median delta (s)"] == 0
    assert d.loc["1 processor", "mean delta (s)"] == 5 and d.loc["1 processor", "later"] == 1
    assert d.loc["2-4 processors", "mean delta (s)"] == -10
    assert d.loc["5-16 processors", "same"] == 1
    assert d.loc["run time 1-10 min", "mean delta (s)"] == 5  # job 1: 100 s
    assert d.loc["run time < 1 min", "mean delta (s)"] == -10  # job 2: 30 s
    assert d.loc["run time 1-10 h", "mean delta (s)"] == 0  # job 3: 4000 s
    m = c.metrics.set_index("metric")
    # waits: base 0, 10, 30; other 5, 0, 30
    assert m.loc["wait_mean", "base"] == pytest.approx(40 / 3)
    assert m.loc["wait_mean", "ratio other"] == pytest.approx(35 / 40)
    assert m.loc["wait_max", "ratio other"] == 1
    assert sorted(c.wait[1].tolist()) == [0, 5, 30]


def test_identical_runs_give_ratio_one_and_no_delta(tmp_path, data_dir):
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        result = runner.invoke(app, ["simulate", str(data_dir / "quirks.swf"), "--out", str(out), "-q"])
        assert result.exit_code == 0, result.output
        runs.append(out)
    c = compare(runs)
    ratios = c.metrics["ratio b"].dropna()
    base = c.metrics.set_index("metric")["a"]
    assert len(ratios) >= 15 and (ratios == 1).all()
    assert c.metrics.loc[c.metrics["ratio b"].isna(), "metric"].map(lambda k: base[k] in (0, None)).all()
    every = c.deltas.set_index("jobs").loc["all jobs"]
    assert every["same"] == every["started in both"] > 0 and every["earlier"] == every["later"] == 0
    np.testing.assert_array_equal(c.utilization["a"], c.utilization["b"])


def test_utilization_over_time_integrates_to_the_run_utilization(tmp_path):
    c = compare([jobs_csv(tmp_path / "base", BASE), jobs_csv(tmp_path / "other", OTHER)], procs=10)
    u = c.utilization["base"].to_numpy()
    assert ((0 <= u) & (u <= 1)).all()
    assert u.mean() == pytest.approx(c.metrics.set_index("metric").loc["utilization", "base"])


def test_runs_of_different_jobs_are_refused_in_one_line(tmp_path):
    other = [(1, 0, 1, 5, 100, "0"), (2, 0, 2, 0, 30, "1-2"), (4, 20, 8, 50, 4000, "2-9")]
    with pytest.raises(InputError, match=r"its jobs differ from those of .*2 job ids in one run only"):
        compare([jobs_csv(tmp_path / "base", BASE), jobs_csv(tmp_path / "other", other)], procs=10)
    moved = [(1, 0, 1, 5, 100, "0"), (2, 1, 2, 1, 30, "1-2"), (3, 20, 8, 50, 4000, "2-9")]
    result = runner.invoke(app, ["compare", str(tmp_path / "base"), str(jobs_csv(tmp_path / "moved", moved))])
    assert result.exit_code == 1
    assert "1 jobs with another submission time, first job 2" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "at least two runs" in runner.invoke(app, ["compare", str(tmp_path / "base")]).stderr


def test_the_command_writes_tables_and_one_self_contained_page(tmp_path):
    base, other = jobs_csv(tmp_path / "base", BASE), jobs_csv(tmp_path / "other", OTHER)
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", str(base), str(other / "jobs.csv"), "--procs", "10", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "of 3 jobs, 1 started earlier, 1 later, 1 at the same time as in base" in result.stdout
    page = (out / "compare.html").read_text()
    assert page.count("data:image/png;base64,") == 3 and "<script" not in page and 'src="http' not in page
    assert (out / "deltas.csv").read_text().startswith("run,jobs,started in both,earlier,same,later")
    data = json.loads(runner.invoke(app, ["compare", str(base), str(other), "--procs", "10", "--json"]).stdout)
    assert data["runs"] == {"base": str(base / "jobs.csv"), "other": str(other / "jobs.csv")}
    again = runner.invoke(app, ["compare", str(base), str(other), "--out", str(out)])
    assert again.exit_code == 1 and "not empty" in again.stderr


def test_the_python_api_compares_runs_in_memory(data_dir, tmp_path):
    instance, _ = schedlab.load_instance(data_dir / "quirks.swf")
    easy, fcfs = schedlab.run(instance, "easy"), schedlab.run(instance, "fcfs")
    c = schedlab.compare(easy, fcfs)
    m = c.metrics.set_index("metric")
    assert m.iloc[:, 0]["bsld_mean"] == easy.metrics["bsld_mean"]
    assert m.iloc[:, 1]["bsld_mean"] == fcfs.metrics["bsld_mean"]
    assert math.isclose(m.iloc[:, 2]["bsld_mean"], fcfs.metrics["bsld_mean"] / easy.metrics["bsld_mean"])
    written = write_comparison(c, tmp_path / "page")
    assert [p.name for p in written] == ["metrics.csv", "deltas.csv", "compare.html"]
