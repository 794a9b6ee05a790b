"""A 3-D torus of nodes whose jobs get rectangular partitions (boxes) that may wrap around.

Source: Krevat (2003), *Scheduling Algorithms to Improve Utilization in
Toroidal-Interconnected Systems*, MIT M.Eng. thesis, section 1.2 (BlueGene/L
as a 4x4x8 torus of 512-node supernodes), chapter 2 (rectangular partitions,
size rounding and growth) and chapter 3 (the FREEPART definition, whose
coordinates are taken modulo the dimensions: partitions wrap around).

A torus ``DX x DY x DZ`` has ``N = DX * DY * DZ`` nodes with ids
``(x * DY + y) * DZ + z`` (z varies fastest), so a box's z-runs are runs of
consecutive ids and a box is an :data:`~schedlab.platform.intervals.Allocation`
of at most ``a * b * 2`` ranges; ``jobs.csv``'s ``allocated_resources`` stays
Batsim's interval notation. A box is a base ``(i, j, k)`` and a shape
``(a, b, c)`` with ``1 <= a <= DX`` (and so on); it covers the nodes
``((i + dx) mod DX, (j + dy) mod DY, (k + dz) mod DZ)``. An occupancy is a
Python integer whose bit ``id`` is set when node ``id`` is allocated: any
torus size, one big-integer operation per test.

Cost: building a box's mask or allocation is O(a b) big-integer or tuple
operations (the z-run of each column is one shifted constant); rounding a
size is one lookup in a table built once per torus.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from schedlab.errors import ArgumentError, InputError
from schedlab.platform.base import ResourceKind
from schedlab.platform.intervals import Allocation, normalize

__all__ = ["MEASURES", "Box", "Torus", "parse_torus"]

MEASURES = ("box_x", "box_y", "box_z", "base_x", "base_y", "base_z")
"""The per-job measures :meth:`Torus.allocation_measures` returns, in ``jobs.csv`` order: the box's
extents and its base (0 along a fully spanned dimension)."""

_DIMS = re.compile(r"^(\d+)x(\d+)x(\d+)$")


@dataclass(frozen=True, slots=True)
class Box:
    """A partition: base ``(i, j, k)`` and shape ``(a, b, c)``; its size is ``a * b * c``."""

    base: tuple[int, int, int]
    shape: tuple[int, int, int]

    @property
    def size(self) -> int:
        a, b, c = self.shape
        return a * b * c

    def __str__(self) -> str:
        return "{}x{}x{} at ({}, {}, {})".format(*self.shape, *self.base)


@dataclass(frozen=True)
class Torus:
    """A ``DX x DY x DZ`` torus: geometry, boxes, occupancy masks and the feasible job sizes.

    It implements :class:`~schedlab.platform.base.Platform`: one kind
    (``node``), ``shaped`` (an allocation must be one box, wrapping allowed),
    and per-job measures (the box's extents and base) in ``jobs.csv``.

    Parameters
    ----------
    dims : tuple of three int
        ``(DX, DY, DZ)``, each >= 1 (a dimension of 1 gives 2-D and 1-D tori).
    name : str, optional
        Defaults to ``"torus:DXxDYxDZ"``, the text :func:`parse_torus` reads.

    Raises
    ------
    ArgumentError
        On dimensions that are not three integers >= 1 (:func:`parse_torus`
        turns text into an :class:`~schedlab.errors.InputError` first).
    """

    dims: tuple[int, int, int]
    name: str = ""
    n_procs: int = field(init=False)
    shaped = True  # an allocation must be a box

    def __post_init__(self) -> None:
        dims = tuple(self.dims)
        if len(dims) != 3 or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims):
            raise ArgumentError(f"torus dimensions {dims!r}: expected three integers >= 1")
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "name", self.name or "torus:{}x{}x{}".format(*dims))
        object.__setattr__(self, "n_procs", dims[0] * dims[1] * dims[2])

    # -- the Platform protocol -------------------------------------------------
    @property
    def kinds(self) -> tuple[ResourceKind, ...]:
        return (ResourceKind("node", ((0, self.n_procs),)),)

    def spec(self) -> str:
        return self.name

    def allocation_problem(self, alloc: Allocation) -> str | None:
        """None when ``alloc`` is one box of the torus (wrapping allowed), else why not."""
        if self.box_of_allocation(alloc) is None:
            return f"is not a box (a rectangular partition, wrapping allowed) of {self.name}"
        return None

    def allocation_measures(self, allocs: Sequence[Allocation | None], sizes: np.ndarray) -> dict[str, np.ndarray]:
        """Per-job box extents and base (:data:`MEASURES`), 0 where an allocation is None or not a box.

        Cost: O(s) per allocation of s nodes.
        """
        out = np.zeros((len(MEASURES), len(allocs)), dtype=np.int64)
        for j, alloc in enumerate(allocs):
            box = None if alloc is None else self.box_of_allocation(alloc)
            if box is not None:
                out[:, j] = (*box.shape, *box.base)
        return dict(zip(MEASURES, out))

    def box_of_allocation(self, alloc: Allocation) -> Box | None:
        """The box (canonical base) whose nodes are exactly the ranges of ``alloc``, or None."""
        try:
            nodes = [v for lo, hi in alloc for v in range(int(lo), int(hi))]
        except (TypeError, ValueError):
            return None
        return self.box_of_nodes(nodes)

    # -- nodes ---------------------------------------------------------------
    def node_id(self, x: int, y: int, z: int) -> int:
        """Linear id of node ``(x, y, z)``; coordinates are taken modulo the dimensions."""
        dx, dy, dz = self.dims
        return ((x % dx) * dy + y % dy) * dz + z % dz

    def coords(self, node: int) -> tuple[int, int, int]:
        """Inverse of :meth:`node_id` for ``0 <= node < N``."""
        dx, dy, dz = self.dims
        xy, z = divmod(node, dz)
        x, y = divmod(xy, dy)
        return x, y, z

    @cached_property
    def full_mask(self) -> int:
        """The occupancy of a fully allocated torus."""
        return (1 << self.n_procs) - 1

    # -- boxes ---------------------------------------------------------------
    def shapes(self, size: int) -> list[tuple[int, int, int]]:
        """All shapes ``(a, b, c)`` of volume ``size`` that fit the torus, in lexicographic order."""
        return list(self._shapes_by_size.get(size, ()))

    @cached_property
    def _shapes_by_size(self) -> dict[int, tuple[tuple[int, int, int], ...]]:
        dx, dy, dz = self.dims
        out: dict[int, list[tuple[int, int, int]]] = {}
        for a in range(1, dx + 1):
            for b in range(1, dy + 1):
                for c in range(1, dz + 1):
                    out.setdefault(a * b * c, []).append((a, b, c))
        return {q: tuple(v) for q, v in out.items()}

    @cached_property
    def feasible_sizes(self) -> tuple[int, ...]:
        """Sizes some box has, ascending: 38 of them on 4x4x8 (every size up to the largest dimension)."""
        return tuple(sorted(self._shapes_by_size))

    def round_size(self, size: int) -> int:
        """The smallest feasible size ``>= size`` (Krevat 2003, chapter 2: "the next largest possible size").

        Raises
        ------
        ArgumentError
            If ``size < 1`` or ``size > N``.
        """
        if not 1 <= size <= self.n_procs:
            raise ArgumentError(f"size {size} outside 1..{self.n_procs}")
        sizes = self.feasible_sizes
        return sizes[bisect_left(sizes, size)]

    def canonical(self, box: Box) -> Box:
        """The same node set with base 0 along every dimension the box spans fully."""
        base = tuple(0 if s == d else b % d for b, s, d in zip(box.base, box.shape, self.dims))
        return Box(base, box.shape)  # type: ignore[arg-type]

    def box_nodes(self, box: Box) -> list[int]:
        """Sorted node ids of ``box``."""
        dx, dy, dz = self.dims
        (i, j, k), (a, b, c) = box.base, box.shape
        return sorted(
            ((x % dx) * dy + y % dy) * dz + z % dz
            for x in range(i, i + a)
            for y in range(j, j + b)
            for z in range(k, k + c)
        )

    def _z_run_mask(self, k: int, c: int) -> int:
        """Bits ``(k + dz) mod DZ`` for ``dz < c``, within one column of DZ ids starting at bit 0."""
        dz = self.dims[2]
        run = (1 << c) - 1
        return ((run << k) | (run >> (dz - k))) & ((1 << dz) - 1)

    def box_mask(self, box: Box) -> int:
        """Occupancy bits of ``box`` (bit ``id`` for each of its nodes)."""
        dx, dy, dz = self.dims
        (i, j, k), (a, b, c) = box.base, box.shape
        col = self._z_run_mask(k % dz, c)
        mask = 0
        for x in range(i, i + a):
            for y in range(j, j + b):
                mask |= col << (((x % dx) * dy + y % dy) * dz)
        return mask

    def box_allocation(self, box: Box) -> Allocation:
        """``box`` as sorted, merged half-open id ranges (one or two per column before merging)."""
        dx, dy, dz = self.dims
        (i, j, k), (a, b, c) = box.base, box.shape
        k %= dz
        ranges = []
        for x in range(i, i + a):
            for y in range(j, j + b):
                col = ((x % dx) * dy + y % dy) * dz
                if k + c <= dz:
                    ranges.append((col + k, col + k + c))
                else:
                    ranges.append((col + k, col + dz))
                    ranges.append((col, col + k + c - dz))
        return normalize(ranges)

    def box_of_nodes(self, nodes) -> Box | None:
        """The box (canonical base) whose node set is exactly ``nodes``, or None if they form no box.

        The box is read off the coordinates present along each axis (one
        cyclic run each), then its mask is compared with the nodes'. Cost: O(n +
        DX + DY + DZ) for n nodes. Used to check that an allocation is a wrapped box.
        """
        n = self.n_procs
        mask = 0
        count = 0
        for v in nodes:
            if not isinstance(v, int) or not 0 <= v < n or mask >> v & 1:
                return None
            mask |= 1 << v
            count += 1
        if not count:
            return None
        dx, dy, dz = self.dims
        xs, ys, zs = set(), set(), set()
        for v in self.mask_nodes(mask):
            xy, z = divmod(v, dz)
            x, y = divmod(xy, dy)
            xs.add(x)
            ys.add(y)
            zs.add(z)
        base = []
        for present, d in ((xs, dx), (ys, dy), (zs, dz)):
            start = _cyclic_run_start(present, d)
            if start is None:
                return None
            base.append(start)
        box = self.canonical(Box(tuple(base), (len(xs), len(ys), len(zs))))  # type: ignore[arg-type]
        return box if box.size == count and self.box_mask(box) == mask else None

    def mask_nodes(self, mask: int) -> list[int]:
        """Sorted ids of the set bits of an occupancy."""
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out


def _cyclic_run_start(present: set[int], d: int) -> int | None:
    """Start of the one cyclic run of consecutive values that ``present`` (a subset of 0..d-1) forms, or None."""
    if len(present) == d:
        return 0
    starts = [v for v in present if (v - 1) % d not in present]
    return starts[0] if len(starts) == 1 else None


def parse_torus(values: str, *, source: str = "--platform") -> Torus:
    """Read ``DXxDYxDZ`` (e.g. ``4x4x8``; a leading ``torus:`` is accepted); the registry's ``torus:`` reader.

    Raises
    ------
    InputError
        On text that is not three integers >= 1 joined by ``x``.
    """
    body = values[len("torus:") :] if values.startswith("torus:") else values
    match = _DIMS.match(body.strip())
    dims = tuple(int(v) for v in match.groups()) if match else ()
    if not dims or min(dims) < 1:
        raise InputError(
            source, field="torus dimensions", value=values, expected="DXxDYxDZ with integers >= 1, e.g. torus:4x4x8"
        )
    return Torus(dims)  # type: ignore[arg-type]
