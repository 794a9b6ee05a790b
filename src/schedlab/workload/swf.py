"""Standard Workload Format (SWF 2.2) traces: read, write, and the machine size.

An SWF file is a block of ``;`` comment lines (the header, ``; Key: value``)
followed by one line per job of 18 whitespace-separated numbers, ``-1`` where
unknown. :func:`read_swf` keeps every field as given (no sorting, no shifting,
no filtering: that is :func:`schedlab.workload.filters.to_jobs`'s job) and
remembers the line each job came from, so that later errors can point at it.

References
----------
.. [1] D. G. Feitelson, D. Tsafrir, D. Krakov, "Experience with using the
   Parallel Workloads Archive", JPDC 74(10), 2014. doi:10.1016/j.jpdc.2014.06.013
.. [2] The Standard Workload Format, https://www.cs.huji.ac.il/labs/parallel/workload/swf.html
"""

from __future__ import annotations

import gzip
import io
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from schedlab.errors import InputError
from schedlab.platform.base import MAX_PROCS
from schedlab.workload.archive import resolve
from schedlab.workload.jobs import JobTable

__all__ = ["SWF_FIELDS", "SwfHeader", "SwfTrace", "machine_size", "read_swf", "write_swf"]

SWF_FIELDS: tuple[str, ...] = (
    "job_id",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_procs",
    "avg_cpu_time",
    "used_memory",
    "requested_procs",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)
"""The 18 SWF fields in file order (field ``k`` of the format is ``SWF_FIELDS[k - 1]``)."""

FLOAT_FIELDS: frozenset[str] = frozenset(
    {
        "submit_time",
        "wait_time",
        "run_time",
        "avg_cpu_time",
        "requested_time",
        "think_time",
        "used_memory",
        "requested_memory",
    }
)
"""Fields read as float64 (times and memory); the others are int64."""

_N_FIELDS = len(SWF_FIELDS)
_GZIP_MAGIC = b"\x1f\x8b"
# Whitespace as bytes.split() sees it (and as the tokens are separated); "\n" ends a line.
_WHITESPACE = b" \t\r\x0b\x0c"
_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[list(_WHITESPACE)] = True
_SEMICOLON = ord(";")
_BLANKS_TO_SPACE = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_BLANK = rb"[ \t\r\x0b\x0c]"
_JOB_LINE = _BLANK + rb"*(?:" + _NUMBER.pattern + _BLANK + rb"+){17}" + _NUMBER.pattern + _BLANK + rb"*(?:;[^\n]*)?"
_OTHER_LINE = _BLANK + rb"*(?:;[^\n]*)?"
# Every line matches: group 1 a job, group 2 a bad line, neither a comment or blank line.
_ANY_LINE = re.compile(rb"^(?:(" + _JOB_LINE + rb")|" + _OTHER_LINE + rb"|([^\n]*))$", re.MULTILINE)
_HEADER_FIELD = re.compile(r"^\s*;\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$")
_FIRST_INT = re.compile(r"[+-]?\d+")
_INT64_LIMIT = 2.0**63


@dataclass(frozen=True, slots=True)
class SwfHeader:
    """The comment header of an SWF file.

    Attributes
    ----------
    max_procs, max_nodes, unix_start_time : int or None
        First integer of the ``MaxProcs``, ``MaxNodes`` and ``UnixStartTime``
        values (``; MaxNodes: 184 ( 6, 171, 7)`` gives 184); None when absent.
    time_zone_string, computer : str or None
        ``TimeZoneString`` and ``Computer`` values; None when absent.
    fields : dict[str, str]
        Every ``; Key: value`` line, key as written, value stripped; the first
        occurrence of a key wins.
    lines : tuple[str, ...]
        The comment lines as read (without line ends), to write them back.
    """

    max_procs: int | None = None
    max_nodes: int | None = None
    unix_start_time: int | None = None
    time_zone_string: str | None = None
    computer: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    lines: tuple[str, ...] = ()

    @classmethod
    def from_lines(cls, lines) -> SwfHeader:
        """Parse comment lines (each starting, after blanks, with ``;``)."""
        lines = tuple(lines)
        fields: dict[str, str] = {}
        for text in lines:
            match = _HEADER_FIELD.match(text)
            if match is not None:
                fields.setdefault(match.group(1), match.group(2))
        return cls(
            max_procs=_first_int(fields.get("MaxProcs")),
            max_nodes=_first_int(fields.get("MaxNodes")),
            unix_start_time=_first_int(fields.get("UnixStartTime")),
            time_zone_string=fields.get("TimeZoneString"),
            computer=fields.get("Computer"),
            fields=fields,
            lines=lines,
        )

    @classmethod
    def from_fields(cls, fields: Mapping[str, object]) -> SwfHeader:
        """A header made of ``; Key: value`` lines, in the mapping's order (``{"MaxProcs": 128}``)."""
        return cls.from_lines(f"; {key}: {value}" for key, value in fields.items())


@dataclass(frozen=True, eq=False)
class SwfTrace:
    """An SWF trace as read: one numpy column per SWF field, rows in file order.

    Attributes
    ----------
    columns : dict[str, numpy array]
        One array per name of :data:`SWF_FIELDS`; float64 for times and memory
        (:data:`FLOAT_FIELDS`), int64 otherwise. ``-1`` means unknown.
    line : int64 array
        1-based line of each job in the file.
    header : SwfHeader
    source : str
        The path as given to :func:`read_swf`.
    """

    columns: dict[str, np.ndarray]
    line: np.ndarray
    header: SwfHeader
    source: str

    def __len__(self) -> int:
        return int(self.line.shape[0])


def read_swf(path: str | os.PathLike) -> SwfTrace:
    """Read an SWF trace, plain or gzip-compressed (detected by its magic bytes).

    Parameters
    ----------
    path : str or path-like
        The file, or ``pwa:NAME`` for a log of the Parallel Workloads Archive
        (:func:`schedlab.workload.archive.resolve`: local mirror, cache, or download).

    Returns
    -------
    SwfTrace
        Every job line, values as given (``-1`` kept, submit times neither
        sorted nor shifted); a trace without jobs has 0 rows.

    Raises
    ------
    InputError
        No such file; a job line without exactly 18 fields
        (``trace.swf:12: expected 18 fields, found 17``); a token that is not a
        number, or not an integer in an integer field
        (``trace.swf:12: field 5 (allocated_procs) = x, expected a number``).

    Notes
    -----
    Cost: O(size of the file). The file is read and decompressed once; the job
    lines are found with numpy (a line is a job when its first non-blank
    character is not ``;``; text after a ``;`` inside a job line is a comment)
    and parsed by pandas' C reader (0.4 s for RICC's 448k jobs, most of it
    decompression). When that fast path meets anything irregular, a second
    parser classifies every line with one regular expression and names the
    first bad line, or returns the same result when the irregularity was only
    one pandas does not handle (a form feed between fields, say); it takes
    about 5 times longer.
    """
    source = resolve(path)  # pwa:NAME, a log of the Parallel Workloads Archive (schedlab.workload.archive)
    data = _read_bytes(source)
    starts, ends = _line_bounds(data)
    first = _first_nonblank(data, starts, ends)
    buf = np.frombuffer(data, dtype=np.uint8)
    has_text = first < ends
    first_char = np.zeros(starts.shape[0], dtype=np.uint8)
    first_char[has_text] = buf[first[has_text]]
    is_job = has_text & (first_char != _SEMICOLON)
    is_comment = has_text & (first_char == _SEMICOLON)
    header = SwfHeader.from_lines(_decode(data[s:e]).rstrip("\r") for s, e in zip(starts[is_comment], ends[is_comment]))
    line = (np.flatnonzero(is_job) + 1).astype(np.int64)
    columns = _parse_fast(data, buf, starts, ends, is_job)
    if columns is None:
        return _parse_slow(source, data, header)
    return SwfTrace(columns=columns, line=line, header=header, source=source)


def machine_size(trace: SwfTrace, procs: int | None = None) -> tuple[int, str]:
    """The number of processors P of the trace's machine, and how it was chosen.

    In order: ``procs`` when given (``"--procs"``); the header's ``MaxProcs``
    (``"MaxProcs header"``); its ``MaxNodes`` (``"MaxNodes header (no
    MaxProcs)"``); the widest job, whose processors are field 8 (requested) if
    > 0 else field 5 (allocated) (``"largest job (no MaxProcs/MaxNodes
    header)"``). Header values <= 0 count as absent.

    Raises
    ------
    InputError
        ``procs`` < 1, or nothing gives a size (no header, no job with processors > 0).
    """
    if procs is not None:
        if int(procs) != procs or not 1 <= procs <= MAX_PROCS:
            raise InputError(trace.source, None, "--procs", procs, f"an integer from 1 to {MAX_PROCS:,}")
        return int(procs), "--procs"
    header = trace.header
    if header.max_procs is not None and header.max_procs > 0:
        size, how = header.max_procs, "MaxProcs header"
    elif header.max_nodes is not None and header.max_nodes > 0:
        size, how = header.max_nodes, "MaxNodes header (no MaxProcs)"
    else:
        widest = int(_processors(trace.columns).max()) if len(trace) else 0
        if widest < 1:
            raise InputError(
                trace.source,
                message="cannot tell the machine size: no MaxProcs/MaxNodes header and no job with processors > 0 "
                "(give --procs)",
            )
        size, how = widest, "largest job (no MaxProcs/MaxNodes header)"
    if size > MAX_PROCS:
        raise InputError(
            trace.source, None, f"machine size from the {how}", size, f"at most {MAX_PROCS:,} (give --procs)"
        )
    return size, how


def write_swf(
    path: str | os.PathLike,
    trace_or_jobtable: SwfTrace | JobTable,
    header: SwfHeader | Mapping[str, object] | None = None,
) -> None:
    """Write a valid SWF file (gzip-compressed when ``path`` ends with ``.gz``).

    Parameters
    ----------
    path : str or path-like
    trace_or_jobtable : SwfTrace or JobTable
        An SwfTrace is written whole. A JobTable fills field 1 (id), 2
        (submit), 4 (run_time), 5 and 8 (procs), 9 (requested_time), and any
        field named in ``extra`` with an SWF name; the others are ``-1``.
    header : SwfHeader, mapping or None
        Comment lines to write: an SwfHeader's ``lines`` (or, when it has
        none, ``; Key: value`` for its ``fields`` and set attributes), or
        ``; Key: value`` per mapping item (``{"MaxProcs": 128}``). Default:
        the trace's own header, or for a JobTable ``; Version: 2.2``,
        ``; MaxJobs: n`` and ``; MaxRecords: n``.

    Notes
    -----
    Integral values are written as integers, others in the shortest form that
    reads back to the same float, so ``read_swf`` returns equal arrays. Non
    finite values are written as ``-1``. The gzip member has no time stamp, so
    the output is byte-identical for identical input.
    """
    target = os.fspath(path)
    if isinstance(trace_or_jobtable, SwfTrace):
        columns = trace_or_jobtable.columns
        n = len(trace_or_jobtable)
        default = trace_or_jobtable.header
    elif isinstance(trace_or_jobtable, JobTable):
        columns = _jobtable_columns(trace_or_jobtable)
        n = len(trace_or_jobtable)
        default = SwfHeader.from_fields({"Version": "2.2", "MaxJobs": n, "MaxRecords": n})
    else:
        raise TypeError(f"write_swf expects an SwfTrace or a JobTable, not {type(trace_or_jobtable).__name__}")
    if header is None:
        header = default
    elif not isinstance(header, SwfHeader):
        header = SwfHeader.from_fields(header)
    text = io.StringIO()
    for comment in _header_lines(header):
        text.write(comment if comment.lstrip().startswith(";") else "; " + comment)
        text.write("\n")
    if n:
        frame = pd.DataFrame({name: _writable(name, columns[name]) for name in SWF_FIELDS})
        frame.to_csv(text, sep=" ", header=False, index=False, lineterminator="\n")
    payload = text.getvalue().encode("utf-8")
    try:
        if target.endswith(".gz"):
            with open(target, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as stream:
                stream.write(payload)
        else:
            with open(target, "wb") as stream:
                stream.write(payload)
    except FileNotFoundError:
        raise InputError(target, message="no such directory") from None


# ----------------------------------------------------------------------------- internals


def _header_lines(header: SwfHeader) -> tuple[str, ...]:
    """The lines to write: as read, else from ``fields``, else from the typed attributes."""
    if header.lines:
        return header.lines
    fields: dict[str, object] = dict(header.fields)
    typed = {
        "Computer": header.computer,
        "UnixStartTime": header.unix_start_time,
        "TimeZoneString": header.time_zone_string,
        "MaxNodes": header.max_nodes,
        "MaxProcs": header.max_procs,
    }
    for key, value in typed.items():
        if value is not None:
            fields.setdefault(key, value)
    return tuple(f"; {key}: {value}" for key, value in fields.items())


def _processors(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """Processors of each job: requested (field 8) if > 0, else allocated (field 5)."""
    requested = columns["requested_procs"]
    return np.where(requested > 0, requested, columns["allocated_procs"])


def _first_int(value: str | None) -> int | None:
    if value is None:
        return None
    match = _FIRST_INT.search(value)
    return None if match is None else int(match.group())


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _read_bytes(source: str) -> bytes:
    try:
        with open(source, "rb") as stream:
            data = stream.read()
    except FileNotFoundError:
        raise InputError(source, message="no such file") from None
    except IsADirectoryError:
        raise InputError(source, message="is a directory, not a file") from None
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:  # gzip.BadGzipFile is an OSError
            raise InputError(source, message=f"corrupt gzip data ({error})") from None
    return data


def _line_bounds(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive, before the newline) of every line."""
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == ord("\n"))
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(data)]))
    if starts[-1] == len(data):  # the text ends with a newline: no last, empty line
        starts, ends = starts[:-1], ends[:-1]
    return starts.astype(np.int64), ends.astype(np.int64)


def _first_nonblank(data: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Index of the first non-blank byte of each line (its end when there is none).

    Advances all lines one byte at a time while they are on a blank: as many
    numpy passes as the widest indentation, each over the still-indented lines.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    pos = starts.copy()
    active = np.flatnonzero(pos < ends)
    while active.size:
        active = active[_IS_SPACE[buf[pos[active]]]]
        pos[active] += 1
        active = active[pos[active] < ends[active]]
    return pos


def _parse_fast(data, buf, starts, ends, is_job) -> dict[str, np.ndarray] | None:
    """All columns through pandas, or None when anything is irregular."""
    n = int(is_job.sum())
    if n == 0:
        return {name: np.empty(0, dtype=np.float64 if name in FLOAT_FIELDS else np.int64) for name in SWF_FIELDS}
    # pandas reads "  ; text" as a row of empty fields: blank out the non-job
    # lines that are neither empty nor start with ";" (rare) before handing it over.
    indented = ~is_job & (ends > starts)
    indented[indented] = buf[starts[indented]] != _SEMICOLON
    if indented.any():
        marks = np.zeros(len(buf) + 1, dtype=np.int64)
        np.add.at(marks, starts[indented], 1)
        np.add.at(marks, ends[indented], -1)
        cleaned = buf.copy()
        cleaned[np.cumsum(marks[:-1]) > 0] = ord(" ")
        data = cleaned.tobytes()
    try:
        frame = pd.read_csv(
            io.BytesIO(data),
            sep=r"\s+",
            comment=";",
            header=None,
            engine="c",
            na_filter=False,
            encoding="latin-1",
            low_memory=False,
        )
    except (ValueError, pd.errors.ParserError):  # ParserError, EmptyDataError are ValueErrors
        return None
    if frame.shape != (n, _N_FIELDS):
        return None
    columns: dict[str, np.ndarray] = {}
    for k, name in enumerate(SWF_FIELDS):
        values = frame.iloc[:, k].to_numpy()
        if values.dtype.kind not in "if":
            return None
        if name in FLOAT_FIELDS:
            values = values.astype(np.float64, copy=False)
            if not np.isfinite(values).all():
                return None
        elif values.dtype.kind == "f":
            if not (
                np.isfinite(values).all()
                and (np.floor(values) == values).all()
                and (np.abs(values) < _INT64_LIMIT).all()
            ):
                return None
            values = values.astype(np.int64)
        else:
            values = values.astype(np.int64, copy=False)
        columns[name] = np.ascontiguousarray(values)
    return columns


def _parse_slow(source: str, data: bytes, header: SwfHeader) -> SwfTrace:
    """Line-by-line reader: the reference behaviour, and the one that names bad lines.

    One regular expression classifies every line (job, comment or blank,
    anything else) in order, so the first bad line is found without parsing
    the ones before it; the job lines' tokens are then converted all at once.
    Integer fields go through float64, so they are exact up to 2**53.
    """
    rows: list[bytes] = []
    lines: list[int] = []
    for number, match in enumerate(_ANY_LINE.finditer(data), start=1):
        job, bad = match.group(1), match.group(2)
        if job is not None:
            rows.append(job.split(b";", 1)[0])
            lines.append(number)
        elif bad is not None:
            _raise_line_error(source, number, bad)
    values = _numbers(rows)
    columns: dict[str, np.ndarray] = {}
    for k, name in enumerate(SWF_FIELDS):
        column = values[:, k]
        if name in FLOAT_FIELDS:
            bad_rows = ~np.isfinite(column)
            expected = "a finite number"
        else:
            bad_rows = ~((np.floor(column) == column) & (np.abs(column) < _INT64_LIMIT))
            expected = "an integer"
        if bad_rows.any():
            i = int(np.flatnonzero(bad_rows)[0])
            token = rows[i].split()[k].decode("latin-1")
            raise InputError(source, lines[i], _field_label(k), token, expected)
        columns[name] = np.ascontiguousarray(column) if name in FLOAT_FIELDS else column.astype(np.int64)
    return SwfTrace(columns=columns, line=np.array(lines, dtype=np.int64), header=header, source=source)


def _numbers(rows: list[bytes]) -> np.ndarray:
    """The (n, 18) float64 values of job lines already checked to hold 18 numbers each."""
    text = b"\n".join(rows).translate(_BLANKS_TO_SPACE)
    if rows:
        try:
            frame = pd.read_csv(
                io.BytesIO(text), sep=r"\s+", header=None, dtype=np.float64, engine="c", na_filter=False
            )
            if frame.shape == (len(rows), _N_FIELDS):
                return frame.to_numpy()
        except ValueError:
            pass
    return np.array(text.split(), dtype=np.bytes_).astype(np.float64).reshape(len(rows), _N_FIELDS)


def _raise_line_error(source: str, number: int, text: bytes) -> None:
    tokens = text.split(b";", 1)[0].split()
    if len(tokens) != _N_FIELDS:
        raise InputError(source, number, message=f"expected {_N_FIELDS} fields, found {len(tokens)}")
    for k, token in enumerate(tokens):
        if _NUMBER.fullmatch(token) is None:
            raise InputError(source, number, _field_label(k), token.decode("latin-1"), "a number")
    raise InputError(source, number, message="unreadable job line")  # not reached: the patterns agree


def _field_label(k: int) -> str:
    return f"field {k + 1} ({SWF_FIELDS[k]})"


def _jobtable_columns(jobs: JobTable) -> dict[str, np.ndarray]:
    n = len(jobs)
    columns = {name: np.full(n, -1, dtype=np.float64 if name in FLOAT_FIELDS else np.int64) for name in SWF_FIELDS}
    for name, values in jobs.extra.items():
        if name in columns:
            columns[name] = np.asarray(values)
    columns["job_id"] = jobs.id
    columns["submit_time"] = jobs.submit
    columns["run_time"] = jobs.run_time
    columns["allocated_procs"] = jobs.procs
    columns["requested_procs"] = jobs.procs
    columns["requested_time"] = jobs.requested_time
    return columns


def _writable(name: str, values: np.ndarray) -> np.ndarray:
    """A column as it should be printed: integral values as integers, others by ``repr``.

    ``repr`` of a float is the shortest text that reads back to the same float.
    """
    values = np.asarray(values)
    if values.dtype.kind in "iub":
        return values.astype(np.int64, copy=False)
    values = values.astype(np.float64)
    values[~np.isfinite(values)] = -1.0
    integral = (np.floor(values) == values) & (np.abs(values) < 2.0**53)
    if integral.all():
        return values.astype(np.int64)
    text = np.where(integral, values, 0.0).astype(np.int64).astype(str).astype(object)
    text[~integral] = [repr(x) for x in values[~integral].tolist()]
    return text
