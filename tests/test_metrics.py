"""Metrics: per-job values and aggregates on hand-computed schedules.

Definitions: :mod:`schedlab.metrics` (bounded slowdown per Feitelson et al. 1997,
its unclamped variant per seeds 000 and 004).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.engine import simulate
from schedlab.metrics import AGGREGATED, aggregate, job_metrics
from schedlab.platform import Machine
from schedlab.registry import make_policy
from schedlab.schedule import Instance, JobStatus, Piece, Schedule
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable

C, K, R = JobStatus.COMPLETED, JobStatus.KILLED, JobStatus.REJECTED


def three_jobs():
    """4 processors.

    - job 1: submit 0, run 2, 4 procs: [0, 2);
    - job 2: submit 1, run 2, 2 procs: waits 1 s for job 1, [2, 4) on 0-1;
    - job 3: submit 1, run 12 (requested 15), 3 procs: only 2 free at 2, [4, 16) on 0-2.

    This is what FCFS and EASY produce (checked below).
    """
    jobs = JobTable.from_arrays(submit=[0, 1, 1], run_time=[2, 2, 12], requested_time=[2, 2, 15], procs=[4, 2, 3])
    schedule = Schedule(
        start=np.array([0.0, 2.0, 4.0]),
        end=np.array([2.0, 4.0, 16.0]),
        status=np.array([C, C, C], dtype=np.int8),
        alloc=[((0, 4),), ((0, 2),), ((0, 3),)],
    )
    return Instance(jobs, Machine(4)), schedule


def test_three_job_schedule_is_what_fcfs_and_easy_produce():
    instance, schedule = three_jobs()
    validate(instance, schedule)
    for name in ("fcfs", "easy"):
        s = simulate(instance, make_policy(name, {}))
        assert s.start.tolist() == schedule.start.tolist()
        assert s.end.tolist() == schedule.end.tolist()


def test_per_job_values_by_hand():
    """wait = s - r, response = e - r, slowdown = response / (e - s),
    bsld = max(1, response / max(e - s, tau)), tau = 10.

    Job 2 runs 2 s and waits 1 s: response 3, 3 / max(2, 10) = 0.3 unclamped, 1.0 clamped.
    """
    instance, schedule = three_jobs()
    m = job_metrics(instance, schedule, tau=10.0)
    assert set(m) == {"wait", "response", "execution", "slowdown", "bsld", "bsld_unclamped"}
    assert m["wait"].tolist() == [0.0, 1.0, 3.0]
    assert m["response"].tolist() == [2.0, 3.0, 15.0]
    assert m["execution"].tolist() == [2.0, 2.0, 12.0]
    assert m["slowdown"].tolist() == [1.0, 1.5, 1.25]
    assert m["bsld"].tolist() == [1.0, 1.0, 1.25]
    assert m["bsld_unclamped"].tolist() == [0.2, 0.3, 1.25]


def test_tau_changes_only_the_bounded_slowdowns():
    """tau = 1: every execution is >= tau, so both bounded slowdowns equal the slowdown."""
    instance, schedule = three_jobs()
    m = job_metrics(instance, schedule, tau=1.0)
    assert m["bsld"].tolist() == [1.0, 1.5, 1.25]
    assert m["bsld_unclamped"].tolist() == [1.0, 1.5, 1.25]
    default = job_metrics(instance, schedule)  # tau defaults to 10
    assert default["bsld_unclamped"].tolist() == [0.2, 0.3, 1.25]


def test_aggregates_by_hand():
    """mean, max, L2 = sqrt(sum of squares) (not divided by n); makespan 16 - 0;
    utilization (4*2 + 2*2 + 3*12) / (4 * 16) = 48 / 64."""
    instance, schedule = three_jobs()
    a = aggregate(instance, schedule, tau=10.0)
    expected = {
        "wait": [0.0, 1.0, 3.0],
        "response": [2.0, 3.0, 15.0],
        "slowdown": [1.0, 1.5, 1.25],
        "bsld": [1.0, 1.0, 1.25],
        "bsld_unclamped": [0.2, 0.3, 1.25],
    }
    assert set(expected) == set(AGGREGATED)
    for name, values in expected.items():
        assert a[f"{name}_mean"] == pytest.approx(sum(values) / 3, rel=1e-15, abs=0)
        assert a[f"{name}_max"] == max(values)
        assert a[f"{name}_l2"] == pytest.approx(math.sqrt(sum(v * v for v in values)), rel=1e-15, abs=0)
    assert a["wait_mean"] == pytest.approx(4 / 3, rel=1e-15)
    assert a["wait_l2"] == pytest.approx(math.sqrt(10), rel=1e-15)
    assert a["bsld_mean"] == pytest.approx(3.25 / 3, rel=1e-15)
    assert a["bsld_unclamped_mean"] == pytest.approx(1.75 / 3, rel=1e-15)
    assert a["slowdown_mean"] == 1.25
    assert a["first_submit"] == 0.0
    assert a["last_end"] == 16.0
    assert a["makespan"] == 16.0
    assert a["utilization"] == 0.75
    assert (a["n_jobs"], a["n_completed"], a["n_killed"], a["n_rejected"], a["n_aborted"]) == (3, 3, 0, 0, 0)
    assert a["tau"] == 10.0
    assert all(type(v) in (int, float) for v in a.values())


def test_killed_job_is_measured_on_its_executed_length():
    """Job 1 runs 100 s but asked for 5: killed at 5. Execution 5, not 100: slowdown 1,
    bsld (tau 1) 5 / 5 = 1; utilization 1 * 5 / (2 * 5)."""
    jobs = JobTable.from_arrays(submit=[0], run_time=[100], requested_time=[5], procs=[1])
    instance = Instance(jobs, Machine(2))
    schedule = Schedule(
        start=np.array([0.0]), end=np.array([5.0]), status=np.array([K], dtype=np.int8), alloc=[((0, 1),)]
    )
    validate(instance, schedule)
    m = job_metrics(instance, schedule, tau=1.0)
    assert m["execution"].tolist() == [5.0]
    assert m["slowdown"].tolist() == [1.0]
    assert m["bsld"].tolist() == [1.0]
    a = aggregate(instance, schedule, tau=1.0)
    assert a["utilization"] == 0.5
    assert a["makespan"] == 5.0
    assert (a["n_completed"], a["n_killed"]) == (0, 1)


def rejected_and_aborted():
    """2 processors.

    - job 1: submit 0, run 4, 2 procs: aborted piece [0, 2) on 0-1, then [2, 6) on 0-1;
    - job 2: submit 1, 1 proc: aborted piece [6, 8) on 0, then rejected.
    """
    jobs = JobTable.from_arrays(submit=[0, 1], run_time=[4, 3], requested_time=[4, 3], procs=[2, 1])
    schedule = Schedule(
        start=np.array([2.0, np.nan]),
        end=np.array([6.0, np.nan]),
        status=np.array([C, R], dtype=np.int8),
        alloc=[((0, 2),), None],
        aborted=[Piece(0, 0.0, 2.0, ((0, 2),)), Piece(1, 6.0, 8.0, ((0, 1),))],
    )
    return Instance(jobs, Machine(2)), schedule


def test_rejected_jobs_are_excluded_and_aborted_pieces_count_in_utilization():
    """Aggregates over job 1 only: wait 2, response 6, slowdown 6 / 4.
    last_end 8 (the piece of job 2), busy 2*2 + 2*4 + 1*2 = 14, utilization 14 / (2 * 8)."""
    instance, schedule = rejected_and_aborted()
    validate(instance, schedule, allow_rejected=True)
    m = job_metrics(instance, schedule)
    assert m["wait"][0] == 2.0 and m["execution"][0] == 4.0
    for values in m.values():
        assert np.isnan(values[1])
    a = aggregate(instance, schedule)
    assert a["wait_mean"] == a["wait_max"] == a["wait_l2"] == 2.0
    assert a["response_mean"] == 6.0
    assert a["slowdown_max"] == 1.5
    assert a["bsld_mean"] == 1.0 and a["bsld_unclamped_mean"] == 0.6
    assert a["last_end"] == 8.0 and a["makespan"] == 8.0
    assert a["utilization"] == 0.875
    assert (a["n_jobs"], a["n_completed"], a["n_killed"], a["n_rejected"], a["n_aborted"]) == (2, 1, 0, 1, 2)


def test_no_started_job_gives_none_not_nan():
    """Every job rejected: per-job aggregates and makespan are undefined, written as None."""
    jobs = JobTable.from_arrays(submit=[3, 5], run_time=[1, 1], procs=[1, 1])
    instance = Instance(jobs, Machine(1))
    schedule = Schedule(
        start=np.full(2, np.nan), end=np.full(2, np.nan), status=np.array([R, R], dtype=np.int8), alloc=[None, None]
    )
    a = aggregate(instance, schedule)
    for name in AGGREGATED:
        assert a[f"{name}_mean"] is None and a[f"{name}_max"] is None and a[f"{name}_l2"] is None
    assert a["first_submit"] == 3.0
    assert a["last_end"] is None and a["makespan"] is None and a["utilization"] is None
    assert a["n_rejected"] == 2


def test_rejected_row_with_stray_times_is_ignored():
    """Metrics read only started rows: a rejected row's start/end never leak into values."""
    instance, schedule = rejected_and_aborted()
    schedule.start[1], schedule.end[1] = 1.0, 100.0
    a = aggregate(instance, schedule)
    assert a["last_end"] == 8.0 and a["response_max"] == 6.0
    assert np.isnan(job_metrics(instance, schedule)["response"][1])


@pytest.mark.parametrize("tau", [0.0, -1.0, float("nan")])
def test_tau_must_be_positive(tau):
    instance, schedule = three_jobs()
    with pytest.raises(ValueError, match=r"tau = .*expected a time > 0"):
        job_metrics(instance, schedule, tau=tau)
    with pytest.raises(ValueError, match=r"tau = "):
        aggregate(instance, schedule, tau=tau)
