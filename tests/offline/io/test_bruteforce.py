"""Brute-force optimum: hand values, special cases of Bleuse (2017) section 3.6 (spec), and consistency."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings

from io_strategies import check, io_instances
from schedlab.offline.io.bounds import io_bounds
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.platform.io import parse_io_platform
from schedlab.workload.io_jobs import IOInstance


def test_single_exclusive_io_node_is_the_sum():
    """One exclusive I/O node: every job needs it, so 1||Cmax, OPT = sum p."""
    plat = parse_io_platform("line:layout=CCCICCC,mode=exclusive")
    inst = IOInstance.from_jobs(plat, [(2, 1, 1), (3, 2, (3,)), (1, 3, 1), (4, 1, (3,))])
    assert brute_force_opt(inst)[0] == 10.0
    shared = inst.with_platform(plat.with_mode("shared"))
    assert brute_force_opt(shared)[0] == 5.0  # both sides at once: {2 + 3, 1 + 4} after pairing


def test_pinned_exclusive_far_apart_is_per_node_sums():
    """delta > q_max, exclusive, pinned: OPT = max_k sum_{j -> k} p_j."""
    plat = parse_io_platform("line:m=12,io=3,mode=exclusive")
    jobs = [(2, 3, (0,)), (3, 2, (0,)), (4, 1, (4,)), (1, 3, (8,)), (2, 2, (8,))]
    inst = IOInstance.from_jobs(plat, jobs)
    assert brute_force_opt(inst)[0] == 5.0


def test_cap_answers_the_decision_question():
    inst = IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(1, 3, (4,))] * 3)
    assert brute_force_opt(inst)[0] == 2.0
    assert brute_force_opt(inst, cap=2.0)[0] == 2.0
    assert brute_force_opt(inst, cap=1.5) == (math.inf, None)


def by_orders(inst):
    """Independent slow optimum: every order and allocation, each job at its earliest conflict-free start
    with insertion into holes (any semi-active schedule), conflicts read from allocations as node sets."""
    from schedlab.offline.io.bruteforce import candidates

    plat = inst.platform
    cands = [candidates(inst, j) for j in range(inst.n)]

    def used(w):
        nodes = {v for lo, hi in w.alloc(plat) for v in range(lo, hi)}
        return nodes if plat.exclusive else {v for v in nodes if not plat.is_io[v]}

    best = math.inf
    for order in itertools.permutations(range(inst.n)):
        for choice in itertools.product(*(range(len(c)) for c in cands)):
            placed = []
            for j in order:
                nodes = used(cands[j][choice[j]])
                p = float(inst.p[j])
                times = sorted({0.0} | {e for _, e, n in placed})
                for t in times:
                    if all(not (nodes & n) or e <= t or t + p <= s for s, e, n in placed):
                        placed.append((t, t + p, nodes))
                        break
            best = min(best, max(e for _, e, _ in placed))
    return best


@settings(max_examples=25, deadline=None)
@given(io_instances(kind="mixed", max_jobs=3, max_p=4, max_m=7))
def test_matches_an_independent_enumeration(inst):
    opt, sched = brute_force_opt(inst)
    assert opt == by_orders(inst)
    check(inst, sched)
    assert sched.makespan == opt


@settings(max_examples=40, deadline=None)
@given(io_instances(kind="mixed", max_jobs=5, max_p=6, max_m=10))
def test_optimum_is_feasible_and_above_every_bound(inst):
    opt, sched = brute_force_opt(inst)
    check(inst, sched)
    b = io_bounds(inst, lp=False)
    assert b.area <= opt + 1e-9 and b.longest <= opt and b.io <= opt + 1e-9
    assert opt <= float(np.sum(inst.p))
