"""Shape of an allocation: the binary constraints and the extrinsic metrics of the thesis.

Source: Bleuse (2017), PhD thesis, section 4.2: Def. 4.3 (connectivity), 4.4
(convexity), 4.5 (contiguity), 4.6 (locality), 4.7 (gamma-compacity), 4.8
(rho-proximity); Prop. 4.1 (convex implies connected), 5.1 and 5.2 (on a line,
connected = convex = contiguous).

Every function takes a *topology*: an :class:`~schedlab.platform.io.IOPlatform`
(line or ring) or a :class:`Grid2D` (a 2-D mesh or torus with dimension-order
routing, for the thesis's figures), and node ids; the I/O nodes of an
allocation are the ids among them that the topology marks as I/O.

Cost: ``compacity`` O(q^2), ``proximity`` O(q |io|); the binary constraints
O(q + |V^IO|) on a line or ring, O(q^2 * path length) for ``convex`` on a grid.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from schedlab.platform.io import IOPlatform

__all__ = ["Grid2D", "compacity", "connected", "contiguous", "convex", "local", "proximity"]


@dataclass(frozen=True, eq=False)
class Grid2D:
    """A ``cols x rows`` mesh (or torus) of nodes ``x + y cols``, dimension-order (x then y) routing.

    Used to check the thesis's figure values (section 4.2, a 2-D torus); the
    I/O nodes are the ids in ``io``.
    """

    cols: int
    rows: int
    torus: bool = True
    io: frozenset = frozenset()
    is_io: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        is_io = np.zeros(self.cols * self.rows, dtype=bool)
        is_io[list(self.io)] = True
        object.__setattr__(self, "is_io", is_io)

    @property
    def m(self) -> int:
        return self.cols * self.rows

    def _axis(self, a: int, b: int, size: int) -> tuple[int, int]:
        """(signed step, hops) from a to b along one axis."""
        d = (b - a) % size if self.torus else b - a
        if self.torus and d > size - d:
            return -1, size - d
        return (1 if d >= 0 else -1), abs(d)

    def dist(self, i: int, j: int) -> int:
        (xi, yi), (xj, yj) = divmod(i, self.cols)[::-1], divmod(j, self.cols)[::-1]
        return self._axis(xi, xj, self.cols)[1] + self._axis(yi, yj, self.rows)[1]

    def neighbours(self, i: int) -> tuple[int, ...]:
        y, x = divmod(i, self.cols)
        out = set()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nx, ny = x + dx, y + dy
            if self.torus:
                nx, ny = nx % self.cols, ny % self.rows
            if 0 <= nx < self.cols and 0 <= ny < self.rows and (nx, ny) != (x, y):
                out.add(nx + ny * self.cols)
        return tuple(sorted(out))

    def route(self, i: int, j: int) -> list[int]:
        """Dimension-order routing: along x first, then y, each the short way round (ties: increasing)."""
        y, x = divmod(i, self.cols)
        yj, xj = divmod(j, self.cols)
        path = [i]
        step, hops = self._axis(x, xj, self.cols)
        for _ in range(hops):
            x = (x + step) % self.cols if self.torus else x + step
            path.append(x + y * self.cols)
        step, hops = self._axis(y, yj, self.rows)
        for _ in range(hops):
            y = (y + step) % self.rows if self.torus else y + step
            path.append(x + y * self.cols)
        return path


def _split(topo, nodes: Iterable[int]) -> tuple[list[int], list[int]]:
    nodes = sorted(set(int(v) for v in nodes))
    return [v for v in nodes if not topo.is_io[v]], [v for v in nodes if topo.is_io[v]]


def connected(topo, nodes: Iterable[int]) -> bool:
    """Def. 4.3: some set of I/O nodes makes the allocation's compute nodes connected.

    Equivalently, all its compute nodes lie in one component of the graph
    induced by them and every I/O node of the platform (I/O nodes may bridge).
    An allocation without compute node is connected.
    """
    comp, _ = _split(topo, nodes)
    if not comp:
        return True
    inside = set(comp)
    seen, todo = {comp[0]}, deque([comp[0]])
    while todo:
        v = todo.popleft()
        for u in topo.neighbours(v):
            if u not in seen and (u in inside or topo.is_io[u]):
                seen.add(u)
                todo.append(u)
    return inside <= seen


def _cyclic_run(ranks: list[int], m_c: int) -> tuple[int, int] | None:
    """(first rank, length) when sorted ``ranks`` form one run modulo ``m_c``, else None."""
    k = len(ranks)
    if k == m_c:
        return ranks[0], k
    gaps = [b - a for a, b in zip(ranks, ranks[1:])] + [ranks[0] + m_c - ranks[-1]]
    breaks = [i for i, g in enumerate(gaps) if g != 1]
    if len(breaks) != 1:
        return None
    return ranks[(breaks[0] + 1) % k], k


def convex(topo, nodes: Iterable[int]) -> bool:
    """Def. 4.4 as routing closure (ambiguity A16): every route between two compute nodes of the allocation
    passes through no other compute node; I/O nodes on those routes are bridges.

    On a line the route is the unique path, so this is "the compute nodes are
    consecutive in compute order". On a ring with ``routing = "arc"`` the
    allocation routes along its own arc: its compute nodes must be one
    cyclic run; with ``routing = "shortest"`` that run must also span at most
    ``m // 2`` hops (or hold every compute node; ambiguity A9).
    """
    comp, _ = _split(topo, nodes)
    if len(comp) <= 1:
        return True
    if isinstance(topo, IOPlatform):
        ranks = sorted(int(topo.rank[v]) for v in comp)
        if not topo.ring:
            return ranks[-1] - ranks[0] == len(ranks) - 1
        run = _cyclic_run(ranks, topo.m_c)
        if run is None:
            return False
        if topo.routing == "arc" or len(comp) == topo.m_c:
            return True
        first, size = run
        last = first + size - 1
        span = (int(topo.compute[last % topo.m_c]) + (last // topo.m_c) * topo.m) - int(topo.compute[first])
        return span <= topo.m // 2
    inside = set(comp)
    for a in comp:
        for b in comp:
            if a != b and any(not topo.is_io[v] and v not in inside for v in topo.route(a, b)):
                return False
    return True


def contiguous(topo, nodes: Iterable[int]) -> bool:
    """Def. 4.5 on the node ordering 0, 1, 2, ...: the compute nodes of the allocation are consecutive among
    the compute nodes in that order (I/O nodes do not break a range; a run wrapping past the last id does)."""
    comp, _ = _split(topo, nodes)
    if len(comp) <= 1:
        return True
    if isinstance(topo, IOPlatform):
        ranks = [int(topo.rank[v]) for v in comp]
        return ranks[-1] - ranks[0] == len(ranks) - 1
    order = np.flatnonzero(~topo.is_io)
    pos = np.searchsorted(order, comp)
    return int(pos[-1] - pos[0]) == len(comp) - 1


def local(topo, nodes: Iterable[int], io: Iterable[int] | None = None) -> bool:
    """Def. 4.6: connected, and every I/O node the job uses is adjacent to one of its compute nodes.

    ``io`` defaults to the I/O nodes among ``nodes``; pass the job's targeted
    ones when the allocation also holds bridges.
    """
    comp, io_in = _split(topo, nodes)
    targets = io_in if io is None else sorted(set(int(v) for v in io))
    if not connected(topo, nodes):
        return False
    inside = set(comp)
    return all(any(u in inside for u in topo.neighbours(s)) for s in targets)


def compacity(topo, compute_nodes: Iterable[int]) -> float:
    """Def. 4.7: mean distance over ordered pairs of distinct compute nodes, ``sum dist / (q (q - 1))``.

    0 for a single node, where the definition divides by zero (ambiguity A12).
    """
    comp = sorted(set(int(v) for v in compute_nodes))
    q = len(comp)
    if q <= 1:
        return 0.0
    if isinstance(topo, IOPlatform):
        a = np.asarray(comp)
        d = np.abs(a[:, None] - a[None, :])
        if topo.ring:
            d = np.minimum(d, topo.m - d)
        total = int(d.sum())
    else:
        total = sum(topo.dist(a, b) for a in comp for b in comp)
    return total / (q * (q - 1))


def proximity(topo, compute_nodes: Iterable[int], io_nodes: Iterable[int]) -> float | None:
    """Def. 4.8: ``max over the job's I/O nodes i of (min_c dist(i, c) + max_c dist(i, c)) / q``.

    None without I/O node (ambiguity A12).
    """
    comp = sorted(set(int(v) for v in compute_nodes))
    io = sorted(set(int(v) for v in io_nodes))
    if not io or not comp:
        return None
    best = 0.0
    for s in io:
        d = [topo.dist(s, c) for c in comp]
        best = max(best, (min(d) + max(d)) / len(comp))
    return best
