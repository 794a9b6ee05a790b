"""Per-run output files: Batsim-compatible ``jobs.csv`` and ``metrics.json``.

Source: Batsim's ``jobs.csv`` (``JobsTracer::write_job``
in batsim ``src/export.cpp`` and ``docs/output-jobs.rst``) so that evalys and
other Batsim tools read our runs unchanged.

What evalys needs (``evalys/jobset.py``, ``JobSet.from_csv``): it reads the
file with ``pandas.read_csv`` and converters ``job_id`` -> ``str`` and
``allocated_resources`` -> ``procset.ProcSet.from_str`` (interval notation
``1-2 5 10-50``; an empty field gives an empty set, which evalys skips when it
computes the resource bounds). ``JobSet.__init__`` requires
``allocated_resources`` and either ``submission_time``, ``starting_time``,
``finish_time`` or ``submission_time``, ``waiting_time``, ``execution_time``
(it fills in the other three); its plots read
``requested_number_of_resources``. ``JobSet.columns`` also lists
``workload_name``, ``requested_time``, ``success``, ``turnaround_time`` and
``stretch``; ``workload_name`` is written too (second, as Batsim does): evalys's
detailed Gantt chart (``JobSet.plot(with_details=True)``) labels jobs with it.
evalys rounds every number to 6 decimals after reading.

Number format (every numeric column; see :func:`number_array`):

- a column whose finite values are all integral and below 2**53 in magnitude
  is written as integers: ``12``, ``-3``, ``0`` (the usual case: SWF times are
  whole seconds);
- any other column by Arrow's shortest round-trip formatting: ``0.1``,
  ``12.5``, ``12``, ``0.00001``, ``1.0000000000005e+12``;
- NaN (a time of a never-started job) as an empty field, as Batsim does for
  rejected jobs.

So the same input gives a byte-identical file, and ``float(text)`` (or
pandas, as :func:`read_jobs_csv` uses) gives back exactly the float that was
written. The rows are written by the compiled core (``rust/src/csv_out.rs``,
a fraction of a second for 450k jobs, where formatting each cell in Python
took 4 s), or, where it is not built, by Arrow's C++ CSV writer, the
reference it is tested against byte for byte.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from schedlab.errors import ArgumentError, InputError, ValidationError
from schedlab.metrics import job_metrics
from schedlab.platform.intervals import AllocationTable
from schedlab.platform.tree import MEASURES
from schedlab.schedule import Instance, JobStatus, Schedule

try:  # the allocation text at compiled speed (rust/src/lib.rs)
    from schedlab.native import _core
except ImportError:  # a source tree whose extension was not built: the numpy version below runs
    _core = None  # type: ignore[assignment]

if TYPE_CHECKING:  # pyarrow and pandas load where a file is written or read, not when schedlab is imported
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "BATSIM_COLUMNS",
    "EXTRA_COLUMNS",
    "FINAL_STATES",
    "TOPOLOGY_COLUMNS",
    "allocation_texts",
    "format_allocations",
    "jobs_frame",
    "number_array",
    "read_jobs_csv",
    "write_jobs_csv",
    "write_metrics_json",
    "write_moves_csv",
    "workload_name",
]

BATSIM_COLUMNS = (
    "job_id",
    "workload_name",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
)
"""Batsim's ``jobs.csv`` columns, first in every file we write, in this order."""

_REQUIRED = tuple(c for c in BATSIM_COLUMNS if c != "workload_name")  # older files of ours lack the name

EXTRA_COLUMNS = (
    "final_state",
    "run_time",
    "bounded_slowdown",
    "bounded_slowdown_unclamped",
    "n_aborted",
    "n_preempted",
)
"""Our columns, after Batsim's: Batsim's final state word, the trace run time, both bounded slowdowns, aborted pieces."""

TOPOLOGY_COLUMNS = (*MEASURES, "penalised_run_time")
"""On a fat tree, after :data:`EXTRA_COLUMNS`: the final allocation's ``b_j``, ``K_j``, ``K*_j``, ``L``,
``L_min`` (the platform's :meth:`~schedlab.platform.base.Platform.allocation_measures`) and ``T'``, the
run time after the penalty (Mendonca 2017, ch. 5 section 5.3.4); empty for a job never started. On any
platform with allocation measures, the measures it gives come there, followed by ``penalised_run_time``."""

FINAL_STATES = {
    JobStatus.COMPLETED: "COMPLETED_SUCCESSFULLY",
    JobStatus.KILLED: "COMPLETED_WALLTIME_REACHED",
    JobStatus.REJECTED: "REJECTED",
}
"""Batsim's words (``job_state_to_string``) for the statuses a finished schedule may hold."""

_INT_COLUMNS = ("requested_number_of_resources", "success", "n_aborted", "n_preempted")
_TEXT_COLUMNS = ("workload_name", "allocated_resources", "final_state")
_FLOAT_COLUMNS = tuple(c for c in BATSIM_COLUMNS + EXTRA_COLUMNS if c not in ("job_id",) + _INT_COLUMNS + _TEXT_COLUMNS)
_FLOAT_COLUMNS += TOPOLOGY_COLUMNS  # counts too: a job never started has none (NaN)
_INTEGRAL_LIMIT = 2.0**53


def number_array(values) -> pa.Array:
    """An Arrow column holding ``values`` as ``jobs.csv`` writes them: int64 if every finite value is
    integral (below 2**53 in magnitude), else float64; NaN becomes null (an empty field).

    Cost: O(n) numpy work, no Python loop.
    """
    return _number_rows(*_numbers(values), slice(None))


def _numbers(values) -> tuple[np.ndarray, bool]:
    """A column as float64, and whether ``jobs.csv`` writes it as integers (every finite value integral)."""
    x = np.asarray(values, dtype=np.float64)
    finite = x[~np.isnan(x)]
    return x, bool(np.all((np.floor(finite) == finite) & (np.abs(finite) < _INTEGRAL_LIMIT)))


def _number_rows(x: np.ndarray, integral: bool, rows: slice) -> pa.Array:
    """Rows ``rows`` of a column of :func:`_numbers` as an Arrow array (int64 or float64, NaN as null)."""
    part = x[rows]
    nan = np.isnan(part)
    return _arrow(np.where(nan, 0, part).astype(np.int64), nan) if integral else _arrow(part, nan)


def _arrow(values: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    """An int64 or float64 numpy column as an Arrow array, ``null`` where the mask says so.

    Built on the numpy buffer (``pa.Array.from_buffers``), not by ``pa.array``, which imports pandas
    (half a second) to check whether its argument is a pandas object.
    """
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    kind = pa.int64() if values.dtype.kind in "iub" else pa.float64()
    values = values.astype(np.int64 if kind == pa.int64() else np.float64, copy=False)
    validity = None
    if null is not None and null.any():
        validity = pa.py_buffer(np.packbits(~null, bitorder="little"))
    return pa.Array.from_buffers(kind, values.shape[0], [validity, pa.py_buffer(values)])


def _texts(starts: np.ndarray, data: bytes) -> pa.Array:
    """An Arrow text column: row r is ``data[starts[r]:starts[r + 1]]`` (ASCII)."""
    import pyarrow as pa

    starts = np.ascontiguousarray(starts, dtype=np.int64)
    return pa.Array.from_buffers(
        pa.large_string(), starts.shape[0] - 1, [None, pa.py_buffer(starts), pa.py_buffer(data)]
    )


def _text_starts(texts: list[str]) -> tuple[np.ndarray, bytes]:
    """ASCII strings as one text and the start of each (``n + 1`` int64 offsets)."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    return np.concatenate([[0], np.cumsum(lengths)]), "".join(texts).encode("ascii")


def allocation_texts(allocs) -> tuple[np.ndarray, bytes]:
    """Batsim interval notation for many allocations at once, as one ASCII text and the start of each
    allocation's part (``n + 1`` int64 offsets): allocation r reads ``text[starts[r]:starts[r + 1]]``,
    the text of :func:`~schedlab.platform.intervals.format_allocation` (tested), ``""`` for None or ``()``.

    ``allocs`` is a list or an :class:`~schedlab.platform.intervals.AllocationTable` (read as is).
    Cost: O(R) compiled work for R ranges in all on the compiled core; without it, O(R + P) for P the
    largest id, in a few C-level passes (numpy gathers of pre-formatted ids, one join)
    instead of one Python generator per allocation.
    """
    table = AllocationTable.from_allocations(allocs)
    if _core is not None:
        starts, text = _core.format_ranges(table.offsets, table.lo, table.hi)
        return np.frombuffer(starts, dtype=np.int64), text
    n = len(table)
    count = table.counts
    n_ranges = int(count.sum())
    if n_ranges == 0:
        return np.zeros(n + 1, dtype=np.int64), b""
    lo = table.lo
    last = table.hi - 1
    # Processor ids are few (< n_procs): format each once, then gather by fancy indexing.
    names = np.array(list(map(str, range(int(table.hi.max()) + 1))), dtype=object)
    dashed = np.array(list(map("-".__add__, names.tolist())), dtype=object)
    upper = dashed[last]
    upper[last == lo] = ""  # a single id is written alone
    parts = np.full(3 * n_ranges, " ", dtype=object)
    parts[0::3] = names[lo]
    parts[1::3] = upper
    ends = table.offsets[1:][count > 0] - 1  # last range of each non-empty allocation
    parts[3 * ends + 2] = ""
    pieces = parts.tolist()
    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    cut = np.concatenate([[0], np.cumsum(lengths)])
    return cut[3 * table.offsets], "".join(pieces).encode("ascii")


def format_allocations(allocs) -> list[str]:
    """:func:`allocation_texts` as one string per allocation."""
    starts, text = allocation_texts(allocs)
    bounds = starts.tolist()
    return [text[a:b].decode("ascii") for a, b in zip(bounds, bounds[1:])]


def workload_name(source: str) -> str:
    """The ``workload_name`` of a job table's source: the file's name without its extensions
    (``KTH-SP2-1996-2.1-cln`` for ``.../KTH-SP2-1996-2.1-cln.swf.gz``), characters other than letters,
    digits and ``._+-`` as ``_`` (the file is written unquoted), ``memory`` for a table built in memory, ``w0``
    (Batsim's usual name) when nothing is left."""
    name = re.split(r"[/\\]", source.strip("<>"))[-1]
    name = re.sub(r"(\.swf|\.json|\.csv)?(\.gz)?$", "", name, flags=re.IGNORECASE)
    name = re.sub(r"[^A-Za-z0-9._+-]", "_", name)
    return name or "w0"


def write_jobs_csv(
    path: str | os.PathLike,
    instance: Instance,
    schedule: Schedule,
    *,
    tau: float = 10.0,
) -> None:
    """Write one row per job (job-table order): Batsim's columns, then ours, then the platform's measures.

    Source: Batsim ``JobsTracer::write_job`` (values and empty fields for
    rejected jobs), evalys ``JobSet.from_csv`` (the reader to satisfy).
    Cost: O(n) numpy work, then one compiled pass writing the rows (Arrow's C++ CSV writer, a slice at a
    time, where the core is not built); a fraction of a second for 450k jobs.

    Columns, in order: :data:`BATSIM_COLUMNS` then :data:`EXTRA_COLUMNS`, then,
    on a platform that measures allocations (a fat tree: :data:`TOPOLOGY_COLUMNS`),
    its measures and ``penalised_run_time`` (the run-time model's time on the
    allocation before the walltime cap); on other platforms nothing more.
    ``execution_time``, ``waiting_time``, ``turnaround_time`` and ``stretch``
    (= turnaround / execution) refer to the final execution; ``success`` is 1
    for COMPLETED, 0 otherwise; ``allocated_resources`` uses Batsim's interval
    notation (``0-3 8-11``); rejected jobs have empty times, ratios and
    allocation, ``success`` 0 and ``final_state`` ``REJECTED``. Numbers follow
    the module's format rule (integral columns as ints, else shortest round trip, NaN empty).
    The file is ASCII with ``\\n`` line ends.

    Parameters
    ----------
    path : path-like
        File to write (overwritten).
    instance : Instance
        Jobs and platform.
    schedule : Schedule
        A finished schedule (every job COMPLETED, KILLED or REJECTED).
    tau : float, default 10.0
        Bounded-slowdown threshold in seconds for the two bounded-slowdown columns.

    Raises
    ------
    ValidationError
        If a job is NOT_STARTED or has an unknown status: Batsim has no word
        for it and a finished simulation has none.
    """
    columns = _jobs_columns(instance, schedule, tau=tau)
    with open(path, "wb") as f:
        f.write((",".join(columns) + "\n").encode("ascii"))  # Arrow would quote the header's names
    if _core is not None:  # the rows at compiled speed, the same bytes as Arrow's (tested)
        _core.append_csv_rows(os.fspath(path), len(instance.jobs), [_core_column(*c) for c in columns.values()])
    else:
        _append_arrow_rows(path, columns, len(instance.jobs))


def _core_column(kind: str, *value) -> tuple:
    """A column of :func:`_jobs_columns` as the compiled writer takes it."""
    if kind == "number":
        values, integral = value
        return ("integral" if integral else "float", np.ascontiguousarray(values, dtype=np.float64))
    return (kind, *value)


def _append_arrow_rows(path: str | os.PathLike, columns: dict[str, tuple], n: int) -> None:
    """The rows of ``jobs.csv`` by Arrow's C++ CSV writer, a slice at a time (the whole table is never held):
    the reference the compiled writer is tested against."""
    import pyarrow.csv as pa_csv

    options = pa_csv.WriteOptions(include_header=False, quoting_style="none")
    with open(path, "ab") as f:
        for first in range(0, n, _CHUNK):
            pa_csv.write_csv(_rows(columns, slice(first, first + _CHUNK)), f, options)


def jobs_frame(instance: Instance, schedule: Schedule, *, tau: float = 10.0) -> pd.DataFrame:
    """``jobs.csv``'s rows and columns as a DataFrame, with the column types :func:`read_jobs_csv` gives:
    what reading the written file back returns, without the file."""
    frame = jobs_table(instance, schedule, tau=tau).to_pandas()
    return _typed(frame)


def jobs_table(instance: Instance, schedule: Schedule, *, tau: float = 10.0) -> pa.Table:
    """The Arrow table :func:`write_jobs_csv` writes (same columns, same values; see there)."""
    return _rows(_jobs_columns(instance, schedule, tau=tau), slice(None))


_CHUNK = 1 << 16
"""Rows converted to Arrow and written at a time by :func:`write_jobs_csv` (450k jobs: 7 slices)."""


def _rows(columns: dict[str, tuple], rows: slice) -> pa.Table:
    """Rows ``rows`` of the columns of :func:`_jobs_columns` as an Arrow table."""
    import pyarrow as pa

    def arrow(kind: str, *value) -> pa.Array:
        if kind == "number":
            values, integral = value
            return _number_rows(values, integral, rows)
        if kind == "int":
            return _arrow(value[0][rows])
        whole = _texts(*value)  # wraps the text without a copy; sliced without one either
        start, stop, _ = rows.indices(len(whole))
        return whole.slice(start, max(stop - start, 0))

    return pa.Table.from_arrays([arrow(*source) for source in columns.values()], names=list(columns))


def _jobs_columns(instance: Instance, schedule: Schedule, *, tau: float = 10.0) -> dict[str, tuple]:
    """Each column of ``jobs.csv``, in order, as ``("number", values, integral)`` (:func:`_numbers`),
    ``("int", int64 values)`` or ``("text", starts, ASCII bytes)`` (row r is ``text[starts[r]:starts[r + 1]]``)."""
    jobs = instance.jobs
    n = len(jobs)
    status = np.asarray(schedule.status).astype(np.int64)
    known = np.isin(status, [int(s) for s in FINAL_STATES])
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        raise ValidationError(
            f"job {jobs.id[i]}: status code {status[i]} cannot be written to jobs.csv "
            "(expected COMPLETED, KILLED or REJECTED)"
        )
    allocated = allocation_texts(schedule.alloc)
    per_job = job_metrics(instance, schedule, tau=tau)
    started = (status == JobStatus.COMPLETED) | (status == JobStatus.KILLED)
    start = np.where(started, np.asarray(schedule.start, dtype=np.float64), np.nan)
    end = np.where(started, np.asarray(schedule.end, dtype=np.float64), np.nan)

    def pieces_per_job(kept: bool) -> np.ndarray:
        rows = [p.job for p in schedule.aborted if p.kept == kept and not p.moved]
        return np.bincount(np.asarray(rows, dtype=np.int64), minlength=n)[:n]

    def number(values) -> tuple:
        return ("number", *_numbers(values))

    words = np.array([FINAL_STATES.get(code, "") for code in JobStatus], dtype=object)  # indexed by status code
    name = workload_name(jobs.source).encode("ascii")
    columns: dict[str, tuple] = {
        "job_id": ("int", np.asarray(jobs.id, dtype=np.int64)),
        "workload_name": ("text", np.arange(n + 1, dtype=np.int64) * len(name), name * n),
        "submission_time": number(jobs.submit),
        "requested_number_of_resources": ("int", np.asarray(jobs.procs, dtype=np.int64)),
        "requested_time": number(jobs.requested_time),
        "success": ("int", (status == JobStatus.COMPLETED).astype(np.int64)),
        "starting_time": number(start),
        "execution_time": number(per_job["execution"]),
        "finish_time": number(end),
        "waiting_time": number(per_job["wait"]),
        "turnaround_time": number(per_job["response"]),
        "stretch": number(per_job["slowdown"]),
        "allocated_resources": ("text", *allocated),
        "final_state": ("text", *_text_starts(words[status].tolist())),
        "run_time": number(jobs.run_time),
        "bounded_slowdown": number(per_job["bsld"]),
        "bounded_slowdown_unclamped": number(per_job["bsld_unclamped"]),
        "n_aborted": ("int", pieces_per_job(False)),
        "n_preempted": ("int", pieces_per_job(True)),
    }
    measures = instance.platform.allocation_measures(schedule.alloc, instance.jobs.procs)
    if measures:
        measures["penalised_run_time"] = instance.runtime.run_times(schedule.alloc)
        columns.update({name: number(np.where(started, value, np.nan)) for name, value in measures.items()})
    return columns


def read_jobs_csv(path: str | os.PathLike) -> pd.DataFrame:
    """Read a ``jobs.csv`` written by :func:`write_jobs_csv` or by Batsim.

    Cost: one ``pandas.read_csv`` call.

    Times and ratios come back as float64, exactly as written (pandas 3's
    default parser; ``float_precision="round_trip"`` before), empty fields as NaN;
    ``requested_number_of_resources``, ``success``, ``n_aborted`` and ``n_preempted`` as int64;
    ``allocated_resources`` and ``final_state`` as str (empty string for none);
    the fat-tree columns (:data:`TOPOLOGY_COLUMNS`), when present, as float64
    (NaN for a job never started).
    ``job_id`` is int64 when every id is an integer (our files), str
    otherwise (Batsim ids such as ``w0!1``). Other columns are left to pandas.

    Parameters
    ----------
    path : path-like
        The file.

    Returns
    -------
    pandas.DataFrame
        One row per job, in file order.

    Raises
    ------
    InputError
        If the file lacks one of Batsim's columns (:data:`BATSIM_COLUMNS`), a cell is not of its column's
        type, or an ``allocated_resources`` is malformed (``0-zz``) or holds a reversed range (``5-1``): the
        message names the file, line and column.
    """
    import pandas as pd

    # pandas >= 3 parses floats exactly by default and deprecates ``float_precision`` (a warning per read);
    # older pandas needs "round_trip" to give back exactly the float written.
    round_trip = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            header = f.readline().rstrip("\r\n").split(",")
            f.read()  # the whole file is text
    except UnicodeDecodeError:
        raise InputError(str(path), message="not a text (UTF-8) file") from None
    missing = [c for c in _REQUIRED if c not in header]
    if missing:
        raise InputError(str(path), 1, "header", None, f"Batsim's jobs.csv columns, missing {', '.join(missing)}")
    dtype: dict[str, object] = {c: np.float64 for c in _FLOAT_COLUMNS if c in header}
    dtype.update({c: str for c in _TEXT_COLUMNS + ("job_id",) if c in header})
    try:
        frame = pd.read_csv(
            path, dtype=dtype, **round_trip, keep_default_na=False, na_values={c: [""] for c in _FLOAT_COLUMNS}
        )
    except (ValueError, OverflowError, pd.errors.ParserError):  # a text where a number was expected, a ragged line
        _first_bad_cell(path, header)
        raise
    for c in _INT_COLUMNS:
        if c in frame.columns and not pd.api.types.is_integer_dtype(frame[c]):  # a text or an empty field
            bad = ~frame[c].map(lambda v: isinstance(v, (int, np.integer)) or _is_ascii_integer(str(v)))
            if bad.any():
                i = int(np.flatnonzero(bad.to_numpy())[0])
                raise InputError(
                    str(path), i + 2, f"column {header.index(c) + 1} ({c})", frame[c].iloc[i], "an integer"
                )
            frame[c] = frame[c].astype(np.int64)
    _check_allocations(path, header, frame["allocated_resources"].fillna("").astype(str))
    return _typed(frame)


def _is_ascii_integer(text: str) -> bool:
    """``-12``, ``7``: digits 0-9 only (``str.isdigit`` and ``int`` also take other scripts' digits)."""
    return text.isascii() and text.lstrip("-").isdigit()


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """``job_id`` as int64 when every id is an integer, floats as float64, texts as str (empty for none)."""
    for c in _FLOAT_COLUMNS:
        if c in frame.columns:
            frame[c] = frame[c].astype(np.float64)
    for c in _TEXT_COLUMNS:
        if c in frame.columns:
            frame[c] = frame[c].fillna("").astype(str)
    ids = frame["job_id"].astype(str)
    frame["job_id"] = ids.astype(np.int64) if ids.str.fullmatch(r"-?[0-9]+").all() else ids
    return frame


_ALLOCATION = re.compile(r"(?:[0-9]+(?:-[0-9]+)?(?: [0-9]+(?:-[0-9]+)?)*)?")  # ASCII digits only


def _check_allocations(path: Path, header: list[str], column: pd.Series) -> None:
    """InputError at the first ``allocated_resources`` that is not Batsim's interval notation (``0-3 8``), or
    holds a reversed range (``5-1``), naming the file, line and column."""
    column_number = header.index("allocated_resources") + 1
    where = f"column {column_number} (allocated_resources)"
    malformed = ~column.str.fullmatch(_ALLOCATION.pattern).to_numpy(dtype=bool)
    if malformed.any():
        row = int(np.flatnonzero(malformed)[0])
        raise InputError(
            str(path), row + 2, where, column.iloc[row], "processor ids and ranges LO-HI separated by spaces"
        )
    ranges = column.str.extractall(r"([0-9]+)-([0-9]+)")
    if len(ranges):
        reversed_ = ranges[0].astype(float).to_numpy() > ranges[1].astype(float).to_numpy()
        if reversed_.any():
            row = int(ranges.index.get_level_values(0)[np.flatnonzero(reversed_)[0]])
            raise InputError(str(path), row + 2, where, column.iloc[row], "ranges LO-HI with LO <= HI")


def _first_bad_cell(path: Path, header: list[str]) -> None:
    """Raise InputError at the first cell pandas could not read as its column's type (file, line, column)."""
    kinds = {c: "an integer" for c in _INT_COLUMNS} | {c: "a number or nothing" for c in _FLOAT_COLUMNS}
    with open(path, encoding="utf-8", newline="") as f:
        for line, row in enumerate(csv.reader(f), start=1):
            if line == 1:
                continue
            if len(row) != len(header):
                raise InputError(
                    str(path), line, None, None, f"{len(header)} fields as in the header, found {len(row)}"
                )
            for number, (name, text) in enumerate(zip(header, row, strict=True), start=1):
                expected = kinds.get(name)
                if expected is None or (text == "" and name in _FLOAT_COLUMNS):
                    continue
                try:
                    if not text.isascii() or "_" in text:  # Python reads '٣' and '1_0', pandas does not
                        raise ValueError(text)
                    value = float(text) if name in _FLOAT_COLUMNS else int(text)
                except ValueError:
                    raise InputError(str(path), line, f"column {number} ({name})", text, expected) from None
                if name in _INT_COLUMNS and not -(2**63) <= value < 2**63:
                    raise InputError(str(path), line, f"column {number} ({name})", text, "a 64-bit integer")


def write_moves_csv(path: str | os.PathLike, instance: Instance, schedule: Schedule) -> None:
    """Write the placements migrated jobs left (moved pieces), one row each, in time then job order.

    Columns: ``job_id``, ``starting_time`` and ``finish_time`` (when the job held that placement),
    ``allocated_resources`` (Batsim's interval notation). A job's final allocation, from its last move to
    its end, is in ``jobs.csv``.
    """
    pieces = sorted((p for p in schedule.aborted if p.moved), key=lambda p: (p.start, p.job))
    ids = instance.jobs.id
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write("job_id,starting_time,finish_time,allocated_resources\n")
        for p in pieces:
            f.write(f"{int(ids[p.job])},{p.start!r},{p.end!r},{format_allocations([p.alloc])[0]}\n")


def write_metrics_json(path: str | os.PathLike, metrics: dict, *, extra: dict | None = None) -> None:
    """Write metrics (and run information) as one flat JSON object.

    Deterministic: keys sorted, indent 2, floats as Python's shortest
    round-trip repr, non-finite floats as ``null`` (JSON has no NaN), numpy
    scalars and arrays converted to Python numbers and lists, a trailing newline.

    Parameters
    ----------
    path : path-like
        File to write (overwritten).
    metrics : dict
        Typically :func:`schedlab.metrics.aggregate`'s result.
    extra : dict, optional
        Run information to store beside the metrics (policy, parameters,
        trace, seed...). Its keys must differ from the metrics' keys.

    Raises
    ------
    ValueError
        If a key of ``extra`` is also a key of ``metrics``.
    """
    extra = extra or {}
    clash = sorted(set(metrics) & set(extra))
    if clash:
        raise ArgumentError(f"keys in both metrics and extra: {', '.join(map(str, clash))}")
    data = _plain({**metrics, **extra})
    text = json.dumps(data, sort_keys=True, indent=2, allow_nan=False, ensure_ascii=True)
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text + "\n")


def _plain(value):
    """Python JSON types only: numpy scalars and arrays converted, non-finite floats to None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value
