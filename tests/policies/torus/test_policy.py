"""The torus schedulers as registered policies on the engine: the thesis's 1x1x8 examples through the
runner, every schedule validated, and the same schedules as the reference event loop.

Source: Krevat (2003), chapter 2 and section 4.2; the step-by-step examples of the reimplementation
notes (section 8).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import InputError
from schedlab.platform import Machine
from schedlab.platform.placement import FlatPlacement, TorusPlacement
from schedlab.platform.torus import Torus
from schedlab.policies.torus import TorusScheduler
from schedlab.registry import make_policy
from schedlab.runner import run
from schedlab.runtime.partition import PartitionRuntime
from schedlab.schedule import Instance, Piece
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from torus_reference import run_events

RING = JobTable.from_arrays(submit=[0, 1, 2, 3], run_time=[100, 10, 50, 200], procs=[6, 4, 2, 2])


@pytest.mark.parametrize("policy", ["torus-backfill", "torus-bm"])
def test_backfill_example_through_the_runner(policy):
    """Section 8: waits 1, 101, 1, 51 (mean 38.5), bounded slowdowns 1.01, 11.1, 1.02, 1.255, T = 254,
    w_util = 1140/2032, w_unused = 876/2032, w_lost = 16/2032; C and D backfilled on {6, 7}."""
    r = run(Instance(RING, Torus((1, 1, 8))), policy)
    s, m = r.schedule, r.metrics
    assert s.start.tolist() == [1, 102, 3, 54] and s.end.tolist() == [101, 112, 53, 254]
    assert s.alloc == [((0, 6),), ((0, 4),), ((6, 8),), ((6, 8),)]
    assert m["wait_mean"] == 38.5 and m["response_mean"] == (101 + 111 + 51 + 251) / 4
    assert m["bsld_mean"] == pytest.approx((1.01 + 11.1 + 1.02 + 1.255) / 4)
    assert m["span"] == 254
    assert (m["w_util"], m["w_unused"], m["w_lost"]) == pytest.approx((1140 / 2032, 876 / 2032, 16 / 2032))
    assert m["n_backfilled"] == 2 and m["n_grown"] == 0
    assert s.info["requested_sizes"].tolist() == [6, 4, 2, 2]


def test_fcfs_example_through_the_runner():
    r = run(Instance(RING, Torus((1, 1, 8))), "torus-fcfs")
    assert r.schedule.start.tolist() == [1, 102, 102, 102]
    assert r.schedule.alloc == [((0, 6),), ((0, 4),), ((4, 6),), ((6, 8),)]
    assert r.metrics["wait_mean"] == 75.25 and r.metrics["span"] == 302
    assert r.metrics["w_util"] == pytest.approx(1140 / 2416)


def test_migration_moves_a_running_job_on_the_engine():
    """1x1x8: C moves from {4,5} to {2,3} at 11 (it started at 1): a moved piece [1, 11) on {4,5}; D
    starts at 12 on {4..7}."""
    jobs = JobTable.from_arrays(submit=[0, 0, 0, 5], run_time=[100, 10, 100, 20], procs=[2, 2, 2, 4])
    r = run(Instance(jobs, Torus((1, 1, 8))), "torus-migration")
    s = r.schedule
    assert s.start.tolist() == [1, 1, 1, 12]
    assert s.alloc == [((0, 2),), ((2, 4),), ((2, 4),), ((4, 8),)]
    assert s.aborted == [Piece(2, 1.0, 11.0, ((4, 6),), True, True)]
    assert (r.metrics["migration_attempts"], r.metrics["migration_successes"], r.metrics["migration_moves"]) == (
        1,
        1,
        1,
    )
    assert r.metrics["n_preempted"] == 0


def test_migration_in_the_start_delay_moves_nothing_on_the_engine():
    """With a 5 s start delay C has not started at 11... it has (scheduled 0, started 5); with 20 s it has
    not: it starts at 20 directly on {2,3}, and no piece is recorded."""
    jobs = JobTable.from_arrays(submit=[0, 0, 0, 5], run_time=[100, 10, 100, 20], procs=[2, 2, 2, 4])
    s = simulate(
        Instance(jobs, Torus((1, 1, 8)), PartitionRuntime(jobs)), make_policy("torus-migration", {"start_delay": 20})
    )
    assert s.start.tolist() == [20, 20, 20, 50]  # B ends at 30, D is scheduled then
    assert s.alloc[2] == ((2, 4),) or s.aborted == []


def test_a_torus_policy_on_a_plain_machine_uses_a_ring():
    """On a machine that is not a torus, ids form a ring: boxes are cyclic intervals, nothing grows."""
    jobs = JobTable.from_arrays(submit=[0, 1, 2, 3], run_time=[100, 10, 50, 200], procs=[6, 4, 2, 2])
    r = run(Instance(jobs, Torus((1, 1, 8))), "torus-backfill")
    plain = run(Instance(jobs, Machine(8)), "torus-backfill")
    assert plain.schedule.start.tolist() == r.schedule.start.tolist()


KINDS = {
    "torus-fcfs": {},
    "torus-backfill": {"backfill": True},
    "torus-migration": {"migration": True},
    "torus-bm": {"backfill": True, "migration": True},
    "flat-fcfs": {},
    "flat-backfill": {"backfill": True},
}


@st.composite
def torus_workloads(draw):
    dims = draw(st.sampled_from([(1, 1, 8), (2, 2, 2), (2, 2, 3), (1, 3, 4), (2, 3, 2)]))
    n_procs = dims[0] * dims[1] * dims[2]
    n = draw(st.integers(1, 12))
    submit = sorted(draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)))  # rows in queue order
    run_time = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, n_procs), min_size=n, max_size=n))
    requested = [r + draw(st.integers(0, 10)) for r in run_time]
    jobs = JobTable.from_arrays(submit=submit, run_time=run_time, requested_time=requested, procs=procs)
    return Instance(jobs, Torus(dims), PartitionRuntime(jobs))


@settings(max_examples=60, deadline=None)
@given(
    torus_workloads(),
    st.sampled_from(sorted(KINDS)),
    st.fixed_dictionaries(
        {
            "start_delay": st.sampled_from([1.0, 0.0, 2.5]),
            "batch": st.booleans(),
            "theta_max": st.sampled_from([0.7, 1.0]),
            "theta_tor": st.sampled_from([0.1, 0.0]),
            "estimate": st.sampled_from(["exact", "requested"]),
        }
    ),
)
def test_engine_equals_reference_loop_and_validates(instance, name, params):
    """The registered policy on the engine schedules every job when the reference event loop does, on
    the same partitions, and its schedule (moves included) passes the validator."""
    jobs = instance.jobs
    flat = name.startswith("flat")
    if flat:
        params = {k: v for k, v in params.items() if not k.startswith("theta")}
        instance = Instance(jobs, Machine(instance.platform.n_procs), instance.runtime)
    schedule = simulate(instance, make_policy(name, params))
    validate(instance, schedule)
    place = FlatPlacement(instance.platform.n_procs) if flat else TorusPlacement(instance.platform)
    options = {k: v for k, v in params.items() if k in ("start_delay", "theta_max", "theta_tor")}
    core = TorusScheduler(
        place, **KINDS[name], reservation="flexible" if name == "flat-backfill" else "fixed", **options
    )
    estimate = jobs.run_time if params["estimate"] == "exact" else jobs.requested_time
    ref = run_events(core, jobs.submit, jobs.procs, jobs.run_time, estimate, rounding=not flat, batch=params["batch"])
    assert schedule.start.tolist() == ref.start.tolist()
    # a move at the instant a job ends (completions of one time are replayed one by one) leaves no trace
    finals = [
        place.allocation([q for t, q in p if t < end or t == p[0][0]][-1]) for p, end in zip(ref.placements, ref.end)
    ]
    assert schedule.alloc == finals
    assert len(schedule.aborted) <= ref.log.moves


def test_flat_policies_refuse_a_torus():
    with pytest.raises(InputError, match="flat-fcfs platform = torus:1x1x8, expected a machine where any free nodes"):
        run(Instance(RING, Torus((1, 1, 8))), "flat-fcfs")


def test_a_job_larger_than_the_torus_is_an_input_error():
    jobs = JobTable.from_arrays(submit=[0, 1], run_time=[5, 5], procs=[4, 9])
    with pytest.raises(InputError, match=r"job 2 processors = 9, expected at most 8 \(the machine size\)"):
        simulate(Instance(jobs, Torus((1, 2, 4)), PartitionRuntime(jobs)), make_policy("torus-fcfs"))
