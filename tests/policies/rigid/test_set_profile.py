"""The compiled set profile (Rust ``MaskProfile``) against the Python :class:`SetProfile`, its reference.

Conservative backfilling with forced allocators runs on the compiled one; the Python one is
held to the literal Algorithm 1 in test_allocators.py. Here both take the same random
sequences of searches, reservations, early releases, moves (``own`` and ``stop``) and trims,
and must answer alike at every step, the compiled one with per-cluster counts (its searches
for ``loc`` and ``plat`` bounded by them) or without.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.platform.intervals import IntervalSet
from schedlab.platform.tree import FatTree
from schedlab.policies.rigid import profile as profile_module
from schedlab.policies.rigid.allocators import make_allocator, make_fit_rule, make_fit_test
from schedlab.policies.rigid.profile import INF, CompiledSetProfile, SetProfile

pytestmark = pytest.mark.skipif(profile_module._core is None, reason="the compiled core is not built")

TREES = [
    (1, 64),
    (1, 2, 128),
    (1, 2, 130),
    (1, 3, 70),
    (1, 2, 4, 200),
    (1, 2, 6, 192),
    (1, 2, 8, 1024),
]
SPECS = ["basic", "cont", "cont:best_fit", "loc", "plat", "plat:worst_fit"]


def lowest(free: IntervalSet, size: int):
    return free.first(size)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(TREES),
    st.sampled_from(SPECS),
    st.booleans(),
    st.lists(
        st.tuples(
            st.sampled_from(["place", "place", "move", "end", "trim"]),
            st.floats(0.01, 1.0),
            st.integers(1, 12),
            st.integers(0, 1000),
        ),
        max_size=30,
    ),
)
def test_compiled_profile_answers_as_the_python_one(levels, spec, counted, steps):
    tree = FatTree(levels)
    m = tree.n_procs
    allocate = lowest if spec == "basic" else make_allocator(spec, tree)
    fits = None if spec == "basic" else make_fit_test(spec, tree)
    rule = make_fit_rule(spec, tree)
    py, native = SetProfile(m, 0.0), CompiledSetProfile(m, 0.0, tree.cluster_size if counted else 0)
    held: list[tuple[float, float, tuple]] = []  # (start, end, alloc) reserved in both
    now = 0.0
    for what, share, length, pick in steps:
        size = max(1, int(share * m))
        if what == "place":
            found = py.find(size, float(length), allocate, fits)
            assert native.find(size, float(length), allocate, rule) == found
            assert found[0] < INF  # the last slice frees every processor
            py.reserve(found[0], found[0] + length, found[1])
            native.reserve(found[0], found[0] + length, found[1])
            held.append((found[0], found[0] + length, found[1]))
        elif what == "move" and held:
            # a reservation looks for an earlier start, its own ids free for it (conservative's compression)
            start, end, alloc = held[pick % len(held)]
            if start <= now:
                continue
            k, d, stop = sum(hi - lo for lo, hi in alloc), end - start, py.index(start)
            assert native.index(start) == stop and native.max_size(stop) == py.max_size(stop)
            assert native.earliest_count(k, d, stop) == py.earliest_count(k, d, stop)
            found = py.find(k, d, allocate, fits, stop=stop, own=(start, alloc))
            assert native.find(k, d, allocate, rule, stop=stop, own=(start, alloc)) == found
            for now_only in (False, True):  # the compression's question in one call: counts, then find
                earlier = py.earlier(k, d, allocate, fits, start, alloc, now_only)
                assert native.earlier(k, d, allocate, rule, start, alloc, now_only) == earlier
                if not now_only:
                    counted_out = py.max_size(stop) < k or py.earliest_count(k, d, stop) >= start
                    assert earlier == ((INF, None) if counted_out else found)
            if found[0] < start:  # it moves there
                for profile in (py, native):
                    profile.release(start, end, alloc)
                    profile.reserve(found[0], found[0] + d, found[1])
                held[pick % len(held)] = (found[0], found[0] + d, found[1])
        elif what == "end" and held:
            # a job ends early: its ids come back from now on
            start, end, alloc = held.pop(pick % len(held))
            lo = max(start, now)
            if lo < end:
                py.release(lo, end, alloc)
                native.release(lo, end, alloc)
        elif what == "trim":
            now += length / 4
            py.trim(now)
            native.trim(now)
            held = [h for h in held if h[1] > now]
        assert native.times == py.times and native.sizes == py.sizes
        assert [native.free_set(i).ranges() for i in range(len(py.times))] == [
            py.free_set(i).ranges() for i in range(len(py.times))
        ]


@pytest.mark.parametrize(
    "free, size, expected",
    [
        ((112, 128), 16, 0.0),  # a run ending at the machine's last id, the top bit of the last word
        ((112, 128), 17, 5.0),
        ((60, 70), 10, 0.0),  # a run across two words
    ],
)
def test_compiled_cont_finds_runs_at_word_edges(free, size, expected):
    """m = 128: every id but ``free`` is taken over [0, 5); ``cont`` finds a run of ``size`` in it
    at 0, else waits for the whole machine at 5."""
    tree = FatTree.flat(128)
    profile = CompiledSetProfile(128, 0.0)
    profile.reserve(0.0, 5.0, tuple(r for r in ((0, free[0]), (free[1], 128)) if r[0] < r[1]))
    start, alloc = profile.find(size, 3.0, make_allocator("cont", tree), make_fit_rule("cont", tree))
    assert start == expected
    assert alloc == ((free[0], free[0] + size),) if expected == 0.0 else ((0, size),)


@pytest.mark.parametrize("counted", [False, True])
@pytest.mark.parametrize(
    "spec, size, expected",
    [
        ("loc", 64, 1.0),  # at 0 cluster 0 holds 64 free ids in each slice, none in both
        ("plat", 64, 1.0),  # the same node (a cluster)
        ("loc", 32, 0.0),  # ids 128..160 are free in both
        ("loc", 65, 2.0),  # no cluster holds 65 before 2
    ],
)
def test_compiled_search_counts_sets_where_cluster_bounds_pass(counted, spec, size, expected):
    """m = 256, clusters of 128 (fat tree (1, 2, 256)), windows of 2. Over [0, 1) ids 0..64 and 128..192
    are free, over [1, 2) ids 64..160: the window at 0 has cluster counts at least (64, 32) in each
    slice, which bound it, but holds only ids 128..160; the window at 1 holds 64..160."""
    tree = FatTree((1, 2, 256))
    profile = CompiledSetProfile(256, 0.0, tree.cluster_size if counted else 0)
    profile.reserve(0.0, 1.0, ((64, 128), (192, 256)))
    profile.reserve(1.0, 2.0, ((0, 64), (160, 256)))
    start, alloc = profile.find(size, 2.0, make_allocator(spec, tree), make_fit_rule(spec, tree))
    assert start == expected
    reference = SetProfile(256, 0.0)
    reference.reserve(0.0, 1.0, ((64, 128), (192, 256)))
    reference.reserve(1.0, 2.0, ((0, 64), (160, 256)))
    assert reference.find(size, 2.0, make_allocator(spec, tree), make_fit_test(spec, tree)) == (start, alloc)
