"""NFDH + list scheduling: an offline contiguous and local schedule within 2A/m + p_max (Theorem 4).

Source: Mendonca (2017), ch.4 section 4.4, Theorem 4 (the algorithm of its
proof, an offline baseline and test oracle for the allocators).

Every job becomes a rectangle of width ``size_j`` (processors) and height
``p_j``; Next-Fit Decreasing Height packs them, tallest first, into batches of
total width at most the cluster size l; List Scheduling then runs the batches,
in order, each on the cluster that frees first (lowest index on ties). The jobs
of a batch sit side by side in one cluster, so every job is contiguous and local.

Guarantee: makespan <= 2A/m + p_max <= 3 max(A/m, p_max) <= 3 OPT, with
A = sum p_j size_j, on k equal clusters of l processors (m = k l), every
size_j <= l and every release at 0 (tested on random instances).
Cost: O(n log n + n log k).
"""

from __future__ import annotations

import heapq

import numpy as np

from schedlab.errors import InputError
from schedlab.schedule import Instance, JobStatus, Schedule


def nfdh_local(instance: Instance) -> Schedule:
    """Schedule ``instance`` (released at 0, on a :class:`~schedlab.platform.tree.FatTree` of equal clusters)
    by NFDH batches and list scheduling over the clusters (Theorem 4).

    Raises
    ------
    InputError
        A release after 0, a platform that is not a fat tree of equal clusters, or a job wider than a cluster.
    """
    jobs, tree = instance.jobs, getattr(instance.platform, "tree", None)
    if tree is None or tree.n_procs % tree.cluster_size:
        raise InputError(
            "nfdh", field="platform", value=instance.platform.name, expected="a fat tree of equal clusters"
        )
    if np.any(jobs.submit != 0):
        raise InputError(
            jobs.source, field="submit", value=float(np.max(jobs.submit)), expected="0 for every job (offline)"
        )
    ell = tree.cluster_size
    if np.any(jobs.procs > ell):
        raise InputError(
            jobs.source, field="processors", value=int(np.max(jobs.procs)), expected=f"at most the cluster size {ell}"
        )
    p = np.minimum(jobs.run_time, jobs.requested_time)
    order = np.lexsort((jobs.id, -p))  # tallest first, ties by id
    batches: list[list[int]] = []
    width = ell + 1
    for row in order.tolist():
        if width + int(jobs.procs[row]) > ell:
            batches.append([])
            width = 0
        batches[-1].append(row)
        width += int(jobs.procs[row])

    schedule = Schedule.empty(len(jobs), policy="nfdh-local")
    alloc = schedule.alloc
    assert isinstance(alloc, list)  # Schedule.empty's, filled in place
    free_at = [(0.0, c) for c in range(tree.n_clusters)]  # heap of (time the cluster frees, cluster)
    for batch in batches:
        start, cluster = heapq.heappop(free_at)
        lo = tree.cluster_range(cluster)[0]
        for row in batch:
            size = int(jobs.procs[row])
            schedule.start[row] = start
            schedule.end[row] = start + p[row]
            alloc[row] = ((lo, lo + size),)
            lo += size
        heapq.heappush(free_at, (start + float(p[batch[0]]), cluster))  # the batch's height: its first (tallest) job
    schedule.status[:] = np.where(jobs.run_time > jobs.requested_time, JobStatus.KILLED, JobStatus.COMPLETED)
    return schedule


__all__ = ["nfdh_local"]
