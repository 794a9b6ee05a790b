"""Where a job goes: the MFP-maximising placement on a torus, and its flat-machine counterpart.

Source: Krevat (2003), chapter 2 (Scheduler 1: try every shape of the job's
size at every position, keep the one leaving the largest free rectangular
partition, "MFP"; grow the job when it does not fit) and chapter 3 (MFP).

Both classes answer the same questions about an occupancy bitmask (bit ``id``
set: node ``id`` allocated), so the schedulers of
:mod:`schedlab.policies.torus` run unchanged on a torus or on a flat machine:

* ``mfp(occ)``: the size of the largest free partition;
* ``best_placement(occ, q, ...)``: where a job of size ``q`` goes, or None;
* ``place_grow(occ, p, qmax, ...)``: the smallest size ``q`` in ``p..qmax``
  that has a placement, and that placement;
* ``round_size(p)``, ``allocation(placement)``.

A placement is a pair ``(mask, box)``: the nodes it takes and, on a torus,
its :class:`~schedlab.platform.torus.Box` (None on a flat machine).

Cost: :class:`TorusPlacement` precomputes every distinct box of the torus as
a bitmask (9,633 on 4x4x8, O(N^2) for N nodes), sorted by volume, largest
first, so the MFP of an occupancy is the volume of the first box that misses
it. A placement evaluates each free candidate box of size ``q`` (at most
``11 x 128`` on 4x4x8) by branch and bound: boxes no larger than the best
value so far are never tested, free boxes of the occupancy are listed once
per call, and the search stops as soon as a candidate reaches the upper bound
``min(MFP(occ), free - q)``. MFP values and placements are memoised per
occupancy (bounded caches, cleared when full), so a scheduler that asks the
same question at every arrival pays once. POP (:func:`schedlab.platform.pop.pop`)
remains the documented algorithm; the tests check that both agree.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.platform.intervals import Allocation
from schedlab.platform.torus import Box, Torus

__all__ = ["FlatPlacement", "Placement", "TIE_BREAKS", "TorusPlacement", "mask_allocation"]

Placement = tuple[int, "Box | None"]
"""``(mask, box)``: the nodes a job takes and its box (None on a flat machine)."""

TIE_BREAKS = ("shape-base", "base-shape")
"""Candidate orders among equal-MFP placements (the first maximum wins): shapes in lexicographic order,
each at every base in lexicographic order, or bases outermost."""

_MISSING = object()
_PYTHON_SCAN = 48  # boxes tested one by one before a numpy pass over the rest
_CHUNK = 64  # free boxes converted to Python ints at a time


def mask_allocation(mask: int) -> Allocation:
    """The set bits of ``mask`` as sorted, merged half-open id ranges."""
    out = []
    pos = 0
    while mask:
        skip = (mask & -mask).bit_length() - 1
        mask >>= skip
        pos += skip
        run = (~mask & (mask + 1)).bit_length() - 1  # trailing ones
        out.append((pos, pos + run))
        mask >>= run
        pos += run
    return tuple(out)


def _words(mask: int, n_words: int) -> list[int]:
    """``mask`` as little-endian 64-bit words."""
    return [(mask >> (64 * w)) & 0xFFFFFFFFFFFFFFFF for w in range(n_words)]


@lru_cache(maxsize=8)
def _box_tables(torus: Torus, tie_break: str):
    """The distinct boxes of ``torus``: candidates per size in ``tie_break`` order, and every box largest
    first (masks, volumes, boxes, index bounds by volume, numpy word columns). Built once per torus and
    order (about 40 ms on 4x4x8) and shared by the placements of every run in the process; read-only."""
    dx, dy, dz = torus.dims
    bases = [(i, j, k) for i in range(dx) for j in range(dy) for k in range(dz)]
    shapes = sorted(s for q in torus.feasible_sizes for s in torus.shapes(q))
    if tie_break == "shape-base":
        order = [(s, b) for s in shapes for b in bases]
    else:
        order = [(s, b) for b in bases for s in shapes]
    seen: set[int] = set()
    cands: dict[int, tuple[list[int], list[Box]]] = {}
    boxes: list[tuple[int, int, int, Box]] = []  # (-volume, first-seen rank, mask, box)
    for shape, base in order:
        box = Box(base, shape)
        mask = torus.box_mask(box)
        if mask in seen:
            continue
        seen.add(mask)
        masks, bxs = cands.setdefault(box.size, ([], []))
        masks.append(mask)
        bxs.append(box)
        boxes.append((-box.size, len(boxes), mask, box))
    boxes.sort()
    dmask = [m for _, _, m, _ in boxes]
    dvol = [-v for v, _, _, _ in boxes]
    dbox = [b for _, _, _, b in boxes]
    neg = [-v for v in dvol]
    n = torus.n_procs
    start = [bisect_left(neg, -f) for f in range(n + 1)]  # first box of volume <= f
    end = [bisect_left(neg, -v + 1) for v in range(n + 2)]  # boxes [0, end[v]) have volume >= v
    n_words = (n + 63) // 64
    words = np.array([_words(m, n_words) for m in dmask], dtype=np.uint64).reshape(-1, n_words)
    columns = [np.ascontiguousarray(words[:, w]) for w in range(n_words)]
    return cands, dmask, dvol, dbox, start, end, columns


class TorusPlacement:
    """MFP and MFP-maximising placements on a torus, over precomputed box bitmasks with memos.

    Source: Krevat (2003), chapter 2 (the placement heuristic) and chapter 3
    (MFP); the candidate order, where the thesis says only "a predictable
    incremental fashion", is ``tie_break``.
    Guarantee: ``mfp`` equals POP and the exhaustive search; ``best_placement``
    equals the plain loop "every free candidate, MFP of the occupancy with it,
    first maximum" (both tested on random occupancies).
    Cost: see the module docstring; about 9,600 boxes and 1 MiB on 4x4x8.

    Parameters
    ----------
    torus : Torus
        The geometry.
    tie_break : {"shape-base", "base-shape"}, default "shape-base"
        Candidate order; among candidates leaving the same MFP the first wins.
        Duplicate node sets (bases along a fully spanned dimension) are tried
        once, at their first occurrence.
    cache_size : int, default 65536
        Entries kept per memo before it is cleared (results never depend on it).

    Attributes
    ----------
    mfp_calls : int
        MFP values computed (top-level queries and candidate evaluations), memo hits excluded.
    cache_hits : int
        Queries answered from a memo.
    """

    def __init__(self, torus: Torus, *, tie_break: str = "shape-base", cache_size: int = 1 << 16) -> None:
        if tie_break not in TIE_BREAKS:
            raise ArgumentError(f"tie_break {tie_break!r}: expected one of {', '.join(TIE_BREAKS)}")
        self.torus = torus
        self.n_procs = torus.n_procs
        self.tie_break = tie_break
        self.cache_size = cache_size
        self.mfp_calls = 0
        self.cache_hits = 0
        tables = _box_tables(torus, tie_break)
        self._cands, self._dmask, self._dvol, self._dbox, self._start, self._end, self._columns = tables
        self._n_words = len(self._columns)
        self._mfp_memo: dict[int, int] = {}
        self._place_memo: dict[tuple, Placement | None] = {}

    @property
    def n_boxes(self) -> int:
        """Distinct boxes (node sets) of the torus: 9,633 on 4x4x8."""
        return len(self._dmask)

    # -- geometry ----------------------------------------------------------
    def round_size(self, size: int) -> int:
        """Krevat (2003), chapter 2: a size no box has becomes the next feasible one (11 -> 12 on 4x4x8)."""
        return self.torus.round_size(size)

    def allocation(self, placement: Placement) -> Allocation:
        box = placement[1]
        if box is None:
            raise ArgumentError("a torus placement has a box")
        return self.torus.box_allocation(box)

    # -- MFP ---------------------------------------------------------------
    def _split(self, mask: int) -> list[int]:
        return _words(mask, self._n_words)

    def _free_flags(self, occ: int, lo: int, hi: int) -> np.ndarray:
        """For boxes ``lo .. hi - 1`` (largest first), whether each misses ``occ`` (one numpy pass)."""
        hit = np.zeros(max(hi - lo, 0), dtype=np.uint64)
        for column, word in zip(self._columns, self._split(occ), strict=True):
            hit |= column[lo:hi] & np.uint64(word)
        return hit == 0

    def _first_free(self, occ: int, need: int = 1) -> int:
        """Index (largest first) of the first box of volume >= ``need`` missing ``occ``, or -1.

        The first ``_PYTHON_SCAN`` boxes are tested one by one (a sparse occupancy stops there); the
        rest in one numpy pass.
        """
        dmask = self._dmask
        lo, hi = self._start[self.n_procs - occ.bit_count()], self._end[need]
        for i in range(lo, min(hi, lo + _PYTHON_SCAN)):
            if not dmask[i] & occ:
                return i
        lo += _PYTHON_SCAN
        if lo >= hi:
            return -1
        flags = self._free_flags(occ, lo, hi)
        i = int(flags.argmax())
        return lo + i if flags[i] else -1

    def fits(self, occ: int, need: int) -> bool:
        """Whether some free box of ``occ`` holds ``need`` nodes (``mfp(occ) >= need``), scanning only boxes that large."""
        v = self._mfp_memo.get(occ)
        if v is not None:
            self.cache_hits += 1
            return v >= need
        self.mfp_calls += 1
        return need <= 0 or self._first_free(occ, need) >= 0

    def mfp(self, occ: int) -> int:
        """Size of the largest free partition of ``occ`` (0 when the torus is full)."""
        memo = self._mfp_memo
        v = memo.get(occ)
        if v is not None:
            self.cache_hits += 1
            return v
        self.mfp_calls += 1
        i = self._first_free(occ)
        v = self._dvol[i] if i >= 0 else 0
        if len(memo) >= self.cache_size:
            memo.clear()
        memo[occ] = v
        return v

    def largest_free(self, occ: int) -> tuple[int, Box | None]:
        """The largest free partition: its size and the first such box (largest first, then candidate order)."""
        i = self._first_free(occ)
        return (self._dvol[i], self._dbox[i]) if i >= 0 else (0, None)

    # -- placement ---------------------------------------------------------
    def best_placement(
        self, occ: int, q: int, *, forbid: int = 0, shadow: int | None = None, need: int = 0
    ) -> Placement | None:
        """The free box of size ``q`` that leaves the largest MFP, first in candidate order; None if none.

        Parameters
        ----------
        occ : int
            Occupancy bitmask.
        q : int
            Job size; a size no box has gives None.
        forbid : int, default 0
            Nodes the box must also miss (a backfilled job avoiding the head's reserved box).
        shadow, need : int, optional
            With ``shadow`` (the occupancy projected to the reservation time), a box is admissible
            only if ``MFP(shadow | box) >= need`` (the flexible reservation).

        Returns
        -------
        (mask, Box) or None
        """
        key = (occ, q, forbid, shadow, need)
        memo = self._place_memo
        hit = memo.get(key, _MISSING)
        if hit is not _MISSING:
            self.cache_hits += 1
            return hit  # type: ignore[return-value]
        result = self._search(occ, q, forbid, shadow, need)
        if len(memo) >= self.cache_size:
            memo.clear()
        memo[key] = result
        return result

    def _search(self, occ: int, q: int, forbid: int, shadow: int | None, need: int) -> Placement | None:
        cands = self._cands.get(q)
        free = self.n_procs - occ.bit_count()
        if cands is None or free < q:
            return None
        upper = min(self.mfp(occ), free - q)
        blocked = occ | forbid
        dmask, dvol = self._dmask, self._dvol
        lo = self._start[upper]
        free_idx = np.flatnonzero(self._free_flags(occ, lo, len(dmask))) + lo
        # Free boxes of occ, largest first, as Python ints: the first evaluated candidate lists them up to
        # the first one it misses; every later candidate only needs boxes larger than the best value so
        # far (``limit`` of them), all listed by then since the best value only grows.
        fm: list[int] = []
        neg_fv: list[int] = []  # minus their volumes, non-decreasing, for bisect
        best = -1
        bestv = -1
        limit = -1  # -1: nothing evaluated yet
        evals = 0
        masks, boxes = cands
        for c in range(len(masks)):
            m = masks[c]
            if m & blocked:
                continue
            if shadow is not None and not self.fits(shadow | m, need):
                continue
            evals += 1
            if limit < 0:
                v = 0
                for pos in range(0, len(free_idx), _CHUNK):
                    for i in free_idx[pos : pos + _CHUNK].tolist():
                        fm.append(dmask[i])
                        neg_fv.append(-dvol[i])
                        if not dmask[i] & m:
                            v = dvol[i]
                            break
                    else:
                        continue
                    break
            else:
                for i in range(limit):
                    if not fm[i] & m:
                        v = -neg_fv[i]
                        break
                else:
                    continue
            best, bestv = c, v
            if bestv >= upper:
                break
            limit = bisect_left(neg_fv, -bestv)  # boxes larger than bestv
        self.mfp_calls += evals
        return None if best < 0 else (masks[best], boxes[best])

    def place_grow(
        self, occ: int, p: int, qmax: int, *, forbid: int = 0, shadow: int | None = None, need: int = 0
    ) -> tuple[int, Placement] | None:
        """Krevat (2003), chapter 2, growth: the smallest feasible size ``q`` in ``p..qmax`` with a
        placement, and that placement; None if none."""
        sizes = self.torus.feasible_sizes
        for q in sizes[bisect_left(sizes, p) :]:
            if q > qmax:
                break
            found = self.best_placement(occ, q, forbid=forbid, shadow=shadow, need=need)
            if found is not None:
                return q, found
        return None


class FlatPlacement:
    """The flat (fully connected) machine of the same interface: any free nodes will do.

    Source: Krevat (2003), section 5.2 (the flat machine compared with the
    torus); choices where the thesis is silent: a job takes the lowest free
    ids, its "largest free partition" is the number of free nodes, sizes are
    never rounded and never grow.
    Cost: O(q) big-integer operations per placement.
    """

    def __init__(self, n_procs: int) -> None:
        self.n_procs = n_procs
        self.mfp_calls = 0
        self.cache_hits = 0
        self._full = (1 << n_procs) - 1

    def round_size(self, size: int) -> int:
        if not 1 <= size <= self.n_procs:
            raise ArgumentError(f"size {size} outside 1..{self.n_procs}")
        return size

    def allocation(self, placement: Placement) -> Allocation:
        return mask_allocation(placement[0])

    def mfp(self, occ: int) -> int:
        self.mfp_calls += 1
        return self.n_procs - occ.bit_count()

    def largest_free(self, occ: int) -> tuple[int, None]:
        return self.mfp(occ), None

    def fits(self, occ: int, need: int) -> bool:
        return self.mfp(occ) >= need

    def best_placement(
        self, occ: int, q: int, *, forbid: int = 0, shadow: int | None = None, need: int = 0
    ) -> Placement | None:
        """The ``q`` lowest ids free in ``occ`` and outside ``forbid``; with ``shadow``, only if
        ``free(shadow) - q >= need`` (EASY's "extra" nodes)."""
        avail = ~(occ | forbid) & self._full
        if not 1 <= q <= avail.bit_count():
            return None
        if shadow is not None and self.n_procs - shadow.bit_count() - q < need:
            return None
        mask = 0
        for _ in range(q):
            low = avail & -avail
            mask |= low
            avail ^= low
        return mask, None

    def place_grow(
        self, occ: int, p: int, qmax: int, *, forbid: int = 0, shadow: int | None = None, need: int = 0
    ) -> tuple[int, Placement] | None:
        found = self.best_placement(occ, p, forbid=forbid, shadow=shadow, need=need)
        return None if found is None else (p, found)
