"""What every command shares: one-line errors, option parsing, the output-folder check, progress, tables.

Commands parse their options with these helpers, call the library, and print
or write; no scheduling logic lives in :mod:`schedlab.cli`. Every error
schedlab raises on purpose (:class:`~schedlab.errors.SchedlabError`) is printed
as ``error: <message>`` on one line of stderr with exit status 1, unless
``schedlab --debug`` asks for the traceback; :class:`GuardedGroup`, the root
command's class, does the same for an OSError, ValueError or OverflowError
that escapes any command (an unwritable ``--out``, a full disk), so no input
or environment gives a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from schedlab.durations import parse_duration, parse_span
from schedlab.errors import ArgumentError, InputError, SchedlabError

__all__ = [
    "GuardedGroup",
    "bsld_threshold",
    "check_out_dir",
    "check_out_file",
    "duration",
    "err",
    "gantt_files",
    "metrics_of_table",
    "metrics_table",
    "number",
    "make_folder",
    "one_line_errors",
    "out",
    "out_file",
    "parse_params",
    "procs_alias",
    "progress_bar",
    "set_debug",
    "stretch_table",
    "window",
]

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)
_state = {"debug": False}


def set_debug(debug: bool) -> None:
    """``schedlab --debug``: let errors through with their traceback."""
    _state["debug"] = debug


def error_line(error: BaseException) -> str:
    """``error: <message>`` on one line: an OSError as ``PATH: reason``, any other message with its line breaks
    folded, so that one mistake is one line of stderr."""
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename is not None else ""
        text = f"{where}{error.strerror}"
    else:
        text = str(error) or type(error).__name__
    return "error: " + " ".join(text.split())


def _fail(error: BaseException) -> typer.Exit:
    err.print(error_line(error), markup=False, soft_wrap=True)
    return typer.Exit(1)


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn a SchedlabError into ``error: <message>`` on stderr and exit status 1."""
    try:
        yield
    except SchedlabError as error:
        if _state["debug"]:
            raise
        raise _fail(error) from None


_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")  # typer's click


class GuardedGroup(typer.core.TyperGroup):
    """The root command: whatever a sub-command lets escape (SchedlabError, OSError, ValueError,
    OverflowError, MemoryError) ends as one ``error:`` line and exit status 1, never a traceback; a usage
    error (an option that is not an integer, a missing argument, an unknown command) is one ``error:`` line
    too, with click's exit status 2. ``schedlab --debug`` lets the traceback through."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except _USAGE_ERROR as error:
            where = error.ctx.command_path if error.ctx is not None else "schedlab"
            err.print(
                error_line(Exception(f"{error.format_message()} (see `{where} -h`)")), markup=False, soft_wrap=True
            )
            raise typer.Exit(2) from None
        except (SchedlabError, OSError, ValueError, OverflowError, MemoryError) as error:
            if _state["debug"]:
                raise
            raise _fail(error) from None


def parse_params(values: list[str]) -> dict[str, str]:
    """``--param KEY=VALUE`` options as a dict (values stay strings: the registry converts them)."""
    params = {}
    for text in values:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise InputError("--param", field="--param", value=text, expected="key=value")
        params[key.strip()] = value.strip()
    return params


def window(text: str | None, option: str = "--window") -> tuple[float, float] | None:
    """``--window START:END`` (durations, END may be empty) as seconds, or None when not given."""
    if text is None:
        return None
    try:
        return parse_span(text)
    except ArgumentError as error:
        raise InputError(option, field=option, value=text, message=f"{option} = {text}, {error}") from None


def bsld_threshold(value: float, alias: float | None = None) -> float:
    """``--bsld-threshold`` (or its former name ``--tau``, hidden), checked before any work: a finite time
    > 0 in seconds, the ``tau`` of bounded slowdown max(1, (wait + run) / max(run, tau)) (Feitelson et al. 1997)."""
    if alias is not None:
        value = alias
    if not (math.isfinite(value) and value > 0):
        raise InputError(
            "--bsld-threshold", field="--bsld-threshold", value=value, expected="a finite time > 0 (seconds)"
        )
    return float(value)


def procs_alias(procs: int | None, m: int | None) -> int | None:
    """``--procs``, or ``--m``, its former name in the task commands (hidden); both given is an error."""
    if m is None:
        return procs
    if procs is not None:
        raise InputError("--m", message="given twice (--m is the former name of --procs)")
    return m


def duration(text: str, option: str) -> float:
    """A duration option (``7d``, ``12h``, ``3600``) as seconds > 0."""
    try:
        return parse_duration(text)
    except ArgumentError:
        raise InputError(
            option, field=option, value=text, expected="a duration > 0 such as 7d, 12h, 30m or 3600"
        ) from None


def check_out_dir(path: Path | None, force: bool) -> None:
    """Check an ``--out`` folder before any work: refuse an existing non-empty one unless ``--force``, a path
    that is a file, and one that cannot be created (``/proc/foo``, ``/dev/null/x``: the folders are made
    and removed again, so a run never fails after its work for want of a place to write)."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise InputError(str(path), message="--out must be a directory, this is a file")
    if path.is_dir():
        if any(path.iterdir()) and not force:
            raise InputError(str(path), message="output directory is not empty (use --force to overwrite)")
        return
    _probe_folder(path)


def check_out_file(path: Path | None, force: bool, option: str) -> None:
    """Check a file a command will write (``--gantt``, ``--html``...) before any work: refuse an existing
    one unless ``--force``, and a folder it could not be written in."""
    if path is None:
        return
    if path.is_dir():
        raise InputError(str(path), message=f"{option} names a file to write, this is a directory")
    if path.exists() and not force:
        raise InputError(str(path), message="file exists (use --force to overwrite)")
    if not path.parent.is_dir():
        _probe_folder(path.parent)


def out_file(folder: Path, name: str, force: bool) -> Path:
    """``FOLDER/NAME``, the one file a single-file writer puts in its ``--out`` folder: checked before any work
    (an existing file needs ``--force``, the folder must be creatable), the folder created when the work is done
    by the writer itself (:func:`make_folder`)."""
    if folder.exists() and not folder.is_dir():
        raise InputError(str(folder), message="--out must be a directory, this is a file")
    target = folder / name
    check_out_file(target, force, "--out")
    return target


def gantt_files(gantt: Path | None, names: list[str], force: bool) -> dict[str, Path]:
    """The chart file of each of ``names`` for a ``--gantt FILE`` option: FILE itself for one name,
    ``FILE_NAME.png`` for several; each checked before any work (existing ones need ``--force``)."""
    if gantt is None:
        return {}
    files = {
        name: gantt if len(names) == 1 else gantt.with_name(f"{gantt.stem}_{name}{gantt.suffix}") for name in names
    }
    for path in files.values():
        check_out_file(path, force, "--gantt")
    return files


def make_folder(path: Path) -> Path:
    """Create ``path`` (and its parents) if missing; returns it."""
    path.mkdir(parents=True, exist_ok=True)
    return path


def _probe_folder(path: Path) -> None:
    """Create the missing folders of ``path`` and remove them again; an OSError becomes an InputError."""
    created = []
    try:
        for folder in reversed([path, *path.parents]):
            if not folder.exists():
                folder.mkdir()
                created.append(folder)
    except OSError as error:
        raise InputError(str(path), message=f"cannot create this folder ({error.strerror})") from None
    finally:
        for folder in reversed(created):
            folder.rmdir()


def number(value) -> str:
    """A number for a table: thousands separators, 4 significant digits below 10,000, ``-`` for None."""
    if value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


@contextmanager
def progress_bar(total: int | None = None, *, enabled: bool, what: str = "simulating"):
    """A rich progress bar on stderr, fed by a library's ``progress(done, total, ...)`` callback: the engine's
    ``(jobs done, jobs)`` or a campaign's ``(runs stored, runs, row)``. Yields the callback, or None when
    disabled (not a terminal, ``--quiet``, ``--json``)."""
    if not enabled:
        yield None
        return
    from rich.progress import (  # a terminal's bar only: --quiet, --json and pipes never load it
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    with bar:
        task = bar.add_task(what, total=total)
        yield lambda done, count=None, *_: bar.update(task, completed=done, total=count or total)


def metrics_table(result) -> Table:
    """The metrics of a :class:`~schedlab.runner.Run` as a rich table (mean, max, L2 norm per metric)."""
    title = f"{result.info['policy']} on {Path(result.info['workload']).name} (P={result.info['n_procs']:,})"
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in result.seconds.items())
    return metrics_of_table(result.metrics, title, timing)


def metrics_of_table(m: dict, title: str, timing: str = "") -> Table:
    """Metrics as ``metrics.json`` holds them (:func:`schedlab.measure.measure`) as a rich table: mean, max
    and L2 norm of each per-job metric, then utilization, makespan and, when present, a partition
    scheduler's capacity and migrations; the caption counts jobs by status (and ends with ``timing``)."""
    table = Table(title=title)
    table.add_column("metric")
    for column in ("mean", "max", "L2 norm"):
        table.add_column(column, justify="right")
    labels = {
        "wait": "wait (s)",
        "response": "response (s)",
        "slowdown": "slowdown",
        "bsld": f"bounded slowdown (tau={m['tau']:g})",
        "bsld_unclamped": "bounded slowdown, unclamped",
    }
    for key, label in labels.items():
        table.add_row(label, *(number(m[f"{key}_{agg}"]) for agg in ("mean", "max", "l2")))
    table.add_section()
    table.add_row("utilization", number(m["utilization"]), "", "")
    table.add_row("makespan (s)", number(m["makespan"]), "", "")
    if "w_util" in m:  # a partition scheduler (Krevat 2003): capacity and migrations
        table.add_section()
        for key, label in (
            ("w_util", "capacity utilized"),
            ("w_unused", "capacity unused"),
            ("w_lost", "capacity lost"),
        ):
            table.add_row(label, number(m[key]), "", "")
        attempts, successes = m["migration_attempts"], m["migration_successes"]
        table.add_row("migrations (applied / attempts)", f"{successes:,} / {attempts:,}", "", "")
        table.add_row("MFP computed (memo hits)", f"{m['mfp_calls']:,} ({m['mfp_memo_hits']:,})", "", "")
    counts = f"{m['n_completed']:,} completed, {m['n_killed']:,} killed at walltime, {m['n_rejected']:,} rejected"
    table.caption = f"{m['n_jobs']:,} jobs: {counts}" + (f"; {timing}" if timing else "")
    return table


def stretch_table(result) -> Table:
    """The max-stretch objectives of a :class:`~schedlab.runner.Run` of independent tasks as a rich table
    (:func:`schedlab.metrics.stretch_metrics`: stretch relative to the one-processor time, flow, load, Delta,
    the share of tasks with stretch > 1 per size class), with the scheduler's time per task."""
    from schedlab.metrics import FAIRNESS_BINS, fairness_shares

    m = result.metrics
    table = Table(
        title=f"{result.info['policy']} on {Path(result.info['workload']).name} (m={result.info['n_procs']:,})"
    )
    table.add_column("metric")
    table.add_column("max", justify="right")
    table.add_column("mean", justify="right")
    table.add_row("stretch (C - r) / p1", number(m["max_stretch"]), number(m["mean_stretch"]))
    table.add_row("flow C - r (s)", number(m["max_flow"]), number(m["mean_flow"]))
    table.add_section()
    shares = fairness_shares(m)
    for name, _ in FAIRNESS_BINS:
        n = m[f"fairness_{name}_tasks"]
        if n:
            table.add_row(f"stretch > 1, p1 in {name} ({n:,} tasks)", "", f"{number(shares[name])} %")
    table.add_section()
    table.add_row("utilization", "", number(m["utilization"]))
    table.add_row("makespan (s)", number(m["makespan"]), "")
    simulate = result.seconds.get("simulate")
    per_task = f"; {1000 * simulate / max(1, m['n_jobs']):.3f} ms per task" if simulate is not None else ""
    table.caption = (
        f"{m['n_jobs']:,} tasks, load {number(m['load'])}, Delta {number(m['delta'])}{per_task}; "
        + ", ".join(f"{k} {v:.2f} s" for k, v in result.seconds.items())
    )
    return table
