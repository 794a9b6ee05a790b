"""Exact optimal makespan of tiny hybrid instances by enumeration: the test oracle.

Source: schedlab's own test oracle (no paper gives one).
Guarantee: exact (non-contiguous CPU sets) for any instance; practical for
n <= 6, m <= 4, k <= 2.
Cost: O((m + k)^n) modes times O(n!) CPU orders (memoised by multiset) and
O(k^n) GPU assignments.
"""

from __future__ import annotations

import math
from functools import cache
from itertools import permutations

import numpy as np

from schedlab.offline.hybrid.schedule import hybrid_schedule
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = ["brute_force_opt"]

_Plan = tuple[list[tuple[float, int, int]], tuple[int, ...], list[tuple[float, int]], tuple[int, ...]]
"""A solution: CPU jobs as (time, l, task), their best order, GPU jobs as (time, task), each one's GPU."""


def _ssgs(jobs: tuple[tuple[float, int], ...], m: int) -> tuple[float, list[tuple[float, tuple[int, ...]]]]:
    """Serial schedule generation: each (time, l) job on the l earliest-free CPUs, in order.

    Over all orders this reaches a non-contiguous optimum: in the order of an
    optimal schedule's starts, every job starts no later than there.
    """
    avail = [0.0] * m
    placed = []
    for time, l in jobs:
        chosen = sorted(range(m), key=lambda c: (avail[c], c))[:l]
        start = max(avail[c] for c in chosen)
        for c in chosen:
            avail[c] = start + time
        placed.append((start, tuple(sorted(chosen))))
    return max(avail, default=0.0), placed


@cache
def _cpu_opt(jobs: tuple[tuple[float, int], ...], m: int) -> tuple[float, tuple[int, ...]]:
    """Best order of a multiset of rigid jobs (sorted tuple) on m CPUs: (makespan, order)."""
    best = math.inf
    best_order: tuple[int, ...] = ()
    seen = set()
    for order in permutations(range(len(jobs))):
        key = tuple(jobs[i] for i in order)
        if key in seen:
            continue
        seen.add(key)
        cmax, _ = _ssgs(key, m)
        if cmax < best:
            best, best_order = cmax, order
    return best, best_order


@cache
def _gpu_opt(times: tuple[float, ...], k: int) -> tuple[float, tuple[int, ...]]:
    """P||Cmax of sorted (decreasing) times on k GPUs by depth-first search: (makespan, gpu per job)."""
    best = math.inf
    best_assign: tuple[int, ...] = ()
    loads = [0.0] * k
    assign = [0] * len(times)

    def dfs(i: int, cur: float) -> None:
        nonlocal best, best_assign
        if cur >= best:
            return
        if i == len(times):
            best, best_assign = cur, tuple(assign)
            return
        tried = set()
        for g in range(k):
            if loads[g] in tried:  # identical GPUs: same load, same subtree
                continue
            tried.add(loads[g])
            loads[g] += times[i]
            assign[i] = g
            dfs(i + 1, max(cur, loads[g]))
            loads[g] -= times[i]

    dfs(0, 0.0)
    return best, best_assign


def brute_force_opt(instance: HybridInstance) -> tuple[float, Schedule]:
    """Optimal makespan and one optimal schedule (CPU sets possibly non-contiguous).

    Enumerates each task's mode (one GPU, or l CPUs for every allowed l),
    prunes with the area and longest-task bounds of the mode vector, and solves
    each side exactly.
    """
    n, m, k = instance.n, instance.m, instance.k
    gpu = instance.usable_gpu_time
    modes = []
    for j in range(n):
        options = [(0, float(gpu[j]))] if math.isfinite(gpu[j]) else []
        for l in range(1, int(instance.max_cpus[j]) + 1):
            t = float(instance.cpu_times[j, l - 1])
            if math.isfinite(t):
                options.append((l, t))
        options.sort(key=lambda o: o[1] * max(o[0], 1))
        modes.append(options)
    best = math.inf
    best_plan: _Plan | None = None
    choice: list[tuple[int, float]] = [(0, 0.0)] * n  # (l, time) per task, set by rec before it goes deeper

    def evaluate() -> None:
        nonlocal best, best_plan
        cpu_jobs = sorted((choice[j][1], choice[j][0], j) for j in range(n) if choice[j][0] > 0)
        gpu_jobs = sorted(((choice[j][1], j) for j in range(n) if choice[j][0] == 0), reverse=True)
        c_cmax, order = _cpu_opt(tuple((t, l) for t, l, _ in cpu_jobs), m) if cpu_jobs else (0.0, ())
        if c_cmax >= best:
            return
        g_cmax, gassign = _gpu_opt(tuple(t for t, _ in gpu_jobs), k) if gpu_jobs else (0.0, ())
        cmax = max(c_cmax, g_cmax)
        if cmax < best:
            best = cmax
            best_plan = (cpu_jobs, order, gpu_jobs, gassign)

    def rec(j: int, cpu_area: float, gpu_area: float, longest: float) -> None:
        bound = max(longest, cpu_area / m if m else 0.0, gpu_area / k if k else 0.0)
        if bound >= best:
            return
        if j == n:
            evaluate()
            return
        for l, t in modes[j]:
            choice[j] = (l, t)
            if l == 0:
                rec(j + 1, cpu_area, gpu_area + t, max(longest, t))
            else:
                rec(j + 1, cpu_area + l * t, gpu_area, max(longest, t))

    rec(0, 0.0, 0.0, 0.0)
    if best_plan is None:
        if n == 0:
            return 0.0, hybrid_schedule(instance, [], [], [], [], "brute-force")
        raise AssertionError("no mode vector found")  # every task has a mode (instance check)
    cpu_jobs, order, gpu_jobs, gassign = best_plan
    start, end = np.zeros(n), np.zeros(n)
    on_gpu = np.zeros(n, dtype=bool)
    resources: list[tuple[int, ...]] = [()] * n
    ordered = [cpu_jobs[i] for i in order]
    _, placed = _ssgs(tuple((t, l) for t, l, _ in ordered), m)
    for (t, _, j), (s, cpus) in zip(ordered, placed):
        start[j], end[j], resources[j] = s, s + t, cpus
    gload = [0.0] * k
    for (t, j), g in zip(gpu_jobs, gassign):
        start[j], end[j], on_gpu[j], resources[j] = gload[g], gload[g] + t, True, (g,)
        gload[g] += t
    return best, hybrid_schedule(instance, start, end, on_gpu, resources, "brute-force")
