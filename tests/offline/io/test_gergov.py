"""Gergov's algorithm (Bleuse 2017, Algorithm 3, Lemma 5.8, Theorem 5.10)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.offline.io.gergov import gergov, tight_instance


def max_load(low, high, p, M):
    load = np.zeros(M)
    for a, b, t in zip(low, high, p):
        load[a : b + 1] += t
    return load.max()


@pytest.mark.parametrize("M", range(2, 11))
def test_tight_instance_gives_3m_minus_2(M):
    """Theorem 5.10: load M everywhere (OPT = M), Gergov in index order 3M - 2 with 3 colours."""
    low, high, p, positions = tight_instance(M)
    assert positions == 3 * M + 1 and len(low) == 4 * M
    assert max_load(low, high, p, positions) == M
    load = np.zeros(positions)
    for a, b in zip(low, high):
        load[a : b + 1] += 1
    assert np.all(load == M)  # area M (3M + 1): no idle node in an optimum
    result = gergov(low, high, p, positions)
    assert result.makespan == 3 * M - 2
    assert result.height == M and result.n_colours == 3


@pytest.mark.parametrize("M", [2, 3, 5, 10])
def test_other_conventions_on_the_tight_instance(M):
    """A6: uncompressed shelves give 3M; colouring in placement order needs only 2 colours."""
    low, high, p, positions = tight_instance(M)
    assert gergov(low, high, p, positions, shelves="uncompressed").makespan == 3 * M
    placed = gergov(low, high, p, positions, colour_order="placement")
    assert placed.n_colours == 2 and placed.makespan <= 2 * M
    with pytest.raises(ValueError):
        gergov(low, high, p, positions, shelves="tall")


def test_fig_5_4_instance_m5_is_13():
    low, high, p, positions = tight_instance(5)
    assert gergov(low, high, p, positions).makespan == 13


def test_single_job_and_disjoint_jobs():
    r = gergov([2], [4], [3.0], 6)
    assert r.start.tolist() == [0.0] and r.makespan == 3.0
    r = gergov([0, 3, 0], [2, 5, 5], [2.0, 4.0, 1.0], 6)
    assert r.phase1.tolist() == [0.0, 0.0, 4.0] and r.n_colours == 1 and r.makespan == 5.0


@st.composite
def interval_jobs(draw):
    M = draw(st.integers(1, 16))
    n = draw(st.integers(1, 25))
    low, high = [], []
    for _ in range(n):
        a, b = sorted(draw(st.lists(st.integers(0, M - 1), min_size=2, max_size=2)))
        low.append(a)
        high.append(b)
    p = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    order = draw(st.permutations(range(n)))
    return np.array(low), np.array(high), np.array(p, dtype=float), M, np.array(order)


@given(interval_jobs(), st.sampled_from(["list", "placement"]), st.sampled_from(["compressed", "uncompressed"]))
def test_random_instances_keep_gergovs_invariants(case, colour_order, shelves):
    """Lemma 5.8: phase-1 height <= Lambda, no point covered 3 times, <= 3 colours, feasible, Cmax <= 3 Lambda."""
    low, high, p, M, order = case
    r = gergov(low, high, p, M, order, colour_order=colour_order, shelves=shelves)
    lam = max_load(low, high, p, M)
    assert r.height <= lam + 1e-9
    assert r.n_colours <= 3
    assert r.makespan <= 3 * lam + 1e-9
    n = len(p)
    for pos in range(M):
        on = [j for j in range(n) if low[j] <= pos <= high[j]]
        times = sorted({r.phase1[j] for j in on})
        for t in times:  # phase 1: at most 2 jobs over any (position, time)
            assert sum(1 for j in on if r.phase1[j] <= t < r.phase1[j] + p[j]) <= 2
        for a in on:  # final schedule: jobs sharing a position never overlap in time
            for b in on:
                if a < b:
                    assert r.start[a] + p[a] <= r.start[b] + 1e-9 or r.start[b] + p[b] <= r.start[a] + 1e-9
