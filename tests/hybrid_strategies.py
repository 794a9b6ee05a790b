"""Hypothesis strategies for hybrid CPU+GPU instances small enough for brute force (spec 003 section 7.3)."""

from __future__ import annotations

from hypothesis import strategies as st

from schedlab.workload.hybrid import HybridInstance


@st.composite
def platforms(draw, max_m: int = 3, max_k: int = 2, max_total: int = 4):
    m = draw(st.integers(0, max_m))
    k = draw(st.integers(0 if m else 1, max_k))
    if m + k > max_total:
        k = max(0 if m else 1, max_total - m)
    return m, k


@st.composite
def sequential_instances(draw, max_n: int = 7, max_m: int = 3, max_k: int = 2, max_time: int = 20):
    """``(Pm,Pk)||Cmax``: n <= max_n tasks with integer CPU and GPU times, m + k <= 4."""
    m, k = draw(platforms(max_m, max_k))
    n = draw(st.integers(1, max_n))
    times = st.integers(1, max_time)
    tasks = [(draw(times), draw(times)) for _ in range(n)]
    return HybridInstance.from_tasks(m, k, tasks)


@st.composite
def moldable_instances(draw, max_n: int = 5, max_m: int = 4, max_k: int = 2, max_time: int = 16):
    """``(Pm,Pk)|mold|Cmax``: Amdahl rows ``β p + (1-β) p / l`` with β in quarters, some tasks sequential."""
    m = draw(st.integers(1, max_m))
    k = draw(st.integers(0, max_k))
    n = draw(st.integers(1, max_n))
    tasks = []
    for _ in range(n):
        p1 = draw(st.integers(1, max_time))
        gpu = draw(st.integers(1, max_time))
        if draw(st.booleans()) or m == 1:
            beta = draw(st.sampled_from([0.0, 0.25, 0.5, 0.75]))
            row = [beta * p1 + (1 - beta) * p1 / l for l in range(1, m + 1)]
            tasks.append((row, gpu))
        else:
            tasks.append((p1, gpu))
    return HybridInstance.from_tasks(m, k, tasks)


def check(tasks: HybridInstance, schedule, *, contiguous: bool = False) -> float:
    """Validate ``schedule`` with the one validator (the tasks' CPU+GPU time model); return its makespan."""
    from schedlab.offline.hybrid import hybrid_instance
    from schedlab.validation import validate

    validate(hybrid_instance(tasks), schedule, contiguous=contiguous)
    return schedule.makespan
