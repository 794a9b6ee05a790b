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

    def earliest(self, procs: int, duration: float, stop: int | None = None) -> float:
        """Earliest start >= times[0] of a window of ``duration`` with ``procs`` free processors; INF if none.

        Slice starts are sufficient candidates (spec 000-ch4-5 section 4.1).
        With ``stop``, only the breakpoints before index ``stop`` are candidate
        starts, and from ``times[stop]`` on every processor counts as free: the
        question a reservation starting at ``times[stop]`` asks when it tries to
        move earlier, since any earlier window of its length ends inside its own
        reservation, where its processors are free for it.
        Cost: O(B), each breakpoint read at most twice.
        """
        times, free = self.times, self.free
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
