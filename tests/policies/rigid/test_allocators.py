"""Allocation step of backfilling: contiguity, locality and platform-level variants.

Source: spec 000-ch4-5 sections 4.1 and 4.3, hand-checkable tests 1, 3, 4 and 6
of section 8, and its invariants (forced variants, same profile, one cluster).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import InputError
from schedlab.metrics import topology_metrics
from schedlab.platform.intervals import IntervalSet, mask_of, normalize
from schedlab.platform.tree import FatTree
from schedlab.policies.rigid import EASY, FCFS, Conservative
from schedlab.policies.rigid.allocators import FORCED, make_allocator, make_fit_test
from schedlab.policies.rigid.profile import INF, CompiledSetProfile, SetProfile
from schedlab.registry import make_policy
from schedlab.runtime import TopologyPenalty, parse_penalty
from schedlab.schedule import Instance, JobStatus
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import rigid_instances

ALL = [
    "basic",
    "becont",
    "becont:largest_first",
    "cont",
    "cont:best_fit",
    "cont:largest",
    "beloc",
    "loc",
    "beplat",
    "beplat:best_fit",
    "beplat:worst_fit",
    "plat",
    "plat:best_fit",
    "plat:worst_fit",
]
BEST_EFFORT = [a for a in ALL if a.partition(":")[0] not in FORCED]


def free_set(*values) -> IntervalSet:
    return IntervalSet((v, v + 1) for v in values)


def ids(alloc) -> list[int]:
    return [p for lo, hi in alloc for p in range(lo, hi)] if alloc is not None else None


# -- 1. hand-checked allocations -------------------------------------------------


@pytest.mark.parametrize(
    "name, size, expected",
    [
        ("becont", 3, [3, 4, 5]),
        ("becont", 5, [0, 1, 3, 4, 5]),
        ("becont:largest_first", 3, [8, 9, 10]),
        ("becont:largest_first", 5, [3, 8, 9, 10, 11]),
        ("cont", 3, [3, 4, 5]),
        ("cont", 5, None),
        ("cont:best_fit", 3, [3, 4, 5]),
        ("cont:largest", 3, [8, 9, 10]),
        ("basic", 5, [0, 1, 3, 4, 5]),
    ],
)
def test_contiguous_variants(name, size, expected):
    """Spec 8.6: free {0,1,3,4,5,8,9,10,11}."""
    allocate = make_allocator(name, FatTree.flat(16))
    assert ids(allocate(free_set(0, 1, 3, 4, 5, 8, 9, 10, 11), size)) == expected


@pytest.mark.parametrize(
    "name, free, expected",
    [
        ("basic", (1, 2, 4, 5, 6, 7), [1, 2]),
        ("beplat", (1, 2, 4, 5, 6, 7), [4, 5]),
        ("plat", (1, 2, 4, 5, 6, 7), [4, 5]),
        ("beplat", (1, 2, 4, 6), [1, 2]),
        ("plat", (1, 2, 4, 6), None),
        ("beplat:worst_fit", (1, 2, 3, 4, 6), [2, 3]),
        ("beplat:best_fit", (0, 2, 4, 5, 6, 7), [4, 5]),
    ],
)
def test_platform_variants(name, free, expected):
    """Spec 8.3 on levels [1,2,4,8], s = 2; the node orders pick among the nodes of the deepest depth that fits."""
    allocate = make_allocator(name, FatTree((1, 2, 4, 8)))
    assert ids(allocate(free_set(*free), 2)) == expected


def test_local_variants_take_the_fullest_clusters():
    """Alg. 4 on clusters of 3: free {0, 3, 4, 6, 7, 8}: size 4 takes cluster 2 (3 free), then the
    lower of the two clusters with 1 free... cluster 1 has 2: so {6,7,8} + {3}; loc's K* = 2 allows it."""
    tree = FatTree.clusters(9, 3)
    free = free_set(0, 3, 4, 6, 7, 8)
    assert ids(make_allocator("beloc", tree)(free, 4)) == [3, 6, 7, 8]
    assert ids(make_allocator("loc", tree)(free, 4)) == [3, 6, 7, 8]
    assert ids(make_allocator("beloc", tree)(free, 6)) == [0, 3, 4, 6, 7, 8]
    assert make_allocator("loc", tree)(free, 6) is None  # K* = 2 clusters hold 5 < 6


def test_unknown_allocator_lists_the_allowed_names():
    jobs = JobTable.from_arrays(submit=[0], run_time=[1], requested_time=[1], procs=[1])
    for policy in (Conservative(allocator="best"), EASY(allocator="best"), FCFS(allocator="cont:huge")):
        with pytest.raises(InputError, match="allocator.*expected one of"):
            simulate(Instance(jobs, FatTree.flat(2)), policy)


def test_describe_names_the_allocator_only_when_not_basic():
    assert Conservative().describe() == "conservative(order=fcfs, compress=full)"
    assert Conservative(allocator="beplat").describe() == "conservative(order=fcfs, compress=full, allocator=beplat)"
    assert EASY().describe() == "easy(order=fcfs)"
    assert EASY(allocator="beloc").describe() == "easy(order=fcfs, allocator=beloc)"
    assert make_policy("conservative", {"allocator": "plat"}).allocator == "plat"


# -- hand-checked schedules --------------------------------------------------------


def thm2_instance():
    jobs = JobTable.from_arrays(submit=[0, 0, 0], run_time=[1, 1, 1], requested_time=[1, 1, 1], procs=[2, 2, 2])
    return Instance(jobs, FatTree.clusters(6, 3))


@pytest.mark.parametrize(
    "allocator, starts, allocs",
    [
        ("basic", [0, 0, 0], [[0, 1], [2, 3], [4, 5]]),
        ("cont", [0, 0, 0], [[0, 1], [2, 3], [4, 5]]),
        ("loc", [0, 0, 1], [[0, 1], [3, 4], [0, 1]]),
        ("beloc", [0, 0, 0], [[0, 1], [3, 4], [2, 5]]),
    ],
)
@pytest.mark.parametrize("policy", [Conservative, EASY])
def test_theorem_2_instance(policy, allocator, starts, allocs):
    """Spec 8.1: m = 6, l = 3, three unit jobs of size 2. loc rejects J3 at t = 0 (one free per
    cluster) and runs it at t = 1 on {0, 1} (Cmax = 2, all local); beloc puts J3 on {2, 5} (Cmax = 1)."""
    instance = thm2_instance()
    schedule = simulate(instance, policy(allocator=allocator))
    validate(instance, schedule)
    assert schedule.start.tolist() == starts
    assert [ids(a) for a in schedule.alloc] == allocs


@pytest.mark.parametrize("allocator", ALL)
def test_conservative_hand_example_is_the_same_for_every_allocator(allocator):
    """Spec 8.4 (m = 4, one cluster): J1 [0,4) on {0,1}, J2 reserved [4,6), J3 backfilled [0,3)
    on {2,3}, J4 [3,4) on {2,3}, J5 [6,8) on {0,1}; Cmax = 8."""
    jobs = JobTable.from_arrays(
        submit=[0] * 5, run_time=[4, 2, 3, 1, 2], requested_time=[4, 2, 3, 1, 2], procs=[2, 4, 2, 2, 2]
    )
    instance = Instance(jobs, FatTree.flat(4))
    schedule = simulate(instance, Conservative(allocator=allocator))
    validate(instance, schedule)
    assert schedule.start.tolist() == [0, 4, 0, 3, 6]
    assert [ids(a) for a in schedule.alloc] == [[0, 1], [0, 1, 2, 3], [2, 3], [2, 3], [0, 1]]


def test_penalty_makes_beplat_faster_than_basic():
    """Levels [1,2,4,8]; job 0 holds {0} for 10 s, jobs 1 and 2 (size 2, 100 s, quadratic F = 2) come
    at 0: basic gives job 1 {1,2} (L = 2, 200 s) and job 2 {3,4} (L = 3, 400 s); beplat gives them
    {2,3} and {4,5} (L = 1, 100 s each)."""
    jobs = JobTable.from_arrays(
        submit=[0, 0, 0], run_time=[10, 100, 100], requested_time=[10, 500, 500], procs=[1, 2, 2]
    )
    tree = FatTree((1, 2, 4, 8))
    instance = Instance(jobs, tree, TopologyPenalty(tree, "quadratic", 2.0, jobs))
    ends = {}
    for allocator in ("basic", "beplat"):
        schedule = simulate(instance, Conservative(allocator=allocator))
        validate(instance, schedule)
        ends[allocator] = (schedule.end.tolist(), [ids(a) for a in schedule.alloc])
    assert ends["basic"] == ([10, 200, 400], [[0], [1, 2], [3, 4]])
    assert ends["beplat"] == ([10, 100, 100], [[0], [2, 3], [4, 5]])


def test_forced_refusal_moves_the_search_to_the_next_slice():
    """Algorithm 1 with processor sets (spec 4.1). m = 4, clusters of 2. J1 (1 proc, 0-2) gets {0},
    J2 (2 procs, 0-10) {1,2} under cont (the first run of 2). J3 (2 procs, 5 s, at t = 1): the
    slice starting at 2 has {0, 3} free for the window, not contiguous, so cont moves on to the
    slice at 10 ({0,1}); basic takes {0,3} at 2, and beloc too (two clusters either way)."""
    jobs = JobTable.from_arrays(submit=[0, 0, 1], run_time=[2, 10, 5], requested_time=[2, 10, 5], procs=[1, 2, 2])
    instance = Instance(jobs, FatTree.clusters(4, 2))
    expected = {
        "cont": ([0, 0, 10], [[0], [1, 2], [0, 1]]),
        "basic": ([0, 0, 2], [[0], [1, 2], [0, 3]]),
        "beloc": ([0, 0, 2], [[0], [2, 3], [0, 1]]),
        "loc": ([0, 0, 2], [[0], [2, 3], [0, 1]]),
    }
    for allocator, (starts, allocs) in expected.items():
        schedule = simulate(instance, Conservative(allocator=allocator))
        validate(instance, schedule)
        assert (schedule.start.tolist(), [ids(a) for a in schedule.alloc]) == (starts, allocs), allocator


# -- 2. properties -------------------------------------------------------------------


@st.composite
def trees_and_free_sets(draw):
    levels = [1]
    for f in draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)):
        levels.append(levels[-1] * f)
    ell = draw(st.integers(1, 4))
    k = levels[-1]
    m = draw(st.integers((k - 1) * ell + 1, k * ell))
    tree = FatTree(tuple(levels + [m]))
    free = sorted(draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=10)))
    size = draw(st.integers(1, len(free)))
    return tree, free, size


@given(trees_and_free_sets())
def test_allocators_against_brute_force(case):
    """Every allocator returns ``size`` free ids or (forced only) None; cont / loc / plat return None
    exactly when no subset meets their constraint; beloc uses the fewest clusters any subset uses;
    beplat reaches the lowest level any subset of the free ids reaches (spec 4.3)."""
    tree, free, size = case
    subsets = list(combinations(free, size)) if len(free) <= 10 else []
    best_level = min(tree.level(normalize((p, p + 1) for p in s)) for s in subsets)
    fewest_clusters = min(tree.clusters_used(normalize((p, p + 1) for p in s)) for s in subsets)
    for name in ALL:
        alloc = make_allocator(name, tree)(IntervalSet((p, p + 1) for p in free), size)
        kind = name.partition(":")[0]
        if alloc is None:
            assert kind in FORCED
            if kind == "cont":
                assert all(tree.blocks(normalize((p, p + 1) for p in s)) > 1 for s in subsets)
            if kind == "plat":
                assert best_level > tree.min_level(size)
            if kind == "loc":
                assert fewest_clusters > tree.min_clusters(size)
            continue
        chosen = ids(alloc)
        assert len(chosen) == size and set(chosen) <= set(free) and alloc == normalize(alloc)
        if kind == "cont":
            assert tree.blocks(alloc) == 1
        if kind == "loc":
            assert tree.is_local(alloc, size)
        if kind == "beloc":
            assert tree.clusters_used(alloc) == fewest_clusters
        if kind in ("beplat", "plat"):
            assert tree.level(alloc) == best_level
        if kind == "plat":
            assert tree.level(alloc) == tree.min_level(size)


@st.composite
def tree_instances(draw, kills=True):
    base = draw(rigid_instances(max_jobs=10, max_procs=8, kills=kills))
    m = base.platform.n_procs
    ell = draw(st.integers(1, m))
    k = -(-m // ell)
    levels = (1, k, m) if draw(st.booleans()) or k % 2 else (1, 2, k, m) if k > 2 else (1, k, m)
    return Instance(base.jobs, FatTree(levels))


class RecordingConservative(Conservative):
    def reset(self, ctx):
        super().reset(ctx)
        self.history = {}

    def _reserve(self, row, start, now):
        self.history.setdefault(row, []).append(start)
        super()._reserve(row, start, now)


@settings(max_examples=60)
@given(
    tree_instances(),
    st.sampled_from(ALL),
    st.sampled_from(["full", "start-now"]),
    st.sampled_from(["linear:1", "quadratic:2", None]),
)
def test_conservative_schedules_are_valid_and_reservations_never_move_later(instance, allocator, compress, penalty):
    """Every allocator and penalty: the validator (with the same model) accepts the schedule, no
    reservation ever moves later and each job starts at its last one."""
    instance = replace(instance, runtime=parse_penalty(penalty, instance.platform, instance.jobs))
    policy = RecordingConservative(allocator=allocator, compress=compress)
    schedule = simulate(instance, policy)
    validate(instance, schedule)
    for row, starts in policy.history.items():
        assert starts == sorted(starts, reverse=True)
        assert schedule.start[row] == starts[-1]
    shape = topology_metrics(instance, schedule)
    kind = allocator.partition(":")[0]
    if kind == "cont":
        assert shape["contiguity_factor"] == 1.0
    if kind == "loc":
        assert shape["locality_factor"] == 1.0
    if kind == "plat":
        assert shape["platform_level_factor"] == 1.0
        too_long = instance.jobs.run_time > instance.jobs.requested_time
        assert (schedule.status == JobStatus.KILLED).tolist() == too_long.tolist()  # no penalty failure


@settings(max_examples=60)
@given(tree_instances(), st.sampled_from(BEST_EFFORT), st.sampled_from(["full", "start-now"]))
def test_best_effort_allocators_keep_basic_start_times(instance, allocator, compress):
    """Spec 4.3 remark: on the same profile, best-effort variants never change a start time (no penalty)."""
    basic = simulate(instance, Conservative(compress=compress))
    other = simulate(instance, Conservative(allocator=allocator, compress=compress))
    assert other.start.tolist() == basic.start.tolist()


@settings(max_examples=60)
@given(tree_instances(), st.sampled_from(ALL))
def test_fcfs_and_easy_are_valid_with_every_allocator_and_a_penalty(instance, allocator):
    """FCFS and EASY accept every allocator; their schedules pass the validator with the same model."""
    instance = replace(instance, runtime=TopologyPenalty(instance.platform, "quadratic", 2.0, instance.jobs))
    for policy in (FCFS(allocator=allocator), EASY(allocator=allocator)):
        schedule = simulate(instance, policy)
        validate(instance, schedule)


@settings(max_examples=60)
@given(rigid_instances(max_jobs=10, max_procs=8), st.sampled_from(["fcfs", "easy", "conservative"]))
def test_one_cluster_makes_basic_beloc_and_beplat_coincide(instance, policy):
    """Spec 8 invariant: with levels [1, m], basic, beloc and beplat give the same schedule."""
    flat = Instance(instance.jobs, FatTree.flat(instance.platform.n_procs))
    schedules = [simulate(flat, make_policy(policy, {"allocator": a})) for a in ("basic", "beloc", "beplat")]
    for other in schedules[1:]:
        assert np.array_equal(other.start, schedules[0].start)
        assert other.alloc == schedules[0].alloc


@settings(max_examples=40)
@given(rigid_instances(max_jobs=10, max_procs=8), st.sampled_from(["fcfs", "easy", "conservative"]))
def test_basic_allocator_on_a_machine_is_todays_schedule(instance, policy):
    """allocator="basic" given explicitly is the default path, byte for byte (same start, alloc, status)."""
    a = simulate(instance, make_policy(policy))
    b = simulate(instance, make_policy(policy, {"allocator": "basic"}))
    assert np.array_equal(a.start, b.start) and a.alloc == b.alloc and a.policy == b.policy


def test_topology_metrics_on_the_theorem_2_instance():
    """basic on spec 8.1: J2 on {2,3} spans clusters 0 and 1 (non-local, L = 2 > L_min = 1)."""
    instance = thm2_instance()
    metrics = topology_metrics(instance, simulate(instance, Conservative()))
    assert metrics["n_contiguous"] == 3 and metrics["n_local"] == 2 and metrics["n_min_level"] == 2
    assert metrics["contiguity_factor"] == 1.0
    assert metrics["locality_factor"] == pytest.approx(4 / 3)
    assert metrics["locality_ratio"] == pytest.approx(4 / 3)
    assert metrics["platform_level_factor"] == pytest.approx(4 / 3)
    assert metrics["success_rate"] == 1.0 and metrics["sum_flow"] == 3.0
    assert metrics["sum_stretch"] == pytest.approx(0.3)


# -- command line ---------------------------------------------------------------------


def test_simulate_command_with_allocator_platform_and_penalty(data_dir):
    """`schedlab simulate --allocator --platform --penalty` records them and adds the topology metrics."""
    import json

    from typer.testing import CliRunner

    from schedlab.cli import app

    result = CliRunner().invoke(
        app,
        [
            "simulate",
            str(data_dir / "tiny.swf"),
            "--policy",
            "conservative",
            "--allocator",
            "beplat",
            "--platform",
            "fat-tree:1,2,4,16",
            "--penalty",
            "quadratic:2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert metrics["run"]["policy"] == "conservative(order=fcfs, compress=full, allocator=beplat)"
    assert metrics["run"]["platform"] == "fat-tree:1,2,4,16" and metrics["run"]["penalty"] == "quadratic:2"
    assert metrics["platform_level_factor"] == 1.0 and metrics["n_jobs"] == 3


@pytest.mark.parametrize(
    "args, message",
    [
        (["--allocator", "nearest"], "allocator = nearest, expected one of basic"),
        (["--platform", "fat-tree:1,2,3,12"], "2 does not divide 3"),
        (["--penalty", "quadratic:2"], "expected a --platform"),
        (["--platform", "fat-tree:1,2,4,16", "--penalty", "cubic:3"], "--penalty = cubic:3"),
        (["--platform", "fat-tree:1,2,4,16", "--procs", "8"], "expected 8 processors"),
    ],
)
def test_simulate_command_rejects_bad_topology_options(data_dir, args, message):
    from typer.testing import CliRunner

    from schedlab.cli import app

    result = CliRunner().invoke(app, ["simulate", str(data_dir / "tiny.swf"), "--policy", "conservative", *args])
    assert result.exit_code == 1
    assert message in result.output


# -- 3. oracle: the processor-set profile against a slow model ----------------------


@settings(max_examples=80)
@given(
    st.integers(1, 8),
    st.lists(st.tuples(st.integers(1, 4), st.integers(1, 8)), max_size=8),
    st.sampled_from(["basic", "cont"]),
)
def test_set_profile_find_matches_a_time_step_model(m, jobs, allocator):
    """Reserve jobs one by one where SetProfile.find puts them, then check against a per-time-unit
    table of busy ids: the ids were free for the whole window, and no earlier integer start had
    a set of free ids the allocator accepts (slice starts are integers here)."""
    allocate, fits = make_allocator(allocator, FatTree.flat(m)), make_fit_test(allocator, FatTree.flat(m))
    profile = SetProfile(m, 0.0)
    busy = [set() for _ in range(100)]
    for d, k in jobs:
        k = min(k, m)
        start, alloc = profile.find(k, d, allocate, fits)
        s = int(start)
        for earlier in range(s):
            free = sorted(set(range(m)) - set().union(*busy[earlier : earlier + d]))
            assert len(free) < k or allocate(IntervalSet((p, p + 1) for p in free), k) is None
        chosen = set(ids(alloc))
        for t in range(s, s + d):
            assert not busy[t] & chosen
            busy[t] |= chosen
        profile.reserve(start, start + d, alloc)


# -- 4. the fit tests and the set profile's search against the literal Algorithm 1 ----------


@st.composite
def trees_and_masks(draw):
    """A fat tree of up to 180 processors (clusters of 1 to 20 ids, whole bytes included), a free set, a size."""
    levels = [1]
    for f in draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)):
        levels.append(levels[-1] * f)
    ell = draw(st.sampled_from([1, 2, 3, 5, 8, 16, 20]))
    k = levels[-1]
    m = draw(st.integers((k - 1) * ell + 1, k * ell))
    tree = FatTree(tuple(levels + [m]))
    mask = draw(st.integers(1, (1 << m) - 1))
    return tree, mask, draw(st.integers(1, mask.bit_count()))


@settings(max_examples=300)
@given(trees_and_masks())
def test_fit_tests_answer_as_the_allocators_do(case):
    """For every forced allocator, ``fits(mask, size)`` is True exactly when the allocator returns
    an allocation of the same set; best-effort ones have no fit test (they accept every set)."""
    tree, mask, size = case
    free = IntervalSet.from_mask(mask)
    assert free.size == mask.bit_count() and mask_of(free.ranges()) == mask
    for name in ALL:
        fits = make_fit_test(name, tree)
        if name.partition(":")[0] not in FORCED:
            assert fits is None
            continue
        assert fits(mask, size) == (make_allocator(name, tree)(free, size) is not None), name


def literal_find(profile: SetProfile, procs, duration, allocate, stop=None):
    """Algorithm 1 word for word: for each slice start in order, the ids free in every slice of the
    window (Python sets), and the allocator on them; no shortcut."""
    times = profile.times
    for i in range(len(times) if stop is None else stop):
        window = set(ids(profile.free_set(i).ranges()))
        j = i + 1
        while j < len(times) and times[j] < times[i] + duration:
            window &= set(ids(profile.free_set(j).ranges()))
            j += 1
        if len(window) >= procs:
            alloc = allocate(IntervalSet((p, p + 1) for p in window), procs)
            if alloc is not None:
                return times[i], alloc
    return INF, None


class LiteralSetProfile(SetProfile):
    """The oracle: :func:`literal_find`; a job's own reservation is released for the search and taken
    back, as conservative backfilling did before the search learnt to ignore it."""

    __slots__ = ()

    def find(self, procs, duration, allocate, fits=None, stop=None, own=None):
        if own is not None:
            self.release(own[0], own[0] + duration, own[1])  # the breakpoints before own[0] stay: same stop
        found = literal_find(self, procs, duration, allocate, stop)
        if own is not None:
            self.reserve(own[0], own[0] + duration, own[1])
        return found


class AskEveryJob(Conservative):
    """The set compression asking every waiting job its own question (no refusal shared between jobs of the
    same size and estimate): the reference of that sharing."""

    def _compress_sets(self, sets, now):
        for r in self.reserved:
            row = self.row_of_rank[r]
            old, d, mine = self.res_start[row], self.estimate[row], self.res_alloc[row]
            if old <= now:
                continue
            now_only = self.compress == "start-now"
            new, alloc = sets.earlier(self.procs[row], d, self._allocate, self._fits, old, mine, now_only)
            if new < old:
                sets.release(old, old + d, mine)
                self.res_alloc[row] = alloc
                self._reserve(row, new, now)


@st.composite
def repeated_jobs(draw):
    """A fat tree and up to 16 jobs of at most 3 (size, estimate) kinds, ending early often: queues of
    identical jobs, each early end a compression pass."""
    tree = draw(tree_instances()).platform
    n = draw(st.integers(2, 16))
    kinds = draw(st.lists(st.tuples(st.integers(1, tree.n_procs), st.integers(2, 12)), min_size=1, max_size=3))
    chosen = [kinds[i] for i in draw(st.lists(st.integers(0, len(kinds) - 1), min_size=n, max_size=n))]
    jobs = JobTable.from_arrays(
        submit=draw(st.lists(st.integers(0, 10), min_size=n, max_size=n)),
        run_time=[draw(st.integers(1, d)) for _, d in chosen],
        requested_time=[d for _, d in chosen],
        procs=[k for k, _ in chosen],
        id=list(range(1, n + 1)),
    )
    return Instance(jobs, tree)


@settings(max_examples=80, deadline=None)
@given(repeated_jobs(), st.sampled_from(sorted(FORCED)), st.sampled_from(["auto", "python"]))
def test_start_now_refusals_shared_by_identical_jobs_change_no_schedule(instance, allocator, engine):
    """With ``start-now``, a refusal is shared by the waiting jobs of the same size and estimate whose window
    from now misses their own reservation, until a job moves: the same starts and processors as asking
    every job, on the compiled and the Python set profile."""
    params = {"allocator": allocator, "compress": "start-now"}
    fast = simulate(instance, Conservative(**params), engine=engine)
    slow = simulate(instance, AskEveryJob(**params), engine=engine)
    validate(instance, fast)
    assert fast.start.tolist() == slow.start.tolist()
    assert [ids(a) for a in fast.alloc] == [ids(a) for a in slow.alloc]


class LiteralConservative(Conservative):
    def reset(self, ctx):
        super().reset(ctx)
        self._sets = LiteralSetProfile(ctx.n_procs, 0.0)


@settings(max_examples=80, deadline=None)
@given(
    tree_instances(),
    st.sampled_from([a for a in ALL if a.partition(":")[0] in FORCED] + ["basic", "beloc"]),
    st.sampled_from(["full", "start-now"]),
    st.sampled_from(["auto", "python"]),
)
def test_set_profile_search_gives_the_literal_algorithm_1_schedule(instance, allocator, compress, engine):
    """Conservative backfilling on processor sets (forced allocators; ``profile="sets"`` for the
    others) gives the same starts and processors as with the literal Algorithm 1 search, on the
    compiled set profile and on the Python one (``engine="python"``)."""
    params = {"allocator": allocator, "compress": compress, "profile": "sets"}
    policy = Conservative(**params)
    fast = simulate(instance, policy, engine=engine)
    assert isinstance(policy._sets, SetProfile if engine == "python" else CompiledSetProfile)
    slow = simulate(instance, LiteralConservative(**params))
    validate(instance, fast)
    assert fast.start.tolist() == slow.start.tolist()
    assert [ids(a) for a in fast.alloc] == [ids(a) for a in slow.alloc]
