"""Run-time penalty models and the engine and validator that apply them.

Source: Mendonca (2017), ch. 5 section 5.3.4 (eqs. 5.1-5.2), with the hand-checkable values of its
penalty examples.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from schedlab.engine import simulate
from schedlab.errors import InputError, ValidationError
from schedlab.platform import Machine
from schedlab.platform.tree import FatTree
from schedlab.runtime import RigidRuntime, TopologyPenalty, parse_penalty
from schedlab.schedule import Instance, JobStatus
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable

TREE = FatTree((1, 2, 4, 8))
ONE_CLUSTER, TWO_CLUSTERS, FAR = ((0, 2),), ((1, 3),), ((0, 1), (4, 5))  # L = 1, 2, 3 for 2 processors


@pytest.mark.parametrize("alloc, expected", [(ONE_CLUSTER, 100.0), (TWO_CLUSTERS, 200.0), (FAR, 400.0)])
def test_quadratic_factor_2(alloc, expected):
    """Spec 8.2: T = 100, F = 2, R = 0 / 1 / 2 gives 100 / 200 / 400."""
    assert TopologyPenalty(TREE, "quadratic", 2.0).penalised(100.0, 1000.0, 2, alloc) == (expected, False)


def test_linear_factor_2():
    """Spec 8.2: linear F = 2, R = 1 gives 100 + 100 * 1 * 2 = 300."""
    assert TopologyPenalty(TREE, "linear", 2.0).penalised(100.0, 1000.0, 2, TWO_CLUSTERS) == (300.0, False)


def test_penalised_time_beyond_the_walltime_fails_at_the_walltime():
    """Spec 8.2: w = 250, R = 2 (quadratic): failed, T' = 250; equality is a success."""
    model = TopologyPenalty(TREE, "quadratic", 2.0)
    assert model.penalised(100.0, 250.0, 2, FAR) == (250.0, True)
    assert model.penalised(100.0, 400.0, 2, FAR) == (400.0, False)


def test_r_is_measured_from_the_minimal_level():
    """A 3-processor job needs two clusters (L_min = 2): inside one level-2 switch, R = 0."""
    model = TopologyPenalty(TREE, "quadratic", 2.0)
    assert model.excess(3, ((0, 3),)) == 0
    assert model.excess(3, ((2, 5),)) == 1


def test_parse_penalty():
    jobs = penalised_instance().jobs
    assert isinstance(parse_penalty(None, TREE, jobs), RigidRuntime)
    assert isinstance(parse_penalty("none", TREE, jobs), RigidRuntime)
    assert parse_penalty("linear:0.5", TREE, jobs) == TopologyPenalty(TREE, "linear", 0.5, jobs)
    assert parse_penalty("quadratic", TREE).factor == 2.0
    with pytest.raises(InputError, match="--penalty"):
        parse_penalty("cubic:2", TREE)
    with pytest.raises(InputError, match="fat-tree"):
        parse_penalty("quadratic:2", Machine(8))
    with pytest.raises(InputError, match=">= 1"):
        parse_penalty("quadratic:0.5", TREE)


class FixedAllocations:
    """Starts every job at its submit time on a given allocation (a test policy)."""

    name = "fixed"
    clairvoyant = False

    def __init__(self, allocs):
        self.allocs = allocs

    def describe(self):
        return "fixed"

    def reset(self, ctx):
        self.ctx = ctx

    def submit(self, rows, now):
        for row in rows:
            self.ctx.start(row, self.allocs[row])

    def complete(self, rows, now):
        pass

    def schedule(self, now):
        pass


def penalised_instance():
    jobs = JobTable.from_arrays(
        submit=[0, 0, 0], run_time=[100, 100, 100], requested_time=[1000, 1000, 250], procs=[2, 2, 2]
    )
    return Instance(jobs, TREE)


def test_engine_runs_penalised_times_and_the_validator_accepts_them():
    """Jobs on {0,1} (L = 1), {2,4} (L = 3) and {3,6} (L = 3, walltime 250) run 100, 400 and 250 s,
    the last KILLED."""
    plain = penalised_instance()
    instance = replace(plain, runtime=TopologyPenalty(TREE, "quadratic", 2.0, plain.jobs))
    schedule = simulate(instance, FixedAllocations([((0, 2),), ((2, 3), (4, 5)), ((3, 4), (6, 7))]))
    assert schedule.end.tolist() == [100.0, 400.0, 250.0]
    assert schedule.status.tolist() == [JobStatus.COMPLETED, JobStatus.COMPLETED, JobStatus.KILLED]
    validate(instance, schedule)
    with pytest.raises(ValidationError, match="min\\(run time, requested time\\)|make it"):
        validate(plain, schedule)


def test_validator_rejects_a_duration_that_ignores_the_penalty():
    instance = penalised_instance()
    schedule = simulate(instance, FixedAllocations([((6, 8),), ((1, 3),), ((4, 6),)]))
    assert np.allclose(schedule.end, 100.0)
    penalised = replace(instance, runtime=TopologyPenalty(TREE, "linear", 1.0, instance.jobs))
    with pytest.raises(ValidationError, match="job 2: runs from 0.0 to 100.0 .* linear:1 time = 200.0"):
        validate(penalised, schedule)


def test_without_a_model_the_engine_is_unchanged():
    instance = penalised_instance()
    schedule = simulate(instance, FixedAllocations([((0, 2),), ((2, 4),), ((4, 6),)]))
    assert schedule.end.tolist() == [100.0, 100.0, 100.0]
    validate(instance, schedule)
