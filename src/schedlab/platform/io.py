"""Compute nodes and I/O nodes on a line or a ring: the platforms of I/O-aware allocation.

Source: Bleuse (2017), PhD thesis, section 4.1 (platform, separate I/O nodes,
shared or exclusive I/O access, Def. 4.1 distance) and section 5.1 (line and
ring topologies, I/O nodes uniformly spread).

Nodes are ``0 .. m-1`` in line order; node ``i`` is adjacent to ``i - 1`` and
``i + 1``, and on a ring ``m - 1`` is adjacent to ``0`` too. Every node is
either a compute node or an I/O node (the thesis's *separate I/O* case, which
is the only one chapter 5 studies); the compute nodes, in line order, have
*ranks* ``0 .. m_c - 1``, the coordinates of convex allocations.

``io_mode``: with *shared* I/O (the default of the thesis's notation) any
number of jobs may use an I/O node at once; with *exclusive* I/O an I/O node
belongs to one job for that job's whole run.

Text form (``--platform``), read by :func:`parse_io_platform`::

    line:m=32,io=4                   32 nodes, 4 I/O nodes at 0, 8, 16, 24 (m / io apart)
    ring:m=32,io=4,mode=exclusive    the same on a ring, exclusive I/O
    line:layout=ICCCCICCCC           an explicit layout, one letter per node (I: I/O, C: compute)
    ring:m=30,io=3,routing=shortest  ring routing: arc (default) or shortest
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.base import ResourceKind
from schedlab.platform.intervals import Allocation, normalize

__all__ = [
    "IO_MODES",
    "RING_ROUTINGS",
    "TOPOLOGIES",
    "IOPlatform",
    "parse_io_platform",
    "parse_line",
    "parse_ring",
    "uniform_layout",
]

TOPOLOGIES = ("line", "ring")
IO_MODES = ("shared", "exclusive")
RING_ROUTINGS = ("arc", "shortest")


def uniform_layout(m: int, m_io: int) -> np.ndarray:
    """Boolean ``is_io`` of ``m`` nodes with ``m_io`` I/O nodes at ``k * delta``, ``delta = m / m_io``.

    The offset 0 gives every I/O node ``delta - 1`` compute nodes on its right
    before the next I/O node (or the end of the line), the layout the unpinned
    meta-algorithm needs (thesis section 5.2.2; ambiguity A7).
    """
    is_io = np.zeros(m, dtype=bool)
    if m_io:
        is_io[:: m // m_io] = True
    return is_io


@dataclass(frozen=True, eq=False)
class IOPlatform:
    """Compute and I/O nodes on a line or a ring.

    Parameters
    ----------
    topology : {"line", "ring"}
    is_io : bool array (m,)
        ``is_io[i]`` says node ``i`` is an I/O node.
    io_mode : {"shared", "exclusive"}, default "shared"
    routing : {"arc", "shortest"}, default "arc"
        Ring only. ``arc``: a convex allocation is any arc of consecutive
        nodes; ``shortest``: the arc must also span at most ``m // 2`` hops, so
        that shortest-path routing stays inside it (ambiguity A9).
    source : str
        Where the platform came from, named in error messages.

    Notes
    -----
    As a :class:`~schedlab.platform.base.Platform` it has two kinds,
    ``compute`` and ``io`` (shared with shared I/O, so the validator lets
    several jobs hold one I/O node at once), and a shape rule
    (:meth:`allocation_problem`): an allocation is a connected run of nodes
    whose compute nodes are convex (Def. 4.3-4.4). Which I/O nodes a job must
    reach (locality, Def. 4.6) is the job's rule, checked by its run-time
    model (:class:`~schedlab.runtime.io.IORequests`).

    Raises
    ------
    InputError
        A ring of fewer than 3 nodes, no compute node, an unknown mode.
    """

    topology: str
    is_io: np.ndarray
    io_mode: str = "shared"
    routing: str = "arc"
    source: str = "platform"
    m: int = field(init=False)
    compute: np.ndarray = field(init=False)  # compute node ids, ascending: rank -> node
    io_nodes: np.ndarray = field(init=False)  # I/O node ids, ascending
    rank: np.ndarray = field(init=False)  # node -> compute rank, -1 on I/O nodes
    delta: int | None = field(init=False)  # m / m_io when the I/O nodes sit at k * delta, else None
    name: str = field(init=False)

    def __post_init__(self) -> None:
        is_io = np.asarray(self.is_io, dtype=bool).copy()
        is_io.setflags(write=False)
        m = int(is_io.shape[0])
        if self.topology not in TOPOLOGIES:
            raise InputError(self.source, field="topology", value=self.topology, expected=" or ".join(TOPOLOGIES))
        if self.io_mode not in IO_MODES:
            raise InputError(self.source, field="mode", value=self.io_mode, expected=" or ".join(IO_MODES))
        if self.routing not in RING_ROUTINGS:
            raise InputError(self.source, field="routing", value=self.routing, expected=" or ".join(RING_ROUTINGS))
        if self.topology == "ring" and m < 3:
            raise InputError(self.source, field="m", value=m, expected="at least 3 nodes on a ring")
        compute = np.flatnonzero(~is_io)
        if compute.size == 0:
            raise InputError(self.source, field="layout", value=f"{m} nodes", expected="at least one compute node")
        io_nodes = np.flatnonzero(is_io)
        rank = np.full(m, -1, dtype=np.int64)
        rank[compute] = np.arange(compute.size)
        for array in (compute, io_nodes, rank):
            array.setflags(write=False)
        m_io = int(io_nodes.size)
        delta = m // m_io if m_io and m % m_io == 0 and np.array_equal(is_io, uniform_layout(m, m_io)) else None
        if delta is not None:
            name = f"{self.topology}:m={m},io={m_io}"
        else:
            name = f"{self.topology}:layout=" + "".join("I" if v else "C" for v in is_io)
        if self.io_mode != "shared":
            name += f",mode={self.io_mode}"
        if self.topology == "ring" and self.routing != "arc":
            name += f",routing={self.routing}"
        for key, value in (
            ("is_io", is_io),
            ("m", m),
            ("compute", compute),
            ("io_nodes", io_nodes),
            ("rank", rank),
            ("delta", delta),
            ("name", name),
        ):
            object.__setattr__(self, key, value)

    # -- sizes ------------------------------------------------------------------------
    @property
    def n_procs(self) -> int:
        """Resource ids ``0 .. m-1``: compute and I/O nodes alike."""
        return self.m

    @property
    def m_c(self) -> int:
        return int(self.compute.size)

    @property
    def m_io(self) -> int:
        return int(self.io_nodes.size)

    @property
    def ring(self) -> bool:
        return self.topology == "ring"

    @property
    def exclusive(self) -> bool:
        return self.io_mode == "exclusive"

    # -- topology ---------------------------------------------------------------------
    def dist(self, i: int, j: int) -> int:
        """Def. 4.1: the number of hops of a shortest path between nodes ``i`` and ``j``."""
        d = abs(int(i) - int(j))
        return min(d, self.m - d) if self.ring else d

    def neighbours(self, i: int) -> tuple[int, ...]:
        """The nodes adjacent to ``i``, ascending."""
        if self.ring:
            return tuple(sorted({(i - 1) % self.m, (i + 1) % self.m}))
        return tuple(v for v in (i - 1, i + 1) if 0 <= v < self.m)

    def compute_degree(self, i: int) -> int:
        """How many compute nodes are adjacent to node ``i``: by Prop. 4.2, at most that many local jobs
        use I/O node ``i`` at once."""
        return sum(1 for v in self.neighbours(i) if not self.is_io[v])

    # -- the Platform protocol ------------------------------------------------------------
    shaped = True

    @property
    def kinds(self) -> tuple[ResourceKind, ...]:
        """``compute`` and ``io`` nodes; the I/O nodes are a shared kind with shared I/O."""

        def ranges(ids: np.ndarray) -> Allocation:
            return normalize((int(v), int(v) + 1) for v in ids)

        return (
            ResourceKind("compute", ranges(self.compute)),
            ResourceKind("io", ranges(self.io_nodes), shared=not self.exclusive),
        )

    def spec(self) -> str:
        return self.name

    def allocation_problem(self, alloc: Allocation) -> str | None:
        """Why ``alloc`` is not a connected run of nodes with convex compute nodes (Def. 4.3-4.4), or None."""
        from schedlab.platform.io_shape import convex  # io_shape reads this module's IOPlatform

        wraps = self.ring and len(alloc) == 2 and alloc[0][0] == 0 and alloc[1][1] == self.m
        if len(alloc) != 1 and not wraps:
            return f"is not one run of consecutive nodes on {self.name}"
        nodes = [v for lo, hi in alloc for v in range(lo, hi) if not self.is_io[v]]
        if not nodes:
            return "holds no compute node"
        if not convex(self, nodes):
            return f"is not convex on {self.name}" + (" (shortest routing: at most m // 2 hops)" if self.ring else "")
        return None

    def allocation_measures(self, allocs, sizes) -> dict[str, np.ndarray]:
        return {}

    def with_mode(self, io_mode: str) -> IOPlatform:
        """The same nodes with another I/O access mode."""
        return IOPlatform(self.topology, self.is_io, io_mode, self.routing, self.source)

    def describe(self) -> str:
        return self.name


_KEYS = ("m", "io", "layout", "mode", "routing")


def parse_io_platform(text: str, *, source: str = "--platform") -> IOPlatform:
    """Read ``line:m=32,io=4``, ``ring:layout=ICCCICCC,mode=exclusive`` ... (module docstring).

    Raises
    ------
    InputError
        One line naming the text and the faulty key: an unknown topology or
        key, ``io`` not dividing ``m``, a layout with other letters than I and
        C, a ring of fewer than 3 nodes.
    """
    topology, sep, rest = text.partition(":")
    topology = topology.strip()
    if topology not in TOPOLOGIES or not sep:
        raise InputError(
            source,
            field="platform",
            value=text,
            expected="line:KEY=VALUE,... or ring:KEY=VALUE,... (keys m, io, layout, mode, routing)",
        )
    values: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or key not in _KEYS or key in values:
            raise InputError(
                source, field=f"{text}: {item}", expected=f"KEY=VALUE once per key, KEY one of {', '.join(_KEYS)}"
            )
        values[key] = value.strip()
    mode = values.get("mode", "shared")
    routing = values.get("routing", "arc")
    if "layout" in values:
        if "m" in values or "io" in values:
            raise InputError(source, field=f"{text}: layout", expected="either layout= or m= and io=, not both")
        layout = values["layout"].upper()
        if not layout or set(layout) - {"I", "C"}:
            raise InputError(
                source, field=f"{text}: layout", value=values["layout"], expected="letters I (I/O) and C (compute)"
            )
        is_io = np.array([c == "I" for c in layout], dtype=bool)
    else:
        m = _int(values, "m", text, source, 1)
        m_io = _int(values, "io", text, source, 0)
        if m_io and m % m_io:
            raise InputError(
                source, field=f"{text}: io", value=m_io, expected=f"a divisor of m = {m} (I/O nodes m / io apart)"
            )
        if m_io >= m:
            raise InputError(source, field=f"{text}: io", value=m_io, expected=f"fewer I/O nodes than m = {m}")
        is_io = uniform_layout(m, m_io)
    return IOPlatform(topology, is_io, mode, routing, source=f"{source} {text}")


def parse_line(values: str) -> IOPlatform:
    """``m=32,io=4[,mode=...]`` as a line; the platform registry's ``line:`` reader."""
    return parse_io_platform(f"line:{values}")


def parse_ring(values: str) -> IOPlatform:
    """``m=32,io=4[,mode=...,routing=...]`` as a ring; the platform registry's ``ring:`` reader."""
    return parse_io_platform(f"ring:{values}")


def _int(values: dict[str, str], key: str, text: str, source: str, low: int) -> int:
    if key not in values:
        raise InputError(source, field=f"{text}: {key}", expected=f"{key}=INTEGER (or layout=...)")
    try:
        value = int(values[key])
    except ValueError:
        value = None
    if value is None or value < low:
        raise InputError(source, field=f"{text}: {key}", value=values[key], expected=f"an integer >= {low}")
    return value
