"""The queue tree, the running-jobs order and the profile against obvious slow versions."""

from __future__ import annotations

from bisect import bisect_left

from hypothesis import given
from hypothesis import strategies as st

from schedlab.policies.rigid.profile import INF, Profile
from schedlab.policies.rigid.queue import RankQueue
from schedlab.policies.rigid.running import RunningByEnd

ops = st.lists(st.tuples(st.integers(0, 300), st.integers(1, 16), st.integers(1, 50)), min_size=1, max_size=120)


@given(
    ops=ops,
    queries=st.lists(
        st.tuples(st.integers(0, 320), st.integers(0, 20), st.integers(0, 60), st.integers(-1, 20)), max_size=30
    ),
)
def test_rank_queue_first_matches_a_linear_scan(ops, queries):
    queue = RankQueue(4)
    model = {}
    for rank, procs, est in ops:
        if rank in model:
            queue.remove(rank)
            del model[rank]
        else:
            queue.push(rank, rank + 1000, procs, est)
            model[rank] = (procs, est)
        assert queue.count == len(model)
        assert queue.min_procs() == min((p for p, _ in model.values()), default=INF)
        for start, fit, deadline, small in queries:
            small = min(small, fit)  # the documented precondition
            expected = min(
                (r for r, (p, e) in model.items() if r >= start and (p <= small or (p <= fit and e <= deadline))),
                default=-1,
            )
            assert queue.first(start, fit, deadline, small) == expected
    for r in model:
        assert queue.row_at(r) == r + 1000


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 8)), min_size=1, max_size=300), st.integers(0, 8))
def test_running_by_end_reservation_matches_a_sorted_walk(entries, free):
    procs = [p for _, p in entries]
    running = RunningByEnd(procs)
    for row, (end, _) in enumerate(entries):
        running.add(float(end), row)
    for row in range(0, len(entries), 3):
        running.remove(float(entries[row][0]), row)
    alive = [(float(e), row) for row, (e, _) in enumerate(entries) if row % 3]
    assert running.keys() == sorted(alive)
    total = free + sum(procs[r] for _, r in alive)
    for need in range(1, total + 1, max(1, total // 7)):
        avail = free
        for end, row in sorted(alive):
            avail += procs[row]
            if avail >= need:
                shadow = end
                break
        else:
            continue
        extra = free + sum(procs[r] for e, r in alive if e <= shadow) - need
        if free >= need:
            continue  # not a blocked head: never asked
        assert running.reservation(need, free) == (shadow, extra)


@given(
    st.lists(st.tuples(st.integers(0, 20), st.integers(1, 10), st.integers(1, 4)), max_size=12),
    st.integers(1, 4),
    st.integers(1, 10),
)
def test_profile_earliest_matches_brute_force(reservations, procs, duration):
    n_procs = 4
    profile = Profile(n_procs, 0.0)
    usage = [0] * 60
    for start, length, k in reservations:
        if all(usage[t] + k <= n_procs for t in range(start, start + length)):
            profile.reserve(float(start), float(start + length), k)
            for t in range(start, start + length):
                usage[t] += k
    expected = next(t for t in range(60) if all(usage[u] + procs <= n_procs for u in range(t, min(60, t + duration))))
    assert profile.earliest(procs, float(duration)) == expected
    for t in range(40):
        assert profile.free_at(float(t)) == n_procs - usage[t]


@given(
    st.lists(st.tuples(st.integers(0, 20), st.integers(1, 10), st.integers(1, 4)), max_size=12),
    st.integers(1, 4),
    st.integers(1, 10),
    st.integers(1, 30),
)
def test_profile_earliest_before_a_reservation_matches_brute_force(reservations, procs, duration, own_start):
    """With ``stop``, starts are breakpoints before ``times[stop]`` and everything from there on counts as free
    (the caller's own reservation): the question a conservative reservation asks when it tries to move earlier."""
    n_procs = 4
    profile = Profile(n_procs, 0.0)
    usage = [0] * 60
    for start, length, k in reservations:
        if all(usage[t] + k <= n_procs for t in range(start, start + length)):
            profile.reserve(float(start), float(start + length), k)
            for t in range(start, start + length):
                usage[t] += k
    stop = bisect_left(profile.times, float(own_start))
    limit = profile.times[stop] if stop < len(profile.times) else float("inf")
    fits = [
        t
        for t in range(60)
        if t < limit and all(usage[u] + procs <= n_procs for u in range(t, min(t + duration, int(min(limit, 60)))))
    ]
    expected = fits[0] if fits else float("inf")
    assert profile.earliest(procs, float(duration), stop) == expected
