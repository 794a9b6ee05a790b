"""From SWF trace to JobTable: each filter's count, their order, the field fallbacks."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.workload import JobTable, estimates, processors, read_swf, to_jobs, write_swf
from strategies import job_tables

TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"

DEFAULTS = ("submit time unknown (< 0)", "run time <= 0", "processors <= 0", "processors > P (P=16)")


@functools.cache
def real_trace(name: str):
    return read_swf(TRACES / name)


@pytest.fixture
def tiny(data_dir):
    return read_swf(data_dir / "tiny.swf")


# ----------------------------------------------------------------------------- tiny.swf, by hand
#
# job  submit  run    req.procs  alloc  req.time  status   fate (P = 16 from MaxProcs)
#  1     0     100        4        4      200        1     kept: 4 procs, estimate 200
#  2    10      50       -1        2       60        1     kept: 2 procs (allocated), estimate 60
#  3    20       0        8        8      100        0     run time <= 0
#  4    -1      30        1        1       -1        1     submit time unknown
#  5    40      70       32        0      100        5     processors > P (requested 32 wins over allocated 0)
#  6    50   12.25        0        0       -1        1     processors <= 0
#  7    60      20       -1       16       10        0     kept: 16 procs, estimate 10 < run time 20


def test_default_filters_counts_and_order(tiny):
    jobs, report = to_jobs(tiny)
    assert report.dropped == tuple((what, 1) for what in DEFAULTS)
    assert (report.total, report.kept) == (7, 3)
    assert (report.machine_procs, report.machine_how) == (16, "MaxProcs header")
    np.testing.assert_array_equal(jobs.id, [1, 2, 7])
    np.testing.assert_array_equal(jobs.submit, [0, 10, 60])
    np.testing.assert_array_equal(jobs.run_time, [100, 50, 20])
    np.testing.assert_array_equal(jobs.requested_time, [200, 60, 10])  # run time beyond estimate kept as is
    np.testing.assert_array_equal(jobs.procs, [4, 2, 16])
    np.testing.assert_array_equal(jobs.line, [8, 9, 14])
    assert jobs.source == tiny.source
    assert jobs.extra == {}


def test_each_job_counted_once_by_the_first_filter_that_removes_it(tiny):
    """Job 3 (run 0, status 0) and job 5 (too wide, status 5) are not counted again by the status filter."""
    _, report = to_jobs(tiny, status=1)
    assert report.dropped == (*((what, 1) for what in DEFAULTS), ("status != 1", 1))  # job 7 only
    assert report.kept == 2
    assert report.total == report.kept + sum(count for _, count in report.dropped)


def test_explicit_procs_changes_the_width_filter(tiny):
    jobs, report = to_jobs(tiny, procs=8)
    assert report.dropped[-1] == ("processors > P (P=8)", 2)  # jobs 5 (32) and 7 (16)
    assert (report.machine_procs, report.machine_how) == (8, "--procs")
    np.testing.assert_array_equal(jobs.id, [1, 2])
    jobs, report = to_jobs(tiny, procs=32)
    assert report.dropped[-1] == ("processors > P (P=32)", 0)
    np.testing.assert_array_equal(jobs.id, [1, 2, 5, 7])


def test_window_is_half_open(tiny):
    jobs, report = to_jobs(tiny, window=(0, 60))
    assert report.dropped[-1] == ("submit outside [0, 60)", 1)  # job 7 at 60
    np.testing.assert_array_equal(jobs.id, [1, 2])
    jobs, report = to_jobs(tiny, window=(10, 60.5))
    assert report.dropped[-1] == ("submit outside [10, 60.5)", 1)  # job 1 at 0
    np.testing.assert_array_equal(jobs.id, [2, 7])
    with pytest.raises(InputError, match=re.escape("window = [5, 5), expected t0 < t1")):
        to_jobs(tiny, window=(5, 5))


def test_status_then_window(tiny):
    _, report = to_jobs(tiny, status=0, window=(0, 60))
    assert [what for what, _ in report.dropped][-2:] == ["status != 0", "submit outside [0, 60)"]
    assert report.dropped[-2:] == (("status != 0", 2), ("submit outside [0, 60)", 1))
    assert report.kept == 0


def test_processors_and_estimate_fallbacks(tiny):
    np.testing.assert_array_equal(processors(tiny), [4, 2, 8, 1, 32, 0, 16])
    np.testing.assert_array_equal(estimates(tiny), [200, 60, 100, 30, 100, 12.25, 10])


def test_keep_columns(tiny):
    jobs, _ = to_jobs(tiny, keep=("user_id", "wait_time", "status"))
    np.testing.assert_array_equal(jobs.extra["user_id"], [1, 2, 2])
    np.testing.assert_array_equal(jobs.extra["wait_time"], [5, -1, 0])
    np.testing.assert_array_equal(jobs.extra["status"], [1, 1, 0])
    assert jobs.take(np.array([2])).extra["user_id"].tolist() == [2]


def test_keep_unknown_column_is_named(tiny):
    with pytest.raises(InputError, match=r"keep = user, expected an SWF field name \(job_id, "):
        to_jobs(tiny, keep=("status", "user"))


def test_duplicate_ids_are_an_input_error(tmp_path):
    path = tmp_path / "dup.swf"
    path.write_text(
        "; MaxProcs: 4\n"
        "1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
        "1 5 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    )
    with pytest.raises(InputError, match=re.escape("dup.swf:2: job id = 1, expected unique job ids")):
        to_jobs(read_swf(path))


def test_report_lines(tiny):
    _, report = to_jobs(tiny)
    assert report.lines() == [
        "read 7 jobs",
        "machine: 16 processors (MaxProcs header)",
        *(f"dropped 1 jobs: {what}" for what in DEFAULTS),
        "kept 3 jobs",
    ]


def test_largest_job_machine_keeps_every_job(data_dir):
    jobs, report = to_jobs(read_swf(data_dir / "quirks.swf"))
    assert (report.machine_procs, report.machine_how) == (4, "largest job (no MaxProcs/MaxNodes header)")
    assert report.kept == 4 and all(count == 0 for _, count in report.dropped)
    np.testing.assert_array_equal(jobs.procs, [4, 2, 1, 3])
    np.testing.assert_array_equal(jobs.requested_time, [100, 60, 10, 7.75])
    np.testing.assert_array_equal(jobs.submit, [1272639895, 1272630000, 1272640000, 1272600000.5])  # not sorted


# ----------------------------------------------------------------------------- property: write, read, filter


@given(jobs=job_tables(min_jobs=1), with_header=st.booleans(), gz=st.booleans())
@example(
    jobs=JobTable.from_arrays(
        submit=[0.1, 0.0], run_time=[1 / 3, 0.1 + 0.2], requested_time=[2.0**51 + 0.5, 7.0], procs=[3, 1]
    ),
    with_header=False,
    gz=False,
)
def test_write_read_to_jobs_round_trip(tmp_path_factory, jobs, with_header, gz):
    path = tmp_path_factory.mktemp("rt") / ("jobs.swf.gz" if gz else "jobs.swf")
    widest = int(jobs.procs.max())
    write_swf(path, jobs, header={"MaxProcs": widest} if with_header else None)
    back, report = to_jobs(read_swf(path))
    assert report.kept == len(jobs)
    assert report.machine_procs == widest
    for name in ("id", "submit", "run_time", "requested_time", "procs"):
        np.testing.assert_array_equal(getattr(back, name), getattr(jobs, name), err_msg=name)
        assert getattr(back, name).dtype == getattr(jobs, name).dtype


# ----------------------------------------------------------------------------- real traces (README.md counts)


def test_ricc_completed_jobs_match_seed_004(traces_dir):
    """README: status 1 and run time > 0 leave exactly 431,547 jobs over 153 days (seed 004, Table I)."""
    jobs, report = to_jobs(real_trace("RICC-2010-2.swf.gz"), status=1)
    assert report.kept == len(jobs) == 431_547
    assert report.total == 447_794
    assert round((jobs.submit.max() - jobs.submit.min()) / 86_400) == 153
    assert dict(report.dropped)["status != 1"] == 16_237


def test_llnl_thunder_unknown_submit_times(traces_dir):
    """README: 1,190 jobs have submit time -1; they are the first filter's count."""
    _, report = to_jobs(real_trace("LLNL-Thunder-2007-1.1-cln.swf.gz"))
    assert report.dropped[0] == ("submit time unknown (< 0)", 1_190)


def test_lcg_every_job_sequential(traces_dir):
    """README: in LCG every job uses one processor (requested is -1, allocated 1)."""
    trace = real_trace("LCG-2005-1.swf.gz")
    assert np.all(processors(trace) == 1)
    jobs, report = to_jobs(trace)
    assert np.all(jobs.procs == 1)
    assert dict(report.dropped)["processors <= 0"] == 0
