"""The contract every registered algorithm keeps, online or offline (one test over the whole registry).

For each entry of :data:`schedlab.registry.ALGORITHMS`: it is documented (a
summary, a source, a guarantee, every parameter declared with its meaning);
it refuses bad parameters with one clear InputError before running; its
schedules pass the one validator on random small instances of its family; the
same inputs give the same schedule (byte-identical ``jobs.csv`` for online
policies); non-clairvoyant policies never see run times; and an offline
algorithm with a stated ratio stays within it against the brute-force optimum
(or a lower bound on it) on tiny instances.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybrid_strategies import moldable_instances, sequential_instances
from io_strategies import io_instances
from schedlab.engine import simulate
from schedlab.errors import InputError
from schedlab.metrics import topology_metrics
from schedlab.offline import io as io_offline
from schedlab.offline.hybrid import HybridError, brute_force_opt, hybrid_instance
from schedlab.output import write_jobs_csv
from schedlab.platform import Machine
from schedlab.platform.tree import FatTree
from schedlab.registry import ALGORITHMS, HYBRID, IO, MOLDABLE, PARTITIONS, RIGID, STRETCH, TASKS, Algorithm
from schedlab.schedule import Instance
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import partition_instances, rigid_instances
from stretch_cases import moldable_instance, moldable_task_instances, table

NAMES = list(ALGORITHMS)
ONLINE = [name for name, a in ALGORITHMS.items() if a.kind == "online"]
OFFLINE = [name for name, a in ALGORITHMS.items() if a.kind == "offline"]


@st.composite
def clustered_jobs(draw):
    """Rigid jobs released at 0 on k equal clusters of l processors, each at most l wide (Theorem 4)."""
    k, ell = draw(st.integers(1, 3)), draw(st.integers(1, 6))
    n = draw(st.integers(1, 10))
    p = [draw(st.integers(1, 20)) for _ in range(n)]
    size = [draw(st.integers(1, ell)) for _ in range(n)]
    jobs = JobTable.from_arrays(submit=np.zeros(n), run_time=p, procs=size)
    return Instance(jobs, FatTree.clusters(k * ell, ell))


def instances(algorithm: Algorithm, **kw):
    """Random small instances of the algorithm's family: common instances, or hybrid tasks."""
    if algorithm.family in (TASKS, STRETCH):
        return rigid_instances(sequential=True, min_procs=2, kills=False, **kw)
    if algorithm.family == MOLDABLE:
        return moldable_task_instances(**kw)
    if algorithm.family == RIGID and algorithm.kind == "online":
        return rigid_instances(**kw)
    if algorithm.family == RIGID:
        return clustered_jobs()
    if algorithm.family == HYBRID:
        return moldable_instances(max_n=4) | sequential_instances(max_n=5)
    if algorithm.family == IO:  # tiny lines and rings meeting the algorithm's requirement
        tiny = {"max_jobs": 4, "max_p": 5, "max_m": 9}
        return {
            "pinned": io_instances(kind="pinned", multi=True, **tiny),
            "unpinned": io_instances(kind="unpinned", uniform=True, **tiny),
            "unit-pinned": io_instances(topology="line", unit=True, **tiny),
            "per-io-node": io_instances(uniform=True, max_q=1, **tiny),
            "any": io_instances(kind="mixed", multi=True, **tiny),
        }[algorithm.traits["requires"]]
    if algorithm.family == PARTITIONS:
        return partition_instances(flat=bool(algorithm.bound.get("flat")), **kw)
    raise AssertionError(f"no instances for the family {algorithm.family!r}: add them here")


def solve(algorithm: Algorithm, instance):
    """Run ``algorithm`` with its defaults; return (common instance, schedule), or None when it cannot run."""
    if algorithm.kind == "online":
        return instance, simulate(instance, algorithm.build())
    if algorithm.family == HYBRID:
        try:
            return hybrid_instance(instance), algorithm.build()(instance)
        except HybridError:
            assert algorithm.name in ("cpu-only", "gpu-only")
            return None
    if algorithm.family == IO:
        return io_offline.io_instance(instance), algorithm.build()(instance)
    return instance, algorithm.build()(instance)


@pytest.mark.parametrize("name", NAMES)
def test_documented(name):
    algorithm = ALGORITHMS[name]
    assert algorithm.summary and algorithm.source and algorithm.guarantee
    assert algorithm.kind in ("online", "offline")
    declared = algorithm.declarations()
    for parameter in algorithm.parameters():
        assert parameter.name in declared and parameter.doc, f"{name}: parameter {parameter.name} not declared"
    if algorithm.kind == "online":
        policy = algorithm.build()
        assert policy.name == name and policy.describe().startswith(f"{name}(")
        assert isinstance(policy.clairvoyant, bool)


def _bad_values(param) -> list:
    """Values a declaration must refuse: outside its choices, beyond a bound."""
    values = ["no-such-value"] if param.choices is not None else []
    if param.low is not None:
        values.append(param.low - 1 if not param.open_low else param.low)
    if param.high is not None:
        values.append(param.high + 1 if not param.open_high else param.high)
    return values


BAD = [
    (name, key, value)
    for name, algorithm in ALGORITHMS.items()
    for key, param in algorithm.declarations().items()
    for value in _bad_values(param)
]


@pytest.mark.parametrize("name", NAMES)
def test_unknown_parameter_is_an_input_error(name):
    with pytest.raises(InputError, match="no_such_parameter"):
        ALGORITHMS[name].configure({"no_such_parameter": "1"})


@pytest.mark.parametrize("name, key, value", BAD)
def test_out_of_range_parameter_is_refused_before_running(name, key, value):
    with pytest.raises(InputError, match=f"{name} {key}"):
        ALGORITHMS[name].configure({key: value})


@pytest.mark.parametrize("name", [n for n in NAMES if any(p.type != "str" for p in ALGORITHMS[n].parameters())])
def test_a_parameter_of_the_wrong_type_is_refused(name):
    parameter = next(p for p in ALGORITHMS[name].parameters() if p.type != "str")
    with pytest.raises(InputError, match=f"expected {parameter.type}"):
        ALGORITHMS[name].configure({parameter.name: "not-a-number"})


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_schedules_are_valid(name, data):
    algorithm = ALGORITHMS[name]
    solved = solve(algorithm, data.draw(instances(algorithm)))
    if solved is not None:
        validate(*solved, contiguous=bool(algorithm.traits.get("contiguous", False)))


@pytest.mark.parametrize("name", ONLINE)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_same_inputs_give_byte_identical_jobs_csv(tmp_path_factory, name, data):
    algorithm = ALGORITHMS[name]
    instance = data.draw(instances(algorithm, max_jobs=8))
    texts = []
    for _ in range(2):
        path = tmp_path_factory.mktemp("run") / "jobs.csv"
        write_jobs_csv(path, instance, simulate(instance, algorithm.build()))
        texts.append(path.read_bytes())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("name", OFFLINE)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_offline_algorithms_are_deterministic(name, data):
    algorithm = ALGORITHMS[name]
    instance = data.draw(instances(algorithm))
    first, second = solve(algorithm, instance), solve(algorithm, instance)
    if first is not None:
        assert first[1].start.tolist() == second[1].start.tolist() and first[1].alloc == second[1].alloc


@pytest.mark.parametrize("name", ONLINE)
def test_run_times_hidden_unless_clairvoyant(name):
    policy = ALGORITHMS[name].build()
    seen = {}
    original_reset = policy.reset

    def spy(ctx):
        seen["run_time"] = ctx.jobs.run_time
        original_reset(ctx)

    policy.reset = spy
    if ALGORITHMS[name].family == MOLDABLE:
        instance = moldable_instance(table([5, 3], [7, 7], release=[0, 1]))
    else:
        jobs = JobTable.from_arrays(submit=[0, 1], run_time=[5, 7], requested_time=[7, 9], procs=[1, 1])
        instance = Instance(jobs, Machine(2))
    # the contract of the Python protocol (the compiled core's policies read only requested times)
    simulate(instance, policy, engine="python")
    assert (seen["run_time"] is None) == (not policy.clairvoyant)


@pytest.mark.parametrize("name", [n for n in OFFLINE if ALGORITHMS[n].ratio is not None])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_offline_ratio_holds(name, data):
    """Makespan <= ratio x cutoff x OPT: OPT by brute force (CPU+GPU, I/O-aware: with the ratio proven for
    that instance's platform), or a lower bound on it (rigid jobs: max(area / m, longest job) <= OPT, so
    staying within ratio x the bound is stronger)."""
    algorithm = ALGORITHMS[name]
    instance = data.draw(instances(algorithm))
    solved = solve(algorithm, instance)
    if solved is None:
        return
    common, schedule = solved
    cutoff = next((p.default for p in algorithm.parameters() if p.name == "cutoff"), 1.0)
    ratio = algorithm.ratio
    if algorithm.family == IO:
        reference = io_offline.brute_force_opt(instance)[0]
        ratio = io_offline.proven_ratio(algorithm.traits, instance.platform) or ratio
    elif algorithm.family == HYBRID:
        if not (algorithm.traits["moldable"] or not instance.moldable.any()):
            return  # the guarantee covers sequential tasks only
        reference = brute_force_opt(instance)[0]
    else:
        jobs, m = common.jobs, common.platform.n_procs
        p = np.minimum(jobs.run_time, jobs.requested_time)
        reference = max(float(np.sum(p * jobs.procs)) / m, float(p.max()))
        if name == "nfdh-local":
            shape = topology_metrics(common, schedule)
            assert shape["n_contiguous"] == shape["n_local"] == len(jobs)
    assert schedule.makespan <= ratio * cutoff * reference * (1 + 1e-12) + 1e-9
    assert math.isfinite(schedule.makespan)
