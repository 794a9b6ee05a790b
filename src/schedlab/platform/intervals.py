"""Sets of processor ids held as sorted disjoint half-open ranges ``[lo, hi)``.

An :data:`Allocation` is a tuple of such ranges; :class:`AllocationTable` holds
the allocations of many jobs as flat arrays; :class:`IntervalSet` is the
mutable free set the engine keeps. Taking or returning ``r`` ranges costs
O(r log F) for F free ranges (binary search plus list splicing), never a scan
of all processors.

A set can also be held as a *bit mask*, a Python int whose bit ``p`` is set
when id ``p`` is in the set (:func:`mask_of`, :meth:`IntervalSet.from_mask`):
intersecting two sets is then one ``&`` of machine words and counting them one
``int.bit_count``, the representation of the set profile of conservative backfilling.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import chain

import numpy as np

Allocation = tuple[tuple[int, int], ...]
"""Sorted, disjoint, non-adjacent half-open ranges of processor ids."""


class AllocationTable(Sequence[Allocation]):
    """The allocations of many jobs as three flat int64 arrays, read as a sequence of :data:`Allocation`.

    Allocation ``r`` holds the ranges ``(lo[k], hi[k])`` for ``k`` in ``offsets[r]:offsets[r + 1]``;
    indexing or iterating builds its tuple (of Python ints) on access, so code written for a list
    of allocations reads it unchanged, while the validator and the ``jobs.csv`` writer read the
    arrays. The compiled core returns its schedules' allocations so: RICC's 448k jobs are 3 arrays
    (25 MB), not 448k tuples of tuples (about 150 MB). No allocation is None: a job without
    processors has ``()``. Equal to a list or another table holding the same allocations.
    """

    __slots__ = ("hi", "lo", "offsets")

    def __init__(self, offsets, lo, hi) -> None:
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.lo = np.ascontiguousarray(lo, dtype=np.int64)
        self.hi = np.ascontiguousarray(hi, dtype=np.int64)
        if (
            self.offsets.ndim != 1
            or self.offsets.shape[0] < 1
            or self.offsets[0] != 0
            or self.offsets[-1] != self.lo.shape[0]
            or self.lo.shape != self.hi.shape
            or np.any(np.diff(self.offsets) < 0)
        ):
            raise ValueError("offsets must rise from 0 to the number of ranges, lo and hi of one length")

    @classmethod
    def from_allocations(cls, allocs: Sequence[Allocation | None]) -> AllocationTable:
        """The table of a list of allocations (None read as ``()``)."""
        if isinstance(allocs, AllocationTable):
            return allocs
        given: list[Allocation] = [a or () for a in allocs]
        count = np.fromiter(map(len, given), dtype=np.int64, count=len(given))
        n_ranges = int(count.sum())
        flat = np.fromiter(chain.from_iterable(chain.from_iterable(given)), dtype=np.int64, count=2 * n_ranges)
        return cls(np.concatenate([[0], np.cumsum(count)]), flat[0::2], flat[1::2])

    @property
    def counts(self) -> np.ndarray:
        """Ranges of each allocation."""
        return np.diff(self.offsets)

    def take(self, rows) -> AllocationTable:
        """The allocations of ``rows`` (an int array), in that order."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.shape[0] == len(self) and np.array_equal(rows, np.arange(len(self))):
            return self  # every row in order (every job of a schedule started): no copy
        count = self.counts[rows]
        offsets = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)
        index = np.repeat(self.offsets[rows] - offsets[:-1], count) + np.arange(offsets[-1], dtype=np.int64)
        return AllocationTable(offsets, self.lo[index], self.hi[index])

    def __len__(self) -> int:
        return int(self.offsets.shape[0]) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        j = int(i) + n if int(i) < 0 else int(i)
        if not 0 <= j < n:
            raise IndexError(f"allocation {i} of a table of {n}")
        a, b = int(self.offsets[j]), int(self.offsets[j + 1])
        return tuple(zip(self.lo[a:b].tolist(), self.hi[a:b].tolist()))

    def __iter__(self) -> Iterator[Allocation]:
        lo, hi, offsets = self.lo.tolist(), self.hi.tolist(), self.offsets.tolist()
        for a, b in zip(offsets, offsets[1:]):
            yield tuple(zip(lo[a:b], hi[a:b]))

    def __eq__(self, other) -> bool:
        if isinstance(other, AllocationTable):
            return all(
                np.array_equal(x, y)
                for x, y in ((self.offsets, other.offsets), (self.lo, other.lo), (self.hi, other.hi))
            )
        if isinstance(other, (list, tuple)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"AllocationTable({len(self)} allocations, {self.lo.shape[0]} ranges)"


def format_allocation(alloc: Allocation) -> str:
    """Batsim's interval notation: ``((0, 4), (8, 12))`` -> ``"0-3 8-11"``, single ids alone."""
    return " ".join(str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}" for lo, hi in alloc)


def parse_allocation(text: str) -> Allocation:
    """Inverse of :func:`format_allocation`; raises ValueError on malformed text."""
    ranges: list[tuple[int, int]] = []
    for token in text.split():
        lo_text, _, hi_text = token.partition("-")
        lo = int(lo_text)
        hi = int(hi_text) + 1 if hi_text else lo + 1
        if lo < 0 or hi <= lo:
            raise ValueError(f"bad interval {token!r}")
        ranges.append((lo, hi))
    return normalize(ranges)


def mask_of(ranges) -> int:
    """The bit mask of disjoint ``ranges`` ``[(lo, hi), ...]``: bits ``lo .. hi - 1`` of each set."""
    mask = 0
    for lo, hi in ranges:
        mask |= ((1 << (hi - lo)) - 1) << lo
    return mask


def normalize(ranges) -> Allocation:
    """Sort ranges and merge overlapping or adjacent ones."""
    merged: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return tuple((lo, hi) for lo, hi in merged)


class IntervalSet:
    """A mutable set of integer ids stored as sorted disjoint ranges.

    ``los[i] < his[i] < los[i + 1]``: ranges never touch, so the
    representation is unique and ``len(los)`` counts the fragments.
    """

    __slots__ = ("los", "his", "size")

    def __init__(self, ranges=()) -> None:
        norm = normalize(ranges)
        self.los = [lo for lo, _ in norm]
        self.his = [hi for _, hi in norm]
        self.size = sum(hi - lo for lo, hi in norm)

    @classmethod
    def full(cls, n: int) -> IntervalSet:
        return cls(((0, n),)) if n > 0 else cls()

    @classmethod
    def from_mask(cls, mask: int) -> IntervalSet:
        """The set of the bits set in ``mask`` (>= 0), its maximal runs read by numpy: O(m / 8) for m bits."""
        out = cls.__new__(cls)
        if mask:
            raw = np.frombuffer(mask.to_bytes((mask.bit_length() + 7) // 8, "little"), dtype=np.uint8)
            bits = np.unpackbits(raw, bitorder="little").astype(np.int8)
            edges = np.flatnonzero(np.diff(bits, prepend=0, append=0))  # run starts, then ends, alternately
            out.los, out.his = edges[0::2].tolist(), edges[1::2].tolist()
        else:
            out.los, out.his = [], []
        out.size = mask.bit_count()
        return out

    @classmethod
    def from_runs(cls, los: list[int], his: list[int]) -> IntervalSet:
        """The set of ranges ``[los[i], his[i])``, already sorted, disjoint and not touching (trusted: no check)."""
        out = cls.__new__(cls)
        out.los, out.his = los, his
        out.size = sum(his) - sum(los)
        return out

    def mask(self) -> int:
        """The set as a bit mask (see the module docstring)."""
        return mask_of(zip(self.los, self.his))

    def ranges(self) -> Allocation:
        return tuple(zip(self.los, self.his))

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"IntervalSet({format_allocation(self.ranges())!r})"

    def first(self, k: int) -> Allocation:
        """The ``k`` lowest ids of the set (first fit), without removing them.

        Cost: O(number of ranges touched). Raises ValueError if fewer than k ids.
        """
        if k > self.size:
            raise ValueError(f"{k} ids asked, {self.size} in the set")
        out = []
        los, his = self.los, self.his
        i = 0
        while k > 0:
            lo, hi = los[i], his[i]
            if hi - lo >= k:
                out.append((lo, lo + k))
                break
            out.append((lo, hi))
            k -= hi - lo
            i += 1
        return tuple(out)

    def pop_first(self, k: int) -> Allocation:
        """Remove and return the ``k`` lowest ids (what :meth:`first` returns), in one pass."""
        alloc = self.first(k)
        last_lo, last_hi = alloc[-1]
        n_whole = len(alloc) - 1
        if last_hi == self.his[n_whole]:
            n_whole += 1
        else:
            self.los[n_whole] = last_hi
        if n_whole:
            del self.los[:n_whole]
            del self.his[:n_whole]
        self.size -= k
        return alloc

    def remove(self, alloc: Allocation) -> None:
        """Remove every range of ``alloc``; raise ValueError (nothing changed) if one id is missing."""
        los, his = self.los, self.his
        if len(alloc) == 1:  # the common case, without the bookkeeping below
            lo, hi = alloc[0]
            i = bisect_right(los, lo) - 1
            if i < 0 or hi > his[i] or hi <= lo:
                raise ValueError(f"ids {format_allocation(alloc)} are not all free")
            cur_hi = his[i]
            if lo == los[i]:
                if hi == cur_hi:
                    del los[i]
                    del his[i]
                else:
                    los[i] = hi
            elif hi == cur_hi:
                his[i] = lo
            else:
                his[i] = lo
                los.insert(i + 1, hi)
                his.insert(i + 1, cur_hi)
            self.size -= hi - lo
            return
        positions = []
        for lo, hi in alloc:
            i = bisect_right(los, lo) - 1
            if i < 0 or hi > his[i] or hi <= lo:
                raise ValueError(f"ids {format_allocation(((lo, hi),))} are not all free")
            positions.append(i)
        # Apply from the right so earlier positions stay valid.
        for (lo, hi), i in zip(reversed(alloc), reversed(positions)):
            cur_lo, cur_hi = los[i], his[i]
            if lo == cur_lo and hi == cur_hi:
                del los[i]
                del his[i]
            elif lo == cur_lo:
                los[i] = hi
            elif hi == cur_hi:
                his[i] = lo
            else:
                his[i] = lo
                los.insert(i + 1, hi)
                his.insert(i + 1, cur_hi)
            self.size -= hi - lo

    def add(self, alloc: Allocation) -> None:
        """Add every range of ``alloc``; raise ValueError (nothing changed) if one id is already present."""
        los, his = self.los, self.his
        if len(alloc) == 1:  # the common case, without the bookkeeping below
            lo, hi = alloc[0]
            i = bisect_right(los, lo)
            if hi <= lo or (i > 0 and his[i - 1] > lo) or (i < len(los) and los[i] < hi):
                raise ValueError(f"ids {format_allocation(alloc)} are already in the set")
            if i > 0 and his[i - 1] == lo:
                if i < len(los) and los[i] == hi:
                    his[i - 1] = his[i]
                    del los[i]
                    del his[i]
                else:
                    his[i - 1] = hi
            elif i < len(los) and los[i] == hi:
                los[i] = lo
            else:
                los.insert(i, lo)
                his.insert(i, hi)
            self.size += hi - lo
            return
        positions = []
        for lo, hi in alloc:
            i = bisect_right(los, lo)  # first range starting after lo
            if hi <= lo or (i > 0 and his[i - 1] > lo) or (i < len(los) and los[i] < hi):
                raise ValueError(f"ids {format_allocation(((lo, hi),))} are already in the set")
            positions.append(i)
        for (lo, hi), i in zip(reversed(alloc), reversed(positions)):
            joins_left = i > 0 and his[i - 1] == lo
            joins_right = i < len(los) and los[i] == hi
            if joins_left and joins_right:
                his[i - 1] = his[i]
                del los[i]
                del his[i]
            elif joins_left:
                his[i - 1] = hi
            elif joins_right:
                los[i] = lo
            else:
                los.insert(i, lo)
                his.insert(i, hi)
            self.size += hi - lo
