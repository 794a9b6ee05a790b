"""Running jobs in order of estimated end, with block sums of their processors.

EASY computes the head's reservation by walking the running jobs in order of
estimated end until enough processors are free. Keeping the jobs in sorted
blocks of at most ``2 * BLOCK`` entries, each with the sum of its processors,
turns that walk into O(R / BLOCK + BLOCK) instead of O(R) for R running jobs,
which matters when a wide job waits behind thousands of small ones.
"""

from __future__ import annotations

from bisect import bisect_left, insort

BLOCK = 64


class RunningByEnd:
    """Sorted ``(estimated end, row)`` keys in blocks, with per-block processor sums."""

    __slots__ = ("blocks", "last", "sums", "procs")

    def __init__(self, procs: list[int]) -> None:
        self.procs = procs  # processors of every row
        self.blocks: list[list[tuple[float, int]]] = []
        self.last: list[tuple[float, int]] = []  # last key of each block
        self.sums: list[int] = []

    def __len__(self) -> int:
        return sum(len(b) for b in self.blocks)

    def keys(self) -> list[tuple[float, int]]:
        return [key for block in self.blocks for key in block]

    def add(self, end: float, row: int) -> None:
        key = (end, row)
        blocks = self.blocks
        if not blocks:
            blocks.append([key])
            self.last.append(key)
            self.sums.append(self.procs[row])
            return
        i = bisect_left(self.last, key)
        if i == len(blocks):
            i -= 1
        block = blocks[i]
        insort(block, key)
        self.last[i] = block[-1]
        self.sums[i] += self.procs[row]
        if len(block) > 2 * BLOCK:
            half = block[BLOCK:]
            del block[BLOCK:]
            blocks.insert(i + 1, half)
            self.last[i] = block[-1]
            self.last.insert(i + 1, half[-1])
            moved = sum(self.procs[r] for _, r in half)
            self.sums[i] -= moved
            self.sums.insert(i + 1, moved)

    def remove(self, end: float, row: int) -> None:
        key = (end, row)
        i = bisect_left(self.last, key)
        block = self.blocks[i]
        j = bisect_left(block, key)
        if j == len(block) or block[j] != key:
            raise KeyError(key)
        del block[j]
        if block:
            self.last[i] = block[-1]
            self.sums[i] -= self.procs[row]
        else:
            del self.blocks[i]
            del self.last[i]
            del self.sums[i]

    def reservation(self, need: int, available: int) -> tuple[float, int]:
        """Earliest estimated end at which ``need`` processors are free, and the surplus then.

        ``available`` processors are free now; every running job gives its
        processors back at its estimated end, and jobs ending exactly at the
        returned time all count. Raises ValueError if even all of them are not enough.
        """
        procs, blocks, sums = self.procs, self.blocks, self.sums
        i = 0
        n = len(blocks)
        while i < n and available + sums[i] < need:
            available += sums[i]
            i += 1
        if i == n:
            raise ValueError(f"{need} processors never free (at most {available})")
        block = blocks[i]
        j = 0
        while available < need:
            available += procs[block[j][1]]
            j += 1
        shadow = block[j - 1][0]
        # Jobs ending exactly at the shadow count too, possibly in the next blocks.
        while True:
            while j < len(block) and block[j][0] == shadow:
                available += procs[block[j][1]]
                j += 1
            if j < len(block) or i + 1 == n:
                break
            i += 1
            block = blocks[i]
            j = 0
        return shadow, available - need
