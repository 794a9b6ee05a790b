"""A reference event loop for the torus schedulers, apart from the engine (tests and cross-checks only).

The event loop of Krevat (2003), section 4.2, around a :class:`~schedlab.policies.torus.scheduler.TorusScheduler`,
written without the engine: the policy on the engine (:class:`~schedlab.policies.torus.policy.TorusPolicy`)
must give the same schedule (tested).

Source: Krevat (2003), section 4.2: four events (arrival, schedule, start
``start_delay`` after the schedule, completion); the scheduler runs after
every arrival and every completion, and only then. At equal times,
completions come first (by row), then arrivals (by arrival, then row); with
``batch`` the scheduler runs once after all events of one time instead.

Cost: O(n log n) for the event heap, plus the scheduler's own work.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from schedlab.platform.placement import Placement
from schedlab.policies.torus.scheduler import MigrationLog, Move, Start, TorusScheduler

__all__ = ["TorusRun", "run_events"]


@dataclass
class TorusRun:
    """What a run produced, row-aligned with the input jobs.

    ``scheduled`` is when the job took its nodes, ``start = scheduled + start_delay``,
    ``end = start + run_time``; ``size`` is the requested size after rounding and
    ``allocated`` the size it got (larger when grown). ``placements`` lists each
    job's successive placements as ``(time, (mask, box))``: the first at its
    schedule time, one more per migration that moved it.
    """

    requested: np.ndarray
    size: np.ndarray
    allocated: np.ndarray
    scheduled: np.ndarray
    start: np.ndarray
    end: np.ndarray
    backfilled: np.ndarray
    placements: list[list[tuple[float, Placement]]]
    log: MigrationLog = field(default_factory=MigrationLog)
    mfp_calls: int = 0
    cache_hits: int = 0


def run_events(
    scheduler: TorusScheduler,
    arrival: np.ndarray,
    size: np.ndarray,
    run_time: np.ndarray,
    estimate: np.ndarray,
    *,
    rounding: bool = True,
    batch: bool = False,
) -> TorusRun:
    """Simulate ``scheduler`` on the jobs given as columns and return every job's outcome.

    Parameters
    ----------
    scheduler : TorusScheduler
        A fresh scheduler (its state is consumed).
    arrival, size, run_time, estimate : arrays of length n
        Arrival time, requested nodes (``1..N``), execution time and the
        estimate the scheduler sees (seconds).
    rounding : bool, default True
        Round every size up to the next feasible one at arrival (Krevat 2003, chapter 2).
    batch : bool, default False
        Run the scheduler once per event time instead of after every event.

    Raises
    ------
    ValueError
        A size outside ``1..N``.
    """
    n = len(arrival)
    place = scheduler.placement
    requested = np.asarray(size, dtype=np.int64)
    rounded = np.array([place.round_size(int(s)) for s in requested], dtype=np.int64) if rounding else requested.copy()
    runs = np.asarray(run_time, dtype=np.float64).tolist()
    ests = np.asarray(estimate, dtype=np.float64).tolist()
    scheduled = np.full(n, np.nan)
    allocated = np.zeros(n, dtype=np.int64)
    backfilled = np.zeros(n, dtype=bool)
    placements: list[list[tuple[float, Placement]]] = [[] for _ in range(n)]
    delay = scheduler.start_delay
    order = np.lexsort((np.arange(n), arrival)).tolist()
    times = np.asarray(arrival, dtype=np.float64)[order].tolist()
    ends: list[tuple[float, int]] = []
    i = 0

    def apply(actions, now):
        for act in actions:
            if isinstance(act, Start):
                scheduled[act.row] = now
                allocated[act.row] = act.size
                backfilled[act.row] = act.backfilled
                placements[act.row].append((now, act.placement))
                heapq.heappush(ends, (now + delay + runs[act.row], act.row))
            elif isinstance(act, Move):
                placements[act.row].append((now, act.placement))

    while i < n or ends:
        now = min(times[i] if i < n else np.inf, ends[0][0] if ends else np.inf)
        while ends and ends[0][0] == now:
            _, row = heapq.heappop(ends)
            scheduler.finish(row)
            if not batch:
                apply(scheduler.invoke(now), now)
        while i < n and times[i] == now:
            row = order[i]
            scheduler.arrive(row, int(rounded[row]), ests[row])
            i += 1
            if not batch:
                apply(scheduler.invoke(now), now)
        if batch:
            apply(scheduler.invoke(now), now)
    start = scheduled + delay
    return TorusRun(
        requested=requested,
        size=rounded,
        allocated=allocated,
        scheduled=scheduled,
        start=start,
        end=start + np.asarray(run_time, dtype=np.float64),
        backfilled=backfilled,
        placements=placements,
        log=scheduler.log,
        mfp_calls=place.mfp_calls,
        cache_hits=place.cache_hits,
    )
