"""Generators of the stretch experiments (Saule, Bozdag and Catalyurek 2014, sections 4.1 and 7)."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.metrics import processor_load
from schedlab.workload.jobs import JobTable
from schedlab.workload.moldable import MoldableTasks
from schedlab.workload.stretch_generators import generate_tasks, parse_dist, ssm_like_tasks, uniform_tasks


def test_uniform_tasks_reach_their_processor_load():
    jobs = uniform_tasks(20000, 1.0, 100.0, load=280.0, rng=np.random.default_rng(4))
    assert processor_load(jobs.submit, jobs.run_time) == pytest.approx(280, rel=0.03)
    assert jobs.run_time.min() >= 1 and jobs.run_time.max() <= 100 and jobs.submit[0] == 0
    with pytest.raises(InputError):
        uniform_tasks(10, 5.0, 1.0, load=1.0, rng=np.random.default_rng(0))


def test_ssm_like_tables_have_steps():
    tasks = ssm_like_tasks(200, 64, load=300.0, rng=np.random.default_rng(1))
    steps = np.diff(tasks.times, axis=1)
    assert np.all(steps <= 0) and np.any(steps == 0)
    assert tasks.p1.min() >= 30 and tasks.p1.max() <= 216000
    assert processor_load(tasks.release, tasks.p1) == pytest.approx(300, rel=0.35)


def test_dist_texts():
    assert parse_dist("uniform:1,100") == ("uniform", 1.0, 100.0)
    assert parse_dist("ssm-like")[0] == "ssm-like"
    for bad in ("uniform:5,1", "uniform:0,3", "uniform:1", "normal:1,2", "ssm-like:3"):
        with pytest.raises(InputError, match="--dist"):
            parse_dist(bad)


def test_generate_tasks_dispatches_and_is_seeded():
    jobs = generate_tasks("uniform:1,20", 50, 300, load=10.0, rng=np.random.default_rng(1))
    again = generate_tasks("uniform:1,20", 50, 300, load=10.0, rng=np.random.default_rng(1))
    assert isinstance(jobs, JobTable) and jobs.run_time.tobytes() == again.run_time.tobytes()
    tasks = generate_tasks("ssm-like", 20, 16, load=10.0, rng=np.random.default_rng(1))
    assert isinstance(tasks, MoldableTasks) and tasks.times.shape == (20, 16)
    with pytest.raises(InputError, match="--load"):
        generate_tasks("uniform:1,2", 5, 3, load=0.0, rng=np.random.default_rng(1))
