"""``schedlab moldable simulate``: moldable tasks from a tasks CSV or an SWF log (Saule, Bozdag and Catalyurek
2014), the policy's sizes in jobs.csv, stretch metrics, one-line errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.output import read_jobs_csv

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.mark.parametrize("rho, procs, allocated", [(1.0, 4, "0-3"), (1.5, 3, "0-2"), (2.0, 2, "0-1")])
def test_dbos_online_factor_from_a_csv(tmp_path, rho, procs, allocated):
    """Spec case 3 through the command: p_j = 8 / j on m = 4; DBOS picks 4, 3 or 2 processors for rho = 1, 1.5, 2."""
    path = tmp_path / "one.csv"
    path.write_text("id,release,times\n1,0,8 4 2.6666666666666665 2\n")
    out = tmp_path / f"rho{rho}"
    result = invoke("moldable", "simulate", path, "--procs", 4, "--rho", rho, "--out", out, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["max_stretch"] == pytest.approx(8 / procs / 8) and data["run"]["params"] == {"rho": rho, "eps": 0.001}
    jobs = read_jobs_csv(out / "jobs.csv")
    assert jobs["allocated_resources"].tolist() == [allocated]
    assert jobs["execution_time"].tolist() == [pytest.approx(8 / procs)]


def test_swf_log_with_downey_speedups(data_dir):
    """The tiny log's jobs as moldable tasks on 8 processors: seeded Downey draws, every policy validated."""
    args = ["moldable", "simulate", data_dir / "tiny.swf", "--procs", 8, "--first", 5, "--json"]
    runs = {}
    for policy in ("dbos", "iterative", "improved-iterative", "scojo-like", "fcfs-sequential"):
        result = invoke(*args, "--policy", policy, "--seed", 2)
        assert result.exit_code == 0, result.output
        runs[policy] = json.loads(result.stdout)
        assert runs[policy]["n_jobs"] == 5 and runs[policy]["run"]["first"] == 5
    assert runs["fcfs-sequential"]["max_stretch"] >= 1.0  # one processor each: stretch >= 1
    again = json.loads(invoke(*args, "--policy", "dbos", "--seed", 2).stdout)
    assert again == runs["dbos"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rho", "0"], "dbos rho = 0.0, expected a number >= 1"),
        (["--rho", "1.5", "-P", "rho=2"], "given twice"),
        (["--speedup", "linear"], "--speedup = linear, expected downey"),
        (["--first", "0"], "--first = 0, expected an integer >= 1"),
        (["--procs", "0"], "--procs = 0, expected an integer >= 1"),
        (["-p", "scojo-like", "-P", "utilisation=1.5"], "scojo-like utilisation = 1.5"),
    ],
)
def test_errors_are_one_line(data_dir, args, message):
    result = invoke("moldable", "simulate", data_dir / "tiny.swf", *args)
    assert result.exit_code == 1 and message in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("id,release,times\n1,0,4 5\n", "t.csv:2: task 1 times = 4 on 1 then 5 on 2 processors"),
        ("id,release,p1,A,sigma\n1,0,10,0.5,1\n", "t.csv:2: A, sigma = 0.5, 1, expected A >= 1 and sigma >= 0"),
        ("id,release\n1,0\n", "t.csv:1: header = id,release"),
    ],
)
def test_bad_tasks_csv_is_one_line(tmp_path, text, message):
    path = tmp_path / "t.csv"
    path.write_text(text)
    result = invoke("moldable", "simulate", path, "--m", 4)
    assert result.exit_code == 1 and message in result.stderr and result.stderr.count("\n") == 1
