"""The convex and local allocations of a job on a line or a ring of compute and I/O nodes.

Source: Bleuse (2017), PhD thesis, section 5.1 (Prop. 5.1 and 5.2: on the line,
convex = connected = a run of consecutive compute nodes), section 5.3.2
(the windows ``alpha^C(s, q)``, "at most q + 1 valid allocations" for one
pinned I/O node; the ring seen unrolled; several pinned I/O nodes by edge
contraction, Fig. 5.6).

A *window* is a run of ``size`` consecutive compute nodes, from compute rank
``start``, with the I/O nodes ``io`` the job uses; it is *local* when every I/O
node of ``io`` is adjacent to one of its compute nodes (Def. 4.6). Its *hull*
``[lo, hi]`` is the node interval spanning its compute nodes and its I/O nodes;
I/O nodes inside the hull that the job does not target are bridges (Def. 4.3).
The job's allocation is the hull, as sorted half-open ranges.

On a ring, windows live on the unrolled line: compute rank ``r`` (any
integer) is node ``compute[r mod m_c] + (r div m_c) m``, so the windows of a
job around one copy of its I/O node (its *origin*) are ordered by ``start``
and both ends of their hulls grow with it, as on a line (thesis section 5.3.2,
"unroll the ring").

Cost: enumerating a job's windows costs O(q + 1) for one pinned I/O node (the
candidates are the windows touching the node's compute neighbours) and
O(m_c * C(local I/O, count)) for an unpinned request.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from schedlab.platform.intervals import Allocation, normalize
from schedlab.platform.io import IOPlatform

__all__ = [
    "EMPTY_WINDOW",
    "Window",
    "compute_nodes",
    "first_unpinned_window",
    "footprint",
    "local_io",
    "max_local_io",
    "pinned_windows",
    "unpinned_windows",
    "window",
]


@dataclass(frozen=True, slots=True, order=True)
class Window:
    """A convex allocation: compute ranks ``start .. start + size - 1`` (unrolled on a ring), I/O nodes
    ``io`` (platform ids), node hull ``[lo, hi]`` (unrolled node coordinates, inclusive)."""

    start: int
    lo: int
    hi: int
    size: int
    io: tuple[int, ...]

    def alloc(self, platform: IOPlatform) -> Allocation:
        """The hull as sorted half-open ranges of node ids (two ranges when it wraps around a ring)."""
        m = platform.m
        if not platform.ring:
            return ((self.lo, self.hi + 1),)
        if self.hi - self.lo + 1 >= m:
            return ((0, m),)
        lo = self.lo % m
        hi = lo + (self.hi - self.lo) + 1
        return normalize([(lo, min(hi, m)), (0, hi - m)] if hi > m else [(lo, hi)])


EMPTY_WINDOW = Window(0, 0, -1, 0, ())
"""A placeholder before a job gets its window (never in a schedule)."""


def _node(platform: IOPlatform, r: int) -> int:
    """Unrolled node coordinate of unrolled compute rank ``r``."""
    turns, k = divmod(r, platform.m_c)
    return int(platform.compute[k]) + turns * platform.m


def compute_nodes(platform: IOPlatform, w: Window) -> np.ndarray:
    """The platform ids of the window's compute nodes, in window order."""
    return platform.compute[np.arange(w.start, w.start + w.size) % platform.m_c]


def footprint(platform: IOPlatform, w: Window) -> tuple[int, int]:
    """What a window occupies for the load and the scheduling phase (thesis section 5.3.2).

    Shared I/O: its compute ranks ``(start, start + size - 1)`` ("I/O nodes are
    removed from the topology seen by Gergov's algorithm"). Exclusive I/O: its
    node hull ``(lo, hi)``, so that two jobs never sit on either side of one
    I/O node at once (ambiguity A2). Unrolled coordinates on a ring, modulo
    ``m_c`` (shared) or ``m`` (exclusive).
    """
    if platform.exclusive:
        return w.lo, w.hi
    return w.start, w.start + w.size - 1


def window(platform: IOPlatform, start: int, size: int, io: tuple[int, ...], origin: int | None = None) -> Window:
    """The window of ``size`` compute nodes from rank ``start`` using I/O nodes ``io``.

    ``origin`` (ring only) is the unrolled coordinate of the copy of ``io[0]``
    the window is measured from; the other I/O nodes take their copy nearest to
    the window. Locality is not checked here.
    """
    first, last = _node(platform, start), _node(platform, start + size - 1)
    lo, hi = first, last
    if io:
        m = platform.m
        for k, s in enumerate(io):
            if platform.ring:
                u = origin if (k == 0 and origin is not None) else _nearest_copy(s, first, last, m)
            else:
                u = s
            lo, hi = min(lo, u), max(hi, u)
    return Window(int(start), int(lo), int(hi), int(size), tuple(int(s) for s in io))


def _nearest_copy(s: int, first: int, last: int, m: int) -> int:
    """The unrolled copy of node ``s`` closest to the interval ``[first, last]``."""
    base = s + ((first - s) // m) * m  # the copy at or left of first
    candidates = (base, base + m, base - m)
    return min(candidates, key=lambda u: (max(first - u, u - last, 0), u))


def local_io(platform: IOPlatform, w: Window) -> tuple[int, ...]:
    """The I/O nodes adjacent to at least one compute node of ``w`` (its possible local I/O nodes), ascending."""
    found = set()
    for node in compute_nodes(platform, w).tolist():
        for v in platform.neighbours(node):
            if platform.is_io[v]:
                found.add(v)
    return tuple(sorted(found))


def _is_local(platform: IOPlatform, w: Window) -> bool:
    local = set(local_io(platform, w))
    return all(s in local for s in w.io)


def _convex_on_ring(platform: IOPlatform, w: Window) -> bool:
    """Ring routing ``shortest``: the compute arc spans at most m // 2 hops, or holds every compute node."""
    if not platform.ring or platform.routing == "arc" or w.size >= platform.m_c:
        return True
    return _node(platform, w.start + w.size - 1) - _node(platform, w.start) <= platform.m // 2


def _starts(platform: IOPlatform, size: int) -> range:
    if platform.ring:
        return range(platform.m_c if size < platform.m_c else 1)
    return range(platform.m_c - size + 1)


def pinned_windows(platform: IOPlatform, size: int, pinned: tuple[int, ...], *, inflate: bool = True) -> list[Window]:
    """Every convex allocation of ``size`` compute nodes local to each I/O node of ``pinned``.

    Windows are enumerated from the definition (Def. 4.6: every pinned node
    adjacent to a compute node of the window) among those touching the compute
    neighbours of ``pinned[0]``, so a single interior pinned node far from
    other I/O nodes has exactly ``size + 1`` windows (thesis section 5.3.2).
    Several pinned nodes on a line (thesis Fig. 5.6): when the ``k`` compute
    nodes strictly between the two extreme ones are at least ``size``, the only
    allocation is those ``k`` nodes, over-allocated when ``k > size``
    (``inflate``, the thesis's rule) or refused (``inflate=False``; ambiguity A10).
    On a ring the windows are around the copy of ``pinned[0]`` at its own id
    (its origin), in unrolled coordinates, sorted by ``start``.

    Returns
    -------
    list of Window
        Sorted by ``start``; empty when the request cannot be met.
    """
    pinned = tuple(sorted(set(int(s) for s in pinned)))
    origin = pinned[0]
    m_c = platform.m_c
    if not platform.ring and len(pinned) > 1:
        a, c = pinned[0], pinned[-1]
        between = platform.rank[a + 1 : c]
        between = between[between >= 0]
        k = int(between.size)
        if k > size:
            if not inflate:
                return []
            w = window(platform, int(between[0]), k, pinned)
            return [w] if _is_local(platform, w) else []
    anchors = []
    for v in platform.neighbours(origin):
        if not platform.is_io[v]:
            r = int(platform.rank[v])
            if platform.ring and v == (origin - 1) % platform.m and v > origin:
                r -= m_c  # the left neighbour of the origin lies one turn back
            elif platform.ring and v == (origin + 1) % platform.m and v < origin:
                r += m_c
            anchors.append(r)
    starts = sorted({a for r in anchors for a in range(r - size + 1, r + 1)})
    out: dict[tuple, Window] = {}
    for a in starts:
        if not platform.ring and (a < 0 or a + size > m_c):
            continue
        if platform.ring and size > m_c:
            continue
        w = window(platform, a, size, pinned, origin=origin)
        if _is_local(platform, w) and _convex_on_ring(platform, w):
            out.setdefault((w.start, w.lo, w.hi), w)
    return [out[key] for key in sorted(out)]


def unpinned_windows(platform: IOPlatform, size: int, count: int) -> list[Window]:
    """Every convex allocation of ``size`` compute nodes with ``count`` local I/O nodes of its choice.

    One window per start rank (``0 .. m_c - 1`` on a ring) and per set of
    ``count`` I/O nodes adjacent to its compute nodes; sorted by
    ``(start, lo, hi, io)``. Meant for exact solvers on tiny instances.
    """
    out = []
    for a in _starts(platform, size):
        base = window(platform, a, size, ())
        if not _convex_on_ring(platform, base):
            continue
        for chosen in combinations(local_io(platform, base), count):
            out.append(window(platform, a, size, chosen))
    return sorted(set(out))


def first_unpinned_window(platform: IOPlatform, size: int, count: int) -> Window | None:
    """The first window of :func:`unpinned_windows` (lowest start, then lowest I/O nodes), without listing
    them all; None if there is none."""
    for a in _starts(platform, size):
        base = window(platform, a, size, ())
        near = local_io(platform, base)
        if len(near) >= count and _convex_on_ring(platform, base):
            return window(platform, a, size, near[:count])
    return None


@lru_cache(maxsize=4096)
def max_local_io(platform: IOPlatform, size: int) -> int:
    """The most I/O nodes adjacent to one convex allocation of ``size`` compute nodes.

    An I/O node whose compute neighbours have ranks ``r_1 <= r_2`` is local to
    the windows starting in ``[r_1 - size + 1, r_2]`` (cyclically on a ring), so
    a difference array over the start ranks counts them all at once.
    Cost: O(m + m_c).
    """
    m_c = platform.m_c
    if size > m_c or size < 1:
        return 0
    n_starts = m_c if platform.ring and size < m_c else (1 if platform.ring else m_c - size + 1)
    diff = np.zeros(n_starts + 1, dtype=np.int64)
    for s in platform.io_nodes.tolist():
        ranks = []
        for v in platform.neighbours(s):
            if not platform.is_io[v]:
                r = int(platform.rank[v])
                if platform.ring and abs(v - s) > 1:  # the wrap-around edge: put the rank one turn away
                    r = r - m_c if v > s else r + m_c
                ranks.append(r)
        if not ranks:
            continue
        first, last = min(ranks) - size + 1, max(ranks)
        if not platform.ring:
            first, last = max(first, 0), min(last, n_starts - 1)
            if first <= last:
                diff[first] += 1
                diff[last + 1] -= 1
        elif last - first + 1 >= n_starts:
            diff[0] += 1
            diff[n_starts] -= 1
        else:
            a, b = first % n_starts, last % n_starts
            if a <= b:
                diff[a] += 1
                diff[b + 1] -= 1
            else:
                diff[a] += 1
                diff[n_starts] -= 1
                diff[0] += 1
                diff[b + 1] -= 1
    counts = np.cumsum(diff[:-1])
    if platform.ring and platform.routing == "shortest" and size < m_c:
        starts = np.arange(n_starts)
        ends = starts + size - 1
        span = (platform.compute[ends % m_c] + (ends // m_c) * platform.m) - platform.compute[starts]
        counts = np.where(span <= platform.m // 2, counts, -1)
    return int(counts.max(initial=0)) if counts.size else 0
