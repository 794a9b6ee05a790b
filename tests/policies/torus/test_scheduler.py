"""The torus schedulers (FCFS, Backfill, Migration, B+M) and the flat baselines on hand-checked runs
and random ones, driven by the reference event loop (``tests/torus_reference.py``).

Source: Krevat (2003), chapter 2 and section 4.2; the step-by-step 1x1x8
schedules and the invariants of the reimplementation notes (section 8).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.metrics import capacity
from schedlab.platform.placement import FlatPlacement, TorusPlacement
from schedlab.platform.pop import mfp_exhaustive, occupancy_array
from schedlab.platform.torus import Box, Torus
from schedlab.policies.torus import Move, Start, TorusScheduler
from schedlab.registry import make_policy
from strategies import rigid_instances
from torus_reference import run_events

KINDS = {
    "fcfs": {},
    "backfill": {"backfill": True},
    "migration": {"migration": True},
    "bm": {"backfill": True, "migration": True},
}


def run(dims, jobs, kind, *, rounding=True, **params):
    """Run a scheduler on jobs given as (arrival, size, run time) with exact estimates."""
    torus = Torus(dims)
    scheduler = TorusScheduler(TorusPlacement(torus), **KINDS[kind], **params)
    arrival, size, run_time = (np.array(c, dtype=float) for c in zip(*jobs))
    return scheduler, run_events(scheduler, arrival, size.astype(int), run_time, run_time, rounding=rounding)


def bsld(result, arrival, run_time, gamma=10.0):
    return np.maximum(result.end - arrival, gamma) / np.maximum(run_time, gamma)


RING_JOBS = [(0, 6, 100), (1, 4, 10), (2, 2, 50), (3, 2, 200)]  # A, B, C, D on a 1x1x8 torus


def test_backfill_1x1x8_step_by_step():
    """Section 8, backfill example: A on {0..5} at 0; B blocked at 1 (shadow 101, box {0..3}); C backfilled
    on {6,7} at 2 (ends 53 <= 101); D backfilled on {6,7} at 53 (ends 254 > 101 but misses {0..3});
    B scheduled at 101 on {0..3}."""
    scheduler, r = run((1, 1, 8), RING_JOBS, "backfill")
    arrival = np.array([0, 1, 2, 3.0])
    run_time = np.array([100, 10, 50, 200.0])
    assert r.scheduled.tolist() == [0, 101, 2, 53]
    assert r.start.tolist() == [1, 102, 3, 54]
    assert r.end.tolist() == [101, 112, 53, 254]
    boxes = [p[0][1][1] for p in r.placements]
    assert boxes == [
        Box((0, 0, 0), (1, 1, 6)),
        Box((0, 0, 0), (1, 1, 4)),
        Box((0, 0, 6), (1, 1, 2)),
        Box((0, 0, 6), (1, 1, 2)),
    ]
    assert r.backfilled.tolist() == [False, False, True, True]
    wait = r.start - arrival
    assert wait.tolist() == [1, 101, 1, 51] and wait.mean() == 38.5
    assert (r.end - arrival).tolist() == [101, 111, 51, 251]
    assert bsld(r, arrival, run_time).tolist() == pytest.approx([1.01, 11.1, 1.02, 1.255])
    cap = capacity(arrival, r.scheduled, r.end, r.allocated, r.size, run_time, 8)
    assert cap["span"] == 254
    assert cap["w_util"] == pytest.approx(1140 / 2032)
    assert cap["w_unused"] == pytest.approx(876 / 2032)
    assert cap["w_lost"] == pytest.approx(16 / 2032)
    assert scheduler.first_shadow[1] == 101 and r.scheduled[1] <= 101


def test_fcfs_1x1x8_step_by_step():
    """Section 8: under plain FCFS, B, C and D are all scheduled at 101 on {0..3}, {4,5} (base 4 is the
    first best: base 5 would leave MFP 1) and {6,7}; waits 1, 101, 100, 99 (mean 75.25), T = 302."""
    _, r = run((1, 1, 8), RING_JOBS, "fcfs")
    arrival = np.array([0, 1, 2, 3.0])
    run_time = np.array([100, 10, 50, 200.0])
    assert r.scheduled.tolist() == [0, 101, 101, 101]
    assert r.end.tolist() == [101, 112, 152, 302]
    assert [p[0][1][1].base[2] for p in r.placements] == [0, 0, 4, 6]
    wait = r.start - arrival
    assert wait.tolist() == [1, 101, 100, 99] and wait.mean() == 75.25
    cap = capacity(arrival, r.scheduled, r.end, r.allocated, r.size, run_time, 8)
    assert cap["span"] == 302
    assert cap["w_util"] == pytest.approx(1140 / 2416)
    assert cap["w_util"] + cap["w_unused"] + cap["w_lost"] == pytest.approx(1.0)


def test_fcfs_grows_an_unfit_size():
    """Chapter 2 growth: on a 2x2x1 torus without rounding, a size-3 job is scheduled with 4 nodes."""
    _, r = run((2, 2, 1), [(0, 3, 10)], "fcfs", rounding=False)
    assert r.allocated.tolist() == [4] and r.size.tolist() == [3]
    _, r = run((2, 2, 1), [(0, 3, 10)], "fcfs")
    assert r.size.tolist() == [4]  # rounded at arrival instead


@pytest.mark.parametrize("grow_limit,expected_c", [(1, 1.0), (0, 112.0)])
def test_backfill_growth_limit(grow_limit, expected_c):
    """2x2x2 torus: A (4 nodes) holds the plane z=0 until 101, head B needs all 8; C asks for 3 nodes
    (no box has 3 here, rounding off) and ends before the shadow. With I = 1 it is backfilled with 4
    nodes at 1; with I = 0 it waits until B is done (112)."""
    jobs = [(0, 4, 100), (0, 8, 10), (1, 3, 5)]
    _, r = run((2, 2, 2), jobs, "backfill", rounding=False, grow_limit=grow_limit)
    assert r.scheduled[2] == expected_c
    if grow_limit == 1:
        assert r.allocated[2] == 4 and r.backfilled[2]


MIGRATION_JOBS = [(0, 2, 100), (0, 2, 10), (0, 2, 100), (5, 4, 20)]


def test_migration_compacts_the_ring():
    """1x1x8: A {0,1}, B {2,3}, C {4,5} at 0; D (4 nodes) arrives at 5, blocked. B ends at 11: free
    {2,3} and {6,7}, F/N = 0.5 >= 0.1 and MFP/F = 0.5 <= 0.7: A stays at {0,1}, C moves to {2,3}, the MFP
    grows from 2 to 4, and D is scheduled at 11 on {4..7}. FCFS makes D wait for A and C (101)."""
    scheduler, r = run((1, 1, 8), MIGRATION_JOBS, "migration")
    assert r.scheduled.tolist() == [0, 0, 0, 11]
    c_moves = [(t, p[1]) for t, p in r.placements[2]]
    assert c_moves == [(0, Box((0, 0, 4), (1, 1, 2))), (11, Box((0, 0, 2), (1, 1, 2)))]
    assert len(r.placements[0]) == 1  # A kept its box
    assert r.placements[3][0][1][1] == Box((0, 0, 4), (1, 1, 4))
    assert (scheduler.log.attempts, scheduler.log.successes, scheduler.log.success_times) == (1, 1, [11.0])
    _, fcfs = run((1, 1, 8), MIGRATION_JOBS, "fcfs")
    assert fcfs.scheduled[3] == 101


def test_migration_thresholds_block_it():
    """theta_max = 0.4 < MFP/F = 0.5: no attempt, D waits as under FCFS."""
    scheduler, r = run((1, 1, 8), MIGRATION_JOBS, "migration", theta_max=0.4)
    assert r.scheduled[3] == 101 and scheduler.log.attempts == 0


def test_parameters_are_checked():
    place = TorusPlacement(Torus((1, 1, 8)))
    for bad in (
        {"reservation": "loose"},
        {"migration_trigger": "never"},
        {"migration_tie": "random"},
        {"grow_limit": -1},
        {"start_delay": -1.0},
    ):
        with pytest.raises(ValueError):
            TorusScheduler(place, **bad)
    with pytest.raises(ValueError):
        TorusScheduler(place).arrive(0, 9, 1.0)


# -- random runs: invariants ----------------------------------------------------------------


class Recorder:
    """Wraps a scheduler and records every finish and every invocation's actions, in order."""

    def __init__(self, inner: TorusScheduler) -> None:
        self.inner = inner
        self.events: list[tuple] = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def arrive(self, row, size, estimate):
        self.inner.arrive(row, size, estimate)

    def finish(self, row):
        self.events.append(("finish", row))
        self.inner.finish(row)

    def invoke(self, now):
        actions = self.inner.invoke(now)
        self.events.append(("invoke", now, actions))
        return actions


def replay(torus, events, sizes):
    """Replay the recorded actions on an occupancy, checking disjointness, boxes, sizes and migrations."""
    occ = 0
    held: dict[int, int] = {}
    for event in events:
        if event[0] == "finish":
            mask = held.pop(event[1])
            assert mask & occ == mask
            occ &= ~mask
            continue
        _, now, actions = event
        moves = [a for a in actions if isinstance(a, Move)]
        for act in actions:
            if isinstance(act, Start):
                mask, box = act.placement
                assert not mask & occ, f"job row {act.row} overlaps at {now}"
                if box is not None:
                    assert torus.box_mask(box) == mask and box.size == act.size
                assert act.size >= sizes[act.row]
                occ |= mask
                held[act.row] = mask
            elif act is moves[0]:  # one migration: all its moves at once
                before = mfp_exhaustive(occupancy_array(torus, occ))
                old = {m.row: held[m.row] for m in moves}
                for m in moves:
                    occ &= ~old[m.row]
                for m in moves:
                    mask, box = m.placement
                    assert not mask & occ, f"moved job row {m.row} overlaps at {now}"
                    assert torus.box_mask(box) == mask
                    assert mask.bit_count() == old[m.row].bit_count()
                    occ |= mask
                    held[m.row] = mask
                assert mfp_exhaustive(occupancy_array(torus, occ)) > before
    assert occ == 0 and not held


@st.composite
def workloads(draw, max_jobs=12):
    dims = draw(st.sampled_from([(1, 1, 8), (2, 2, 2), (2, 2, 3), (1, 3, 4), (2, 3, 2)]))
    n_procs = dims[0] * dims[1] * dims[2]
    n = draw(st.integers(1, max_jobs))
    jobs = [(draw(st.integers(0, 30)), draw(st.integers(1, n_procs)), draw(st.integers(0, 40))) for _ in range(n)]
    return dims, jobs


PARAMS = st.fixed_dictionaries(
    {
        "reservation": st.sampled_from(["fixed", "flexible"]),
        "grow_limit": st.integers(0, 2),
        "theta_tor": st.sampled_from([0.1, 0.0]),
        "theta_max": st.sampled_from([0.7, 1.0]),
        "migration_trigger": st.sampled_from(["blocked", "always"]),
    }
)


@settings(max_examples=60)
@given(workloads(), st.sampled_from(sorted(KINDS)), PARAMS, st.booleans())
def test_invariants_on_random_runs(case, kind, params, batch):
    dims, jobs = case
    torus = Torus(dims)
    arrival, size, run_time = (np.array(c, dtype=float) for c in zip(*jobs))
    inner = TorusScheduler(TorusPlacement(torus), **KINDS[kind], **params)
    recorder = Recorder(inner)
    r = run_events(recorder, arrival, size.astype(int), run_time, run_time, batch=batch)
    # every job scheduled once, after its arrival; start one delay later; runs its run time
    assert np.isfinite(r.scheduled).all() and (r.scheduled >= arrival).all()
    assert (r.start == r.scheduled + 1).all() and (r.end == r.start + run_time).all()
    assert all(torus.round_size(int(s)) == z for s, z in zip(size, r.size))
    assert (r.allocated >= r.size).all() and all(int(a) in torus.feasible_sizes for a in r.allocated)
    assert len(jobs) + r.log.moves == sum(len(p) for p in r.placements)
    replay(torus, recorder.events, r.size)
    order = np.lexsort((np.arange(len(jobs)), arrival))
    if kind in ("fcfs", "migration"):
        assert (np.diff(r.scheduled[order]) >= 0).all(), "FCFS order broken"
        assert not r.backfilled.any()
    if kind == "backfill" and not batch:
        for row, shadow in inner.first_shadow.items():
            assert r.scheduled[row] <= shadow
    if kind in ("fcfs", "backfill"):
        assert r.log.attempts == 0
    assert r.log.successes <= r.log.attempts
    cap = capacity(arrival, r.scheduled, r.end, r.allocated, r.size, run_time, torus.n_procs)
    for key in ("w_util", "w_unused", "w_lost"):
        assert -1e-9 <= cap[key] <= 1 + 1e-9
    assert cap["w_util"] + cap["w_unused"] + cap["w_lost"] == pytest.approx(1.0)


@settings(max_examples=40)
@given(workloads(), st.booleans())
def test_migration_never_triggered_equals_fcfs_and_backfill(case, backfill):
    """theta_tor > 1: Migration gives exactly FCFS's schedule and B+M exactly Backfill's."""
    dims, jobs = case
    plain = "backfill" if backfill else "fcfs"
    with_migration = "bm" if backfill else "migration"
    _, a = run(dims, jobs, plain)
    scheduler, b = run(dims, jobs, with_migration, theta_tor=1.5)
    assert scheduler.log.attempts == 0
    assert a.scheduled.tolist() == b.scheduled.tolist()
    assert a.placements == b.placements


def test_flat_machine_has_no_fragmentation():
    """On a flat machine D (4 nodes) starts as soon as 4 nodes are free anywhere (at 11, when B ends)."""
    arrival, size, run_time = (np.array(c, dtype=float) for c in zip(*MIGRATION_JOBS))
    scheduler = TorusScheduler(FlatPlacement(8))
    r = run_events(scheduler, arrival, size.astype(int), run_time, run_time)
    assert r.scheduled.tolist() == [0, 0, 0, 11]
    assert [p[0][1][0] for p in r.placements] == [0b11, 0b1100, 0b110000, 0b11001100]


@settings(max_examples=80)
@given(rigid_instances(kills=False), st.booleans())
def test_flat_baselines_equal_the_engines_fcfs_and_easy(instance, backfill):
    """Two independent implementations: with no start delay, one invocation per event time and exact
    estimates, flat FCFS equals schedlab's FCFS and flat Backfill (flexible reservation: EASY's extra
    nodes) equals schedlab's EASY, start for start."""
    jobs = instance.jobs
    order = np.lexsort((jobs.id, jobs.submit))  # the engine's queue order, (submit, id)
    scheduler = TorusScheduler(
        FlatPlacement(instance.platform.n_procs), backfill=backfill, start_delay=0.0, reservation="flexible"
    )
    r = run_events(
        scheduler, jobs.submit[order], jobs.procs[order], jobs.run_time[order], jobs.requested_time[order], batch=True
    )
    schedule = simulate(instance, make_policy("easy" if backfill else "fcfs"))
    assert r.scheduled.tolist() == schedule.start[order].tolist()


def test_migration_with_a_pinned_job():
    """A run (found by random search) where one re-placement fails: that job keeps its box, the others are
    re-placed again, and every migration applied still strictly enlarges the MFP (checked by replay)."""
    arrival = np.array([2, 9, 10, 11, 13, 14.0])
    size = np.array([3, 2, 4, 6, 9, 4])
    run_time = np.array([30, 21, 3, 7, 20, 37.0])
    torus = Torus((2, 2, 3))
    recorder = Recorder(TorusScheduler(TorusPlacement(torus), migration=True))
    r = run_events(recorder, arrival, size, run_time, run_time)
    log = recorder.inner.log
    assert (log.attempts, log.successes, log.pinned, log.success_times) == (3, 2, 1, [11.0, 14.0])
    replay(torus, recorder.events, r.size)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_tie_breaks_do_not_move_utilization(traces_dir, kind):
    """Ambiguity 4 of the reimplementation notes: the candidate order and the migration order are ours; on
    3,000 SDSC SP2 jobs at c = 1.2 (saturated FCFS and Migration) utilization moves by less than one point."""
    from schedlab.workload.spans import span_jobs
    from schedlab.workload.swf import read_swf

    jobs, _ = span_jobs(read_swf(traces_dir / "SDSC-SP2-1998-4.2-cln.swf.gz"), 128, count=3000)
    run_time = jobs.run_time * 1.2
    utils = []
    for tie_break, migration_tie in (("shape-base", "earliest"), ("base-shape", "latest")):
        scheduler = TorusScheduler(
            TorusPlacement(Torus((4, 4, 8)), tie_break=tie_break), **KINDS[kind], migration_tie=migration_tie
        )
        r = run_events(scheduler, jobs.submit, jobs.procs, run_time, run_time)
        utils.append(capacity(jobs.submit, r.scheduled, r.end, r.allocated, r.size, run_time, 128)["w_util"])
    assert abs(utils[0] - utils[1]) < 0.01
