"""trace_summary: every number on tiny.swf computed by hand, plain JSON data, one real trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedlab.workload import read_swf, to_jobs, trace_summary
from schedlab.workload.stats import workload_summary

TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"


def test_tiny_summary_by_hand(data_dir):
    """tiny.swf keeps jobs 1, 2, 7 (see test_filters): procs 4, 2, 16; run 100, 50, 20; estimates 200, 60, 10."""
    trace = read_swf(data_dir / "tiny.swf")
    summary = trace_summary(trace)
    assert summary["source"] == trace.source
    assert summary["jobs"] == 7
    assert summary["kept_jobs"] == 3
    assert (summary["machine_procs"], summary["machine_how"]) == (16, "MaxProcs header")
    # submit >= 0: 0, 10, 20, 40, 50, 60 (job 4's -1 left out)
    assert (summary["start_submit"], summary["end_submit"], summary["span_seconds"]) == (0.0, 60.0, 60.0)
    # (100*4 + 50*2 + 20*16) / (16 * 60) = 820 / 960
    assert summary["load"] == pytest.approx(820 / 960)
    assert summary["job_size"] == {
        "min": 2, "p25": 2, "p50": 4, "p75": 16, "p90": 16, "max": 16,
        "serial_fraction": 0.0, "power_of_two_fraction": 1.0,
    }  # fmt: skip
    assert summary["run_time"] == {"min": 20.0, "p25": 20.0, "p50": 50.0, "p75": 100.0, "p90": 100.0, "max": 100.0}
    # run / requested: 0.5, 50/60, 2.0 -> median 50/60
    assert summary["estimate_accuracy"] == {"median": pytest.approx(50 / 60), "jobs": 3}
    assert summary["users"] == 3  # user ids 1, 2, 3 (job 6's -1 left out)
    assert list(summary["filters"].items()) == [  # the shape of metrics.json's run.filters, in filter order
        ("submit time unknown (< 0)", 1),
        ("run time <= 0", 1),
        ("processors <= 0", 1),
        ("processors > P (P=16)", 1),
    ]


def test_batsim_json_is_summarised_as_simulate_reads_it(data_dir):
    """tiny_batsim.json: 3 jobs (res 4, 8, 1; delays 60, 30.5, 60; submits 0, 5.5, 7) on nb_res = 8."""
    summary = workload_summary(data_dir / "tiny_batsim.json")
    assert (summary["jobs"], summary["kept_jobs"], summary["machine_procs"]) == (3, 3, 8)
    assert summary["machine_how"] == "nb_res" and summary["span_seconds"] == 7.0
    assert summary["load"] == pytest.approx((4 * 60 + 8 * 30.5 + 60) / (8 * 7.0))
    narrow = workload_summary(data_dir / "tiny_batsim.json", procs=4)
    assert narrow["filters"] == {"processors > P (P=4)": 1} and narrow["kept_jobs"] == 2
    assert workload_summary(data_dir / "tiny.swf") == trace_summary(read_swf(data_dir / "tiny.swf"))


def test_procs_option_and_serial_fraction(data_dir):
    summary = trace_summary(read_swf(data_dir / "tiny.swf"), procs=32)
    assert (summary["machine_procs"], summary["machine_how"]) == (32, "--procs")
    assert summary["kept_jobs"] == 4  # job 5 (32 procs) fits now
    assert summary["job_size"]["max"] == 32
    summary = trace_summary(read_swf(data_dir / "quirks.swf"))
    # procs 4, 2, 1, 3: one serial job, three powers of two (1, 2, 4)
    assert summary["job_size"]["serial_fraction"] == 0.25
    assert summary["job_size"]["power_of_two_fraction"] == 0.75
    # only jobs 11 and 12 give a requested time: 50/60 and 5/10
    assert summary["estimate_accuracy"] == {"median": pytest.approx((50 / 60 + 0.5) / 2), "jobs": 2}


def test_summary_without_kept_jobs_or_submit_times(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 4\n1 -1 -1 0 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    summary = trace_summary(read_swf(path))
    assert summary["kept_jobs"] == 0
    assert summary["span_seconds"] is None and summary["load"] is None
    assert summary["job_size"]["p50"] is None and summary["run_time"]["max"] is None
    assert summary["estimate_accuracy"] == {"median": None, "jobs": 0}
    assert summary["users"] == 0


def test_summary_is_plain_json(data_dir):
    summary = trace_summary(read_swf(data_dir / "tiny.swf"))
    assert json.loads(json.dumps(summary)) == summary


def test_real_trace_summary(traces_dir):
    """KTH SP2: the README's 28,476 jobs on 100 processors; the load agrees with to_jobs' kept jobs."""
    trace = read_swf(traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz")
    summary = trace_summary(trace)
    jobs, report = to_jobs(trace)
    assert summary["jobs"] == 28_476 and summary["machine_procs"] == 100
    assert summary["kept_jobs"] == report.kept == len(jobs)
    work = float((jobs.run_time * jobs.procs).sum())
    assert summary["load"] == pytest.approx(work / (100 * summary["span_seconds"]))
    assert 0 < summary["load"] < 1
    assert summary["job_size"]["max"] <= 100
    assert sum(summary["filters"].values()) == 28_476 - report.kept
    assert json.loads(json.dumps(summary)) == summary
