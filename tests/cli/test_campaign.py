"""``schedlab campaign``: run, status, query, report through the CLI; one-line errors."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.registry import names as registry_names

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_run_status_query_report(small_spec, tmp_path):
    result = invoke("campaign", "status", small_spec, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["pending"] == 12

    result = invoke("campaign", "run", small_spec, "--jobs", "1", "--limit", "5")
    assert result.exit_code == 0, result.output
    assert "12 runs, 0 already stored, 5 run now (0 failed)" in result.stdout.replace("\n", " ")

    result = invoke("campaign", "run", small_spec, "--jobs", "2", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["runs"], summary["already_stored"], summary["executed"], summary["failed"]) == (12, 5, 7, 0)

    status = json.loads(invoke("campaign", "status", small_spec, "--json").stdout)
    assert (status["done"], status["failed"], status["pending"]) == (12, 0, 0)
    assert {g["label"]: g["done"] for g in status["groups"]} == {
        "fcfs": 3,
        "easy order=fcfs": 3,
        "easy order=sjf": 3,
        "conservative": 3,
    }

    result = invoke(
        "campaign", "query", small_spec, "select label, count(*) as n from runs group by label order by label", "--csv"
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "label,n",
        "conservative,3",
        "easy order=fcfs,3",
        "easy order=sjf,3",
        "fcfs,3",
    ]

    result = invoke("campaign", "query", small_spec, "select count(*) as n, min(param_order) as o from runs", "--json")
    assert json.loads(result.stdout) == [{"n": 12, "o": "fcfs"}]

    out = tmp_path / "report"
    result = invoke("campaign", "report", small_spec, "--out", out, "--metric", "bsld_mean")
    assert result.exit_code == 0, result.output
    assert (out / "index.html").is_file() and (out / "bsld_mean.png").is_file()


def test_errors_are_one_line(make_spec, small_spec):
    bad = make_spec('[[workloads]]\ntrace = "{trace}"\n[[policies]]\nname = "easyy"\n', "bad")
    result = invoke("campaign", "run", bad)
    assert result.exit_code == 1
    names = ", ".join(sorted(registry_names(kind="online")))
    assert result.stderr.strip().splitlines() == [f"error: {bad}: policies[0].name = 'easyy', expected one of {names}"]

    result = invoke("campaign", "query", small_spec, "select nope from runs")
    assert result.exit_code == 1 and result.stderr.startswith("error: query: ")

    result = invoke("campaign", "report", small_spec, "--out", small_spec.parent / "r", "--metric", "speed")
    assert result.exit_code == 1 and "--metric = speed, expected one of" in result.stderr


def test_status_lists_failed_runs(make_spec, data_dir, tmp_path):
    # every job wider than 2 processors: all dropped, and a run with no job left fails (naming the filter)
    workload = (data_dir / "tiny_batsim.json").read_text().replace('"res": 1', '"res": 4')
    (tmp_path / "tiny.json").write_text(workload)
    path = make_spec('[[workloads]]\ntrace = "tiny.json"\nprocs = 2\n[[policies]]\nname = "easy"\n', "fails")
    result = invoke("campaign", "run", path, "--jobs", "1")
    assert result.exit_code == 0 and "1 run now (1 failed)" in result.stdout
    result = invoke("campaign", "status", path, "--failed")
    assert "InputError:" in result.stdout and "no job left" in " ".join(result.stdout.split())
