"""The ``schedlab`` command line: outputs, one-line errors, exit codes.

``tests/data/tiny.swf`` (P = 16) keeps jobs 1, 2 and 7 after the default
filters. Under EASY: job 1 runs [0, 100) on 4 processors, job 2 [10, 60) on 2;
job 7 (16 processors, submitted at 60) waits for job 1 and starts at 100, then
is killed at its 10 s walltime although its run time is 20 s.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from schedlab import load_instance, run
from schedlab.cli import app
from schedlab.output import read_jobs_csv

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_simulate_writes_jobs_and_metrics(tmp_path, data_dir):
    out = tmp_path / "run"
    result = invoke("simulate", data_dir / "tiny.swf", "--policy", "easy", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    jobs = read_jobs_csv(out / "jobs.csv")
    assert jobs["job_id"].tolist() == [1, 2, 7]
    assert jobs["starting_time"].tolist() == [0, 10, 100]
    assert jobs["finish_time"].tolist() == [100, 60, 110]
    assert jobs["final_state"].tolist() == [
        "COMPLETED_SUCCESSFULLY",
        "COMPLETED_SUCCESSFULLY",
        "COMPLETED_WALLTIME_REACHED",
    ]
    assert jobs["allocated_resources"].tolist() == ["0-3", "4-5", "0-15"]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["wait_max"] == 40 and metrics["n_killed"] == 1 and metrics["n_jobs"] == 3
    assert metrics["run"]["policy"] == "easy(order=fcfs)"
    assert metrics["run"]["n_procs"] == 16 and metrics["run"]["machine_size_from"].startswith("MaxProcs")
    assert sum(metrics["run"]["filters"].values()) == 4 and metrics["run"]["jobs_read"] == 7


def test_simulate_json_matches_the_python_api(data_dir):
    result = invoke("simulate", data_dir / "tiny.swf", "-p", "fcfs", "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    instance, report = load_instance(data_dir / "tiny.swf")
    expected = run(instance, "fcfs", report=report)
    assert {k: printed[k] for k in expected.metrics} == expected.metrics


def test_simulate_table_names_the_policy_and_metrics(data_dir):
    result = invoke("simulate", data_dir / "tiny.swf", "--param", "order=sjf")
    assert result.exit_code == 0, result.output
    assert "easy(order=sjf)" in result.stdout
    assert "bounded slowdown" in result.stdout and "utilization" in result.stdout


def test_same_run_twice_gives_byte_identical_files(tmp_path, data_dir):
    for name in ("a", "b"):
        assert (
            invoke("simulate", data_dir / "tiny.swf", "-p", "conservative", "-o", tmp_path / name, "-q").exit_code == 0
        )
    for file in ("jobs.csv", "metrics.json"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "{data}/missing.swf"], r"missing.swf: no such file"),
        (["simulate", "{data}/bad_field.swf"], r"bad_field.swf:3: field 8"),
        (
            ["simulate", "{data}/tiny.swf", "--policy", "nope"],
            r"policy = nope, expected one of conservative, easy, fcfs, flat-backfill",
        ),
        (["simulate", "{data}/tiny.swf", "--param", "depth=2"], r"depth"),
        (["simulate", "{data}/tiny.swf", "--param", "order"], r"expected key=value"),
        (["simulate", "{data}/tiny.swf", "--param", "order=lifo"], r"order = lifo"),
        (["simulate", "{data}/tiny.swf", "--window", "9:3"], r"--window"),
        (["trace", "info", "{data}/bad_count.swf"], r"bad_count.swf:\d+: expected 18 fields"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(data_dir, args, message):
    result = invoke(*(a.format(data=data_dir) for a in args))
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert re.search(message, lines[0]), lines[0]
    assert "Traceback" not in result.output


def test_non_empty_out_needs_force(tmp_path, data_dir):
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    result = invoke("simulate", data_dir / "tiny.swf", "-o", out, "-q")
    assert result.exit_code == 1 and "not empty" in result.stderr
    assert invoke("simulate", data_dir / "tiny.swf", "-o", out, "-q", "--force").exit_code == 0
    assert (out / "jobs.csv").exists() and (out / "notes.txt").read_text() == "keep me"


def test_status_and_window_filters_are_applied(tmp_path, data_dir):
    result = invoke("simulate", data_dir / "tiny.swf", "--status", "1", "--window", "0:50", "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed["n_jobs"] == 2  # job 7 has status 0; the window keeps submits in [0, 50)


def test_trace_info_json(data_dir):
    result = invoke("trace", "info", data_dir / "tiny.swf", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["jobs"] == 7 and summary["machine_procs"] == 16


def test_trace_info_table(data_dir):
    result = invoke("trace", "info", data_dir / "tiny.swf")
    assert result.exit_code == 0, result.output
    assert "16" in result.stdout and "run time <= 0" in result.stdout


def test_trace_convert_round_trip_swf_json_swf(tmp_path, data_dir):
    json_path, swf_path = tmp_path / "tiny.json", tmp_path / "tiny.swf.gz"
    assert invoke("trace", "convert", data_dir / "tiny.swf", json_path).exit_code == 0
    assert invoke("trace", "convert", json_path, swf_path).exit_code == 0
    (original, _), (via_json, _), (back, _) = (load_instance(p) for p in (data_dir / "tiny.swf", json_path, swf_path))
    assert via_json.platform.n_procs == back.platform.n_procs == 16
    for a in (via_json.jobs, back.jobs):
        for column in ("id", "submit", "run_time", "requested_time", "procs"):
            assert getattr(a, column).tolist() == getattr(original.jobs, column).tolist()
    result = invoke("trace", "convert", data_dir / "tiny.swf", json_path)
    assert result.exit_code == 1 and "exists" in result.stderr


def test_a_job_wider_than_the_machine_is_dropped_and_counted_in_swf_and_batsim_json(data_dir):
    """The same rule for both formats: wider than --procs (or the header's size) is dropped, counted, reported."""
    batsim = json.loads(invoke("simulate", data_dir / "tiny_batsim.json", "--procs", "2", "--json").stdout)
    assert batsim["n_jobs"] == 1 and batsim["run"]["filters"] == {"processors > P (P=2)": 2}
    swf = json.loads(invoke("simulate", data_dir / "tiny.swf", "--procs", "2", "--json").stdout)
    assert swf["run"]["filters"]["processors > P (P=2)"] == 3 and swf["n_jobs"] == 1


SWF_LINE = "1 {submit} 0 {run} 4 -1 -1 4 {req} -1 1 1 1 -1 1 -1 -1 -1\n"


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("", [], r"t.swf: no job to simulate: the file holds no job line"),
        ("; MaxProcs: 4\n", ["--procs", "4"], r"t.swf: no job to simulate: the file holds no job line"),
        (
            "; MaxProcs: 4\n" + SWF_LINE.format(submit=0, run=10, req=20),
            ["--status", "99"],
            r"t.swf: no job left to simulate: of 1 jobs read, 1 by status != 99$",
        ),
        (
            "; MaxProcs: 4\n" + SWF_LINE.format(submit=0, run=10, req=20),
            ["--window", "7d:"],
            r"of 1 jobs read, 1 by submit outside \[604800, inf\)$",
        ),
        ("; MaxProcs: 4\n" + SWF_LINE.format(submit="1e300", run=10, req=20), [], r"t.swf:2: job 1 submit = 1e\+300"),
        (
            "; MaxProcs: 4\n" + SWF_LINE.format(submit="1e16", run=10, req=20),
            [],
            r"t.swf:2: job 1 submit = 1e\+16, expected a time >= 0 and <= 2\^53",
        ),
        (
            "; MaxProcs: 4\n" + SWF_LINE.format(submit="2.5e15", run="0.01", req="0.01"),
            [],
            r"t.swf:2: job 1 run time = 0.01, expected a length that moves its end off its submit time",
        ),
        (
            "; MaxProcs: 4\n" + SWF_LINE.format(submit=0, run=10, req=20),
            ["--procs", "99999999999999999999"],
            r"--procs",
        ),
        (
            "; MaxProcs: 4\n" + SWF_LINE.format(submit=0, run=10, req=20),
            ["--procs", "100000000"],
            r"--procs = 100000000, expected an integer from 1 to 67,108,864",
        ),
        (
            "; MaxProcs: 4\n" + SWF_LINE.format(submit=0, run=10, req=20),
            ["--out", "/proc/schedlab-x"],
            r"/proc/schedlab-x: cannot create this folder",
        ),
        (
            "; MaxProcs: 4\n" + SWF_LINE.format(submit=0, run=10, req=20),
            ["--out", "/dev/null/x"],
            r"/dev/null/x: cannot create this folder \(Not a directory\)",
        ),
    ],
)
def test_degenerate_input_is_refused_with_the_field_named(tmp_path, text, args, message):
    trace = tmp_path / "t.swf"
    trace.write_text(text)
    result = invoke("simulate", trace, *args)
    lines = result.stderr.splitlines()
    assert result.exit_code in (1, 2) and len(lines) == 1 and result.stdout == "", result.output
    assert re.search(message, lines[0]), lines[0]


def test_a_bad_threshold_is_refused_before_the_trace_is_read(tmp_path):
    """--bsld-threshold is checked first: a trace that does not exist is not even opened."""
    result = invoke("simulate", tmp_path / "missing.swf", "--bsld-threshold", "-1")
    assert result.exit_code == 1 and "--bsld-threshold = -1.0" in result.stderr


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("0-3 zz", "column 13 (allocated_resources) = 0-3 zz, expected processor ids and ranges LO-HI"),
        ("0-zz", "column 13 (allocated_resources) = 0-zz, expected processor ids"),
        ("5-1", "column 13 (allocated_resources) = 5-1, expected ranges LO-HI with LO <= HI"),
    ],
)
def test_a_malformed_allocation_in_jobs_csv_names_file_line_and_column(tmp_path, data_dir, cell, expected):
    from schedlab.errors import InputError
    from schedlab.output import read_jobs_csv

    out = tmp_path / "run"
    assert invoke("simulate", data_dir / "tiny.swf", "-q", "--out", out).exit_code == 0
    lines = (out / "jobs.csv").read_text().splitlines()
    row = lines[2].split(",")
    row[lines[0].split(",").index("allocated_resources")] = cell
    lines[2] = ",".join(row)
    (out / "jobs.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=re.escape(f"{out / 'jobs.csv'}:3: {expected}")):
        read_jobs_csv(out / "jobs.csv")
