"""Moldable tasks from SWF logs (Saule, Bozdag and Catalyurek 2014, section 7): first jobs, Downey draws."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.workload.moldable import MoldableTasks, from_swf


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


@pytest.mark.parametrize(
    "times, release, message",
    [
        ([[4.0, 5.0]], [0.0], "task 1 times = 4 on 1 then 5 on 2 processors, expected run times non-increasing"),
        ([[4.0, 0.0]], [0.0], "task 1 times = 4.0, expected finite run times > 0"),
        ([[4.0, 2.0]], [-1.0], "task 1 release = -1.0, expected a finite time >= 0"),
    ],
)
def test_tables_that_cannot_be_scheduled_are_refused(times, release, message):
    with pytest.raises(InputError, match=message):
        MoldableTasks(
            id=np.array([1]), release=np.array(release), times=np.array(times), line=np.zeros(1, dtype=np.int64)
        )


def test_a_log_without_usable_jobs(tmp_path):
    (tmp_path / "log.swf").write_text("1 0 0 0 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n")
    with pytest.raises(InputError, match="no job with a run time > 0"):
        from_swf(tmp_path / "log.swf", m=8, rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="m = 0"):
        from_swf(tmp_path / "log.swf", m=0, rng=np.random.default_rng(0))
