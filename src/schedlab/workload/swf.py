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

from schedlab.errors import InputError
from schedlab.platform.base import MAX_PROCS
from schedlab.workload.archive import resolve
from schedlab.workload.jobs import JobTable

try:  # the job lines at compiled speed (rust/src/swf.rs); the Python parser below is the reference
    from schedlab.native import _core
except ImportError:  # a source tree whose extension was not built: the Python parser runs
    _core = None  # type: ignore[assignment]

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
# Blanks as bytes.split() sees them (and as the tokens are separated); "\n" ends a line.
_BLANKS_TO_SPACE = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_BLANK = rb"[ \t\r\x0b\x0c]"
_JOB_LINE = _BLANK + rb"*(?:" + _NUMBER.pattern + _BLANK + rb"+){17}" + _NUMBER.pattern + _BLANK + rb"*(?:;[^\n]*)?"
_COMMENT_LINE = _BLANK + rb"*;[^\n]*"
# Every line matches: group 1 a job, group 2 a comment, group 3 a bad line, none a blank line.
_ANY_LINE = re.compile(
    rb"^(?:(" + _JOB_LINE + rb")|(" + _COMMENT_LINE + rb")|" + _BLANK + rb"*|([^\n]*))$", re.MULTILINE
)
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
    Cost: O(size of the file). The file is read and decompressed once (zlib)
    and its lines parsed in one pass by the compiled core (about 0.4 s of CPU
    for RICC's 448k jobs, a third of it decompression), or, where it is not
    built, by the Python parser :func:`_parse_python`, the reference the core
    is tested against (several times slower). Both follow the same rules: a
    line is a comment when its first non-blank character is ``;``; any other
    non-blank line is a job whose text after a ``;`` is a comment; every value
    is read as the nearest float64, and a value in an integer field must then
    be integral (so integers are exact up to 2**53). Of several errors, the
    first malformed line is reported; else, of the values not of their field's
    kind, the one of the lowest field, then of the first line.
    """
    source = resolve(path)  # pwa:NAME, a log of the Parallel Workloads Archive (schedlab.workload.archive)
    data = _read_bytes(source)
    columns, line, comments = _parse_python(source, data) if _core is None else _parse_compiled(source, data)
    header = SwfHeader.from_lines(_decode(text).rstrip("\r") for text in comments)
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
        import pandas as pd  # its CSV writer; loaded only here, not to read traces

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


def _parse_compiled(source: str, data: bytes) -> tuple[dict[str, np.ndarray], np.ndarray, list[bytes]]:
    """The job columns, their lines and the comment lines, by the compiled core (rust/src/swf.rs)."""
    raw, lines, comments, error = _core.parse_swf(data)
    if error is not None:
        kind, number, *where = error
        if kind == "line":
            _raise_line_error(source, number, data[where[0] : where[1]])
        raise _value_error(source, number, where[0], where[1])
    columns = {
        name: np.frombuffer(buffer, dtype=np.float64 if name in FLOAT_FIELDS else np.int64)
        for name, buffer in zip(SWF_FIELDS, raw, strict=True)
    }
    spans = np.frombuffer(comments, dtype=np.int64).tolist()
    texts = [data[s:e] for s, e in zip(spans[0::2], spans[1::2], strict=True)]
    return columns, np.frombuffer(lines, dtype=np.int64), texts


def _parse_python(source: str, data: bytes) -> tuple[dict[str, np.ndarray], np.ndarray, list[bytes]]:
    """The job columns, their lines and the comment lines, in Python: the reference behaviour.

    One regular expression classifies every line (job, comment, blank, anything else) in order, so
    the first bad line is found without parsing the ones before it; the job lines' tokens are then
    converted all at once.
    """
    rows: list[bytes] = []
    lines: list[int] = []
    comments: list[bytes] = []
    for number, match in enumerate(_ANY_LINE.finditer(data), start=1):
        job, comment, bad = match.groups()
        if job is not None:
            rows.append(job.split(b";", 1)[0])
            lines.append(number)
        elif comment is not None:
            comments.append(comment)
        elif bad is not None:
            _raise_line_error(source, number, bad)
    values = np.empty((0, _N_FIELDS))
    if rows:
        text = b"\n".join(rows).translate(_BLANKS_TO_SPACE)
        values = np.loadtxt(io.BytesIO(text), dtype=np.float64, comments=None, ndmin=2)
    columns: dict[str, np.ndarray] = {}
    for k, name in enumerate(SWF_FIELDS):
        column = values[:, k]
        if name in FLOAT_FIELDS:
            bad_rows = ~np.isfinite(column)
        else:
            bad_rows = ~((np.floor(column) == column) & (np.abs(column) < _INT64_LIMIT))
        if bad_rows.any():
            i = int(np.flatnonzero(bad_rows)[0])
            raise _value_error(source, lines[i], k, rows[i].split()[k])
        columns[name] = np.ascontiguousarray(column) if name in FLOAT_FIELDS else column.astype(np.int64)
    return columns, np.array(lines, dtype=np.int64), comments


def _value_error(source: str, number: int, k: int, token: bytes) -> InputError:
    """The error for a number that is not of its field's kind (an infinite time, a fraction of a processor)."""
    expected = "a finite number" if SWF_FIELDS[k] in FLOAT_FIELDS else "an integer"
    return InputError(source, number, _field_label(k), token.decode("latin-1"), expected)


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
