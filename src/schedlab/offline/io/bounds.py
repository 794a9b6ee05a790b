"""Lower bounds on the optimal makespan of an I/O-aware instance.

Source: Bleuse (2017), PhD thesis: Prop. 4.2 (at any time an I/O node serves at
most as many local jobs as it has compute neighbours, 2 on a line or ring),
section 4.1 (an exclusive I/O node serves one job at a time), section 5.3.2
(``Lambda_LP <= OPT``); the area and longest-job bounds are the usual ones.

* ``area``: ``sum p_j q_j / m_c``;
* ``longest``: ``max p_j``;
* ``io``: the I/O nodes' capacity. Exclusive: ``max_k sum_{j pinned to k} p_j``
  and ``sum_j c_j p_j / m_IO`` (``c_j`` I/O nodes per job). Shared: the same
  divided by each I/O node's compute degree (its concurrency limit by Prop. 4.2);
* ``lp``: the dedication LP's optimum (all jobs pinned; see :mod:`.lp`).

Guarantee: each is at most OPT (``lower`` is their maximum).
Cost: O(n + m), plus one LP for ``lp``.
"""

from __future__ import annotations

from dataclasses import dataclass

from schedlab.offline.io.lp import solve_lp
from schedlab.workload.io_jobs import IOInstance

__all__ = ["IOBounds", "io_bounds"]


@dataclass(frozen=True, slots=True)
class IOBounds:
    lower: float
    area: float
    longest: float
    io: float
    lp: float | None

    @property
    def tight(self) -> str:
        """Name of the bound that gives ``lower`` (first of area, longest, io, lp on ties)."""
        for name in ("area", "longest", "io", "lp"):
            value = getattr(self, name)
            if value is not None and value >= self.lower - 1e-9 * max(1.0, self.lower):
                return name
        return "area"


def io_bounds(inst: IOInstance, *, lp: bool = True) -> IOBounds:
    """All lower bounds; ``lp=False`` skips the LP (it is solved only when every job is pinned)."""
    plat = inst.platform
    if inst.n == 0:
        return IOBounds(0.0, 0.0, 0.0, 0.0, 0.0 if lp else None)
    area = float((inst.p * inst.q).sum() / plat.m_c)
    longest = float(inst.p.max())
    degree = {int(s): (1 if plat.exclusive else plat.compute_degree(int(s))) for s in plat.io_nodes}
    per_node = {s: 0.0 for s in degree}
    for j, request in enumerate(inst.io):
        if not isinstance(request, int):
            for s in request:
                per_node[s] += float(inst.p[j])
    io = max((per_node[s] / degree[s] for s in degree if degree[s]), default=0.0)
    capacity = sum(degree.values())
    if capacity:
        io = max(io, float((inst.p * inst.io_count).sum()) / capacity)
    lp_value = None
    if lp and inst.pinned.all():
        lp_value = solve_lp(inst).value
    lower = max(area, longest, io, lp_value or 0.0)
    return IOBounds(lower, area, longest, io, lp_value)
