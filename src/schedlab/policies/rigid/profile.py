"""Availability profiles: free processor counts (or sets) over future time, as sorted breakpoints.

``free[i]`` processors are free during ``[times[i], times[i + 1])``; the last
breakpoint extends to infinity. Conservative backfilling keeps every running
job (until its estimated end) and every reservation in it.

Cost: every operation is O(B) list work for B breakpoints in the range it
touches; breakpoints with equal neighbours are merged so B stays at most
twice the number of running and reserved jobs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from schedlab.platform.intervals import IntervalSet

INF = float("inf")


class Profile:
    """Free processors over time on a machine of ``n_procs`` processors, from ``now`` on."""

    __slots__ = ("times", "free", "n_procs")

    def __init__(self, n_procs: int, now: float = 0.0) -> None:
        self.n_procs = n_procs
        self.times = [now]
        self.free = [n_procs]

    def __repr__(self) -> str:
        return f"Profile({list(zip(self.times, self.free))})"

    def trim(self, now: float) -> None:
        """Forget the past: the profile starts at ``now``."""
        times = self.times
        i = bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            del self.free[:i]
        times[0] = now

    def free_at(self, t: float) -> int:
        return self.free[bisect_right(self.times, t) - 1]

    def _split(self, t: float) -> int:
        """Index of the breakpoint at ``t``, inserting one if needed (t >= times[0])."""
        times = self.times
        i = bisect_left(times, t)
        if i == len(times) or times[i] != t:
            times.insert(i, t)
            self.free.insert(i, self.free[i - 1])
        return i

    def _merge_at(self, i: int) -> None:
        """Drop breakpoint i if it carries the same count as breakpoint i - 1."""
        if 0 < i < len(self.times) and self.free[i] == self.free[i - 1]:
            del self.times[i]
            del self.free[i]

    def add(self, start: float, end: float, delta: int) -> None:
        """Add ``delta`` free processors over ``[start, end)`` (negative to reserve)."""
        i = self._split(start)
        j = self._split(end) if end != INF else len(self.times)
        free = self.free
        free[i:j] = [f + delta for f in free[i:j]]  # one comprehension: ~2x faster than indexed updates
        self._merge_at(j)
        self._merge_at(i)

    def reserve(self, start: float, end: float, procs: int) -> None:
        self.add(start, end, -procs)

    def release(self, start: float, end: float, procs: int) -> None:
        self.add(start, end, procs)

    def earliest(self, procs: int, duration: float, stop: int | None = None) -> float:
        """Earliest start >= times[0] of a window of ``duration`` with ``procs`` free processors; INF if none.

        Slice starts are sufficient candidates (Algorithm 1, Mendonca 2017, section 4.5.1).
        With ``stop``, only the breakpoints before index ``stop`` are candidate
        starts, and from ``times[stop]`` on every processor counts as free: the
        question a reservation starting at ``times[stop]`` asks when it tries to
        move earlier, since any earlier window of its length ends inside its own
        reservation, where its processors are free for it.
        Cost: O(B), each breakpoint read at most twice.
        """
        return _earliest(self.times, self.free, procs, duration, stop)


def _earliest(times: list, free: list, procs: int, duration: float, stop: int | None) -> float:
    """:meth:`Profile.earliest` on breakpoint ``times`` and free counts ``free``."""
    n = len(times) if stop is None else stop
    i = 0
    while i < n:
        if free[i] < procs:
            i += 1
            continue
        end = times[i] + duration
        j = i + 1
        while j < n and times[j] < end:
            if free[j] < procs:
                break
            j += 1
        else:
            return times[i]
        i = j + 1
    return INF


def _copy(s: IntervalSet) -> IntervalSet:
    out = IntervalSet.__new__(IntervalSet)
    out.los, out.his, out.size = list(s.los), list(s.his), s.size
    return out


def _intersect(a: IntervalSet, b: IntervalSet) -> IntervalSet:
    """Ids in both sets, by one merge of their ranges: O(F_a + F_b)."""
    los, his = [], []
    alo, ahi, blo, bhi = a.los, a.his, b.los, b.his
    i = j = 0
    size = 0
    na, nb = len(alo), len(blo)
    while i < na and j < nb:
        lo = alo[i] if alo[i] > blo[j] else blo[j]
        hi = ahi[i] if ahi[i] < bhi[j] else bhi[j]
        if lo < hi:
            los.append(lo)
            his.append(hi)
            size += hi - lo
        if ahi[i] < bhi[j]:
            i += 1
        else:
            j += 1
    out = IntervalSet.__new__(IntervalSet)
    out.los, out.his, out.size = los, his, size
    return out


class SetProfile:
    """Free processor *sets* over future time: Algorithm 1's slices ``S[i]`` (Mendonca 2017, section 4.5.1).

    ``free[i]`` (an :class:`IntervalSet`) is free during ``[times[i], times[i + 1])``;
    the last slice extends to infinity. Reservations hold processor ids, so a
    forced allocator's constraint is checked on the processors really free for
    a whole window; neighbours with equal sets are merged.

    Cost: reserving or releasing ``r`` ranges over ``s`` slices is O(s r log F);
    :meth:`find` intersects the slices of each candidate window, O(F) per slice.
    """

    __slots__ = ("times", "free", "sizes")

    def __init__(self, n_procs: int, now: float = 0.0) -> None:
        self.times = [now]
        self.free = [IntervalSet.full(n_procs)]
        self.sizes = [n_procs]  # free[i].size, kept as a plain list for C-level max() and count checks

    def __repr__(self) -> str:
        return f"SetProfile({list(zip(self.times, self.free))})"

    def trim(self, now: float) -> None:
        """Forget the past: the profile starts at ``now``."""
        times = self.times
        i = bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            del self.free[:i]
            del self.sizes[:i]
        times[0] = now

    def _split(self, t: float) -> int:
        times = self.times
        i = bisect_left(times, t)
        if i == len(times) or times[i] != t:
            times.insert(i, t)
            self.free.insert(i, _copy(self.free[i - 1]))
            self.sizes.insert(i, self.sizes[i - 1])
        return i

    def _merge_at(self, i: int) -> None:
        free = self.free
        if 0 < i < len(self.times) and free[i].los == free[i - 1].los and free[i].his == free[i - 1].his:
            del self.times[i]
            del free[i]
            del self.sizes[i]

    def _apply(self, start: float, end: float, alloc, take: bool) -> None:
        i = self._split(start)
        j = self._split(end) if end != INF else len(self.times)
        free, sizes = self.free, self.sizes
        for x in range(i, j):
            if take:
                free[x].remove(alloc)
            else:
                free[x].add(alloc)
            sizes[x] = free[x].size
        self._merge_at(j)
        self._merge_at(i)

    def earliest_count(self, procs: int, duration: float, stop: int | None = None) -> float:
        """:meth:`Profile.earliest` on the free counts: a necessary condition for :meth:`find`, O(B)."""
        return _earliest(self.times, self.sizes, procs, duration, stop)

    def reserve(self, start: float, end: float, alloc) -> None:
        """Take the processors ``alloc`` over ``[start, end)`` (they must be free there)."""
        self._apply(start, end, alloc, True)

    def release(self, start: float, end: float, alloc) -> None:
        """Give the processors ``alloc`` back over ``[start, end)``."""
        self._apply(start, end, alloc, False)

    def find(self, procs: int, duration: float, allocate, stop: int | None = None):
        """Algorithm 1: the earliest slice start where ``allocate(P, procs)`` accepts the set ``P`` free
        for the whole window; ``(start, allocation)``, or ``(INF, None)`` if no candidate accepts.

        With ``stop``, only breakpoints before index ``stop`` are candidate starts.
        A refusal (forced allocator) moves on to the next slice. ``allocate``
        must be monotone (refusing a set, it refuses its subsets: true of every
        allocator of :mod:`~schedlab.policies.rigid.allocators`), so a slice
        whose own free set is refused is skipped before any intersection.
        """
        times, free, sizes = self.times, self.free, self.sizes
        total = len(times)
        n = total if stop is None else stop
        i = 0
        while i < n:
            if sizes[i] < procs or allocate(free[i], procs) is None:
                i += 1  # a refused set: its subsets, every window starting here, are refused too
                continue
            end = times[i] + duration
            window = free[i]
            j = i + 1
            while j < total and times[j] < end:
                if sizes[j] < procs:
                    break
                smaller = _intersect(window, free[j])
                if smaller.size < procs:
                    break
                if smaller.size < window.size and allocate(smaller, procs) is None:
                    break  # refused already: the whole window will be
                window = smaller
                j += 1
            else:
                alloc = allocate(window, procs)
                if alloc is not None:
                    return times[i], alloc
                i += 1
                continue
            i = j + 1 if sizes[j] < procs else i + 1
        return INF, None
