"""``schedlab tasks simulate``: conversion, window draw and policy run from one command."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.cli.common import duration
from schedlab.errors import InputError

runner = CliRunner()


def test_tasks_simulate_json(traces_dir):
    args = [
        "tasks",
        "simulate",
        str(traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz"),
        "--random-window",
        "15d",
        "--seed",
        "3",
        "-p",
        "gspt-rd",
        "-P",
        "dedicated=2",
        "-P",
        "tau=1",
        "--json",
    ]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["run"]["policy"] == "gspt-rd(dedicated=2, tau=1)" and data["run"]["conversion"] == "C"
    assert data["run"]["redirected"] == data["n_aborted"] > 0
    assert data["run"]["window"][1] - data["run"]["window"][0] == 15 * 86400
    assert json.loads(runner.invoke(app, args).stdout) == data  # same seed, same run


def test_tasks_simulate_refuses_a_parallel_policy_parameter(data_dir):
    result = runner.invoke(app, ["tasks", "simulate", str(data_dir / "tiny.swf"), "-p", "gspt-rd", "-P", "order=sjf"])
    assert result.exit_code == 1 and "order" in result.stderr


@pytest.mark.parametrize(
    ("text", "seconds"), [("7d", 604800), ("12h", 43200), ("30m", 1800), ("90", 90), ("1w", 604800)]
)
def test_duration_option(text, seconds):
    assert duration(text, "--window") == seconds


def test_duration_option_rejects_garbage():
    with pytest.raises(InputError, match="--window = 7 days"):
        duration("7 days", "--window")


# -- tasks CSV and the max-stretch policies (Saule, Bozdag and Catalyurek 2014) ------------------------------


def _json(args):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_tasks_csv_fcfs_19_against_dasedf_9(tmp_path):
    """Spec case 1 from a tasks CSV (m = 1): FCFS max stretch 19, DASEDF 9; jobs.csv and metrics.json written."""
    path = tmp_path / "case1.csv"
    path.write_text("id,release,p\n1,0,10\n2,1,10\n3,2,1\n")
    fcfs = _json(["tasks", "simulate", path, "--procs", "1", "-p", "fcfs-stretch", "--json"])
    assert fcfs["max_stretch"] == 19.0 and fcfs["run"]["n_procs"] == 1
    out = tmp_path / "run"
    dasedf = _json(["tasks", "simulate", path, "--procs", "1", "-p", "dasedf", "--json", "--out", out])
    assert dasedf["max_stretch"] == 9.0 and dasedf["mean_stretch"] == pytest.approx(4.0) and dasedf["load"] == 10.5
    assert json.loads((out / "metrics.json").read_text())["max_stretch"] == 9.0
    assert (out / "jobs.csv").read_text().splitlines()[3].split(",")[6] == "10"  # task 3 starts at 10 (starting_time)


def test_tasks_generate_is_seeded_and_simulated(tmp_path):
    args = ["tasks", "generate", "--n", "400", "--m", "20", "--dist", "uniform:1,10", "--load", "18", "--seed", "4"]
    for name in ("a", "b"):
        result = runner.invoke(app, [*args, "--out", str(tmp_path / name)])
        assert result.exit_code == 0 and "400 sequential tasks" in result.stdout
    assert (tmp_path / "a" / "tasks.csv").read_bytes() == (tmp_path / "b" / "tasks.csv").read_bytes()
    again = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert again.exit_code == 1 and "tasks.csv: file exists (use --force to overwrite)" in again.stderr
    data = _json(["tasks", "simulate", tmp_path / "a" / "tasks.csv", "--procs", "20", "-p", "dasedf", "--json"])
    assert data["n_jobs"] == 400 and data["max_stretch"] >= 1.0 and 10 < data["load"] < 30


@pytest.mark.parametrize(
    "extra, message",
    [
        ([], "a tasks CSV needs --procs"),
        (["--procs", "2", "--window", "0:7d"], "--window applies to SWF traces only"),
        (["--procs", "2", "-p", "dasedf", "-P", "validity=other"], "dasedf validity = other, expected one of exact"),
        (["--procs", "0"], "--procs = 0, expected an integer >= 1"),
    ],
)
def test_tasks_csv_errors_are_one_line(tmp_path, extra, message):
    path = tmp_path / "t.csv"
    path.write_text("id,release,p\n1,0,3\n")
    result = runner.invoke(app, ["tasks", "simulate", str(path), *extra])
    assert result.exit_code == 1 and message in result.stderr and result.stderr.count("\n") == 1


def test_tasks_csv_bad_value_names_file_line_and_field(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,release,p\n1,0,3\n2,4,-2\n")
    result = runner.invoke(app, ["tasks", "simulate", str(path), "--procs", "2", "-p", "dasedf"])
    assert result.exit_code == 1 and "t.csv:3: p = -2, expected a finite number > 0" in result.stderr


@pytest.mark.parametrize(("extra", "m_inst", "m"), [([], 5, 16), (["--procs", "30"], 10, 30), (["--procs", "8"], 3, 8)])
def test_tasks_simulate_procs_sets_the_machine_size(data_dir, extra, m_inst, m):
    """tiny.swf keeps jobs 1 (4 processors) and 2 (2) with status 1: Q = 3, so conversion C gives round(m/3)
    processors, m the header's 16 or the --procs (Lucarelli et al. 2017, Table I's machine sizes)."""
    result = runner.invoke(app, ["tasks", "simulate", str(data_dir / "tiny.swf"), "-p", "gspt", *extra])
    assert result.exit_code == 0, result.output
    assert f"2 tasks on {m_inst} processors (m = {m})" in result.stdout


def test_tasks_csv_refuses_procs_given_twice(tmp_path):
    """--procs is a tasks CSV's processor count; --m, its former name, with it is an error, not a silent pick."""
    path = tmp_path / "t.csv"
    path.write_text("id,release,p\n1,0,3\n")
    result = runner.invoke(app, ["tasks", "simulate", str(path), "--m", "2", "--procs", "4"])
    assert result.exit_code == 1 and "given twice" in result.stderr
