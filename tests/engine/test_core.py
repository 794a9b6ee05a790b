"""The compiled core against the Python engine and policies, its oracles: job for job.

FCFS, EASY and conservative backfilling with first-fit allocation run on the core by default
(:mod:`schedlab.policies.rigid.compiled`); ``engine="python"`` runs the event loop and the
Python policies. Every schedule must be identical (start, end, status, allocation) and valid.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab import output, validation
from schedlab.engine import simulate
from schedlab.errors import InputError, ValidationError
from schedlab.platform import Machine
from schedlab.platform.registry import parse_platform
from schedlab.registry import make_policy
from schedlab.runtime.penalty import parse_penalty
from schedlab.schedule import Instance, JobStatus, Schedule
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import job_tables, rigid_instances

POLICIES = [
    ("fcfs", {"order": "fcfs"}),
    ("fcfs", {"order": "sjf"}),
    ("easy", {"order": "fcfs"}),
    ("easy", {"order": "sjf"}),
    ("conservative", {"order": "fcfs", "compress": "full"}),
    ("conservative", {"order": "sjf", "compress": "full"}),
    ("conservative", {"order": "fcfs", "compress": "start-now"}),
    ("conservative", {"order": "sjf", "compress": "start-now"}),
]

IDS = ["-".join([name, *params.values()]) for name, params in POLICIES]


def assert_same(instance: Instance, name: str, params: dict) -> None:
    python = simulate(instance, make_policy(name, params), engine="python")
    core = simulate(instance, make_policy(name, params), engine="core")
    validate(instance, core)
    np.testing.assert_array_equal(core.start, python.start)
    np.testing.assert_array_equal(core.end, python.end)
    np.testing.assert_array_equal(core.status, python.status)
    assert core.alloc == python.alloc
    assert core.policy == python.policy and core.aborted == python.aborted == []


@st.composite
def busy_instances(draw):
    """Hundreds of jobs on up to 300 processors, drawn by numpy from a Hypothesis seed: long queues,
    hundreds of running jobs (the running-job blocks split and merge), fragmented free sets, equal times."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_procs = int(rng.integers(1, 300))
    n = int(rng.integers(1, 600))
    submit = np.sort(rng.integers(0, n // 2 + 1, n)).astype(float)
    requested = rng.integers(1, 200, n).astype(float)
    run = np.maximum(1.0, requested + rng.integers(-150, 20, n))
    small = rng.random(n) < 0.7
    procs = np.where(small, rng.integers(1, 4, n), rng.integers(1, n_procs + 1, n))
    jobs = JobTable.from_arrays(
        submit=submit,
        run_time=run,
        requested_time=requested,
        procs=np.minimum(procs, n_procs),
        id=rng.permutation(n) + 1,
    )
    return Instance(jobs, Machine(n_procs))


@st.composite
def compressing_instances(draw):
    """Long queues of jobs of a few (size, estimate) kinds that mostly end early, at integer times: each
    completion compresses hundreds of reservations, chains of moves each freeing room for the next,
    and jobs alike share what a full compression pass learnt until a moved reservation gives back a
    window that undoes it."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_procs = int(rng.integers(2, 64))
    n = int(rng.integers(50, 400))
    kinds = int(rng.integers(1, 6))
    sizes = rng.integers(1, n_procs + 1, kinds)
    estimates = rng.integers(2, 60, kinds)
    kind = rng.integers(0, kinds, n)
    requested = estimates[kind].astype(float)
    early = rng.random(n) < rng.uniform(0.5, 1.0)
    run = np.where(early, np.maximum(1.0, np.floor(requested * rng.random(n))), requested)
    jobs = JobTable.from_arrays(
        submit=np.sort(rng.integers(0, n // 4 + 1, n)).astype(float),
        run_time=run,
        requested_time=requested,
        procs=sizes[kind],
        id=rng.permutation(n) + 1,
    )
    return Instance(jobs, Machine(n_procs))


@pytest.mark.parametrize("order", ["fcfs", "sjf"])
@pytest.mark.parametrize("compress", ["full", "start-now"])
@given(instance=compressing_instances())
@settings(max_examples=60)
def test_core_matches_python_on_long_compressions(compress, order, instance):
    assert_same(instance, "conservative", {"order": order, "compress": compress})


@pytest.mark.parametrize("name, params", POLICIES, ids=IDS)
@given(instance=rigid_instances(max_jobs=25, max_procs=10))
@settings(max_examples=150)
def test_core_matches_python_on_small_instances(name, params, instance):
    assert_same(instance, name, params)


@pytest.mark.parametrize("name, params", POLICIES, ids=IDS)
@given(instance=busy_instances())
@settings(max_examples=25)
def test_core_matches_python_on_busy_instances(name, params, instance):
    assert_same(instance, name, params)


@pytest.mark.parametrize("name, params", POLICIES, ids=IDS)
@given(jobs=job_tables(min_jobs=1, max_jobs=30, max_procs=64))
@settings(max_examples=60)
def test_core_matches_python_on_float_times(name, params, jobs):
    """Unsorted float submit times, ids up to 2**40, estimates shorter or longer than run times."""
    assert_same(Instance(jobs, Machine(int(jobs.procs.max()))), name, params)


def test_core_matches_python_on_a_fat_tree_with_basic_allocation():
    """First fit ignores the platform's shape on both paths: same schedule on a fat tree."""
    rng = np.random.default_rng(7)
    n = 300
    jobs = JobTable.from_arrays(
        submit=np.sort(rng.integers(0, 500, n)).astype(float),
        run_time=rng.integers(1, 100, n).astype(float),
        requested_time=rng.integers(50, 120, n).astype(float),
        procs=rng.integers(1, 20, n),
    )
    instance = Instance(jobs, parse_platform("fat-tree:1,2,4,32"))
    for name, params in POLICIES:
        assert_same(instance, name, params)


def small_instance() -> Instance:
    jobs = JobTable.from_arrays(submit=[0, 0, 1], run_time=[10, 5, 3], requested_time=[10, 8, 3], procs=[2, 3, 1])
    return Instance(jobs, Machine(4))


def test_the_core_leaves_other_allocators_and_runtime_models_to_python():
    instance = small_instance()
    assert make_policy("easy", {"allocator": "becont"}).compiled_run(instance) is None
    tree = Instance(instance.jobs, parse_platform("fat-tree:1,2,2,4"))
    penalised = replace(tree, runtime=parse_penalty("linear:0.5", tree.platform, tree.jobs))
    assert make_policy("easy").compiled_run(penalised) is None
    assert make_policy("conservative", {"allocator": "beloc"}).compiled_run(tree) is None
    assert make_policy("conservative").compiled_run(penalised) is None
    # the thesis's ch. 4 settings: a set profile, or reservations as long as the real run times
    assert make_policy("conservative", {"profile": "sets"}).compiled_run(instance) is None
    assert make_policy("conservative", {"estimate": "exact"}).compiled_run(instance) is None
    assert make_policy("conservative").compiled_run(instance) is not None
    with pytest.raises(InputError, match="does not run easy"):
        simulate(instance, make_policy("easy", {"allocator": "becont"}), engine="core")
    # engine auto falls back to the event loop, with the same result as engine python
    auto = simulate(instance, make_policy("easy", {"allocator": "becont"}))
    assert auto.start.tolist() == [0, 10, 1]


def test_engine_python_and_the_environment_variable_bypass_the_core(monkeypatch):
    policy = make_policy("easy")

    def refuse(instance):
        raise AssertionError("the core ran")

    monkeypatch.setattr(policy, "compiled_run", refuse)
    assert simulate(small_instance(), policy, engine="python").start.tolist() == [0, 10, 1]
    monkeypatch.setenv("SCHEDLAB_ENGINE", "python")
    assert simulate(small_instance(), policy).start.tolist() == [0, 10, 1]
    monkeypatch.setenv("SCHEDLAB_ENGINE", "fast")
    with pytest.raises(InputError, match="SCHEDLAB_ENGINE = fast, expected one of auto, python, core"):
        simulate(small_instance(), policy)


def test_core_matches_python_on_kth(traces_dir):
    """The first real trace of the pinned outputs, whole (28k jobs), every policy in one order or the other."""
    from schedlab.runner import load_instance

    instance, _ = load_instance(traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz")
    assert_same(instance, "easy", {"order": "fcfs"})
    assert_same(instance, "fcfs", {"order": "sjf"})
    assert_same(instance, "conservative", {"order": "fcfs", "compress": "full"})
    assert_same(instance, "conservative", {"order": "sjf", "compress": "start-now"})


@st.composite
def overlapping_schedules(draw):
    """Jobs with random times and random ranges on up to 300 processors (words of 64 bits crossed),
    often double-booked: a schedule for the validator's rule 9."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_procs = int(rng.integers(1, 300))
    n = int(rng.integers(1, 40))
    start = rng.integers(0, 30, n).astype(float)
    length = rng.integers(1, 10, n).astype(float)
    alloc = []
    for _ in range(n):
        cuts = np.unique(rng.integers(0, n_procs + 1, 2 * int(rng.integers(1, 4))))
        ranges = [(int(a), int(b)) for a, b in zip(cuts[0::2], cuts[1::2])]
        merged: list[tuple[int, int]] = []
        for a, b in ranges:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
            else:
                merged.append((a, b))
        alloc.append(tuple(merged) or ((0, 1),))
    procs = [sum(b - a for a, b in x) for x in alloc]
    jobs = JobTable.from_arrays(submit=np.zeros(n), run_time=length, requested_time=length, procs=procs)
    schedule = Schedule(
        start=start, end=start + length, status=np.full(n, JobStatus.COMPLETED, dtype=np.int8), alloc=alloc
    )
    return Instance(jobs, Machine(n_procs)), schedule


@given(case=overlapping_schedules())
@settings(max_examples=200)
def test_validator_sweep_on_the_core_matches_the_python_sweep(case):
    """Rule 9 (no processor used twice at once): the compiled sweep names the same clash as the Python one."""
    instance, schedule = case

    def outcome() -> str:
        try:
            validate(instance, schedule)
        except ValidationError as err:
            return str(err)
        return "valid"

    compiled = outcome()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(validation, "_core", None)
        assert outcome() == compiled


def test_allocation_text_on_the_core_matches_the_numpy_version():
    """jobs.csv's allocated_resources: the compiled text equals the numpy one (tested against format_allocation)."""
    allocs = [((0, 2), (4, 5)), None, (), ((3, 4),), ((0, 8),), ((np.int64(64), np.int64(130)),), ((7, 8), (9, 11))]
    compiled = output.format_allocations(allocs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(output, "_core", None)
        assert output.format_allocations(allocs) == compiled
    assert compiled == ["0-1 4", "", "", "3", "0-7", "64-129", "7 9-10"]
