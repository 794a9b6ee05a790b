"""Allocation step of backfilling: which free processors a job gets (contiguity, locality, platform level).

Source: Mendonca (2017), ch.4 section 4.5.2 (Algorithms 2-4) and ch.5 section 5.6
(Algorithm 5, "Full Locality"); readings M45-1 to M45-5 (docs/readings.md).

An allocator is a function ``allocate(free, size) -> Allocation | None``
built by :func:`make_allocator` for a :class:`~schedlab.platform.tree.FatTree`.
``free`` is the engine's :class:`~schedlab.platform.intervals.IntervalSet`
(read only) holding at least ``size`` ids; best-effort allocators always
return ``size`` of them, forced ones (``cont``, ``loc``, ``plat``) return
None when the constraint cannot be met, and the policy then tries a later start.

Variants (``name`` or ``name:option``):

==========================  ==================================================
``basic``                   the ``size`` lowest free ids (Alg. 2, first fit)
``becont[:first_fit]``      the first run of ``size`` consecutive ids, else basic (Alg. 3)
``becont:largest_first``    maximal runs by length, longest first, each from its low end (ch.5)
``cont[:first_fit]``        the lowest run long enough, else None; ``:best_fit`` the shortest,
                            ``:largest`` the longest (ties: lowest ids)
``beloc``                   fullest clusters first, the fewest that suffice (Alg. 4)
``loc``                     the same on the first ``K* = ceil(size/l)`` clusters only, else None
``beplat[:index]``          the deepest tree node holding ``size`` free ids, nodes in index order,
                            then the beloc greedy inside it (Alg. 5); ``:best_fit`` / ``:worst_fit``
                            pick the node with the fewest / most free ids at that depth
``plat[:index]``            only nodes at depth ``D - L_min(size)``, else None
==========================  ==================================================

"Take x from a cluster or run" takes its x lowest ids; every sort is stable,
so ties go to the lower cluster, node or id (a choice of schedlab: the thesis is silent).

Cost: ``basic`` O(r) for the r ranges returned; the run-based variants
O(F log F) for F free ranges; the cluster-based ones O(F + k log k) for k
clusters (plus O(k D) to sum clusters into tree nodes for ``beplat``). No
variant looks at processors one by one.

A forced allocator also has a *fit test* (:func:`make_fit_test`): does it accept
a free set given as a bit mask (:func:`~schedlab.platform.intervals.mask_of`)?
It answers exactly as ``allocate(set, size) is not None`` without building the
allocation, with word-level operations: ``cont`` erodes the mask by shifts
(a run of ``size`` ones survives ``size - 1`` shifted ANDs, O(log size) of
them), ``loc`` and ``plat`` count the free ids per cluster or tree node (one
byte-table lookup over the mask). The set profile of conservative backfilling asks it
for every candidate window. :func:`make_fit_rule` describes the same test by numbers
(a run, the fullest clusters, the fullest node at one depth) for the compiled profile,
which evaluates it on 64-bit words.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.intervals import Allocation, IntervalSet
from schedlab.platform.tree import FatTree

__all__ = [
    "ALLOCATORS",
    "FORCED",
    "Allocator",
    "FitRule",
    "FitTest",
    "make_allocator",
    "make_fit_rule",
    "make_fit_test",
    "policy_allocator",
    "policy_fit_rule",
    "policy_fit_test",
    "split_name",
]

Allocator = Callable[[IntervalSet, int], "Allocation | None"]
FitTest = Callable[[int, int], bool]
"""``fits(mask, size)``: does the allocator accept the free ids of bit mask ``mask`` (holding >= ``size``)?"""
FitRule = Callable[[int], tuple[str, int, int]]
"""``rule(size) -> (kind, width, k)``: the fit test in numbers, for the compiled set profile (:func:`make_fit_rule`)."""

ALLOCATORS = {
    "basic": ("",),
    "becont": ("first_fit", "largest_first"),
    "cont": ("first_fit", "best_fit", "largest"),
    "beloc": ("",),
    "loc": ("",),
    "beplat": ("index", "best_fit", "worst_fit"),
    "plat": ("index", "best_fit", "worst_fit"),
}
"""Allocator names and their options (the first is the default)."""

FORCED = frozenset({"cont", "loc", "plat"})
"""Variants that may refuse a start (return None)."""


def split_name(spec: str) -> tuple[str, str]:
    """``"becont:largest_first"`` -> ``("becont", "largest_first")``; the default option when none is given.

    Raises InputError naming the allowed allocators or options.
    """
    name, sep, option = spec.partition(":")
    if name not in ALLOCATORS:
        allowed = ", ".join(n + (f"[:{'|'.join(opts)}]" if opts[0] else "") for n, opts in ALLOCATORS.items())
        raise InputError("policy", field="allocator", value=spec, expected=f"one of {allowed}")
    options = ALLOCATORS[name]
    if not option:
        option = options[0]
    if option not in options or (sep and not option):
        raise InputError(
            "policy",
            field=f"allocator {name} option",
            value=option,
            expected=f"one of {', '.join(o for o in options if o) or '(none)'}",
        )
    return name, option


def make_allocator(spec: str, tree: FatTree) -> Allocator:
    """The allocation function named ``spec`` (see the module docstring) on platform ``tree``."""
    name, option = split_name(spec)
    if name == "basic":
        return _basic
    if name == "becont":
        return _becont_first_fit if option == "first_fit" else _becont_largest_first
    if name == "cont":
        return lambda free, size: _cont(free, size, option)
    if name == "beloc":
        return lambda free, size: _greedy(free, tree, size, range(tree.n_clusters), limit=None)
    if name == "loc":
        return lambda free, size: _greedy(free, tree, size, range(tree.n_clusters), limit=tree.min_clusters(size))
    forced = name == "plat"
    return lambda free, size: _platform(free, tree, size, option, forced)


def policy_allocator(spec: str, platform) -> tuple[Allocator | None, bool]:
    """What a policy's ``reset`` builds: (allocation function, or None for plain ``basic``; is it forced?).

    The clusters and levels are those of the platform's ``tree`` (a fat tree is its own; a plain machine
    is a single cluster). Raises InputError on an unknown allocator (listing the allowed names) or on a
    platform without a tree (a torus, a hybrid node).
    """
    if not isinstance(spec, str):
        raise InputError("policy", field="allocator", value=spec, expected="an allocator name")
    name, _ = split_name(spec)
    if spec == "basic":
        return None, False
    tree = getattr(platform, "tree", None)
    if tree is None:
        raise InputError("policy", field="allocator", value=spec, expected=f"basic on {platform.name} (no tree levels)")
    return make_allocator(spec, tree), name in FORCED


def make_fit_test(spec: str, tree: FatTree) -> FitTest | None:
    """The fit test of the allocator ``spec`` on ``tree`` (see the module docstring); None for a
    best-effort one, which accepts every set holding ``size`` ids."""
    name, _ = split_name(spec)
    if name == "cont":
        return _fits_run
    if name == "loc":
        counts = _block_counter(tree, tree.depth - 1)

        def fits_local(mask: int, size: int) -> bool:
            # the K* fullest clusters hold >= size (a partial sort: numpy's partition, then the top sum)
            free = counts(mask)
            k = tree.min_clusters(size)
            if k >= len(free):
                return int(free.sum()) >= size
            return int(np.partition(free, len(free) - k)[len(free) - k :].sum()) >= size

        return fits_local
    if name == "plat":
        counters = [_block_counter(tree, d) for d in range(tree.depth)]

        def fits_level(mask: int, size: int) -> bool:
            depth = tree.depth - tree.min_level(size)
            return depth == 0 or int(counters[depth](mask).max()) >= size  # the root holds every free id

        return fits_level
    return None


def make_fit_rule(spec: str, tree: FatTree) -> FitRule:
    """The fit test of :func:`make_fit_test` as numbers, which the compiled set profile
    (:class:`~schedlab.policies.rigid.profile.CompiledSetProfile`) evaluates on words:
    ``rule(size)`` is ``("run", 0, 0)`` for ``cont`` (``size`` consecutive ids), ``("local", l, K*)``
    for ``loc`` (the ``K*`` fullest clusters of ``l`` ids hold ``size``), ``("level", w, 0)`` for
    ``plat`` (a node of ``w`` ids at depth ``D - L_min(size)`` holds ``size``), and ``("any", 0, 0)``
    where every set of ``size`` ids fits (best-effort allocators; ``loc`` when ``K*`` is every
    cluster; ``plat`` at the root)."""
    name, _ = split_name(spec)
    if name == "cont":
        return lambda size: ("run", 0, 0)
    if name == "loc":

        def local(size: int) -> tuple[str, int, int]:
            k = tree.min_clusters(size)
            return ("any", 0, 0) if k >= tree.n_clusters else ("local", tree.cluster_size, k)

        return local
    if name == "plat":

        def level(size: int) -> tuple[str, int, int]:
            depth = tree.depth - tree.min_level(size)
            return ("any", 0, 0) if depth == 0 else ("level", tree.node_size[depth], 0)

        return level
    return lambda size: ("any", 0, 0)


def policy_fit_rule(spec: str, platform) -> FitRule:
    """:func:`make_fit_rule` for a policy on ``platform`` (every set fits for ``basic`` or a platform without a tree)."""
    tree = getattr(platform, "tree", None)
    return (lambda size: ("any", 0, 0)) if spec == "basic" or tree is None else make_fit_rule(spec, tree)


def policy_fit_test(spec: str, platform) -> FitTest | None:
    """:func:`make_fit_test` for a policy on ``platform`` (None for ``basic`` or a platform without a tree)."""
    tree = getattr(platform, "tree", None)
    return None if spec == "basic" or tree is None else make_fit_test(spec, tree)


_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def _block_counter(tree: FatTree, depth: int) -> Callable[[int], np.ndarray]:
    """``counts(mask)``: set bits of ``mask`` under each node at ``depth`` (an array, one entry a node).

    A node of a whole number of bytes sums byte popcounts (one table lookup and one reshape);
    otherwise the bits are unpacked and summed per node.
    """
    width, m = tree.node_size[depth], tree.n_procs
    nodes = -(-m // width)
    if width % 8 == 0:
        n_bytes = nodes * width // 8

        def by_bytes(mask: int) -> np.ndarray:
            raw = np.frombuffer(mask.to_bytes(n_bytes, "little"), dtype=np.uint8)
            return _POPCOUNT[raw].reshape(nodes, width // 8).sum(axis=1)

        return by_bytes
    starts = np.arange(0, m, width)

    def by_bits(mask: int) -> np.ndarray:
        raw = np.frombuffer(mask.to_bytes((m + 7) // 8, "little"), dtype=np.uint8)
        return np.add.reduceat(np.unpackbits(raw, bitorder="little")[:m].astype(np.int64), starts)

    return by_bits


def _fits_run(mask: int, size: int) -> bool:
    """A run of ``size`` consecutive set bits: ``mask`` ANDed with itself shifted, doubling the covered length."""
    covered = 1
    while covered < size and mask:
        step = min(covered, size - covered)
        mask &= mask >> step  # bit p set iff bits p .. p + covered + step - 1 all were
        covered += step
    return mask != 0


# -- run-based variants ----------------------------------------------------------


def _basic(free: IntervalSet, size: int) -> Allocation:
    return free.first(size)


def _becont_first_fit(free: IntervalSet, size: int) -> Allocation:
    """Ch.4 Alg. 3: the first run of ``size`` consecutive free ids, else basic."""
    for lo, hi in zip(free.los, free.his):
        if hi - lo >= size:
            return ((lo, lo + size),)
    return free.first(size)


def _becont_largest_first(free: IntervalSet, size: int) -> Allocation:
    """Ch.5 section 5.6.3: runs by length (longest first, stable), each from its low end."""
    runs = sorted(zip(free.los, free.his), key=lambda r: r[0] - r[1])
    out = []
    for lo, hi in runs:
        take = min(size, hi - lo)
        out.append((lo, lo + take))
        size -= take
        if not size:
            break
    return _merge(out)


def _cont(free: IntervalSet, size: int, option: str) -> Allocation | None:
    """One run of ``size`` consecutive ids: the first, shortest or longest run long enough; None if none."""
    best = None
    for lo, hi in zip(free.los, free.his):
        length = hi - lo
        if length < size:
            continue
        if option == "first_fit":
            return ((lo, lo + size),)
        if best is None or (length < best[1] - best[0] if option == "best_fit" else length > best[1] - best[0]):
            best = (lo, hi)
    return None if best is None else ((best[0], best[0] + size),)


# -- cluster-based variants ------------------------------------------------------


def _merge(ranges) -> Allocation:
    """Sort ranges and join adjacent ones (they never overlap here)."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and out[-1][1] == lo:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def _cluster_counts(free: IntervalSet, tree: FatTree, lo: int = 0, hi: int | None = None) -> dict[int, int]:
    """Free ids per cluster (clusters with none left out) among ids ``[lo, hi)``, range by range."""
    ell = tree.cluster_size
    los, his = free.los, free.his
    hi = tree.n_procs if hi is None else hi
    counts: dict[int, int] = {}
    i = bisect_right(his, lo)  # first range ending after lo
    n = len(los)
    while i < n and los[i] < hi:
        a, b = max(los[i], lo), min(his[i], hi)
        c, last = a // ell, (b - 1) // ell
        while c <= last:
            x = min(b, (c + 1) * ell) - max(a, c * ell)
            counts[c] = counts.get(c, 0) + x
            c += 1
        i += 1
    return counts


def _take_lowest(free: IntervalSet, lo: int, hi: int, k: int, out: list) -> None:
    """Append the ``k`` lowest free ids of ``[lo, hi)`` to ``out`` as ranges (the caller knows there are k)."""
    los, his = free.los, free.his
    i = bisect_right(his, lo)
    while k:
        a, b = max(los[i], lo), min(his[i], hi)
        take = min(k, b - a)
        out.append((a, a + take))
        k -= take
        i += 1


def _greedy(
    free: IntervalSet, tree: FatTree, size: int, clusters, *, limit: int | None, counts: dict[int, int] | None = None
) -> Allocation | None:
    """Alg. 4: clusters by free count (descending, stable), the shortest prefix that holds ``size``.

    With ``limit`` (forced local), only the first ``limit`` sorted clusters may
    be used; None if they hold fewer than ``size``. ``clusters`` restricts the
    candidates (a tree node's clusters, for Alg. 5).
    """
    if counts is None:
        counts = _cluster_counts(free, tree)
    ranked = sorted((c for c in clusters if c in counts), key=lambda c: -counts[c])
    if limit is not None:
        ranked = ranked[:limit]
    out: list[tuple[int, int]] = []
    need = size
    for c in ranked:
        take = min(need, counts[c])
        lo, hi = tree.cluster_range(c)
        _take_lowest(free, lo, hi, take, out)
        need -= take
        if not need:
            return _merge(out)
    return None


def _platform(free: IntervalSet, tree: FatTree, size: int, order: str, forced: bool) -> Allocation | None:
    """Alg. 5 (beplat) bottom-up over depths, or (plat) only depth ``D - L_min(size)``; None if no node fits."""
    counts = _cluster_counts(free, tree)
    depth = tree.depth
    node_size, ell = tree.node_size, tree.cluster_size
    top = depth - tree.min_level(size)
    depths = [top] if forced else range(depth - 1, -1, -1)
    for d in depths:
        span = node_size[d] // ell  # clusters under one node at depth d
        node_free: dict[int, int] = {}
        for c, x in counts.items():
            node_free[c // span] = node_free.get(c // span, 0) + x
        fits = [n for n in sorted(node_free) if node_free[n] >= size]
        if not fits:
            continue
        if order == "best_fit":
            node = min(fits, key=node_free.__getitem__)
        elif order == "worst_fit":
            node = max(fits, key=lambda n: (node_free[n], -n))
        else:
            node = fits[0]
        clusters = range(node * span, min((node + 1) * span, tree.n_clusters))
        return _greedy(free, tree, size, clusters, limit=None, counts=counts)
    return None
