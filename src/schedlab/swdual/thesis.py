"""The published SWDUAL measurements, and the consistency checks their arithmetic allows.

Source: Mendonca (2017), chapter 2, section 2.5.2, Tables 2.2, 2.4 and 2.5
(times in seconds and GCUPS, as printed). GCUPS is ``cells / time / 10^9``
with ``cells = Σ|q| Σ|d|``, so ``time x GCUPS`` must be the same for every
worker count of one dataset: it is the dataset's cell count (the thesis does
not say so; the check is ours).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SWIPE_CORE_GCUPS", "C2050_GCUPS", "TABLE_2_2", "TABLE_2_4", "TABLE_2_5", "CellCheck", "cell_checks"]

TABLE_2_2 = {
    "SWPS3": {1: 69208.2, 2: 36174.09, 3: 25206.563, 4: 18904.31},
    "STRIPED": {1: 7190, 2: 3615.38, 3: 1369.33, 4: 1027.28},
    "SWIPE": {1: 2367.24, 2: 1199.47, 3: 816.61, 4: 610.23},
    "CUDASW++": {1: 785.26, 2: 445.611, 3: 350.09, 4: 292.157},
    "SWDUAL": {2: 543.28, 3: 472.84, 4: 271.98, 5: 266.69, 6: 239.04, 7: 183.12, 8: 142.98},
}
"""Table 2.2: UniProt, 40 queries, seconds by number of workers (threads, GPUs, or SWDUAL's CPU+GPU mix)."""

TABLE_2_4 = {
    "Ensembl Dog": {2: (78.36, 18.91), 4: (39.63, 37.39), 8: (20.45, 72.45)},
    "Ensembl Rat": {2: (75.85, 22.97), 4: (37.97, 45.89), 8: (20.17, 86.38)},
    "RefSeq Mouse": {2: (84.40, 18.99), 4: (46.25, 34.66), 8: (23.59, 67.95)},
    "RefSeq Human": {2: (95.09, 20.70), 4: (48.01, 41.00), 8: (24.82, 79.31)},
    "UniProt": {2: (543.28, 35.81), 4: (271.98, 71.53), 8: (142.98, 136.06)},
}
"""Table 2.4: SWDUAL on five databases, (seconds, GCUPS) by number of workers."""

TABLE_2_5 = {
    "Heterogeneous": {2: (3554.36, 37.55), 4: (1785.73, 74.74), 8: (908.45, 146.92)},
    "Homogeneous": {2: (998.27, 36.3), 4: (484.74, 74.76), 8: (249.69, 145.14)},
}
"""Table 2.5: UniProt with 40-query sets of lengths 4-35,213 (heterogeneous) and 4,500-5,000 (homogeneous)."""

SWIPE_CORE_GCUPS = 8.2
"""One SWIPE core on UniProt (Table 2.2's 1-thread time and Table 2.4's cell count)."""

C2050_GCUPS = 24.8
"""One Tesla C2050 with CUDASW++ 2.0 on UniProt (same derivation)."""


@dataclass(frozen=True, slots=True)
class CellCheck:
    """One dataset: ``time x GCUPS`` (cells / 10^9) per worker count, their spread and the speed-ups."""

    dataset: str
    cells: dict[int, float]  # workers -> time x GCUPS x 10^9
    spread: float  # (max - min) / mean of the cell counts
    speedup_2_to_4: float
    speedup_2_to_8: float

    @property
    def mean_cells(self) -> float:
        return sum(self.cells.values()) / len(self.cells)


def cell_checks() -> list[CellCheck]:
    """The constant-product check of every row of Tables 2.4 and 2.5 (datasets in table order)."""
    out = []
    for table in (TABLE_2_4, TABLE_2_5):
        for dataset, row in table.items():
            cells = {w: t * g * 1e9 for w, (t, g) in row.items()}
            mean = sum(cells.values()) / len(cells)
            out.append(
                CellCheck(
                    dataset,
                    cells,
                    (max(cells.values()) - min(cells.values())) / mean,
                    row[2][0] / row[4][0],
                    row[2][0] / row[8][0],
                )
            )
    return out
