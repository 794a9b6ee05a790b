"""A hierarchical (fat-tree) platform: processors at the leaves, clusters under the lowest switches.

Source: Mendonca (2017), ch.4 section 4.3 and ch.5 section 5.3 (the tree,
blocks, clusters, platform level).

``levels = [N_0 = 1, N_1, ..., N_D = m]``: ``N_d`` nodes at depth ``d``, the
``N_{D-1}`` nodes just above the processors are the *clusters*, each a
contiguous range of ``l = ceil(m / N_{D-1})`` processor ids (the last one may
be smaller when ``l`` does not divide ``m``, reading M45-18 in docs/readings.md). A node at
depth ``d < D`` covers ``l * N_{D-1} / N_d`` consecutive ids, so processor
``p`` lies under node ``p // node_size[d]`` at depth ``d``.

The tree keeps the homogeneous machine's id space (``n_procs``, ``name``), so
the engine, the validator and the metrics use it as a :class:`Machine`.
All measures of an allocation read its ranges only (never one id at a time):
O(r) for r ranges, O(D) more for the level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.base import ResourceKind
from schedlab.platform.intervals import Allocation

__all__ = ["MEASURES", "FatTree", "parse_clusters", "parse_fat_tree"]

MEASURES = ("blocks", "clusters", "min_clusters", "level", "min_level")
"""The per-job measures :meth:`FatTree.allocation_measures` returns, in ``jobs.csv`` order."""


@dataclass(frozen=True, slots=True)
class FatTree:
    """A fat tree given by the number of nodes per depth, ``levels = (1, N_1, ..., m)``.

    Parameters
    ----------
    levels : tuple of int
        ``levels[0] == 1`` (the root), each entry divides the next except the
        last (``m``), and ``(N_{D-1} - 1) * l < m`` with ``l = ceil(m / N_{D-1})``
        so that every cluster is non-empty. ``(1, m)`` is a single cluster.
    name : str, optional
        Defaults to ``"fat-tree:" + levels``, the string :func:`parse_platform` reads.

    Raises
    ------
    InputError
        On levels that do not describe a tree.
    """

    levels: tuple[int, ...]
    name: str = ""
    n_procs: int = field(init=False)
    depth: int = field(init=False)  # D: processors are at depth D, clusters at D - 1
    cluster_size: int = field(init=False)  # l
    n_clusters: int = field(init=False)
    node_size: tuple[int, ...] = field(init=False)  # ids per node at each depth 0..D (node_size[D] == 1)
    shaped = False  # any set of processors may run a job; the shape is measured, not imposed

    def __post_init__(self) -> None:
        levels = tuple(self.levels)
        text = ",".join(map(str, levels))
        source = self.name or "platform"
        if (
            len(levels) < 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in levels)
            or levels[0] != 1
        ):
            raise InputError(
                source,
                field="fat-tree levels",
                value=text,
                expected="integers 1,N_1,...,m with N_0 = 1, at least two of them, all >= 1",
            )
        for a, b in zip(levels[:-2], levels[1:-1]):
            if b % a:
                raise InputError(
                    source,
                    field="fat-tree levels",
                    value=text,
                    expected=f"each switch level to divide the next ({a} does not divide {b})",
                )
        m = levels[-1]
        k = levels[-2]
        ell = -(-m // k)
        if k > m or (k - 1) * ell >= m:
            raise InputError(
                source,
                field="fat-tree levels",
                value=text,
                expected=f"{k} non-empty clusters of ceil({m}/{k}) = {ell} processors (last one smaller)",
            )
        depth = len(levels) - 1
        sizes = tuple(ell * (k // levels[d]) for d in range(depth)) + (1,)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "name", self.name or f"fat-tree:{text}")
        object.__setattr__(self, "n_procs", m)
        object.__setattr__(self, "depth", depth)
        object.__setattr__(self, "cluster_size", ell)
        object.__setattr__(self, "n_clusters", k)
        object.__setattr__(self, "node_size", sizes)

    @classmethod
    def flat(cls, n_procs: int) -> FatTree:
        """One cluster of ``n_procs`` processors (``levels = (1, m)``): every allocation is local, level 1."""
        return cls((1, n_procs))

    @classmethod
    def clusters(cls, n_procs: int, cluster_size: int) -> FatTree:
        """Ch.4's platform: clusters of ``cluster_size`` under one root, the last one possibly smaller."""
        return cls((1, -(-n_procs // cluster_size), n_procs))

    # -- the Platform protocol ------------------------------------------------
    @property
    def kinds(self) -> tuple[ResourceKind, ...]:
        return (ResourceKind("processor", ((0, self.n_procs),)),)

    def spec(self) -> str:
        return self.name

    def allocation_problem(self, alloc: Allocation) -> None:
        return None

    @property
    def tree(self) -> FatTree:
        """The tree the topology-aware allocators read: itself."""
        return self

    def allocation_measures(self, allocs: Sequence[Allocation | None], sizes: np.ndarray) -> dict[str, np.ndarray]:
        """Per-job ``blocks`` (b_j), ``clusters`` (K_j), ``min_clusters`` (K*_j), ``level`` (L) and ``min_level``
        (L_min) of the allocations (Mendonca 2017, sections 4.3 and 5.3), 0 where an allocation is None.

        Cost: O(r + n D) for n allocations holding r ranges.
        """
        n = len(allocs)
        out = {key: np.zeros(n, dtype=np.int64) for key in MEASURES}
        level, used = self.level, self.clusters_used
        size_list = np.asarray(sizes).tolist()
        for i, alloc in enumerate(allocs):
            if alloc is None or len(alloc) == 0:
                continue
            out["blocks"][i] = len(alloc)
            out["clusters"][i] = used(alloc)
            out["level"][i] = level(alloc)
            out["min_clusters"][i] = self.min_clusters(size_list[i])
            out["min_level"][i] = self.min_level(size_list[i])
        return out

    # -- structure ---------------------------------------------------------
    def node_range(self, depth: int, node: int) -> tuple[int, int]:
        """Ids ``[lo, hi)`` under ``node`` at ``depth``."""
        size = self.node_size[depth]
        return node * size, min((node + 1) * size, self.n_procs)

    def cluster_range(self, cluster: int) -> tuple[int, int]:
        return self.node_range(self.depth - 1, cluster)

    # -- measures of an allocation (sections 4.3, 5.3) --------------------------
    @staticmethod
    def blocks(alloc: Allocation) -> int:
        """``b_j``: maximal runs of consecutive ids (an Allocation's ranges never touch)."""
        return len(alloc)

    def clusters_used(self, alloc: Allocation) -> int:
        """``K_j``: distinct clusters touched by ``alloc``."""
        ell = self.cluster_size
        count = 0
        last = -1
        for lo, hi in alloc:
            first, final = lo // ell, (hi - 1) // ell
            count += final - first + (first != last)
            last = final
        return count

    def min_clusters(self, size: int) -> int:
        """``K*_j = ceil(size / l)``."""
        return -(-size // self.cluster_size)

    def is_local(self, alloc: Allocation, size: int) -> bool:
        return self.clusters_used(alloc) == self.min_clusters(size)

    def level(self, alloc: Allocation) -> int:
        """``L(A_j) = D - d*``, ``d*`` the depth of the lowest common ancestor (at most D - 1); 1..D."""
        lo, hi = alloc[0][0], alloc[-1][1] - 1
        sizes = self.node_size
        d = self.depth - 1
        while d > 0 and lo // sizes[d] != hi // sizes[d]:
            d -= 1
        return self.depth - d

    def min_level(self, size: int) -> int:
        """``L_min(size) = D - d_min``, ``d_min`` the deepest depth whose nodes hold >= ``size`` processors."""
        sizes = self.node_size
        d = self.depth - 1
        while d > 0 and sizes[d] < size:
            d -= 1
        return self.depth - d


def parse_fat_tree(values: str) -> FatTree:
    """``1,2,8,240`` (the nodes per depth) as a :class:`FatTree`; the registry's ``fat-tree:`` reader."""
    try:
        levels = tuple(int(v) for v in values.split(","))
    except ValueError:
        raise InputError("--platform", field="fat-tree levels", value=values, expected="integers 1,N_1,...,m") from None
    return FatTree(levels)


def parse_clusters(values: str) -> FatTree:
    """``512,16`` (machine size, cluster size) as Ch.4's one-level :class:`FatTree`; the ``clusters:`` reader."""
    try:
        m, size = (int(v) for v in values.split(","))
    except ValueError:
        m = size = 0
    if min(m, size) < 1:
        raise InputError("--platform", field="clusters", value=values, expected="M,SIZE with integers >= 1")
    return FatTree.clusters(m, size)
