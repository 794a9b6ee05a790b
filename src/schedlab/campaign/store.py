"""The result store of a campaign: one small Parquet file per finished run, queried with DuckDB.

Source: issue 3, points 2-3; DESIGN.md "Outputs" (one Parquet table of runs and
metrics, queried with DuckDB).

Layout: ``<store>/runs/<run_id>.parquet``, one row each. A file is written to a
temporary name in the same directory and renamed with :func:`os.replace`, so
a file either is complete or does not exist: a killed campaign leaves at most
``.tmp`` files, which are ignored and removed on the next run.

Columns: the run's configuration (:data:`CONFIG_COLUMNS`, plus ``param_<key>``
for each policy parameter, as text), ``state`` (``done`` or ``failed``) and
``error``, every metric of :func:`schedlab.metrics.aggregate`, the timing
columns (:data:`TIMING_COLUMNS`, wall-clock seconds: kept out of equality
comparisons) and ``schedlab_version``. Runs of tasks workloads (seed 004) also
have the :data:`TASK_COLUMNS`, after the metrics.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from schedlab.campaign.spec import metric_names
from schedlab.errors import InputError

__all__ = [
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
:func:`schedlab.metrics.topology_metrics` (seed 000 ch.4-5)."""


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


class Store:
    """A campaign's result directory.

    Parameters
    ----------
    path : path-like
        The store directory; created by :meth:`write` when missing.
    """

    def __init__(self, path) -> None:
        self.path = Path(path)
        self.runs_dir = self.path / "runs"

    def files(self) -> list[Path]:
        """The result files, sorted by name (run id)."""
        if not self.runs_dir.is_dir():
            return []
        return sorted(p for p in self.runs_dir.iterdir() if p.suffix == ".parquet" and not p.name.startswith("."))

    def clean(self) -> int:
        """Remove the temporary files of runs interrupted while being written; return how many."""
        if not self.runs_dir.is_dir():
            return 0
        stale = [p for p in self.runs_dir.iterdir() if p.name.endswith(".tmp")]
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
        out = {}
        for path in self.files():
            table = pq.read_table(path, columns=["run_id", "state"])
            for run_id, state in zip(table.column("run_id").to_pylist(), table.column("state").to_pylist()):
                out[run_id] = state
        return out

    def arrow(self, run_ids=None) -> pa.Table:
        """Every stored row (or those of ``run_ids``) as one Arrow table sorted by run id.

        Rows of policies with different parameters have different
        ``param_<key>`` columns; the union is taken, missing values are null.
        """
        files = self.files()
        if run_ids is not None:
            wanted = set(run_ids)
            files = [p for p in files if p.stem in wanted]
        if not files:
            return row_schema().empty_table()
        tables = [pq.read_table(p) for p in files]
        table = pa.concat_tables(tables, promote_options="default")
        ordered = _column_order(table.schema.names)
        return table.select(ordered).sort_by("run_id")

    def table(self, run_ids=None):
        """:meth:`arrow` as a pandas DataFrame."""
        return self.arrow(run_ids).to_pandas()


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

    Raises
    ------
    InputError
        When DuckDB rejects the query (the first line of its message).
    """
    import duckdb

    connection = duckdb.connect()
    try:
        connection.register("runs", table)
        return connection.execute(sql).df()
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
