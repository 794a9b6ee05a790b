"""The waiting queue of rigid-job policies: a static priority order and a search tree.

Every job gets a rank once, from a total order fixed before the simulation
(``fcfs``: (submit, id); ``sjf``: (requested time, submit, id)), so the queue at
any moment is the set of waiting ranks in increasing order. A segment tree over
ranks keeps, per node, the smallest processor count and the smallest requested
time among its waiting jobs. That answers "the first waiting job after rank r
that fits in a free processors and either ends by a deadline or uses at most
c processors" (the EASY backfill test) without scanning the queue: subtrees
that cannot hold such a job are skipped.

Cost: insert/remove O(log n) (usually less: updates stop as soon as an ancestor
is unchanged); a search costs O(log n) per subtree it enters.
"""

from __future__ import annotations

import numpy as np

from schedlab.errors import InputError

INF = float("inf")
_BIG = 1e300  # larger than any processor count, smaller than INF

ORDERS = ("fcfs", "sjf")


def priority_ranks(submit: np.ndarray, requested_time: np.ndarray, ids: np.ndarray, order: str) -> np.ndarray:
    """Rank of every row in the queue order; ties break on (submit, id).

    ``fcfs``: (submit, id). ``sjf``: shortest requested time first, then (submit, id).
    """
    if order == "fcfs":
        by = np.lexsort((ids, submit))
    elif order == "sjf":
        by = np.lexsort((ids, submit, requested_time))
    else:
        raise InputError("policy", field="order", value=order, expected=f"one of {', '.join(ORDERS)}")
    ranks = np.empty(len(by), dtype=np.int64)
    ranks[by] = np.arange(len(by))
    return ranks


class RankQueue:
    """Waiting jobs keyed by rank, with per-subtree minima of processors and requested time.

    The tree covers a window of ``W`` consecutive ranks (a power of two) in a
    ring: rank ``r`` lives in slot ``r % W``. Waiting ranks always lie in
    ``[base, base + W)``; the window slides with the queue and doubles when
    the queue spans more ranks, so the tree stays as small as the queue
    (cache-friendly) rather than as large as the workload.
    """

    __slots__ = ("size", "base", "minp", "mine", "slot_row", "count")

    def __init__(self, size: int = 64) -> None:
        self._build(size, 0, ())

    def _build(self, size: int, base: int, entries) -> None:
        self.size = size
        self.base = base
        self.minp = [INF] * (2 * size)
        self.mine = [INF] * (2 * size)
        self.slot_row = [-1] * size
        self.count = 0
        for rank, row, procs, estimate in entries:
            self.push(rank, row, procs, estimate)

    def _entries(self):
        size, minp, mine = self.size, self.minp, self.mine
        for slot, row in enumerate(self.slot_row):
            if row >= 0:
                yield self.rank_of(slot), row, minp[slot + size], mine[slot + size]

    def __len__(self) -> int:
        return self.count

    def rank_of(self, slot: int) -> int:
        return self.base + ((slot - self.base) & (self.size - 1))

    def min_procs(self) -> float:
        """Smallest processor count among waiting jobs (inf if none)."""
        return self.minp[1]

    def push(self, rank: int, row: int, procs: int, estimate: float) -> None:
        if not self.base <= rank < self.base + self.size:
            self._grow(rank)
        minp, mine = self.minp, self.mine
        x = (rank & (self.size - 1)) + self.size
        self.slot_row[x - self.size] = row
        minp[x] = procs
        mine[x] = estimate
        self.count += 1
        x >>= 1
        while x:
            changed = False
            if procs < minp[x]:
                minp[x] = procs
                changed = True
            if estimate < mine[x]:
                mine[x] = estimate
                changed = True
            if not changed:
                break
            x >>= 1

    def _grow(self, rank: int) -> None:
        """Slide or enlarge the window so that it holds ``rank`` and every waiting rank."""
        entries = list(self._entries())
        low = min([rank] + [e[0] for e in entries])
        high = max([rank] + [e[0] for e in entries])
        size = self.size
        while size <= high - low:
            size *= 2
        self._build(size, low, entries)

    def remove(self, rank: int) -> None:
        minp, mine = self.minp, self.mine
        x = (rank & (self.size - 1)) + self.size
        old_p, old_e = minp[x], mine[x]
        minp[x] = INF
        mine[x] = INF
        self.slot_row[x - self.size] = -1
        self.count -= 1
        x >>= 1
        while x:
            # Only an ancestor whose minimum came from this leaf can change.
            if minp[x] != old_p and mine[x] != old_e:
                break
            left = 2 * x
            p = minp[left] if minp[left] < minp[left + 1] else minp[left + 1]
            e = mine[left] if mine[left] < mine[left + 1] else mine[left + 1]
            if p == minp[x] and e == mine[x]:
                break
            minp[x] = p
            mine[x] = e
            x >>= 1

    def row_at(self, rank: int) -> int:
        return self.slot_row[rank & (self.size - 1)]

    def first(self, start: int, fit: float, deadline: float = INF, small: float = -1) -> int:
        """First waiting rank >= ``start`` whose job has procs <= ``small``, or
        procs <= ``fit`` and estimate <= ``deadline``; -1 if none.

        With the defaults, the first waiting job with procs <= ``fit``; with
        ``fit = inf`` the first waiting job. Requires ``small <= fit``.
        """
        base, size = self.base, self.size
        if start < base:
            start = base
        if start >= base + size:
            return -1
        fit = min(fit, _BIG)  # empty subtrees (inf) must never match
        mask = size - 1
        s, b = start & mask, base & mask
        slot = self._first_slot(s, fit, deadline, small)
        if slot < 0 and s >= b and b > 0:
            slot = self._first_slot(0, fit, deadline, small)
            if slot >= b:
                slot = -1
        elif s < b and slot >= b:
            slot = -1
        return -1 if slot < 0 else base + ((slot - b) & mask)

    def _first_slot(self, start: int, fit: float, deadline: float, small: float) -> int:
        """First matching slot >= start: climb from its leaf, entering promising right siblings."""
        minp, mine = self.minp, self.mine
        x = start + self.size
        p = minp[x]
        if p <= fit and (p <= small or mine[x] <= deadline):
            return start
        while x > 1:
            if not x & 1:
                y = x + 1
                p = minp[y]
                if p <= fit and (p <= small or mine[y] <= deadline):
                    found = self._descend(y, fit, deadline, small)
                    if found >= 0:
                        return found
            x >>= 1
        return -1

    def _descend(self, top: int, fit: float, deadline: float, small: float) -> int:
        """Leftmost matching slot under node ``top`` (depth-first, pruned by the minima)."""
        minp, mine = self.minp, self.mine
        size = self.size
        stack = [top]
        pop, push = stack.pop, stack.append
        while stack:
            x = pop()
            p = minp[x]
            if p > fit or (p > small and mine[x] > deadline):
                continue
            if x >= size:
                return x - size
            push(2 * x + 1)
            push(2 * x)
        return -1
