"""Windows of a workload: periods, random windows, cut, shift to zero, offered load.

Hand-made table: P = 4, jobs (submit, run time, procs) =
(100, 10, 1), (150, 20, 2), (250, 5, 4), (400, 100, 1), (401, 1, 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.workload.jobs import JobTable
from schedlab.workload.windows import (
    cut,
    describe_windows,
    offered_load,
    period_runs,
    periods,
    random_windows,
    shift_to_zero,
)


@pytest.fixture
def jobs():
    return JobTable.from_arrays(
        submit=[100, 150, 250, 400, 401], run_time=[10, 20, 5, 100, 1], procs=[1, 2, 4, 1, 1], source="hand"
    )


def test_periods_cover_the_span_from_the_first_submit(jobs):
    assert periods(jobs, 100) == [(100, 200), (200, 300), (300, 400), (400, 500)]
    assert periods(jobs, 301) == [(100, 401), (401, 702)]  # the last submit starts the second period
    assert periods(jobs, 1000) == [(100, 1100)]


def test_periods_with_an_origin(jobs):
    assert periods(jobs, 200, origin=0) == [(0, 200), (200, 400), (400, 600)]
    assert periods(jobs, 200, origin=1000) == []


def test_cut_keeps_submits_in_the_half_open_window(jobs):
    inside = cut(jobs, (150, 400))
    assert inside.id.tolist() == [2, 3]
    assert cut(jobs, (0, 100)).n_jobs == 0
    with pytest.raises(ValueError, match="start < end"):
        cut(jobs, (5, 5))


def test_shift_to_zero(jobs):
    shifted = shift_to_zero(cut(jobs, (150, 500)))
    assert shifted.submit.tolist() == [0, 100, 250, 251]
    assert shifted.run_time.tolist() == [20, 5, 100, 1]
    assert shifted.id.tolist() == [2, 3, 4, 5]
    assert shift_to_zero(jobs, origin=50).submit.tolist() == [50, 100, 200, 350, 351]
    with pytest.raises(ValueError, match="after the first submit"):
        shift_to_zero(jobs, origin=101)


def test_offered_load_by_hand(jobs):
    # window [100, 200): jobs 1, 2: work 10*1 + 20*2 = 50 over 4 * 100
    assert offered_load(jobs, 4, (100, 200)) == pytest.approx(50 / 400)
    # whole table: work 10 + 40 + 20 + 100 + 1 = 171 over 4 * (401 - 100)
    assert offered_load(jobs, 4) == pytest.approx(171 / (4 * 301))
    assert offered_load(jobs, 4, (500, 600)) == 0.0


def test_describe_windows_matches_offered_load(jobs):
    windows = [(100, 200), (0, 1000), (250, 251), (401, 402)]
    described = describe_windows(jobs, 4, windows)
    assert [w.n_jobs for w in described] == [2, 5, 1, 1]
    for window, info in zip(windows, described):
        assert (info.start, info.end) == window
        assert info.load == pytest.approx(offered_load(jobs, 4, window))


def test_random_windows_lie_inside_the_span_and_repeat_with_the_seed(jobs):
    first = random_windows(jobs, 100, 50, rng=np.random.default_rng(3))
    again = random_windows(jobs, 100, 50, rng=np.random.default_rng(3))
    other = random_windows(jobs, 100, 50, rng=np.random.default_rng(4))
    assert first == again
    assert first != other
    for start, end in first:
        assert end - start == 100
        assert 100 <= start <= 301 and start == int(start)
    assert random_windows(jobs, 100, 0, rng=np.random.default_rng(3)) == []


def test_random_windows_longer_than_the_trace_start_at_the_first_submit(jobs):
    assert random_windows(jobs, 1000, 2, rng=np.random.default_rng(0)) == [(100, 1100), (100, 1100)]


def test_period_runs_are_aligned_on_period_boundaries(jobs):
    """Periods of 100 s from 100: [100, 200) ... [400, 500); runs of 2 start at periods 0, 1 or 2."""
    drawn = period_runs(jobs, 100, 2, 3, rng=np.random.default_rng(0))
    assert sorted(drawn) == [(100, 300), (200, 400), (300, 500)]  # 3 valid starts: each once
    assert drawn == period_runs(jobs, 100, 2, 3, rng=np.random.default_rng(0))
    firsts = {tuple(period_runs(jobs, 100, 2, 1, rng=np.random.default_rng(seed))) for seed in range(40)}
    assert firsts == {((100, 300),), ((200, 400),), ((300, 500),)}  # every start can come first


def test_period_runs_repeat_every_start_once_per_round(jobs):
    drawn = period_runs(jobs, 100, 2, 7, rng=np.random.default_rng(5))
    assert sorted(drawn[:3]) == sorted(drawn[3:6]) == [(100, 300), (200, 400), (300, 500)]
    assert drawn[6] in drawn[:3]
    assert period_runs(jobs, 100, 1, 0, rng=np.random.default_rng(5)) == []


def test_period_runs_never_draw_a_run_without_jobs():
    """Submits 0, 10 (period 0) and 350 (period 3) in 100 s periods: runs of 2 hold jobs from starts 0 and 2 only."""
    table = JobTable.from_arrays(submit=[0, 10, 350], run_time=[1, 1, 1], procs=[1, 1, 1])
    assert sorted(period_runs(table, 100, 2, 2, rng=np.random.default_rng(1))) == [(0, 200), (200, 400)]
    assert sorted(period_runs(table, 100, 1, 2, rng=np.random.default_rng(1))) == [(0, 100), (300, 400)]


def test_period_runs_longer_than_the_trace_start_at_the_first_submit(jobs):
    assert period_runs(jobs, 200, 3, 2, rng=np.random.default_rng(0)) == [(100, 700), (100, 700)]


def test_bad_arguments(jobs):
    with pytest.raises(ValueError, match="length"):
        periods(jobs, 0)
    with pytest.raises(ValueError, match="count"):
        random_windows(jobs, 10, -1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="runs = 0, expected an integer >= 1"):
        period_runs(jobs, 10, 0, 1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="count = 1.5"):
        period_runs(jobs, 10, 1, 1.5, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="no jobs"):
        periods(jobs.take(np.zeros(5, dtype=bool)), 10)
    with pytest.raises(ValueError, match="n_procs"):
        offered_load(jobs, 0)


@given(
    submits=st.lists(st.integers(0, 10_000), min_size=1, max_size=40),
    length=st.integers(1, 3_000),
)
def test_periods_partition_the_jobs(submits, length):
    """Every job falls in exactly one period, and the periods are contiguous."""
    table = JobTable.from_arrays(submit=submits, run_time=[1.0] * len(submits), procs=[1] * len(submits))
    windows = periods(table, length)
    assert all(a[1] == b[0] for a, b in zip(windows, windows[1:]))
    assert sum(cut(table, w).n_jobs for w in windows) == len(submits)
    described = describe_windows(table, 2, windows)
    assert sum(w.n_jobs for w in described) == len(submits)


@given(
    submits=st.lists(st.integers(0, 10_000), min_size=1, max_size=40),
    length=st.integers(1, 3_000),
    runs=st.integers(1, 4),
    count=st.integers(0, 12),
    seed=st.integers(0, 2**32 - 1),
)
def test_period_runs_are_runs_of_periods_used_evenly(submits, length, runs, count, seed):
    """Each window is `runs` periods from a period boundary, holds a job, and no start is used twice before all once."""
    table = JobTable.from_arrays(submit=submits, run_time=[1.0] * len(submits), procs=[1] * len(submits))
    drawn = period_runs(table, length, runs, count, rng=np.random.default_rng(seed))
    boundaries = {start for start, _ in periods(table, length)}
    assert len(drawn) == count
    for start, end in drawn:
        assert start in boundaries and end == start + runs * length
        assert cut(table, (start, end)).n_jobs > 0
    uses = np.unique([start for start, _ in drawn], return_counts=True)[1]
    assert len(uses) == 0 or uses.max() - uses.min() <= 1
