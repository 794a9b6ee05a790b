"""Parallel jobs to sequential tasks (seed 004 section V-A; spec 004-redirections section 4, A7-A10)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.workload.jobs import JobTable
from schedlab.workload.tasks import convert, job_processors, load_tasks


def jobs(q, e, submit=None, allocated=None):
    extra = {} if allocated is None else {"allocated_procs": np.asarray(allocated, dtype=np.int64)}
    return JobTable.from_arrays(submit=submit or [0] * len(q), run_time=e, procs=q, extra=extra)


def test_conversion_c_by_hand():
    """q = (2, 4), e = (10, 5), m = 12: Q = 3, p = (20/3, 20/3) on 12/3 = 4 processors."""
    tasks = convert(jobs([2, 4], [10, 5], submit=[0, 7]), 12)
    table = tasks.jobs
    assert tasks.mean_procs == 3 and tasks.n_procs == 4
    np.testing.assert_allclose(table.run_time, [20 / 3, 20 / 3])
    assert table.requested_time.tolist() == table.run_time.tolist() and table.procs.tolist() == [1, 1]
    assert table.submit.tolist() == [0, 7] and tasks.parent.tolist() == [1, 2]


def test_conversions_a_and_b_by_hand():
    a = convert(jobs([2, 1], [10, 5]), 8, conversion="A")
    assert a.jobs.run_time.tolist() == [10, 10, 5] and a.parent.tolist() == [1, 1, 2]
    assert a.n_procs == 8
    b = convert(jobs([2, 1], [10, 5]), 8, conversion="B")
    assert b.jobs.run_time.tolist() == [20, 5]


@given(st.lists(st.tuples(st.integers(1, 64), st.integers(1, 10**5)), min_size=1, max_size=30), st.integers(64, 4096))
def test_conversion_c_keeps_work_per_processor_before_rounding(rows, m):
    q, e = zip(*rows)
    tasks = convert(jobs(list(q), list(e)), m)
    per_processor = tasks.jobs.run_time.sum() / (m / tasks.mean_procs)
    assert per_processor == pytest.approx(sum(a * b for a, b in rows) / m, rel=1e-12)


def test_allocated_processors_first():
    """Spec A8: q = allocated (SWF field 5) when > 0, else requested."""
    assert job_processors(jobs([4, 4], [1, 1], allocated=[2, -1])).tolist() == [2, 4]


def test_rounding_and_bad_options():
    assert convert(jobs([3], [1]), 10, rounding="floor").n_procs == 3
    assert convert(jobs([3], [1]), 10, rounding="ceil").n_procs == 4
    with pytest.raises(InputError, match="conversion = D"):
        convert(jobs([1], [1]), 4, conversion="D")


def test_ricc_tasks_from_completed_jobs(traces_dir):
    """Spec A10: status 1 and run time > 0 leave exactly 431,547 RICC jobs; one 7-day window is drawn by seed."""
    tasks, report = load_tasks(traces_dir / "RICC-2010-2.swf.gz")
    assert len(tasks.jobs) == 431_547 and report.kept == 431_547
    week, _ = load_tasks(traces_dir / "RICC-2010-2.swf.gz", window=7 * 86400, seed=3)
    again, _ = load_tasks(traces_dir / "RICC-2010-2.swf.gz", window=7 * 86400, seed=3)
    assert week.window == again.window and 0 < len(week.jobs) < 431_547
    assert week.jobs.submit.min() >= 0 and week.jobs.submit.max() < 7 * 86400
