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

__all__ = [
    "SSM_RANGE",
    "arrival_rate",
    "exponential_releases",
    "generate_tasks",
    "parse_dist",
    "ssm_like_tasks",
    "uniform_tasks",
]


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


def uniform_tasks(
    n: int, a: float, b: float, *, load: float | None = None, rate: float | None = None, rng: np.random.Generator
) -> JobTable:
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
    rate = arrival_rate(load, (a + b) / 2) if load is not None else rate
    assert rate is not None  # exactly one of load and rate is given (checked above)
    release = exponential_releases(n, rate, rng=rng)
    return JobTable.from_arrays(
        submit=release, run_time=p, requested_time=p, procs=np.ones(n, dtype=np.int64), source=f"uniform:{a:g},{b:g}"
    )


SSM_RANGE = (30.0, 216_000.0)
"""Sequential times of the short-sequence-mapping tasks: 30 s to 2.5 days (Saule et al. 2014, section 7)."""


def ssm_like_tasks(n: int, m: int, *, load: float, rng: np.random.Generator):
    """An APPROXIMATION of the short-sequence-mapping workload: moldable tasks whose speed-up has steps.

    Source: Saule, Bozdag and Catalyurek (2014), section 7, which describes the
    workload (a 3-D decomposition x y z <= q of the mapping work, sequential
    times from 30 s to 2.5 days, exponential inter-arrival times tuned to a
    load) but gives neither its run-time formula nor how genome sizes and read
    counts are drawn (its references [6] and [9]). This generator only mimics
    those properties; results on it are not the paper's workload.
    Guarantee: none; rows are non-increasing with flat steps (tested).
    Cost: O(n m d) numpy for d decompositions per task (about 30).

    Model (ours): p_1 log-uniform on [30 s, 2.5 days]; the genome is cut into
    x parts, x a divisor of g ~ U{6, 8, 12, 16, 24}; the index into z in
    {1, 2, 4} parts; the reads into y batches. A fraction alpha ~ U[0.01, 0.1]
    of the work (index building) does not split over reads:
    ``T(x, y, z) = p_1 ((1 - alpha) / (x y z) + alpha / (x z))`` and
    ``p_q = min over x y z <= q of T``.

    Parameters
    ----------
    n, m : int
        Number of tasks and of processors the table covers.
    load : float
        Expected load (total sequential work over the release span).
    rng : numpy Generator

    Returns
    -------
    MoldableTasks
    """
    from schedlab.workload.moldable import MoldableTasks

    if n < 1 or m < 1:
        raise InputError("--n", field="n, m", value=(n, m), expected="integers >= 1")
    low, high = SSM_RANGE
    p1 = np.exp(rng.uniform(np.log(low), np.log(high), n))
    genome = rng.choice(np.array([6, 8, 12, 16, 24]), n)
    alpha = rng.uniform(0.01, 0.1, n)
    release = exponential_releases(n, arrival_rate(load, (high - low) / np.log(high / low)), rng=rng)
    q = np.arange(1, m + 1, dtype=np.float64)
    times = np.repeat(p1[:, None], m, axis=1)
    for g in np.unique(genome).tolist():
        rows = np.flatnonzero(genome == g)
        for x in [d for d in range(1, g + 1) if g % d == 0]:
            for z in (1, 2, 4):
                y = np.floor(q / (x * z))
                ok = y >= 1
                cost = (1 - alpha[rows, None]) / (x * z * np.where(ok, y, 1)) + alpha[rows, None] / (x * z)
                times[rows] = np.where(ok, np.minimum(times[rows], p1[rows, None] * cost), times[rows])
    times = np.minimum.accumulate(times, axis=1)
    return MoldableTasks(
        id=np.arange(1, n + 1, dtype=np.int64),
        release=release,
        times=times,
        line=np.zeros(n, dtype=np.int64),
        source=f"ssm-like:load={load:g}",
    )


def parse_dist(text: str) -> tuple[str, float, float]:
    """``--dist`` text: ``uniform:A,B`` (sequential times p ~ U[A, B]) or ``ssm-like`` (moldable tasks).

    Returns ``("uniform", a, b)`` or ``("ssm-like", nan, nan)``; InputError naming ``--dist`` otherwise.
    """
    kind, _, values = text.strip().partition(":")
    if kind == "ssm-like" and not values:
        return "ssm-like", float("nan"), float("nan")
    if kind == "uniform":
        try:
            a, b = (float(v) for v in values.split(","))
        except ValueError:
            a = b = float("nan")
        if 0 < a <= b < np.inf:
            return "uniform", a, b
    raise InputError("--dist", field="--dist", value=text, expected="uniform:A,B with 0 < A <= B, or ssm-like")


def generate_tasks(dist: str, n: int, m: int, *, load: float, rng: np.random.Generator):
    """Random tasks of the stretch experiments from a ``--dist`` text (:func:`parse_dist`).

    ``uniform:A,B`` gives sequential tasks (:func:`uniform_tasks`, a JobTable; ``m`` is not used);
    ``ssm-like`` gives moldable tasks over 1..m processors (:func:`ssm_like_tasks`, a MoldableTasks).
    Cost: that of the generator.
    """
    kind, a, b = parse_dist(dist)
    if m < 1:
        raise InputError("--m", field="--m", value=m, expected="an integer >= 1")
    if kind == "uniform":
        return uniform_tasks(n, a, b, load=load, rng=rng)
    return ssm_like_tasks(n, m, load=load, rng=rng)
