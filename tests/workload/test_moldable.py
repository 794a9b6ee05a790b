"""Moldable tasks: Downey's speed-up (spec case 10), the tasks CSV and its errors, SWF conversion, generators
(Saule, Bozdag and Catalyurek 2014, sections 4.1, 5 and 7)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.stretch_metrics import load
from schedlab.workload.moldable import MoldableTasks, from_swf
from schedlab.workload.moldable_csv import read_tasks_csv, write_tasks_csv
from schedlab.workload.speedup import downey_speedup, downey_times
from schedlab.workload.stretch_generators import ssm_like_tasks, uniform_tasks

params = st.tuples(st.floats(1.0, 600.0), st.floats(0.0, 3.0))


@given(params)
def test_downey_starts_at_one_and_is_continuous(case):
    """Spec case 10: S(1) = 1; continuous at A and 2A - 1 (sigma <= 1), at A + A sigma - sigma (sigma > 1)."""
    a, sigma = case
    assert downey_speedup(1, a, sigma) == pytest.approx(1.0)
    breaks = [a, 2 * a - 1] if sigma <= 1 else [a + a * sigma - sigma]
    for b in breaks:
        if b >= 1:
            below, above = downey_speedup(b * (1 - 1e-12), a, sigma), downey_speedup(b * (1 + 1e-12), a, sigma)
            assert below == pytest.approx(above, rel=1e-8) and downey_speedup(b, a, sigma) == pytest.approx(
                below, rel=1e-8
            )
    n = np.arange(1, 1200)
    assert np.all(np.diff(downey_speedup(n, a, sigma)) >= -1e-9)
    assert downey_speedup(5000, a, sigma) == pytest.approx(a)


def test_downey_values():
    """sigma = 0 gives min(n, A); A = 10, sigma = 1: S(2) = 20 / 10.5; sigma = 2, A = 3: S(2) = 18 / 11."""
    assert downey_speedup(np.arange(1, 8), 4.0, 0.0).tolist() == [1, 2, 3, 4, 4, 4, 4]
    assert downey_speedup(2, 10.0, 1.0) == pytest.approx(20 / 10.5)
    assert downey_speedup(2, 3.0, 2.0) == pytest.approx(18 / 11)
    times = downey_times(np.array([100.0]), np.array([4.0]), np.array([0.0]), 6)
    assert times.tolist() == [[100, 50, 100 / 3, 25, 25, 25]]


def test_csv_round_trip(tmp_path):
    times = np.array([[8.0, 4, 4, 2], [3.0, 3, 3, 3]])
    tasks = MoldableTasks(
        id=np.array([7, 9]), release=np.array([0.5, 2.0]), times=times, line=np.zeros(2, dtype=np.int64)
    )
    write_tasks_csv(tasks, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text() == "id,release,times\n7,0.5,8.0 4.0 4.0 2.0\n9,2.0,3.0\n"
    back = read_tasks_csv(tmp_path / "t.csv", m=4)
    assert back.times.tolist() == times.tolist() and back.id.tolist() == [7, 9]
    downey = MoldableTasks(
        id=np.array([1]),
        release=np.array([0.0]),
        times=downey_times([50.0], [3.5], [0.7], 8),
        line=np.zeros(1, dtype=np.int64),
        downey=(np.array([3.5]), np.array([0.7])),
    )
    write_tasks_csv(downey, tmp_path / "d.csv")
    assert read_tasks_csv(tmp_path / "d.csv", m=8).times.tobytes() == downey.times.tobytes()


def test_csv_sequential_and_short_tables(tmp_path):
    (tmp_path / "t.csv").write_text("release,id,p\n0,1,5\n3,2,2.5\n")
    tasks = read_tasks_csv(tmp_path / "t.csv", m=3)
    assert tasks.times.tolist() == [[5, 5, 5], [2.5, 2.5, 2.5]] and tasks.line.tolist() == [2, 3]
    (tmp_path / "s.csv").write_text("id,release,times\n1,0,6 3\n")
    assert read_tasks_csv(tmp_path / "s.csv", m=4).times.tolist() == [[6, 3, 3, 3]]


@pytest.mark.parametrize(
    "text, message",
    [
        ("id,p\n1,3\n", "t.csv:1: header = id,p, expected columns id, release and one of"),
        ("id,release\n1,3\n", "(missing run times)"),
        ("id,release,p\n1,-3,2\n", "t.csv:2: release = -3, expected a finite number >= 0"),
        ("id,release,p\n1,0,2\n2,1,-1\n", "t.csv:3: p = -1, expected a finite number > 0"),
        (
            "id,release,times\n1,0,4 5\n",
            "t.csv:2: task 1 times = 4 on 1 then 5 on 2 processors, expected run times non-increasing",
        ),
        ("id,release,p1,A,sigma\n1,0,10,0.5,1\n", "t.csv:2: A, sigma = 0.5, 1, expected A >= 1 and sigma >= 0"),
        ("id,release,p1,A,sigma\n1,0,10,4,-1\n", "t.csv:2: sigma = -1, expected a finite number >= 0"),
        ("id,release,p\n1,0,x\n", "t.csv:2: p = 'x', expected a number"),
        ("id,release,p\n1,0,1\n1,2,1\n", "t.csv:3: id = 1, expected unique task ids"),
        ("id,release,p\n1,0\n", "t.csv:2: fields = 2, expected 3"),
    ],
)
def test_csv_errors_are_one_line(tmp_path, text, message):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_tasks_csv(path, m=4)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_swf_conversion_keeps_the_logged_time(tmp_path):
    """Job 2 ran 100 s on 4 processors: p_{i,4} = 100 exactly; job 3 (run time 0) is skipped; releases from 0."""
    lines = ["; MaxProcs: 8"]
    for job, (submit, run, procs) in enumerate([(50, 10, 1), (60, 100, 4), (70, 0, 2), (80, 30, 8)], start=1):
        lines.append(f"{job} {submit} 0 {run} {procs} -1 -1 {procs} 1000 -1 1 1 1 1 1 -1 -1 -1")
    (tmp_path / "log.swf").write_text("\n".join(lines) + "\n")
    tasks = from_swf(tmp_path / "log.swf", first=3, m=8, rng=np.random.default_rng(0))
    assert tasks.id.tolist() == [1, 2, 4] and tasks.release.tolist() == [0, 10, 30]
    assert tasks.times[1, 3] == pytest.approx(100) and tasks.times[2, 7] == pytest.approx(30)
    a, sigma = tasks.downey
    assert np.all((a >= [1, 4, 8]) & (a <= 8)) and np.all((sigma >= 0) & (sigma <= 2))
    again = from_swf(tmp_path / "log.swf", first=3, m=8, rng=np.random.default_rng(0))
    assert again.times.tobytes() == tasks.times.tobytes()


def test_uniform_tasks_reach_their_load():
    jobs = uniform_tasks(20000, 1.0, 100.0, load=280.0, rng=np.random.default_rng(4))
    assert load(jobs.submit, jobs.run_time) == pytest.approx(280, rel=0.03)
    assert jobs.run_time.min() >= 1 and jobs.run_time.max() <= 100 and jobs.submit[0] == 0
    with pytest.raises(InputError):
        uniform_tasks(10, 5.0, 1.0, load=1.0, rng=np.random.default_rng(0))


def test_ssm_like_tables_have_steps():
    tasks = ssm_like_tasks(200, 64, load=300.0, rng=np.random.default_rng(1))
    steps = np.diff(tasks.times, axis=1)
    assert np.all(steps <= 0) and np.any(steps == 0)
    assert tasks.p1.min() >= 30 and tasks.p1.max() <= 216000
    assert load(tasks.release, tasks.p1) == pytest.approx(300, rel=0.35)
