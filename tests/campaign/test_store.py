"""The result store: atomic per-run files, states, union of parameter columns, DuckDB queries."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from schedlab.campaign import Store, query
from schedlab.campaign.store import row_schema
from schedlab.errors import InputError


def row(run_id, state="done", **extra):
    return {
        "run_id": run_id,
        "campaign": "c",
        "workload": "w",
        "label": "l",
        "policy": "easy",
        "state": state,
        "bsld_mean": 2.5,
        "n_jobs": 3,
        **extra,
    }


def test_write_is_atomic_and_complete(tmp_path):
    store = Store(tmp_path / "s")
    path = store.write(row("a1", param_order="sjf"))
    assert path == tmp_path / "s" / "runs" / "a1.parquet"
    assert [p.name for p in (tmp_path / "s" / "runs").iterdir()] == ["a1.parquet"]  # no temporary file left
    table = pq.read_table(path)
    assert table.num_rows == 1
    assert table.schema.equals(row_schema(["order"]))
    record = table.to_pylist()[0]
    assert (record["bsld_mean"], record["n_jobs"], record["param_order"], record["wait_mean"]) == (2.5, 3, "sjf", None)


def test_states_and_rewrite(tmp_path):
    store = Store(tmp_path)
    assert store.states() == {}
    store.write(row("a", "failed", error="ValueError: x"))
    store.write(row("b"))
    assert store.states() == {"a": "failed", "b": "done"}
    store.write(row("a"))  # a retried run replaces its file
    assert store.states() == {"a": "done", "b": "done"}


def test_clean_removes_interrupted_writes_only(tmp_path):
    store = Store(tmp_path)
    store.write(row("a"))
    (store.runs_dir / ".b.123.tmp").write_bytes(b"half a file")
    assert store.states() == {"a": "done"}
    assert store.clean() == 1
    assert sorted(p.name for p in store.runs_dir.iterdir()) == ["a.parquet"]


def test_arrow_unions_parameter_columns_and_sorts_by_id(tmp_path):
    store = Store(tmp_path)
    store.write(row("b", param_order="sjf"))
    store.write(row("a", param_compress="full", param_order="fcfs"))
    store.write(row("c"))
    table = store.arrow()
    assert table.column("run_id").to_pylist() == ["a", "b", "c"]
    assert table.column("param_order").to_pylist() == ["fcfs", "sjf", None]
    assert table.column("param_compress").to_pylist() == ["full", None, None]
    assert store.arrow(["c", "zz"]).column("run_id").to_pylist() == ["c"]
    assert store.arrow([]).num_rows == 0


def test_query_with_duckdb(tmp_path):
    store = Store(tmp_path)
    for i in range(4):
        store.write(row(f"r{i}", bsld_mean=float(i), policy="easy" if i % 2 else "fcfs"))
    result = query(
        store.arrow(), "select policy, sum(bsld_mean) as s, count(*) as n from runs group by policy order by policy"
    )
    assert result.to_dict("records") == [{"policy": "easy", "s": 4.0, "n": 2}, {"policy": "fcfs", "s": 2.0, "n": 2}]


def test_bad_sql_is_one_input_error(tmp_path):
    store = Store(tmp_path)
    store.write(row("a"))
    with pytest.raises(InputError, match=r"^query: .*no_such_column"):
        query(store.arrow(), "select no_such_column from runs")
