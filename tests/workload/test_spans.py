"""Spans of an SWF log mapped as in Krevat (2003), section 4.1."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.workload.spans import span_jobs
from schedlab.workload.swf import read_swf

SWF = """; MaxProcs: 16
1 100 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
2 110 -1 50 -1 -1 -1 2 -1 -1 1 2 1 -1 1 -1 -1 -1
3 120 0 0 8 -1 -1 8 100 -1 0 1 1 -1 1 -1 -1 -1
4 -1 0 30 1 -1 -1 1 -1 -1 1 3 2 -1 1 -1 -1 -1
5 140 0 70 -1 -1 -1 -1 100 -1 5 1 1 -1 1 -1 -1 -1
6 150 2 12 32 -1 -1 32 -1 -1 1 -1 -1 -1 1 -1 -1 -1
7 160 0 20 16 -1 -1 -1 10 -1 0 2 1 -1 1 -1 -1 -1
8 170 0 -1 16 -1 -1 -1 10 -1 0 2 1 -1 1 -1 -1 -1
"""


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    return read_swf(path)


def test_fields_and_drops(trace):
    """Field 5 is the size (field 8 where 5 is unknown), field 9 the estimate (the run time where unknown);
    times start at 0; each dropped job is counted under its rule."""
    jobs, report = span_jobs(trace, 16)
    assert jobs.id.tolist() == [1, 2, 7]
    assert jobs.submit.tolist() == [0, 10, 60]
    assert jobs.procs.tolist() == [4, 2, 16]
    assert jobs.run_time.tolist() == [100, 50, 20]
    assert jobs.requested_time.tolist() == [200, 50, 10]
    assert dict(report.dropped) == {
        "submit time unknown (< 0)": 1,
        "run time unknown or 0 (<= 0)": 2,
        "size unknown (fields 5 and 8 <= 0)": 1,
        "size > 16 nodes": 1,
        "outside the span (skip 0, count 10,000)": 0,
    }
    assert report.kept == 3 and report.total == 8


def test_skip_and_count(trace):
    jobs, report = span_jobs(trace, 16, skip=1, count=1)
    assert jobs.id.tolist() == [2] and jobs.submit.tolist() == [0]
    assert report.dropped[-1] == ("outside the span (skip 1, count 1)", 2)
    assert span_jobs(trace, 16, count=None)[0].id.tolist() == [1, 2, 7]
    with pytest.raises(InputError, match="skip = -1"):
        span_jobs(trace, 16, skip=-1)
    with pytest.raises(InputError, match="count = 0"):
        span_jobs(trace, 16, count=0)


def test_sdsc_first_span_matches_table_4_1(traces_dir):
    """The first 10,000 valid SDSC SP2 jobs: size mean 9.7 and deviation 14.8, as the thesis's Table 4.1."""
    jobs, _ = span_jobs(read_swf(traces_dir / "SDSC-SP2-1998-4.2-cln.swf.gz"), 128)
    assert len(jobs) == 10_000
    assert round(float(jobs.procs.mean()), 1) == 9.7 and round(float(np.std(jobs.procs)), 1) == 14.8
