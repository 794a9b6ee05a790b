"""Moldable-task instances shared by the stretch tests (Saule, Bozdag and Catalyurek 2014): hand-made tables and a
hypothesis strategy of small random ones."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from schedlab.platform import Machine
from schedlab.runtime.moldable import MoldableTimes, moldable_jobs
from schedlab.schedule import Instance
from schedlab.workload.moldable import MoldableTasks


def table(*rows, release=None) -> MoldableTasks:
    """Tasks with run-time rows ``rows`` (``rows[i][j - 1]`` on j processors), released at 0 unless given."""
    times = np.asarray(rows, dtype=float)
    n = times.shape[0]
    release = np.zeros(n) if release is None else np.asarray(release, dtype=float)
    return MoldableTasks(id=np.arange(1, n + 1), release=release, times=times, line=np.zeros(n, dtype=np.int64))


def moldable_instance(tasks: MoldableTasks, m: int | None = None) -> Instance:
    """``tasks`` on a machine of ``m`` processors (default: the table's width), with the moldable model."""
    return Instance(moldable_jobs(tasks), Machine(m or tasks.n_procs), MoldableTimes(tasks))


@st.composite
def moldable_tables(draw, max_m: int = 5, max_n: int = 6, min_m: int = 1):
    """(m, tasks): up to ``max_n`` tasks with integer releases and non-increasing rows over m processors,
    with flat steps (zero drops) drawn often."""
    m = draw(st.integers(min_m, max_m))
    n = draw(st.integers(1, max_n))
    rows = []
    for _ in range(n):
        p1 = draw(st.integers(1, 20))
        drops = draw(st.lists(st.integers(0, 5), min_size=m - 1, max_size=m - 1))
        row = [float(p1)]
        for d in drops:
            row.append(max(0.5, row[-1] - d))
        rows.append(row)
    release = np.sort(np.array(draw(st.lists(st.integers(0, 10), min_size=n, max_size=n)), dtype=float))
    return m, table(*rows, release=release)


@st.composite
def moldable_task_instances(draw, max_m: int = 5, max_n: int = 8, max_jobs: int | None = None):
    """Small moldable-task instances (the contract test's family strategy)."""
    m, tasks = draw(moldable_tables(max_m=max_m, max_n=max_jobs or max_n))
    return moldable_instance(tasks, m)
