"""The result store of a campaign: a write-ahead folder of one-row Parquet files, compacted into one
Parquet file, queried with DuckDB.

One Parquet table of runs and metrics, queried with DuckDB; compacted so that a
25,000-run store is read in seconds, not minutes.

Layout::

    <store>/runs/<run_id>.parquet           one row each: runs stored since the last compaction
    <store>/compacted/<generation>.parquet  every run compacted so far (the highest generation is current)

A run is written to a temporary name and renamed with :func:`os.replace`, so
a file either is complete or does not exist: a killed campaign leaves at most
``.tmp`` files, which are ignored and removed on the next run.
:meth:`Store.compact` folds the one-row files into a new generation of the
compacted file (written the same way), then deletes the older generations and
the one-row files it folded. A one-row file always wins over the compacted
row of the same run (it is at least as new), so a compaction killed at any
point loses nothing and duplicates nothing: before the rename the old
generation and the one-row files hold everything; after it the new generation
does. Readers list the one-row files before the compacted file, and retry when
a compaction removed a file they were about to read. Reading the store costs
one file read plus one per run stored since the last compaction, whatever the
number of runs (``campaign run`` compacts every :data:`COMPACT_EVERY` runs and
when it stops).

Columns: the run's configuration (:data:`CONFIG_COLUMNS`, plus ``param_<key>``
for each policy parameter, as text), ``state`` (``done`` or ``failed``) and
``error``, every metric of :func:`schedlab.metrics.aggregate`, the timing
columns (:data:`TIMING_COLUMNS`, wall-clock seconds: kept out of equality
comparisons) and ``schedlab_version``. Runs of tasks workloads (Lucarelli,
Mendonca and Trystram 2017) also have the :data:`TASK_COLUMNS`, after the metrics.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from schedlab.campaign.spec import metric_names
from schedlab.errors import InputError

__all__ = [
    "COMPACT_EVERY",
    "CONFIG_COLUMNS",
    "PARTITION_COLUMNS",
    "TASK_COLUMNS",
    "TIMING_COLUMNS",
    "TOPOLOGY_COLUMNS",
    "Store",
    "campaign_results",
    "query",
    "row_schema",
]

CONFIG_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("run_id", pa.string()),
    ("campaign", pa.string()),
    ("workload", pa.string()),
    ("trace", pa.string()),
    ("procs", pa.int64()),
    ("status_filter", pa.int64()),
    ("window_index", pa.int64()),
    ("window_start", pa.float64()),
    ("window_end", pa.float64()),
    ("window_jobs", pa.int64()),
    ("window_load", pa.float64()),
    ("policy", pa.string()),
    ("params", pa.string()),
    ("label", pa.string()),
    ("repetition", pa.int64()),
    ("seed", pa.int64()),
    ("tau", pa.float64()),
    ("validate", pa.bool_()),
    ("state", pa.string()),
    ("error", pa.string()),
    ("n_procs", pa.int64()),
)
"""Configuration and outcome columns, first in every row, in this order."""

TIMING_COLUMNS = ("wall_seconds", "load_seconds", "simulate_seconds", "validate_seconds")
"""Wall-clock seconds of each run: stored, but never part of a comparison."""


TASK_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("conversion", pa.string()),
    ("mean_procs", pa.float64()),
    ("task_load", pa.float64()),
    ("release_span", pa.float64()),
    ("dedicated_used", pa.int64()),
    ("wasted_work", pa.float64()),
    ("flow_max", pa.float64()),
    ("flow_sum", pa.float64()),
    ("flow_l2", pa.float64()),
    ("stretch_max", pa.float64()),
    ("stretch_sum", pa.float64()),
    ("stretch_l2", pa.float64()),
)
"""Columns of tasks runs (see :func:`schedlab.campaign.runner.task_metrics`): conversion C's Q
(``mean_procs``), the load of the tasks, their release span (s), m_d as run (after clamping to
m_inst - 1; null for policies without one), lost work of redirected tasks (s), and flow and bounded
stretch (B = tau) as max, total and L2 norm. m_inst is ``n_procs``, the number of redirections
``n_aborted`` (preemptions: ``n_preempted``)."""


TOPOLOGY_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("platform", pa.string()),
    ("penalty", pa.string()),
    ("n_contiguous", pa.int64()),
    ("n_local", pa.int64()),
    ("n_min_level", pa.int64()),
    ("n_success", pa.int64()),
    ("contiguity_factor", pa.float64()),
    ("locality_factor", pa.float64()),
    ("locality_ratio", pa.float64()),
    ("platform_level_factor", pa.float64()),
    ("success_rate", pa.float64()),
    ("sum_flow", pa.float64()),
    ("sum_stretch", pa.float64()),
)
"""Columns of runs on a fat tree (a workload with ``platform``): the platform and penalty as written, and
:func:`schedlab.metrics.topology_metrics` (Mendonca 2017, chapters 4-5)."""


PARTITION_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("runtime_scale", pa.float64()),
    ("w_util", pa.float64()),
    ("w_unused", pa.float64()),
    ("w_lost", pa.float64()),
    ("span", pa.float64()),
    ("n_grown", pa.int64()),
    ("n_backfilled", pa.int64()),
    ("migration_attempts", pa.int64()),
    ("migration_successes", pa.int64()),
    ("migration_repeats", pa.int64()),
    ("migration_pinned", pa.int64()),
    ("migration_moves", pa.int64()),
    ("migration_mean_gap", pa.float64()),
    ("mfp_calls", pa.int64()),
    ("mfp_memo_hits", pa.int64()),
)
"""Columns of runs of the partition schedulers (Krevat 2003): the load factor c, capacity utilized, unused
and lost, the span T, and the counters of :func:`schedlab.metrics.partition_metrics`."""


def row_schema(
    param_keys=(),
    *,
    tasks: bool = False,
    topology: bool = False,
    partition: bool = False,
    generated=(),
    family_columns=(),
) -> pa.Schema:
    """The Arrow schema of one row: configuration, ``param_<key>`` columns, ``gen_<key>`` columns (a generated
    instance's grid point, as text), metrics, task columns (with ``tasks``), topology columns (with
    ``topology``), partition columns (with ``partition``), a family's own columns (``(name, Arrow type
    name)`` pairs, after a ``family`` column),
    timings, version."""
    fields = [pa.field(name, kind) for name, kind in CONFIG_COLUMNS]
    fields += [pa.field(f"param_{key}", pa.string()) for key in sorted(param_keys)]
    fields += [pa.field(f"gen_{key}", pa.string()) for key in generated]
    fields += [pa.field(name, pa.int64() if name.startswith("n_") else pa.float64()) for name in metric_names()]
    if tasks:
        fields += [pa.field(name, kind) for name, kind in TASK_COLUMNS]
    if topology:
        fields += [pa.field(name, kind) for name, kind in TOPOLOGY_COLUMNS]
    if partition:
        fields += [pa.field(name, kind) for name, kind in PARTITION_COLUMNS]
    if family_columns:
        fields.append(pa.field("family", pa.string()))
        fields += [pa.field(name, pa.type_for_alias(kind)) for name, kind in family_columns]
    fields += [pa.field(name, pa.float64()) for name in TIMING_COLUMNS]
    fields.append(pa.field("schedlab_version", pa.string()))
    return pa.schema(fields)


COMPACT_EVERY = 200
"""``campaign run`` compacts the store after this many runs stored (and when it stops): a reader then opens
at most this many one-row files (a few ms each) besides the compacted file, and a campaign of 25,000 runs
rewrites its compacted file 125 times (a fraction of a second each)."""

_RETRIES = 20
"""Reads retried when a concurrent compaction removes a file between listing and reading it."""


class Store:
    """A campaign's result directory (see the module docstring for the layout).

    Parameters
    ----------
    path : path-like
        The store directory; created by :meth:`write` when missing.
    """

    def __init__(self, path) -> None:
        self.path = Path(path)
        self.runs_dir = self.path / "runs"
        self.compacted_dir = self.path / "compacted"

    def files(self) -> list[Path]:
        """The one-row files of runs stored since the last compaction, sorted by name (run id)."""
        if not self.runs_dir.is_dir():
            return []
        return sorted(p for p in self.runs_dir.iterdir() if p.suffix == ".parquet" and not p.name.startswith("."))

    def generations(self) -> list[Path]:
        """The compacted files, oldest first (more than one only while a compaction is being finished)."""
        if not self.compacted_dir.is_dir():
            return []
        return sorted(
            p for p in self.compacted_dir.iterdir() if p.suffix == ".parquet" and p.stem.isdigit() and len(p.stem) == 9
        )

    def clean(self) -> int:
        """Remove the temporary files of writes and compactions that were interrupted; return how many."""
        stale = [p for folder in (self.runs_dir, self.compacted_dir) if folder.is_dir() for p in folder.iterdir()]
        stale = [p for p in stale if p.name.endswith(".tmp")]
        for p in stale:
            p.unlink(missing_ok=True)
        return len(stale)

    def write(self, row: dict) -> Path:
        """Write one run's row atomically (temporary file + ``os.replace``) and return its path."""
        params = [key.removeprefix("param_") for key in row if key.startswith("param_")]
        generated = [key.removeprefix("gen_") for key in row if key.startswith("gen_")]
        family_columns: tuple[tuple[str, str], ...] = ()
        if "family" in row:
            from schedlab.registry import family

            family_columns = family(row["family"]).columns
        schema = row_schema(
            params,
            tasks=any(name in row for name, _ in TASK_COLUMNS),
            topology="platform" in row,
            partition="runtime_scale" in row,
            generated=generated,
            family_columns=family_columns,
        )
        table = pa.Table.from_pylist([{name: row.get(name) for name in schema.names}], schema=schema)
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        target = self.runs_dir / f"{row['run_id']}.parquet"
        temp = self.runs_dir / f".{row['run_id']}.{os.getpid()}.tmp"
        pq.write_table(table, temp)
        os.replace(temp, target)
        return target

    def states(self) -> dict[str, str]:
        """``run_id -> state`` (``done`` or ``failed``) of every stored run."""
        loose = self._read_loose(columns=["run_id", "state"])
        compacted = self._read_compacted(columns=["run_id", "state"])
        out = dict(zip(compacted.column("run_id").to_pylist(), compacted.column("state").to_pylist()))
        for table in loose.values():
            out[table.column("run_id")[0].as_py()] = table.column("state")[0].as_py()
        return out

    def arrow(self, run_ids=None) -> pa.Table:
        """Every stored row (or those of ``run_ids``) as one Arrow table sorted by run id.

        Rows of policies with different parameters have different
        ``param_<key>`` columns; the union is taken, missing values are null.
        """
        wanted = None if run_ids is None else set(run_ids)
        loose = self._read_loose(wanted=wanted)
        compacted = self._read_compacted()
        keep = pc.invert(pc.is_in(compacted.column("run_id"), pa.array(list(loose), pa.string())))
        if wanted is not None:
            keep = pc.and_(keep, pc.is_in(compacted.column("run_id"), pa.array(sorted(wanted), pa.string())))
        tables = [compacted.filter(keep), *loose.values()]
        tables = [t for t in tables if t.num_rows]
        if not tables:
            return row_schema().empty_table()
        table = pa.concat_tables(tables, promote_options="default")
        return table.select(_column_order(table.schema.names)).sort_by("run_id")

    def table(self, run_ids=None):
        """:meth:`arrow` as a pandas DataFrame."""
        return self.arrow(run_ids).to_pandas()

    def compact(self) -> int:
        """Fold the one-row files into a new generation of the compacted file; return how many were folded.

        Safe against being killed at any point and against a concurrent compaction (an exclusive lock on
        ``<store>/.lock``) or writer (a one-row file replaced after it was read is kept).
        """
        if not self.path.is_dir():
            return 0
        with open(self.path / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.clean()
            files = self.files()
            generations = self.generations()
            if not files and len(generations) <= 1:
                return 0
            seen = {p: _identity(p) for p in files}
            table = self.arrow()
            number = int(generations[-1].stem) + 1 if generations else 1
            self.compacted_dir.mkdir(exist_ok=True)
            temp = self.compacted_dir / f".{number:09d}.{os.getpid()}.tmp"
            pq.write_table(table, temp)
            os.replace(temp, self.compacted_dir / f"{number:09d}.parquet")
            for old in generations:
                old.unlink(missing_ok=True)
            for path, identity in seen.items():
                if identity is not None and _identity(path) == identity:
                    path.unlink(missing_ok=True)
        return len(files)

    def _read_loose(self, columns=None, wanted=None) -> dict[str, pa.Table]:
        """``run_id -> one-row table`` of the one-row files (those of ``wanted`` ids); files removed by a
        concurrent compaction are skipped (their rows are in the compacted file read next)."""
        out = {}
        for path in self.files():
            if wanted is not None and path.stem not in wanted:
                continue
            try:
                with pq.ParquetFile(path) as one:  # no thread pool: a one-row file reads 2-3 times faster
                    out[path.stem] = one.read(columns=columns, use_threads=False)
            except FileNotFoundError:
                continue
        return out

    def _read_compacted(self, columns=None) -> pa.Table:
        """The current compacted file (empty when none), retried when a compaction replaces it meanwhile."""
        for _ in range(_RETRIES):
            generations = self.generations()
            if not generations:
                return row_schema().empty_table() if columns is None else row_schema().empty_table().select(columns)
            try:
                return pq.read_table(generations[-1], columns=columns)
            except FileNotFoundError:
                continue
        raise InputError(str(self.compacted_dir), message="the store keeps changing under this read; try again")


def _identity(path: Path) -> tuple[int, int] | None:
    """(inode, modification time) of a file, None when it is gone: tells a file replaced since it was read."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_mtime_ns


def campaign_results(campaign, runs=None) -> pa.Table:
    """The stored rows of ``campaign``'s runs (those of its current spec), in the spec's order.

    The spec's order is the expansion's (workloads, windows, policies,
    repetitions, as written), not the run ids': a run id hashes the trace's
    path, so sorting by it would order the same runs differently when the
    traces live elsewhere. The ``campaign``, ``workload`` and ``label``
    columns are taken from the current spec (``runs``, default
    :func:`~schedlab.campaign.expand.expand`), so renaming a label or the
    campaign needs no re-run; rows of runs no longer in the spec stay on disk
    but are left out.
    """
    from schedlab.campaign.expand import expand

    runs = expand(campaign) if runs is None else runs
    by_id = {config.run_id: config for config in runs}
    position = {run_id: i for i, run_id in enumerate(by_id)}
    table = Store(campaign.store).arrow(by_id)
    stored = table.column("run_id").to_pylist()
    table = table.take(pa.array(sorted(range(len(stored)), key=lambda i: position[stored[i]]), pa.int64()))
    ids = table.column("run_id").to_pylist()
    for column in ("campaign", "workload", "label"):
        values = pa.array([getattr(by_id[run_id], column) for run_id in ids], pa.string())
        table = table.set_column(table.schema.get_field_index(column), column, values)
    return table


def query(table: pa.Table, sql: str):
    """Run DuckDB ``sql`` with ``table`` registered as ``runs``; return a pandas DataFrame.

    Read-only: the in-memory database has no access to files, the network or extensions
    (``enable_external_access = false``, locked), so ``COPY ... TO``, ``EXPORT``, ``ATTACH``, ``read_csv``
    and ``INSTALL`` are refused and a query changes nothing outside itself.

    Raises
    ------
    InputError
        When DuckDB rejects the query (the first line of its message).
    """
    import duckdb

    connection = duckdb.connect(config={"enable_external_access": False, "lock_configuration": True})
    try:
        connection.register("runs", table)
        return connection.execute(sql).df()
    except duckdb.PermissionException as error:
        first = str(error).splitlines()[0]
        raise InputError("query", message=f"queries are read-only, no file access ({first})") from None
    except duckdb.Error as error:
        raise InputError("query", message=str(error).splitlines()[0]) from None
    finally:
        connection.close()


def _column_order(names: list[str]) -> list[str]:
    base = [name for name, _ in CONFIG_COLUMNS]
    params = sorted(n for n in names if n.startswith("param_"))
    generated = [n for n in names if n.startswith("gen_")]
    rest = [n for n in names if n not in base and not n.startswith(("param_", "gen_"))]
    return [n for n in base if n in names] + params + generated + rest
