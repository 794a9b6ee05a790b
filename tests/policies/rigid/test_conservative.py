"""Conservative backfilling: hand-checked schedules and reservation invariants.

Source: spec 000-ch4-5 sections 4.1-4.2; issue 2 (compression when jobs end early).
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np
import pytest
from hypothesis import given, settings

from schedlab.engine import simulate
from schedlab.platform import Machine
from schedlab.policies.rigid import Conservative
from schedlab.registry import make_policy
from schedlab.schedule import Instance
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import rigid_instances


class RecordingConservative(Conservative):
    """Conservative that records every reservation start it gives each job."""

    def reset(self, ctx):
        super().reset(ctx)
        self.history = {}

    def _reserve(self, row, start, now):
        self.history.setdefault(row, []).append(start)
        super()._reserve(row, start, now)


def run(submit, run_time, requested, procs, n_procs, **params):
    jobs = JobTable.from_arrays(submit=submit, run_time=run_time, requested_time=requested, procs=procs)
    instance = Instance(jobs, Machine(n_procs))
    policy = RecordingConservative(**params)
    schedule = simulate(instance, policy)
    validate(instance, schedule)
    return schedule, policy.history


def test_every_job_gets_a_reservation_and_later_jobs_fill_holes():
    """P = 4. Job 1 (2 procs, 0-10); job 2 (4 procs) reserved at 10; job 3 (2 procs, 5 s)
    fits the hole now: backfilled at 0; job 4 (2 procs, 20 s) would overlap job 2's
    reservation, so it is reserved after it, at 20."""
    s, hist = run([0, 0, 0, 0], [10, 10, 5, 20], [10, 10, 5, 20], [2, 4, 2, 2], 4)
    assert s.start.tolist() == [0, 10, 0, 20]
    assert hist[1] == [10] and hist[3] == [20]


def test_early_end_compresses_reservations():
    """Job 1 asks 10 s but ends at 4: job 2's reservation moves from 10 to 4, and job 3,
    reserved behind job 2 at 20, moves to 14."""
    s, hist = run([0, 0, 0], [4, 10, 5], [10, 10, 5], [4, 4, 4], 4)
    assert s.start.tolist() == [0, 4, 14]
    assert hist[1] == [10, 4] and hist[2] == [20, 14]


def test_start_now_compression_moves_only_jobs_that_can_start_now():
    """Same instance, seed 000 ch.5 reassignment: at 4 job 2 starts now; job 3 cannot
    start now, keeps 20 (never moved to an intermediate time)."""
    s, hist = run([0, 0, 0], [4, 10, 5], [10, 10, 5], [4, 4, 4], 4, compress="start-now")
    assert s.start.tolist() == [0, 4, 20]
    assert hist[2] == [20]


def test_full_compression_can_move_to_an_intermediate_time():
    """P = 2. Job 1 (1 proc) asks 10, ends at 2; job 2 (1 proc, 0-6) keeps running.
    Job 3 (2 procs, 5 s) was reserved at 10; at 2 it cannot start (job 2 busy until 6)
    but full compression moves it to 6."""
    s, hist = run([0, 0, 0], [2, 6, 5], [10, 6, 5], [1, 1, 2], 2)
    assert s.start.tolist() == [0, 0, 6]
    assert hist[2] == [10, 6]


@pytest.mark.parametrize("compress", ["full", "start-now"])
@settings(max_examples=200)
@given(instance=rigid_instances())
def test_reservations_never_move_later_and_jobs_start_at_them(instance, compress):
    policy = RecordingConservative(compress=compress)
    s = simulate(instance, policy)
    validate(instance, s)
    for row, starts in policy.history.items():
        assert all(b <= a for a, b in zip(starts, starts[1:])), f"job row {row} reservations {starts}"
        assert s.start[row] == starts[-1]
    assert set(policy.history) == set(range(len(instance.jobs)))


@settings(max_examples=100)
@given(instance=rigid_instances(kills=False))
def test_exact_estimates_mean_no_compression_and_equal_modes(instance):
    """With run time = requested time nothing ends early, so both modes agree and no
    job is ever re-reserved."""
    jobs = instance.jobs
    exact = Instance(
        JobTable.from_arrays(submit=jobs.submit, run_time=jobs.requested_time, procs=jobs.procs, id=jobs.id),
        instance.platform,
    )
    a = RecordingConservative(compress="full")
    b = RecordingConservative(compress="start-now")
    sa, sb = simulate(exact, a), simulate(exact, b)
    assert np.array_equal(sa.start, sb.start)
    assert all(len(v) == 1 for v in a.history.values())


def test_conservative_rejects_unknown_options():
    from schedlab.errors import InputError

    jobs = JobTable.from_arrays(submit=[0], run_time=[1], procs=[1])
    with pytest.raises(InputError, match="compress"):
        simulate(Instance(jobs, Machine(1)), make_policy("conservative", {"compress": "sometimes"}))


class ScanningStartNow(Conservative):
    """Start-now compression by the plain rule of spec 000-ch4-5 section 4.2: every waiting job in queue
    order, moved to now when the general search (``earliest`` before its own reservation) answers now. The
    reference for the size-indexed queue and the prefix-minima test of the policy."""

    def _compress(self, now):
        profile = self.profile
        for r in self.reserved:
            row = self.row_of_rank[r]
            old, k, d = self.res_start[row], self.procs[row], self.estimate[row]
            if old > now and profile.earliest(k, d, bisect_left(profile.times, old)) == now:
                profile.release(old, old + d, k)
                self._reserve(row, now, now)


@settings(max_examples=150)
@given(instance=rigid_instances())
def test_start_now_compression_equals_the_general_search(instance):
    fast = simulate(instance, Conservative(compress="start-now"))
    slow = simulate(instance, ScanningStartNow(compress="start-now"))
    assert fast.start.tolist() == slow.start.tolist() and fast.alloc == slow.alloc


def test_exact_estimates_reserve_the_real_run_times():
    """P = 2, all released at 0 (Mendonca 2017, ch. 4: real execution times). Job 1 (1 proc, runs 10 s,
    requests 100); job 2 (2 procs, 5 s); job 3 (1 proc, 20 s).

    Requested times: job 2 is reserved at 100, job 3 backfills at 0 on the free processor; at 10 job 1
    ends early and job 2 moves to 20 (job 3 holds a processor until then): starts 0, 20, 0.
    Exact: job 1 holds [0, 10), job 2 [10, 15), job 3 cannot fit before 15: starts 0, 10, 15, each job
    reserved once (nothing ends early)."""
    args = ([0, 0, 0], [10, 5, 20], [100, 5, 20], [1, 2, 1], 2)
    requested, _ = run(*args)
    assert requested.start.tolist() == [0, 20, 0]
    exact, history = run(*args, estimate="exact")
    assert exact.start.tolist() == [0, 10, 15]
    assert all(len(starts) == 1 for starts in history.values())
    assert Conservative(estimate="exact").clairvoyant and not Conservative().clairvoyant


def test_exact_estimates_are_capped_by_the_walltime():
    """A job that runs past its requested time is killed there: its exact reservation is the requested
    time. P = 1: job 1 runs 50 s but requests 10 (killed at 10); job 2 starts at 10 in both modes."""
    s, history = run([0, 0], [50, 5], [10, 5], [1, 1], 1, estimate="exact")
    assert s.start.tolist() == [0, 10] and history == {0: [0.0], 1: [10.0]}


def test_set_profile_chooses_processors_at_placement():
    """P = 3, all released at 0: job 1 (1 proc, 1 s), job 2 (2 procs, 2 s), job 3 (2 procs, 1 s),
    job 4 (1 proc, 5 s); basic allocation (lowest ids).

    Counts (processors chosen at the start): job 3 is reserved at 2; job 4 needs one processor over
    [1, 6), which the counts allow (job 1's processor from 1, then one left by job 3): starts 0, 0, 2, 1.
    Sets (Algorithm 1 on every variant): job 3 takes processors 0-1 at placement; processor 0 is the only
    one free at 1 and job 3 holds it at 2, so job 4 waits for processor 2 at 2: starts 0, 0, 2, 2."""
    args = ([0, 0, 0, 0], [1, 2, 1, 5], [1, 2, 1, 5], [1, 2, 2, 1], 3)
    counts, _ = run(*args)
    assert counts.start.tolist() == [0, 0, 2, 1]
    sets, _ = run(*args, profile="sets")
    assert sets.start.tolist() == [0, 0, 2, 2]
    assert sets.alloc[2] == ((0, 2),) and sets.alloc[3] == ((2, 3),)


@settings(max_examples=100)
@given(instance=rigid_instances())
def test_set_profile_reservations_never_move_later(instance):
    policy = RecordingConservative(profile="sets")
    s = simulate(instance, policy)
    validate(instance, s)
    for row, starts in policy.history.items():
        assert all(b <= a for a, b in zip(starts, starts[1:])), f"job row {row} reservations {starts}"
        assert s.start[row] == starts[-1]


def test_exact_estimates_refuse_a_run_time_penalty():
    from schedlab.errors import InputError
    from schedlab.runner import run as run_policy

    jobs = JobTable.from_arrays(submit=[0], run_time=[1], procs=[1])
    with pytest.raises(InputError, match="profile"):
        simulate(Instance(jobs, Machine(1)), make_policy("conservative", {"profile": "ids"}))
    from schedlab.platform.registry import parse_platform

    tree = parse_platform("fat-tree:1,2,2,2")
    with pytest.raises(InputError, match="no run-time penalty"):
        run_policy(Instance(jobs, tree), "conservative", {"estimate": "exact"}, penalty="quadratic:2")
