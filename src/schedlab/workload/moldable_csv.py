"""The tasks CSV: independent tasks, sequential or moldable, one per line.

Columns (a header line names them, in any order; other columns are ignored):

* ``id`` and ``release`` (seconds), always;
* then one way to give run times:
  ``p`` (the same time on any number of processors: a sequential task),
  ``p1``, ``A`` and ``sigma`` (Downey's model, Downey 1997, from the
  one-processor time), or ``times``: space-separated run times on 1, 2, ...
  processors; a task keeps its last time on more processors, and counts
  beyond m are ignored.

:func:`read_tasks_csv` gives moldable tasks (a run-time table over 1..m
processors); :func:`read_sequential_tasks_csv` gives sequential tasks (their
one-processor time) for the sequential max-stretch policies.

Source: the inputs listed for the stretch study of Saule, Bozdag and
Catalyurek (2014), sections 2 and 5. Every error is one line naming the file,
the line and the field.
"""

from __future__ import annotations

import csv
import io
import os

import numpy as np

from schedlab.errors import InputError
from schedlab.workload.jobs import JobTable
from schedlab.workload.moldable import MoldableTasks
from schedlab.workload.speedup import check_downey, downey_times

__all__ = ["read_sequential_tasks_csv", "read_tasks_csv", "write_tasks_csv"]

FORMS = (("times",), ("p1", "A", "sigma"), ("p",))


def _number(text: str, source: str, line: int, field: str, *, positive: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(source, line, field, repr(text), "a number") from None
    if not np.isfinite(value) or value < 0 or (positive and value == 0):
        raise InputError(source, line, field, text, "a finite number > 0" if positive else "a finite number >= 0")
    return value


def _parse(path: str | os.PathLike) -> tuple[str, tuple[str, ...], list[int], list[float], list[int], list]:
    """Read a tasks CSV: (source, form, ids, releases, lines, per-task run-time values in the file's form).

    A row of the ``times`` form is its list of times (not padded), of ``p`` one number, of Downey's form
    ``(p1, A, sigma)``. Every value is checked (one-line InputError).
    """
    source = os.fspath(path)
    try:
        with open(source, newline="") as handle:
            text = handle.read()
    except OSError as err:
        raise InputError(source, message=f"cannot read: {err.strerror}") from None
    reader = csv.reader(io.StringIO(text))
    header = [name.strip() for name in next(reader, [])]
    missing = [name for name in ("id", "release") if name not in header]
    form = next((f for f in FORMS if all(name in header for name in f)), None)
    if missing or form is None:
        what = ", ".join(missing) if missing else "run times"
        raise InputError(
            source,
            1,
            "header",
            ",".join(header) or "(empty)",
            f"columns id, release and one of: times | p1, A, sigma | p (missing {what})",
        )
    col = {name: header.index(name) for name in header}
    ids: list[int] = []
    release: list[float] = []
    lines: list[int] = []
    rows: list = []  # per task: a list of times, p, or (p1, A, sigma), as the file's form
    for number, record in enumerate(reader, start=2):
        if not record or all(not field.strip() for field in record):
            continue
        if len(record) < len(header):
            raise InputError(source, number, "fields", len(record), f"{len(header)} (as in the header)")
        try:
            ids.append(int(record[col["id"]]))
        except ValueError:
            raise InputError(source, number, "id", repr(record[col["id"]]), "an integer") from None
        release.append(_number(record[col["release"]], source, number, "release", positive=False))
        lines.append(number)
        if form == ("times",):
            parts = record[col["times"]].split()
            if not parts:
                raise InputError(
                    source, number, "times", "(empty)", "space-separated run times on 1, 2, ... processors"
                )
            row = [_number(v, source, number, f"times[{j}]", positive=True) for j, v in enumerate(parts, 1)]
            rising = next((j for j in range(1, len(row)) if row[j] > row[j - 1]), None)
            if rising is not None:
                raise InputError(
                    source,
                    number,
                    f"task {ids[-1]} times",
                    f"{row[rising - 1]:g} on {rising} then {row[rising]:g} on {rising + 1} processors",
                    "run times non-increasing in the processor count",
                )
            rows.append(row)
        elif form == ("p",):
            rows.append(_number(record[col["p"]], source, number, "p", positive=True))
        else:
            p1 = _number(record[col["p1"]], source, number, "p1", positive=True)
            a = _number(record[col["A"]], source, number, "A", positive=False)
            sigma = _number(record[col["sigma"]], source, number, "sigma", positive=False)
            if check_downey(a, sigma):
                raise InputError(
                    source, number, "A, sigma", f"{a:g}, {sigma:g}", "A >= 1 and sigma >= 0 (Downey's model)"
                )
            rows.append((p1, a, sigma))
    if not ids:
        raise InputError(source, message="no task")
    return source, form, ids, release, lines, rows


def read_tasks_csv(path: str | os.PathLike, *, m: int) -> MoldableTasks:
    """Read a tasks CSV into an (n, m) run-time table: moldable tasks for ``schedlab moldable simulate``.

    A ``p`` task keeps its time on any number of processors; a ``times`` row keeps its last time beyond
    its length and is cut at m. Cost: O(n m).

    Raises
    ------
    InputError
        Missing file or column, a value that is not a number, a negative
        time, Downey parameters out of range (A >= 1, sigma >= 0), run times
        growing with the processor count, repeated ids.
    """
    if m < 1:
        raise InputError("--m", field="m", value=m, expected="an integer >= 1")
    source, form, ids, release, lines, rows = _parse(path)
    downey = None
    if form == ("times",):
        times = np.asarray([row[:m] + [row[-1]] * (m - len(row)) for row in rows], dtype=np.float64)
    elif form == ("p",):
        times = np.repeat(np.asarray(rows, dtype=np.float64)[:, None], m, axis=1)
    else:
        p1, a, sigma = np.asarray(rows, dtype=np.float64).T
        times = downey_times(p1, a, sigma, m)
        downey = (a, sigma)
    return MoldableTasks(
        id=np.asarray(ids, dtype=np.int64),
        release=np.asarray(release, dtype=np.float64),
        times=times,
        line=np.asarray(lines, dtype=np.int64),
        source=source,
        downey=downey,
    )


def read_sequential_tasks_csv(path: str | os.PathLike) -> JobTable:
    """Read a tasks CSV as sequential tasks (one processor each) for ``schedlab tasks simulate``.

    A task's processing time is ``p``, or its one-processor time (``p1``, or the first of its ``times``).
    Cost: O(n).

    Raises
    ------
    InputError
        As :func:`read_tasks_csv`, and ids must be unique.
    """
    source, form, ids, release, lines, rows = _parse(path)
    p = rows if form == ("p",) else [row[0] for row in rows]
    jobs = JobTable(
        id=np.asarray(ids, dtype=np.int64),
        submit=np.asarray(release, dtype=np.float64),
        run_time=np.asarray(p, dtype=np.float64),
        requested_time=np.asarray(p, dtype=np.float64),
        procs=np.ones(len(ids), dtype=np.int64),
        line=np.asarray(lines, dtype=np.int64),
        source=source,
    )
    jobs.check()
    return jobs


def write_tasks_csv(tasks: MoldableTasks | JobTable, path: str | os.PathLike) -> None:
    """Write ``tasks`` so that the matching reader gives them back exactly (floats as their ``repr``).

    Sequential tasks (a :class:`~schedlab.workload.jobs.JobTable` of one-processor jobs) are written as
    ``id, release, p`` (:func:`read_sequential_tasks_csv`); moldable Downey tasks as ``p1, A, sigma``;
    other moldable tasks as ``times``, each row cut after its last change (:func:`read_tasks_csv` with
    the same m).
    """
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        if isinstance(tasks, JobTable):
            writer.writerow(["id", "release", "p"])
            for task_id, release, p in zip(tasks.id.tolist(), tasks.submit.tolist(), tasks.run_time.tolist()):
                writer.writerow([task_id, repr(release), repr(p)])
            return
        if tasks.downey is not None:
            a, sigma = tasks.downey
            writer.writerow(["id", "release", "p1", "A", "sigma"])
            for row in zip(tasks.id.tolist(), tasks.release.tolist(), tasks.p1.tolist(), a.tolist(), sigma.tolist()):
                writer.writerow([row[0]] + [repr(v) for v in row[1:]])
            return
        writer.writerow(["id", "release", "times"])
        times = tasks.times
        changes = np.diff(times, axis=1) != 0
        last = np.where(changes.any(axis=1), times.shape[1] - np.argmax(changes[:, ::-1], axis=1), 1)
        for i, (task_id, release) in enumerate(zip(tasks.id.tolist(), tasks.release.tolist())):
            writer.writerow([task_id, repr(release), " ".join(repr(v) for v in times[i, : last[i]].tolist())])
