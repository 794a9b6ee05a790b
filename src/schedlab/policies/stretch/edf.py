"""Earliest-deadline-first list scheduling of sequential tasks, and the validity tests of a target stretch.

Source: Saule, Bozdag and Catalyurek (2014), section 3.2 and Lemma 3.2.

Tasks are given in (release, id) order; with a target stretch S, task i has
deadline ``d_i = r_i + S p_i`` and EDF takes them by non-decreasing deadline
(a stable sort, so ties go by release, then id). List scheduling gives each
task, in that order, the processor that becomes available first.

Cost: O(n log n) for the sort and O(n log m) for the list schedule (a binary
heap of processor availabilities), compiled with numba.
"""

from __future__ import annotations

import numpy as np

from schedlab.policies.stretch.jit import njit

__all__ = ["VALIDITY_TESTS", "edf_order", "list_schedule", "meets_deadlines", "paper_test"]

VALIDITY_TESTS = ("exact", "paper")
TOLERANCE = 1e-9
"""Relative slack on deadline comparisons: S found by bisection times p may round an ulp short."""


@njit
def _sift_down(heap, n):
    """Restore the min-heap property of ``heap[:n]`` after its root was replaced."""
    i = 0
    x = heap[0]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and heap[c + 1] < heap[c]:
            c += 1
        if heap[c] < x:
            heap[i] = heap[c]
            i = c
        else:
            break
    heap[i] = x


@njit
def edf_order(release, p, stretch):
    """Indices of the tasks by non-decreasing deadline ``r + S p`` (stable: ties keep the input order)."""
    return np.argsort(release + stretch * p, kind="mergesort")


@njit
def list_schedule(avail, order, p):
    """Start times of the tasks taken in ``order``, each on the processor available first.

    ``avail`` holds each processor's availability (>= now); it is not modified.
    """
    heap = np.sort(avail)  # a sorted array is a min-heap
    n = heap.shape[0]
    start = np.empty(p.shape[0])
    for k in order:
        a = heap[0]
        start[k] = a
        heap[0] = a + p[k]
        _sift_down(heap, n)
    return start


@njit
def meets_deadlines(avail, release, p, stretch):
    """Exact test: does EDF with target ``stretch`` complete every task by its deadline? Stops at the first miss."""
    order = edf_order(release, p, stretch)
    heap = np.sort(avail)
    n = heap.shape[0]
    for k in order:
        end = heap[0] + p[k]
        deadline = release[k] + stretch * p[k]
        if end > deadline + TOLERANCE * max(1.0, abs(deadline)):
            return False
        heap[0] = end
        _sift_down(heap, n)
    return True


@njit
def paper_test(avail, now, release, p, stretch):
    """The paper's test (Lemma 3.2's necessary condition): in EDF order,
    ``d_i >= now + (sum_q (a_q - now) + sum_{i' <= i} p_i') / m`` for every task i."""
    order = edf_order(release, p, stretch)
    m = avail.shape[0]
    total = 0.0
    for a in avail:
        total += a - now
    for k in order:
        total += p[k]
        deadline = release[k] + stretch * p[k]
        if deadline + TOLERANCE * max(1.0, abs(deadline)) < now + total / m:
            return False
    return True
