"""Moldable tasks: a release time and a run time for every processor count, and their making from SWF logs.

Source: Saule, Bozdag and Catalyurek (2014), section 5 (the moldable model:
p_{i,j} known at release, stretch relative to p_{i,1}) and section 7 (the
first 8,000 jobs of a log, Downey speed-ups with A ~ U[p, 512], sigma ~ U[0, 2]).

A workload is columns: ``times[i, j - 1] = p_{i,j}`` for j = 1..m, each row
non-increasing (more processors never slow a task down; a speed-up with
steps, where fewer processors are as fast, is a flat stretch of the row).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from schedlab.errors import InputError
from schedlab.workload.filters import processors
from schedlab.workload.speedup import downey_speedup, downey_times
from schedlab.workload.swf import read_swf

__all__ = ["MoldableTasks", "from_swf"]


@dataclass(frozen=True, eq=False)
class MoldableTasks:
    """Moldable tasks as columns; row i is one task.

    Attributes
    ----------
    id : int64 array (n,)
        Unique task ids.
    release : float64 array (n,)
        Release times r_i in seconds, >= 0.
    times : float64 array (n, m)
        ``times[i, j - 1]``: run time of task i on j processors, > 0, non-increasing in j.
    line : int64 array (n,)
        Source line of each task (0 when generated), for error messages.
    source : str
        File or generator the tasks came from.
    downey : tuple of two float64 arrays, or None
        (A, sigma) per task when the times come from Downey's model.
    """

    id: np.ndarray
    release: np.ndarray
    times: np.ndarray
    line: np.ndarray
    source: str = "<memory>"
    downey: tuple[np.ndarray, np.ndarray] | None = None

    def __post_init__(self) -> None:
        self.check()

    def __len__(self) -> int:
        return int(self.id.shape[0])

    @property
    def n_procs(self) -> int:
        """m, the largest processor count the table covers."""
        return int(self.times.shape[1])

    @property
    def p1(self) -> np.ndarray:
        """The sequential times p_{i,1} that stretch and load are measured against."""
        return self.times[:, 0]

    def check(self) -> None:
        """Raise InputError on the first task that cannot be scheduled."""
        n = self.id.shape[0]
        if self.release.shape != (n,) or self.line.shape != (n,) or self.times.ndim != 2 or self.times.shape[0] != n:
            raise InputError(
                self.source, message=f"moldable columns of mismatched shapes {self.release.shape}, {self.times.shape}"
            )
        if self.times.shape[1] < 1:
            raise InputError(self.source, message="no run time given (m = 0)")
        ids = np.sort(self.id)
        if np.any(ids[1:] == ids[:-1]):
            dup = int(ids[1:][ids[1:] == ids[:-1]][0])
            raise InputError(
                self.source, self._line(int(np.flatnonzero(self.id == dup)[1])), "id", dup, "unique task ids"
            )
        bad = ~np.isfinite(self.release) | (self.release < 0)
        self._raise_first(bad, "release", self.release, "a finite time >= 0")
        times = self.times
        positive = ~(np.isfinite(times) & (times > 0)).all(axis=1)
        self._raise_first(positive, "times", times[:, 0], "finite run times > 0")
        rising = (np.diff(times, axis=1) > 0).any(axis=1)
        if rising.any():
            i = int(np.flatnonzero(rising)[0])
            j = int(np.flatnonzero(np.diff(times[i]) > 0)[0]) + 1
            raise InputError(
                self.source,
                self._line(i),
                f"task {int(self.id[i])} times",
                f"{times[i, j - 1]:g} on {j} then {times[i, j]:g} on {j + 1} processors",
                "run times non-increasing in the processor count",
            )

    def _raise_first(self, bad: np.ndarray, field: str, values: np.ndarray, expected: str) -> None:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(self.source, self._line(i), f"task {int(self.id[i])} {field}", values[i], expected)

    def _line(self, i: int) -> int | None:
        return int(self.line[i]) or None


def from_swf(path: str | os.PathLike, *, first: int = 8000, m: int = 512, rng: np.random.Generator) -> MoldableTasks:
    """Moldable tasks from the first ``first`` usable jobs of an SWF log, with Downey speed-ups.

    Source: Saule, Bozdag and Catalyurek (2014), section 7 (SDSC Par 96 and
    OSC Cluster logs, m = 512, 20 instances per log drawn with 20 seeds).
    Guarantee: ``times[i, q_i - 1]`` is the logged run time (tested).
    Cost: O(n m) numpy.

    A job of the log ran ``e`` seconds on ``q`` processors (allocated, SWF
    field 5, else requested, field 8). It gets A ~ U[q, m] and sigma ~ U[0, 2]
    (all A drawn first, then all sigma), ``p_1 = e S(q)`` and ``p_j = p_1 / S(j)``.

    Notes
    -----
    The paper does not say how the log is cleaned: jobs with a run time or a
    processor count <= 0 are skipped, releases are shifted so the first is 0,
    and q is clamped to m. The log's run time is read as the time on the
    logged q processors.
    """
    trace = read_swf(path)
    source = os.fspath(path)
    if m < 1:
        raise InputError("--m", field="m", value=m, expected="an integer >= 1")
    allocated = trace.columns["allocated_procs"]
    q = np.where(allocated > 0, allocated, processors(trace))
    run = trace.columns["run_time"]
    usable = np.flatnonzero((run > 0) & (q > 0))[:first]
    if usable.size == 0:
        raise InputError(source, message="no job with a run time > 0 and a processor count > 0")
    q = np.minimum(q[usable], m).astype(np.float64)
    submit = trace.columns["submit_time"][usable]
    a = rng.uniform(q, m)
    sigma = rng.uniform(0.0, 2.0, usable.size)
    p1 = run[usable] * downey_speedup(q, a, sigma)
    release = submit - submit.min()
    return MoldableTasks(
        id=trace.columns["job_id"][usable].astype(np.int64),
        release=release,
        times=downey_times(p1, a, sigma, m),
        line=trace.line[usable],
        source=source,
        downey=(a, sigma),
    )
