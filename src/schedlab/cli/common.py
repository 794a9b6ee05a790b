"""What every command shares: one-line errors, option parsing, the output-folder check, progress, tables.

Commands parse their options with these helpers, call the library, and print
or write; no scheduling logic lives in :mod:`schedlab.cli`. Every error
schedlab raises on purpose (:class:`~schedlab.errors.SchedlabError`) is printed
as ``error: <message>`` on one line of stderr with exit status 1, unless
``schedlab --debug`` asks for the traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from schedlab.durations import parse_duration, parse_span
from schedlab.errors import ArgumentError, InputError, SchedlabError

__all__ = [
    "check_out_dir",
    "duration",
    "err",
    "metrics_of_table",
    "metrics_table",
    "number",
    "one_line_errors",
    "out",
    "parse_params",
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


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn a SchedlabError into ``error: <message>`` on stderr and exit status 1."""
    try:
        yield
    except SchedlabError as error:
        if _state["debug"]:
            raise
        err.print(f"error: {error}", markup=False, soft_wrap=True)
        raise typer.Exit(1) from None


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


def duration(text: str, option: str) -> float:
    """A duration option (``7d``, ``12h``, ``3600``) as seconds > 0."""
    try:
        return parse_duration(text)
    except ArgumentError:
        raise InputError(
            option, field=option, value=text, expected="a duration > 0 such as 7d, 12h, 30m or 3600"
        ) from None


def check_out_dir(path: Path | None, force: bool) -> None:
    """Refuse an existing non-empty output folder unless ``--force`` (checked before any work)."""
    if path is not None and path.is_dir() and any(path.iterdir()) and not force:
        raise InputError(str(path), message="output directory is not empty (use --force to overwrite)")


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
