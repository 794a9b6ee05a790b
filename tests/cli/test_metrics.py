"""``schedlab metrics``: the metrics of any jobs.csv, by the code ``simulate`` measures with.

``tests/data/batsim/jobs.csv`` has Batsim's own columns (``profile``,
``consumed_energy``, ``metadata``, six-decimal numbers) and four jobs on four
machines, measured by hand with tau = 10 s:

- job 1: 2 resources, [0, 50), completed: wait 0, response 50, slowdown 1, bounded 1 (unclamped 1);
- job 2: 4 resources, submitted 10, [50, 80), killed at its 30 s walltime: wait 40, response 70,
  slowdown 70 / 30, bounded 70 / 30;
- job 3: 1 resource, [20, 25), completed: wait 0, response 5, slowdown 1, bounded 1 (unclamped 5 / 10);
- job 4: 8 resources, rejected: no times.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.measure import read_run

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


HAND = {
    "wait_mean": 40 / 3,
    "wait_max": 40.0,
    "wait_l2": 40.0,
    "response_mean": 125 / 3,
    "response_max": 70.0,
    "response_l2": math.sqrt(50**2 + 70**2 + 5**2),
    "slowdown_mean": (1 + 70 / 30 + 1) / 3,
    "slowdown_max": 70 / 30,
    "bsld_mean": (1 + 70 / 30 + 1) / 3,
    "bsld_max": 70 / 30,
    "bsld_unclamped_mean": (1 + 70 / 30 + 0.5) / 3,
    "first_submit": 0.0,
    "last_end": 80.0,
    "makespan": 80.0,
    "utilization": (2 * 50 + 4 * 30 + 1 * 5) / (4 * 80),
    "n_jobs": 4,
    "n_completed": 2,
    "n_killed": 1,
    "n_rejected": 1,
    "n_aborted": 0,
    "n_preempted": 0,
    "tau": 10.0,
}


def test_metrics_of_a_batsim_jobs_csv_equal_the_hand_computed_ones(data_dir):
    result = invoke("metrics", data_dir / "batsim" / "jobs.csv", "--procs", "4", "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    for key, value in HAND.items():
        assert got[key] == pytest.approx(value, rel=1e-12), key
    assert got["source"]["n_procs"] == 4
    assert got["source"]["n_procs_from"] == "given"


def test_machine_size_defaults_to_the_largest_allocated_id_with_a_note(data_dir):
    files = read_run(data_dir / "batsim")
    assert files.instance.platform.n_procs == 4  # job 2 holds 0-3
    assert files.n_procs_from == "the largest allocated id + 1"
    assert any("largest allocated id" in note for note in files.notes)
    assert files.metrics()["utilization"] == pytest.approx(HAND["utilization"])
    assert files.metrics(tau=100)["bsld_unclamped_mean"] == pytest.approx((50 / 100 + 70 / 100 + 5 / 100) / 3)


def test_the_table_names_the_file_and_the_counts(data_dir):
    result = invoke("metrics", data_dir / "batsim" / "jobs.csv")
    assert result.exit_code == 0, result.output
    assert "4 jobs: 2 completed, 1 killed at walltime, 1 rejected" in result.stdout
    assert "note: machine size 4" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("--policy", "easy"),
        ("--policy", "conservative"),
        ("--policy", "fcfs", "--bsld-threshold", "60"),
        ("--policy", "conservative", "--platform", "fat-tree:1,2,8", "--penalty", "linear:0.5"),
    ],
)
def test_metrics_of_our_own_run_equal_its_metrics_json(tmp_path, data_dir, args):
    """The same numbers as simulate wrote, to the last bit: one measuring path (topology metrics included)."""
    out = tmp_path / "run"
    result = invoke("simulate", data_dir / "quirks.swf", *args, "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    stored = json.loads((out / "metrics.json").read_text())
    result = invoke("metrics", out, "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert got["run"] == stored.pop("run")
    assert {key: got[key] for key in stored} == stored
    assert "contiguity_factor" in got or "--platform" not in args


def test_metrics_of_a_kth_window_equal_its_metrics_json(tmp_path, traces_dir):
    out = tmp_path / "run"
    trace = traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz"
    assert invoke("simulate", trace, "--policy", "easy", "--window", "0:20d", "--out", out, "-q").exit_code == 0
    stored = json.loads((out / "metrics.json").read_text())
    got = read_run(out).metrics()
    assert got == {key: value for key, value in stored.items() if key != "run"}


@pytest.mark.parametrize(
    ("line", "field", "text", "expected"),
    [
        (2, "allocated_resources", "0-x", "processor ids and ranges LO-HI"),
        (3, "allocated_resources", "0-2", "at least 4 resources"),
        (2, "finish_time", "-5", "a time >= starting_time"),
        (4, "requested_number_of_resources", "x", "an integer"),
    ],
)
def test_bad_jobs_csv_is_one_line_naming_the_line_and_field(tmp_path, data_dir, line, field, text, expected):
    rows = (data_dir / "batsim" / "jobs.csv").read_text().splitlines()
    header = rows[0].split(",")
    cells = rows[line - 1].split(",")
    cells[header.index(field)] = text
    rows[line - 1] = ",".join(cells)
    path = tmp_path / "jobs.csv"
    path.write_text("\n".join(rows) + "\n")
    result = invoke("metrics", path)
    assert result.exit_code == 1
    where = rf"(column {header.index(field) + 1} \({field}\)|{field})"  # the reader names the column's number too
    assert re.match(rf"error: {re.escape(str(path))}:{line}: {where} = {re.escape(text)}, expected", result.stderr)
    assert expected in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_missing_file_and_missing_columns(tmp_path):
    result = invoke("metrics", tmp_path / "nope")
    assert result.exit_code == 1 and "no such file" in result.stderr
    (tmp_path / "jobs.csv").write_text("job_id,submission_time\n1,0\n")
    result = invoke("metrics", tmp_path)
    assert result.exit_code == 1 and "missing requested_number_of_resources" in result.stderr


def test_a_partition_run_is_measured_on_the_partitions_it_held(tmp_path, data_dir):
    """Torus partitions may be larger than a job (Krevat 2003): utilization counts what was held; the
    scheduler's own counters are not in jobs.csv, and a note says so."""
    out = tmp_path / "run"
    args = ["simulate", data_dir / "quirks.swf", "--platform", "torus:1x1x8", "-p", "torus-fcfs", "-o", out, "-q"]
    assert invoke(*args).exit_code == 0
    stored = json.loads((out / "metrics.json").read_text())
    files = read_run(out)
    got = files.metrics()
    assert got["utilization"] == stored["utilization"] and got["bsld_mean"] == stored["bsld_mean"]
    assert "w_util" in stored and "w_util" not in got
    assert any("capacity and migration counters" in note for note in files.notes)
