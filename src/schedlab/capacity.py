"""Capacity utilized, unused and lost: where a machine's node-seconds went.

Source: Krevat (2003), section 4.3. Over the span ``T = max end - min arrival``
of a run on ``N`` nodes:

* utilized ``w_util = sum_j s_j t_j / (T N)`` with ``t_j`` the execution time;
* unused ``w_unused = (1 / (T N)) * integral of max(0, f(t) - q(t)) dt``, where
  ``f(t)`` is the number of free nodes and ``q(t)`` the nodes requested by
  the jobs waiting at ``t``: free capacity no waiting job could have used;
* lost ``w_lost = 1 - w_util - w_unused``: capacity lost to fragmentation
  (free nodes while jobs wait) and to the delay between a job's schedule and
  its start, during which it holds its nodes without running.

Cost: O(n log n) for n jobs (one sort of the 4n step changes, then cumulative sums).
"""

from __future__ import annotations

import numpy as np

__all__ = ["capacity"]


def capacity(
    arrival: np.ndarray,
    taken: np.ndarray,
    end: np.ndarray,
    allocated: np.ndarray,
    requested: np.ndarray,
    run_time: np.ndarray,
    n_procs: int,
) -> dict[str, float]:
    """Capacity utilized, unused and lost of a run, and its span.

    Parameters
    ----------
    arrival : float array
        When each job joined the queue.
    taken : float array
        When it took its nodes (on a torus: its schedule time, one start delay before its start).
    end : float array
        When it released them.
    allocated : int array
        Nodes it held (``f(t)``).
    requested : int array
        Nodes it asked for while waiting (``q(t)``) and the ``s_j`` of ``w_util``.
    run_time : float array
        Its execution time ``t_j``.
    n_procs : int
        ``N``.

    Returns
    -------
    dict
        ``w_util``, ``w_unused``, ``w_lost`` (fractions of ``T N``) and ``span`` (``T``, seconds).
    """
    arrival = np.asarray(arrival, dtype=np.float64)
    taken = np.asarray(taken, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    alloc = np.asarray(allocated, dtype=np.float64)
    req = np.asarray(requested, dtype=np.float64)
    if len(arrival) == 0:
        return {"w_util": 0.0, "w_unused": 0.0, "w_lost": 0.0, "span": 0.0}
    t0 = float(arrival.min())
    span = float(end.max()) - t0
    area = span * n_procs
    if not area > 0:
        return {"w_util": 0.0, "w_unused": 0.0, "w_lost": 0.0, "span": span}
    util = float(np.dot(req, np.asarray(run_time, dtype=np.float64))) / area
    # step changes of f (free nodes) and q (queued demand)
    times = np.concatenate([taken, end, arrival, taken])
    df = np.concatenate([-alloc, alloc, np.zeros_like(req), np.zeros_like(req)])
    dq = np.concatenate([np.zeros_like(alloc), np.zeros_like(alloc), req, -req])
    order = np.argsort(times, kind="stable")
    times, df, dq = times[order], df[order], dq[order]
    f = n_procs + np.cumsum(df)
    q = np.cumsum(dq)
    widths = np.diff(times, append=times[-1])  # the value after each change holds until the next one
    unused = float(np.dot(np.maximum(0.0, f - q), widths)) / area
    return {"w_util": util, "w_unused": unused, "w_lost": 1.0 - util - unused, "span": span}
