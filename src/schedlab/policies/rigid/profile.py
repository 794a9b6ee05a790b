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

from schedlab.native import _core
from schedlab.platform.intervals import IntervalSet, mask_of

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


class SetProfile:
    """Free processor *sets* over future time: Algorithm 1's slices ``S[i]`` (Mendonca 2017, section 4.5.1).

    ``free[i]`` is the set free during ``[times[i], times[i + 1])``, held as a
    bit mask (an int whose bit ``p`` is set when processor ``p`` is free, see
    :mod:`~schedlab.platform.intervals`); the last slice extends to infinity.
    Reservations hold processor ids, so a forced allocator's constraint is
    checked on the processors really free for a whole window; neighbours with
    equal sets are merged.

    Cost: reserving or releasing over ``s`` slices is O(s m / w) word operations
    for m processors and w bits a word (a few microseconds a slice at m = 8,192);
    :meth:`find` is O(B) such operations plus one fit test per candidate start.
    """

    __slots__ = ("times", "free", "sizes")

    def __init__(self, n_procs: int, now: float = 0.0) -> None:
        self.times = [now]
        self.free = [(1 << n_procs) - 1]
        self.sizes = [n_procs]  # free[i].bit_count(), kept as a plain list for C-level max() and count checks

    def __repr__(self) -> str:
        return f"SetProfile({[(t, IntervalSet.from_mask(f)) for t, f in zip(self.times, self.free)]})"

    def trim(self, now: float) -> None:
        """Forget the past: the profile starts at ``now``."""
        times = self.times
        i = bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            del self.free[:i]
            del self.sizes[:i]
        times[0] = now

    def free_set(self, i: int) -> IntervalSet:
        """The processors free during slice ``i``."""
        return IntervalSet.from_mask(self.free[i])

    def _split(self, t: float) -> int:
        times = self.times
        i = bisect_left(times, t)
        if i == len(times) or times[i] != t:
            times.insert(i, t)
            self.free.insert(i, self.free[i - 1])
            self.sizes.insert(i, self.sizes[i - 1])
        return i

    def _merge_at(self, i: int) -> None:
        free = self.free
        if 0 < i < len(self.times) and free[i] == free[i - 1]:
            del self.times[i]
            del free[i]
            del self.sizes[i]

    def _apply(self, start: float, end: float, alloc, take: bool) -> None:
        """Flip the bits of ``alloc`` over ``[start, end)``: taken if free (``take``), else freed (the
        caller knows they are all free, or all taken; the validator checks the schedule)."""
        mask = mask_of(alloc)
        delta = -mask.bit_count() if take else mask.bit_count()
        i = self._split(start)
        j = self._split(end) if end != INF else len(self.times)
        free, sizes = self.free, self.sizes
        free[i:j] = [f ^ mask for f in free[i:j]]  # one comprehension: no per-slice bookkeeping
        sizes[i:j] = [c + delta for c in sizes[i:j]]
        self._merge_at(j)
        self._merge_at(i)

    def earliest_count(self, procs: int, duration: float, stop: int | None = None) -> float:
        """:meth:`Profile.earliest` on the free counts: a necessary condition for :meth:`find`, O(B)."""
        return _earliest(self.times, self.sizes, procs, duration, stop)

    def index(self, t: float) -> int:
        """The number of slices starting before ``t``."""
        return bisect_left(self.times, t)

    def max_size(self, stop: int) -> int:
        """The largest free count among slices ``0 .. stop - 1`` (``stop >= 1``)."""
        return max(self.sizes[:stop])

    def reserve(self, start: float, end: float, alloc) -> None:
        """Take the processors ``alloc`` over ``[start, end)`` (they must be free there)."""
        self._apply(start, end, alloc, True)

    def release(self, start: float, end: float, alloc) -> None:
        """Give the processors ``alloc`` back over ``[start, end)`` (they must be taken there)."""
        self._apply(start, end, alloc, False)

    def earlier(self, procs: int, duration: float, allocate, fits, start: float, alloc, now_only: bool = False):
        """The earliest start before ``start`` for a job that holds ``alloc`` from ``start`` on (only now,
        the first slice, with ``now_only``): :meth:`find` over those starts, its own ids counted free,
        ``(start, allocation)`` or ``(INF, None)``. The free counts rule most jobs out first: a start
        needs a slice with ``procs`` free ids (:meth:`max_size`), and a window of them
        (:meth:`earliest_count`). Conservative backfilling's compression asks this of every reservation.
        """
        stop = 1 if now_only else self.index(start)
        if self.max_size(stop) < procs or self.earliest_count(procs, duration, stop) >= start:
            return INF, None
        return self.find(procs, duration, allocate, fits, stop=stop, own=(start, alloc))

    def find(self, procs: int, duration: float, allocate, fits=None, stop: int | None = None, own=None):
        """Algorithm 1: the earliest slice start where ``allocate(P, procs)`` accepts the set ``P`` free
        for the whole window; ``(start, allocation)``, or ``(INF, None)`` if no candidate accepts.

        ``fits(mask, procs)`` (:func:`~schedlab.policies.rigid.allocators.make_fit_test`) answers
        whether ``allocate`` accepts the set of bit mask ``mask``; None: it accepts every set of
        ``procs`` ids or more. With ``stop``, only breakpoints before index ``stop`` are candidate
        starts. ``own = (start, alloc)``: a reservation of ``alloc`` from ``start`` on that the
        search ignores, as if released (a job looking for an earlier start than its own, whose
        candidate windows all end before its own reservation does): cheaper than releasing it and
        taking it back when no earlier start is found.

        A candidate's window set is the AND of its slices' masks, built slice by slice and
        given up as soon as it holds fewer than ``procs`` ids or the fit test refuses it; the test
        runs on the first slice, then after 4, 16, 64, ... slices and on the whole window (a set
        it refuses has no subset it accepts: the allocators are monotone). A slice with fewer than ``procs`` free ids rules out every candidate
        whose window holds it, up to itself. Cost: O(W) mask ANDs per candidate for windows of W
        slices (a fraction of a microsecond each at m = 8,192), O(log W) fit tests.
        """
        times, free, sizes = self.times, self.free, self.sizes
        total = len(times)
        n = total if stop is None else stop
        first, mask, count = total, 0, 0  # own's ids count as free in slices first .. on
        if own is not None:
            first, mask = bisect_left(times, own[0]), mask_of(own[1])
            count = mask.bit_count()
        i = 0
        while i < n:
            if sizes[i] + (count if i >= first else 0) < procs:
                i += 1
                continue
            end = times[i] + duration
            window = free[i] | mask if i >= first else free[i]
            if fits is not None and not fits(window, procs):
                i += 1  # refused: so is every window starting here (the allocators are monotone)
                continue
            j = i + 1
            test = j + 4  # the next slice after which the fit test runs again (gaps growing 4x)
            while j < total and times[j] < end:
                if sizes[j] + (count if j >= first else 0) < procs:
                    break
                window &= free[j] | mask if j >= first else free[j]
                if window.bit_count() < procs:
                    break
                if j == test:
                    if fits is not None and not fits(window, procs):
                        break
                    test = i + 4 * (test - i)
                j += 1
            else:
                if fits is None or fits(window, procs):
                    alloc = allocate(IntervalSet.from_mask(window), procs)
                    assert alloc is not None, "an allocator refused a set its fit test accepts"
                    return times[i], alloc
                i += 1
                continue
            i = j + 1 if sizes[j] + (count if j >= first else 0) < procs else i + 1  # every window up to j holds j
        return INF, None


class CompiledSetProfile:
    """:class:`SetProfile` on the compiled core (``MaskProfile``, Rust): the same slices, operations and
    answers, the masks held as 64-bit words and :meth:`find`'s whole search (fit tests included) compiled.

    The one difference is :meth:`find`'s fourth argument: the allocator's fit *rule*
    (:func:`~schedlab.policies.rigid.allocators.make_fit_rule`, the test in numbers) rather than
    its fit test; the allocation is still chosen by the Python allocator, on the set found. The
    Python class stays the reference: a test holds both, and the literal Algorithm 1, to the
    same schedules. Cost: as :class:`SetProfile`, in word operations at compiled speed (a slice of
    8,192 processors is 128 words); a call crosses into the core once.

    ``block``: the platform's cluster size (0: none). Each slice then also keeps its free count per
    cluster, and the searches of ``loc`` and ``plat`` slide the per-cluster minima over their windows
    (a bound on the fit test: the window's set holds no more in a cluster than any of its slices)
    before building any window's set: the same answers, most candidates refused from counts alone.
    """

    __slots__ = ("_core",)

    def __init__(self, n_procs: int, now: float = 0.0, block: int = 0) -> None:
        self._core = _core.MaskProfile(n_procs, now, block)

    def __repr__(self) -> str:
        return f"CompiledSetProfile({[(t, self.free_set(i)) for i, t in enumerate(self.times)]})"

    @property
    def times(self) -> list[float]:
        """Slice starts (a copy)."""
        return self._core.times

    @property
    def sizes(self) -> list[int]:
        """Free processors per slice (a copy)."""
        return self._core.sizes

    def free_set(self, i: int) -> IntervalSet:
        """The processors free during slice ``i``."""
        return IntervalSet.from_mask(int.from_bytes(self._core.free_bytes(i), "little"))

    def trim(self, now: float) -> None:
        self._core.trim(now)

    def reserve(self, start: float, end: float, alloc) -> None:
        self._core.apply(start, end, alloc, True)

    def release(self, start: float, end: float, alloc) -> None:
        self._core.apply(start, end, alloc, False)

    def earliest_count(self, procs: int, duration: float, stop: int | None = None) -> float:
        return self._core.earliest_count(procs, duration, stop)

    def index(self, t: float) -> int:
        return self._core.index(t)

    def max_size(self, stop: int) -> int:
        return self._core.max_size(stop)

    def earlier(self, procs: int, duration: float, allocate, rule, start: float, alloc, now_only: bool = False):
        """:meth:`SetProfile.earlier` with the fit test given by ``rule`` (None: every set of ``procs`` ids
        fits), in one call into the core."""
        kind, width, k = ("any", 0, 0) if rule is None else rule(procs)
        found, runs = self._core.earlier(procs, duration, kind, width, k, start, alloc, now_only)
        return self._allocation(found, runs, allocate, procs)

    def find(self, procs: int, duration: float, allocate, rule=None, stop: int | None = None, own=None):
        """:meth:`SetProfile.find` with the fit test given by ``rule`` (None: every set of ``procs`` ids fits)."""
        kind, width, k = ("any", 0, 0) if rule is None else rule(procs)
        start, runs = self._core.find(procs, duration, kind, width, k, stop, own)
        return self._allocation(start, runs, allocate, procs)

    @staticmethod
    def _allocation(start: float, runs, allocate, procs: int):
        """``(start, allocation)`` of the set of ``runs`` the core found at ``start``; ``(INF, None)`` if none."""
        if runs is None:
            return INF, None
        alloc = allocate(IntervalSet.from_runs(*runs), procs)
        assert alloc is not None, "an allocator refused a set its fit rule accepts"
        return start, alloc
