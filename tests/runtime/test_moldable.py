"""The moldable run-time model (Saule, Bozdag and Catalyurek 2014, section 5): the policy chooses the size, the
engine and the validator take the length from the model, the job table measures stretch against p_{i,1}."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.engine import simulate
from schedlab.errors import IllegalDecision, ValidationError
from schedlab.runtime.moldable import MoldableTimes, moldable_jobs
from schedlab.schedule import JobStatus, Schedule
from schedlab.validation import validate
from stretch_cases import moldable_instance, table

TWO = table([8, 4, 3], [6, 6, 2], release=[0, 1])


def test_model_sizes_and_lengths():
    model = MoldableTimes(TWO)
    assert model.fixed is False and model.describe() == "moldable"
    assert model.allocation_problem(0, ((0, 3),), 3) is None
    assert "cover 1 to 3" in model.allocation_problem(0, ((0, 4),), 4)
    assert model.duration(0, ((0, 1), (2, 4))) == (3.0, False)
    assert model.duration(1, ((5, 6),)) == (6.0, False)
    assert model.run_times([((0, 2),), None]).tolist()[0] == 4.0


def test_job_table_is_one_processor_time_never_killed():
    jobs = moldable_jobs(TWO)
    assert jobs.run_time.tolist() == [8, 6] == jobs.requested_time.tolist()
    assert jobs.procs.tolist() == [1, 1] and jobs.submit.tolist() == [0, 1]


class Chooser:
    """Starts every task at its release on the first ``size`` free processors (a size per task)."""

    name = "chooser"
    clairvoyant = True

    def __init__(self, sizes):
        self.sizes = sizes

    def describe(self):
        return "chooser()"

    def reset(self, ctx):
        self.ctx, self.new = ctx, []
        self.seen = ctx.runtime

    def submit(self, rows, now):
        self.new += rows

    def complete(self, rows, now):
        pass

    def schedule(self, now):
        for row in self.new:
            self.ctx.start(row, self.ctx.free.first(self.sizes[row]))
        self.new = []


def test_engine_takes_the_length_of_the_chosen_size():
    instance = moldable_instance(TWO, 6)
    policy = Chooser([3, 2])
    schedule = simulate(instance, policy)
    validate(instance, schedule)
    assert schedule.start.tolist() == [0, 1] and schedule.end.tolist() == [3, 7]
    assert schedule.alloc == [((0, 3),), ((3, 5),)] and list(schedule.status) == [JobStatus.COMPLETED] * 2
    assert policy.seen is instance.runtime


def test_runtime_hidden_from_non_clairvoyant_policies():
    policy = Chooser([1, 1])
    policy.clairvoyant = False
    simulate(moldable_instance(TWO, 6), policy)
    assert policy.seen is None


def test_engine_refuses_a_size_beyond_the_table():
    with pytest.raises(IllegalDecision, match="run times cover 1 to 3"):
        simulate(moldable_instance(TWO, 6), Chooser([4, 1]))


def test_validator_checks_size_and_length_through_the_model():
    instance = moldable_instance(TWO, 6)
    done = np.array([JobStatus.COMPLETED] * 2, dtype=np.int8)
    good = Schedule(np.array([0.0, 1.0]), np.array([3.0, 7.0]), done, [((0, 3),), ((3, 5),)])
    validate(instance, good)
    wrong_length = Schedule(np.array([0.0, 1.0]), np.array([4.0, 7.0]), done, [((0, 3),), ((3, 5),)])
    with pytest.raises(ValidationError, match="job 1: runs from 0.0 to 4.0 .* expected the moldable time = 3.0"):
        validate(instance, wrong_length)
    too_wide = Schedule(np.array([0.0, 1.0]), np.array([3.0, 3.0]), done, [((0, 3),), ((3, 5),)])
    too_wide.alloc[0] = ((0, 4),)
    with pytest.raises(ValidationError, match="run times cover 1 to 3"):
        validate(instance, too_wide)
