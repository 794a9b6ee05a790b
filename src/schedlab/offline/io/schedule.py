"""I/O-aware schedules as the common :class:`~schedlab.schedule.Schedule`, and the common instance to check them.

Source: Bleuse (2017), PhD thesis, section 4.1 (a schedule gives each job a
start and its nodes). An algorithm places each job on a window (its compute
nodes, the I/O nodes it targets, and the I/O nodes bridging them; see
:mod:`schedlab.platform.io_windows`) at a start time; :func:`io_schedule`
turns that into allocations of the platform's node ids (the window's hull),
and :func:`io_instance` gives the instance that
:func:`schedlab.validation.validate` checks it against: the platform's shapes
and shared I/O kind, and the jobs' I/O requests (:class:`~schedlab.runtime.io.IORequests`).
``schedule.info["io"]`` keeps the I/O nodes each job targets.
"""

from __future__ import annotations

import numpy as np

from schedlab.platform.io_windows import Window
from schedlab.runtime.io import IORequests, io_jobs
from schedlab.schedule import Instance, JobStatus, Schedule
from schedlab.workload.io_jobs import IOInstance

__all__ = ["io_instance", "io_schedule", "schedule_to_json"]


def io_instance(inst: IOInstance) -> Instance:
    """The common instance of ``inst``: its job table, its line or ring, and the I/O requests model."""
    return Instance(io_jobs(inst), inst.platform, IORequests(inst))


def io_schedule(inst: IOInstance, start, windows: list[Window], name: str, info: dict | None = None) -> Schedule:
    """The :class:`Schedule` of jobs placed on ``windows`` at ``start`` (``end = start + p``); all COMPLETED."""
    start = np.asarray(start, dtype=np.float64).reshape(inst.n)
    plat = inst.platform
    return Schedule(
        start=start,
        end=start + inst.p,
        status=np.full(inst.n, JobStatus.COMPLETED, dtype=np.int8),
        alloc=[w.alloc(plat) for w in windows],
        policy=name,
        info={**(info or {}), "io": tuple(w.io for w in windows)},
    )


def schedule_to_json(inst: IOInstance, schedule: Schedule) -> dict:
    """Plain JSON: the algorithm, its makespan and scalar statistics, and per job its id, start, end,
    allocation ranges (half-open) and targeted I/O nodes."""
    info = {k: v for k, v in schedule.info.items() if isinstance(v, (int, float, str, bool))}
    return {
        "algorithm": schedule.policy,
        "makespan": schedule.makespan,
        "info": info,
        "jobs": [
            {
                "id": int(inst.ids[j]),
                "start": float(schedule.start[j]),
                "end": float(schedule.end[j]),
                "alloc": [list(r) for r in schedule.alloc[j] or ()],
                "io": list(schedule.info["io"][j]),
            }
            for j in range(inst.n)
        ],
    }
