"""The Python API for notebooks: Run.jobs, parameters with defaults, argument-named errors, reprs,
schedlab.metrics, --walltime kill|ignore, and the example script (run as a user would).

``tests/data/tiny.swf`` (P = 16) keeps jobs 1, 2 and 7; job 7 (16 processors, run time 20 s, requested
10 s) waits for job 1 until 100: killed at 110 under ``kill``, completed at 120 under ``ignore``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli import app
from schedlab.errors import InputError
from schedlab.output import read_jobs_csv
from schedlab.schedule import JobStatus
from schedlab.validation import validate

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tiny(data_dir):
    return schedlab.load_instance(data_dir / "tiny.swf")[0]


def test_run_jobs_is_jobs_csv_as_a_dataframe(tiny, tmp_path):
    result = schedlab.run(tiny, "easy")
    result.write(tmp_path / "run")
    pd.testing.assert_frame_equal(result.jobs, read_jobs_csv(tmp_path / "run" / "jobs.csv"))
    assert result.jobs["starting_time"].tolist() == [0, 10, 100]
    assert result.jobs["workload_name"].tolist() == ["tiny"] * 3


def test_params_record_every_default_and_the_walltime_rule(tiny):
    result = schedlab.run(tiny, "conservative", {"order": "sjf"})
    assert result.info["params"] == {"order": "sjf", "compress": "full", "allocator": "basic"}
    assert result.info["walltime"] == "kill"
    assert repr(result) == "Run(conservative(order=sjf, compress=full) on tiny.swf: 3 jobs, 16 processors)"
    assert repr(result.schedule) == "Schedule(conservative(order=sjf, compress=full): 3 jobs, 3 started, 0 to 110)"


def test_errors_name_arguments_not_command_line_options(tiny, data_dir, tmp_path):
    with pytest.raises(InputError, match=r"^params: easy parameter = nope, expected one of allocator, order$"):
        schedlab.run(tiny, "easy", {"nope": 1})
    with pytest.raises(InputError, match=r"^platform: platform = fat-tree.*\(the procs argument\)"):
        schedlab.load_instance(data_dir / "tiny.swf", procs=7, platform="fat-tree:1,2,8")
    schedlab.run(tiny, "easy").write(tmp_path / "run")
    with pytest.raises(InputError, match=r"not empty \(force=True overwrites it\)"):
        schedlab.run(tiny, "easy").write(tmp_path / "run")


def test_walltime_ignore_lets_jobs_run_to_completion(tiny):
    killed = schedlab.run(tiny, "easy")
    ignored = schedlab.run(tiny, "easy", walltime="ignore")
    assert killed.schedule.end.tolist() == [100, 60, 110]
    assert ignored.schedule.end.tolist() == [100, 60, 120]
    assert ignored.schedule.status.tolist() == [JobStatus.COMPLETED] * 3
    validate(ignored.instance, ignored.schedule)  # checked against the model that produced it
    assert ignored.metrics["n_killed"] == 0 and killed.metrics["n_killed"] == 1
    assert ignored.info["walltime"] == "ignore"
    assert ignored.jobs["final_state"].tolist() == ["COMPLETED_SUCCESSFULLY"] * 3
    with pytest.raises(InputError, match="policy conservative plans with requested times as limits"):
        schedlab.run(tiny, "conservative", walltime="ignore")
    with pytest.raises(InputError, match="walltime = never, expected kill or ignore"):
        schedlab.run(tiny, "easy", walltime="never")


def test_walltime_on_the_command_line_is_recorded(tmp_path, data_dir):
    out = tmp_path / "run"
    args = ["simulate", str(data_dir / "tiny.swf"), "--walltime", "ignore", "--out", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["run"]["walltime"] == "ignore"
    assert json.loads((out / "metrics.json").read_text())["run"]["walltime"] == "ignore"
    refused = CliRunner().invoke(
        app, ["simulate", str(data_dir / "tiny.swf"), "-p", "conservative", "--walltime", "ignore"]
    )
    assert refused.exit_code == 1 and "policies that can: fcfs, easy" in refused.stderr


def test_metrics_function_reads_runs_and_files_alike(tiny, tmp_path):
    result = schedlab.run(tiny, "easy")
    result.write(tmp_path / "run")
    assert schedlab.metrics(result) == result.metrics
    assert schedlab.metrics(tmp_path / "run") == result.metrics
    assert schedlab.metrics(tmp_path / "run" / "jobs.csv", tau=100)["bsld_unclamped_mean"] == pytest.approx(2 / 3)


def test_the_quickstart_example_runs(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "quickstart.py"),
            str(ROOT / "tests" / "data" / "tiny.swf"),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Run(easy(order=fcfs) on tiny.swf: 3 jobs, 16 processors)" in done.stdout
    assert (tmp_path / "compare" / "compare.html").is_file()
    assert json.loads((tmp_path / "easy" / "metrics.json").read_text())["run"]["params"]["order"] == "fcfs"
