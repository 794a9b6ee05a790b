"""Availability profile: free processor count over future time, as sorted breakpoints.

``free[i]`` processors are free during ``[times[i], times[i + 1])``; the last
breakpoint extends to infinity. Conservative backfilling keeps every running
job (until its estimated end) and every reservation in it.

Cost: every operation is O(B) list work for B breakpoints in the range it
touches; breakpoints with equal neighbours are merged so B stays at most
twice the number of running and reserved jobs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

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
        for x in range(i, j):
            free[x] += delta
        self._merge_at(j)
        self._merge_at(i)

    def reserve(self, start: float, end: float, procs: int) -> None:
        self.add(start, end, -procs)

    def release(self, start: float, end: float, procs: int) -> None:
        self.add(start, end, procs)

    def earliest(self, procs: int, duration: float, before: float = INF, own: tuple[float, float, int] | None = None) -> float:
        """Earliest start >= times[0] of a window of ``duration`` with ``procs`` free processors.

        Only starts strictly before ``before`` are considered (INF if none is found).
        ``own = (start, end, procs)`` counts those processors as free over that range:
        the caller's own reservation, which it would give up if it moved.
        Slice starts are sufficient candidates (spec 000-ch4-5 section 4.1).
        """
        times, free = self.times, self.free
        n = len(times)
        own_lo, own_hi, own_k = own if own is not None else (INF, INF, 0)
        i = 0
        while i < n:
            t = times[i]
            if t >= before:
                return INF
            f = free[i] + (own_k if own_lo <= t < own_hi else 0)
            if f < procs:
                i += 1
                continue
            end = t + duration
            j = i + 1
            while j < n and times[j] < end:
                tj = times[j]
                if free[j] + (own_k if own_lo <= tj < own_hi else 0) < procs:
                    break
                j += 1
            else:
                return t
            i = j + 1
        return INF
