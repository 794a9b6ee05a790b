"""I/O requests as a run-time model: which allocations a job with pinned or unpinned I/O nodes accepts.

Source: Bleuse (2017), PhD thesis, section 4.1 (rigid jobs asking for I/O
nodes by count or by name) and Def. 4.6 (locality: every I/O node the job uses
is adjacent to one of its compute nodes); section 5.3.2 (several pinned I/O
nodes: all the compute nodes between the extreme ones when they are more than
``q``, "over-allocation").

A job of an :class:`~schedlab.workload.io_jobs.IOInstance` runs ``p_j``
whatever its allocation (no interference model; the thesis constrains shapes
instead) and is never killed. Its allocation, a run of nodes on the line or
ring (the platform checks that shape), must hold ``q_j`` compute nodes (or the
inflated count above) and reach its I/O nodes: every pinned one, or ``c_j``
of its choice, each adjacent to one of its compute nodes. I/O nodes inside
the run that the job does not target are bridges.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from schedlab.platform.intervals import Allocation
from schedlab.workload.io_jobs import IOInstance
from schedlab.workload.jobs import JobTable

__all__ = ["IORequests", "io_jobs"]


class IORequests:
    """The run-time model of an :class:`~schedlab.workload.io_jobs.IOInstance`'s jobs."""

    fixed = False
    __slots__ = ("inst",)

    def __init__(self, inst: IOInstance) -> None:
        self.inst = inst

    def describe(self) -> str:
        return "io-requests"

    def _inflated(self, row: int) -> int | None:
        """Compute nodes strictly between the extreme pinned I/O nodes of a line job, when it pins several."""
        request, plat = self.inst.io[row], self.inst.platform
        if isinstance(request, int) or len(request) < 2 or plat.ring:
            return None
        return int((~plat.is_io[request[0] + 1 : request[-1]]).sum())

    def allocation_problem(self, row: int, alloc: Allocation, size: int) -> str | None:
        inst = self.inst
        plat = inst.platform
        nodes = [v for lo, hi in alloc for v in range(lo, hi)]
        compute = {v for v in nodes if not plat.is_io[v]}
        q = int(inst.q[row])
        inflated = self._inflated(row)
        over = inst.inflate and inflated is not None and len(compute) == inflated > q
        if len(compute) != q and not over:
            return f"holds {len(compute)} compute nodes, the job needs {q}"
        local = [v for v in nodes if plat.is_io[v] and any(u in compute for u in plat.neighbours(v))]
        request = inst.io[row]
        if isinstance(request, int):
            if len(local) < request:
                return f"reaches {len(local)} I/O nodes from its compute nodes, the job needs {request}"
            return None
        missing = [s for s in request if s not in local]
        if missing:
            return f"does not reach its pinned I/O nodes {missing} from its compute nodes (Def. 4.6)"
        return None

    def duration(self, row: int, alloc: Allocation) -> tuple[float, bool]:
        return float(self.inst.p[row]), False

    def run_times(self, allocs: Sequence[Allocation | None]) -> np.ndarray:
        return self.inst.p.astype(np.float64)


def io_jobs(inst: IOInstance) -> JobTable:
    """The job table of ``inst``: its ids, all released at 0, ``p`` as run time, ``q`` as size, no walltime."""
    n = inst.n
    return JobTable(
        id=np.asarray(inst.ids, dtype=np.int64),
        submit=np.zeros(n),
        run_time=inst.p.astype(np.float64),
        requested_time=np.full(n, math.inf),
        procs=inst.q.astype(np.int64),
        line=np.zeros(n, dtype=np.int64),
        source=inst.source,
    )
