"""The contract every registered online policy keeps (STYLE.md, "Tests").

For each name in :data:`schedlab.policies.POLICIES`: valid schedules on random
instances, the same inputs give byte-identical ``jobs.csv``, parameters are
stored by ``__init__`` and described, and non-clairvoyant policies never see
run times.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import InputError
from schedlab.output import write_jobs_csv
from schedlab.platform import Machine
from schedlab.policies import POLICIES, make_policy
from schedlab.schedule import Instance
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import rigid_instances

NAMES = sorted(POLICIES)


def instances_for(name: str, **kw):
    """Rigid jobs for rigid policies; sequential tasks on two processors or more (room for a dedicated pool)
    for the task policies."""
    if getattr(POLICIES[name], "sequential", False):
        return rigid_instances(sequential=True, min_procs=2, kills=False, **kw)
    return rigid_instances(**kw)


@pytest.mark.parametrize("name", NAMES)
def test_registry_name_and_description(name):
    policy = make_policy(name)
    assert policy.name == name
    assert policy.describe().startswith(f"{name}(")
    assert isinstance(policy.clairvoyant, bool)


@pytest.mark.parametrize("name", NAMES)
def test_unknown_parameter_is_an_input_error(name):
    with pytest.raises(InputError, match="no_such_parameter"):
        make_policy(name, {"no_such_parameter": "1"})


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_schedules_are_valid(name, data):
    instance = data.draw(instances_for(name))
    validate(instance, simulate(instance, make_policy(name)))


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_same_inputs_give_byte_identical_jobs_csv(tmp_path_factory, name, data):
    instance = data.draw(instances_for(name, max_jobs=8))
    texts = []
    for _ in range(2):
        path = tmp_path_factory.mktemp("run") / "jobs.csv"
        write_jobs_csv(path, instance, simulate(instance, make_policy(name)))
        texts.append(path.read_bytes())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("name", NAMES)
def test_run_times_hidden_unless_clairvoyant(name):
    policy = make_policy(name)
    seen = {}
    original_reset = policy.reset

    def spy(ctx):
        seen["run_time"] = ctx.jobs.run_time
        original_reset(ctx)

    policy.reset = spy
    jobs = JobTable.from_arrays(submit=[0, 1], run_time=[5, 7], requested_time=[7, 9], procs=[1, 1])
    simulate(Instance(jobs, Machine(2)), policy)
    assert (seen["run_time"] is None) == (not policy.clairvoyant)
