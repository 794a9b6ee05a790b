"""Random independent tasks for the stretch experiments: uniform sizes with exponential inter-arrivals.

Source: Saule, Bozdag and Catalyurek (2014), section 4.1 (sequential tasks:
p ~ U[a, b], exponential inter-arrival times) and section 7 (moldable tasks
arriving with exponential inter-arrival times tuned to a target load).

The load of an instance is the paper's (section 4.1): total sequential work
divided by the release span, i.e. how many processors the work keeps busy.
"""

from __future__ import annotations

import numpy as np

from schedlab.errors import InputError
from schedlab.workload.jobs import JobTable

__all__ = ["arrival_rate", "exponential_releases", "uniform_tasks"]


def arrival_rate(load: float, mean_work: float) -> float:
    """The arrival rate (tasks per second) whose expected load is ``load``: ``load / mean_work``.

    The paper's lambda is read as a rate, so that the load is about lambda (a + b) / 2 for p ~ U[a, b].
    """
    if not load > 0:
        raise InputError("--load", field="load", value=load, expected="a number > 0")
    return load / mean_work


def exponential_releases(n: int, rate: float, *, rng: np.random.Generator) -> np.ndarray:
    """``n`` release times: the first at 0, then exponential inter-arrival times of rate ``rate``."""
    if not rate > 0:
        raise InputError("--rate", field="arrival rate", value=rate, expected="a number > 0")
    gaps = rng.exponential(1.0 / rate, n)
    gaps[0] = 0.0
    return np.cumsum(gaps)


def uniform_tasks(n: int, a: float, b: float, *, load: float | None = None, rate: float | None = None,
                  rng: np.random.Generator) -> JobTable:
    """``n`` sequential tasks with p ~ U[a, b] released by a Poisson process of the given rate or expected load.

    Source: Saule, Bozdag and Catalyurek (2014), section 4.1 (20,000 tasks,
    Delta = b / a in {5, ..., 100}, load 220 to 310 on 300 processors).
    Cost: O(n).

    Parameters
    ----------
    n : int
        Number of tasks, >= 1.
    a, b : float
        ``0 < a <= b``, the range of processing times.
    load, rate : float
        Exactly one: the expected load, or the arrival rate lambda (tasks per second).
    rng : numpy Generator
        Draws the processing times first, then the inter-arrival times.

    Returns
    -------
    JobTable
        One-processor tasks with ids 1..n, ``run_time = requested_time = p``.
    """
    if n < 1:
        raise InputError("--n", field="number of tasks", value=n, expected="an integer >= 1")
    if not 0 < a <= b < np.inf:
        raise InputError("--dist", field="uniform:a,b", value=f"{a:g},{b:g}", expected="0 < a <= b")
    if (load is None) == (rate is None):
        raise InputError("--load", message="give exactly one of the load and the arrival rate")
    p = rng.uniform(a, b, n)
    release = exponential_releases(n, arrival_rate(load, (a + b) / 2) if rate is None else rate, rng=rng)
    return JobTable.from_arrays(submit=release, run_time=p, requested_time=p, procs=np.ones(n, dtype=np.int64),
                                source=f"uniform:{a:g},{b:g}")
