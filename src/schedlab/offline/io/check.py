"""Independent checker of I/O-aware schedules: every rule of the model, from the definitions.

Source: Bleuse (2017), PhD thesis, section 4.1 (rigid jobs, one job per
compute node at a time, shared or exclusive I/O), Def. 4.4 and 4.6 (convex and
local allocations) and Prop. 4.2 (at most as many local jobs on an I/O node at
once as it has compute neighbours).

It shares no code with the algorithms (no window enumeration, no footprint):
allocations are read as node sets and judged with :mod:`.shape`.
Cost: O(sum of allocation sizes * log) for the overlap sweeps.
"""

from __future__ import annotations

import numpy as np

from schedlab.errors import ValidationError
from schedlab.offline.io import shape
from schedlab.offline.io.schedule import IOSchedule
from schedlab.workload.io_jobs import IOInstance

__all__ = ["check_io_schedule"]


def _nodes(alloc, m: int, job: int) -> list[int]:
    nodes = []
    last = -1
    for lo, hi in alloc:
        if not (isinstance(lo, (int, np.integer)) and isinstance(hi, (int, np.integer)) and last < lo < hi <= m):
            raise ValidationError(f"job {job}: allocation {alloc} is not sorted disjoint ranges of 0..{m - 1}")
        nodes.extend(range(lo, hi))
        last = hi
    return nodes


def _inflated_size(inst: IOInstance, j: int) -> int | None:
    """Compute nodes strictly between the extreme pinned I/O nodes of job j on a line (None otherwise)."""
    request = inst.io[j]
    if isinstance(request, int) or len(request) < 2 or inst.platform.ring:
        return None
    a, c = request[0], request[-1]
    return int((~inst.platform.is_io[a + 1: c]).sum())


def check_io_schedule(inst: IOInstance, sched: IOSchedule, *, tol: float = 1e-9) -> None:
    """Raise :class:`~schedlab.errors.ValidationError` at the first broken rule.

    Rules: ``end = start + p`` with ``start >= 0``; each allocation holds ``q``
    compute nodes (or, for several pinned I/O nodes on a line with the
    ``inflate`` rule, all the compute nodes between the extreme ones when they
    outnumber ``q``), is convex and connected as a node set, and is local to the
    I/O nodes the job targets, which are its pinned ones or ``count`` of its
    choice; no compute node runs two jobs at once; with exclusive I/O, no I/O
    node of an allocation serves two jobs at once; Prop. 4.2 holds.
    """
    plat = inst.platform
    n = inst.n
    if len(sched.start) != n or len(sched.end) != n or len(sched.alloc) != n or len(sched.io) != n:
        raise ValidationError(f"schedule has {len(sched.start)} starts, {len(sched.alloc)} allocations for {n} jobs")
    start, end = np.asarray(sched.start, dtype=float), np.asarray(sched.end, dtype=float)
    if not np.all(np.isfinite(start)) or np.any(start < -tol):
        j = int(np.argmax(~np.isfinite(start) | (start < -tol)))
        raise ValidationError(f"job {inst.ids[j]}: start {start[j]} is not a time >= 0")
    wrong = np.abs(end - start - inst.p) > tol * np.maximum(1.0, inst.p)
    if wrong.any():
        j = int(np.argmax(wrong))
        raise ValidationError(f"job {inst.ids[j]}: runs {end[j] - start[j]}, its processing time is {inst.p[j]}")
    rows_c, rows_io, rows_target = [], [], []
    for j in range(n):
        jid = int(inst.ids[j])
        nodes = _nodes(sched.alloc[j], plat.m, jid)
        comp = [v for v in nodes if not plat.is_io[v]]
        io_in = [v for v in nodes if plat.is_io[v]]
        targets = sorted(set(int(v) for v in sched.io[j]))
        q = int(inst.q[j])
        inflated = _inflated_size(inst, j)
        if len(comp) != q and not (inst.inflate and inflated is not None and inflated > q and len(comp) == inflated):
            raise ValidationError(f"job {jid}: {len(comp)} compute nodes, it needs {q}")
        request = inst.io[j]
        if isinstance(request, int):
            if len(targets) != request:
                raise ValidationError(f"job {jid}: targets {len(targets)} I/O nodes, it asks for {request}")
        elif tuple(targets) != tuple(request):
            raise ValidationError(f"job {jid}: targets I/O nodes {targets}, it is pinned to {list(request)}")
        if not set(targets) <= set(io_in):
            raise ValidationError(f"job {jid}: targeted I/O nodes {targets} are not all in its allocation")
        if not _induced_connected(plat, nodes):
            raise ValidationError(f"job {jid}: allocation {sched.alloc[j]} is not connected")
        if not shape.convex(plat, comp):
            raise ValidationError(f"job {jid}: compute nodes {comp} are not convex on {plat.name}")
        if not shape.local(plat, comp, targets):
            raise ValidationError(f"job {jid}: I/O nodes {targets} are not all adjacent to its compute nodes")
        rows_c.append((j, comp))
        rows_io.append((j, io_in))
        rows_target.append((j, targets))
    _no_overlap(inst, start, end, rows_c, "compute node", None, tol)
    if plat.exclusive:
        _no_overlap(inst, start, end, rows_io, "exclusive I/O node", None, tol)
    degree = np.array([plat.compute_degree(v) for v in range(plat.m)])
    _no_overlap(inst, start, end, rows_target, "I/O node (Prop. 4.2)", degree, tol)


def _induced_connected(plat, nodes: list[int]) -> bool:
    inside = set(nodes)
    if not inside:
        return False
    seen, todo = {nodes[0]}, [nodes[0]]
    while todo:
        v = todo.pop()
        for u in plat.neighbours(v):
            if u in inside and u not in seen:
                seen.add(u)
                todo.append(u)
    return seen == inside


def _no_overlap(inst, start, end, rows, what: str, capacity, tol: float) -> None:
    """Per node, sweep the intervals of the jobs holding it; at most 1 (or ``capacity[node]``) at once."""
    node_list, s_list, e_list = [], [], []
    for j, nodes in rows:
        node_list.extend(nodes)
        s_list.extend([start[j]] * len(nodes))
        e_list.extend([end[j]] * len(nodes))
    if not node_list:
        return
    node = np.array(node_list)
    # events: +1 at start, -1 at end; ends within a rounding error of a start count before it (half-open)
    ends = np.array(e_list)
    t = np.concatenate([np.array(s_list), ends - tol * np.maximum(1.0, np.abs(ends))])
    delta = np.concatenate([np.ones(len(s_list), dtype=np.int64), -np.ones(len(e_list), dtype=np.int64)])
    nd = np.concatenate([node, node])
    order = np.lexsort((delta, t, nd))
    nd, delta = nd[order], delta[order]
    level = np.cumsum(delta)  # each node's events sum to 0, so the running total restarts at 0 per node
    limit = np.ones(len(level), dtype=np.int64) if capacity is None else capacity[nd]
    bad = level > limit
    if bad.any():
        i = int(np.argmax(bad))
        when = float(t[order][i])
        holders = sorted({int(inst.ids[j]) for j, nodes in rows
                          if int(nd[i]) in nodes and start[j] <= when < end[j]})
        raise ValidationError(f"{what} {int(nd[i])} is used by {int(level[i])} jobs at time {when} "
                              f"(jobs {holders}), at most {int(limit[i])}")

