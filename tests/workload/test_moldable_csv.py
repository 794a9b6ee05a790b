"""The tasks CSV: round trips, sequential and moldable readings, and one-line errors naming file, line and field."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.workload.jobs import JobTable
from schedlab.workload.moldable import MoldableTasks
from schedlab.workload.moldable_csv import read_sequential_tasks_csv, read_tasks_csv, write_tasks_csv
from schedlab.workload.speedup import downey_times


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


def test_sequential_reading_takes_the_one_processor_time(tmp_path):
    """``p`` as is; ``times`` and Downey rows give their first time (p_1): one-processor tasks, lines kept."""
    (tmp_path / "p.csv").write_text("release,id,p\n0,1,5\n3,2,2.5\n")
    jobs = read_sequential_tasks_csv(tmp_path / "p.csv")
    assert jobs.run_time.tolist() == [5, 2.5] and jobs.procs.tolist() == [1, 1] and jobs.line.tolist() == [2, 3]
    assert jobs.requested_time.tolist() == [5, 2.5] and jobs.submit.tolist() == [0, 3]
    (tmp_path / "t.csv").write_text("id,release,times\n4,1,6 3\n")
    assert read_sequential_tasks_csv(tmp_path / "t.csv").run_time.tolist() == [6]
    (tmp_path / "d.csv").write_text("id,release,p1,A,sigma\n4,1,60,3,0.5\n")
    assert read_sequential_tasks_csv(tmp_path / "d.csv").run_time.tolist() == [60]


def test_sequential_round_trip(tmp_path):
    jobs = JobTable.from_arrays(submit=[0.0, 0.1 + 0.2], run_time=[1 / 3, 7.0], procs=[1, 1], id=[3, 8])
    write_tasks_csv(jobs, tmp_path / "s.csv")
    assert (tmp_path / "s.csv").read_text() == "id,release,p\n3,0.0,0.3333333333333333\n8,0.30000000000000004,7.0\n"
    back = read_sequential_tasks_csv(tmp_path / "s.csv")
    assert back.run_time.tobytes() == jobs.run_time.tobytes() and back.submit.tobytes() == jobs.submit.tobytes()


@pytest.mark.parametrize(
    "text, message",
    [
        ("id,release,times\n1,0,4 5\n", "t.csv:2: task 1 times = 4 on 1 then 5 on 2 processors"),
        ("id,release,p\n1,0,1\n1,2,1\n", "job id = 1, expected unique job ids"),
        ("id,release,p\n", "t.csv: no task"),
    ],
)
def test_sequential_errors_are_one_line(tmp_path, text, message):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_sequential_tasks_csv(path)
    assert message in str(err.value) and "\n" not in str(err.value)
