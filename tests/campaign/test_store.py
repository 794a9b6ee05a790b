"""The result store: atomic per-run files, states, union of parameter columns, DuckDB queries."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


def test_compaction_keeps_every_row_and_removes_the_one_row_files(tmp_path):
    store = Store(tmp_path)
    for i in range(5):
        store.write(row(f"r{i}", param_order="sjf" if i % 2 else None))
    before = store.arrow()
    assert store.compact() == 5
    assert store.files() == [] and [p.name for p in store.generations()] == ["000000001.parquet"]
    assert store.arrow().equals(before)
    assert store.states() == {f"r{i}": "done" for i in range(5)}
    assert store.compact() == 0 and [p.name for p in store.generations()] == ["000000001.parquet"]


def test_a_run_stored_after_compaction_replaces_its_compacted_row(tmp_path):
    store = Store(tmp_path)
    store.write(row("a", "failed", error="ValueError: x"))
    store.write(row("b"))
    store.compact()
    store.write(row("a", bsld_mean=7.0))  # retried
    assert store.states() == {"a": "done", "b": "done"}
    assert store.arrow().column("bsld_mean").to_pylist() == [7.0, 2.5]
    store.compact()
    assert store.files() == [] and store.arrow().column("bsld_mean").to_pylist() == [7.0, 2.5]
    assert store.arrow(["b"]).column("run_id").to_pylist() == ["b"]


@pytest.mark.parametrize("where", ["writing the new generation", "before removing the folded files"])
def test_compaction_killed_midway_loses_and_repeats_nothing(tmp_path, where, monkeypatch):
    from pathlib import Path

    from schedlab.campaign import store as store_module

    store = Store(tmp_path)
    for i in range(3):
        store.write(row(f"old{i}"))
    store.compact()
    for i in range(3):
        store.write(row(f"new{i}", bsld_mean=float(i)))
    store.write(row("old1", bsld_mean=9.0))  # a retry, newer than its compacted row
    expected = store.arrow()
    with monkeypatch.context() as patch:
        if where == "writing the new generation":

            def half_written(table, path):
                Path(path).write_bytes(b"PAR1 half a file")
                raise SystemExit("killed")

            patch.setattr(store_module.pq, "write_table", half_written)
        else:
            real_unlink = Path.unlink

            def unlink(self, missing_ok=False):
                if self.parent == store.runs_dir:
                    raise SystemExit("killed")
                return real_unlink(self, missing_ok=missing_ok)

            patch.setattr(Path, "unlink", unlink)
        with pytest.raises(SystemExit):
            store.compact()
    assert store.arrow().equals(expected)  # nothing lost, no run twice
    assert len(store.states()) == 6
    store.compact()
    assert store.files() == [] and len(store.generations()) == 1 and store.arrow().equals(expected)
    assert not any(p.name.endswith(".tmp") for p in store.compacted_dir.iterdir())


def test_a_file_replaced_during_compaction_is_kept(tmp_path, monkeypatch):
    """A writer that replaces a one-row file after the compaction read it: that newer row survives."""
    store = Store(tmp_path)
    store.write(row("a"))
    real_arrow = Store.arrow

    def arrow_then_rewrite(self, run_ids=None):
        table = real_arrow(self, run_ids)
        store.write(row("a", bsld_mean=4.0))
        return table

    monkeypatch.setattr(Store, "arrow", arrow_then_rewrite)
    store.compact()
    monkeypatch.undo()
    assert [p.name for p in store.files()] == ["a.parquet"]
    assert store.arrow().column("bsld_mean").to_pylist() == [4.0]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(
        st.one_of(st.tuples(st.sampled_from("abcde"), st.floats(0, 9, allow_nan=False)), st.just("compact")),
        max_size=14,
    )
)
def test_writes_and_compactions_in_any_order_read_as_the_last_write_of_each_run(tmp_path_factory, steps):
    store = Store(tmp_path_factory.mktemp("s"))
    model: dict[str, float] = {}
    for step in steps:
        if step == "compact":
            store.compact()
            assert store.files() == [] and len(store.generations()) == (1 if model else 0)
        else:
            run_id, value = step
            store.write(row(run_id, bsld_mean=value))
            model[run_id] = value
        table = store.arrow()
        assert dict(zip(table.column("run_id").to_pylist(), table.column("bsld_mean").to_pylist())) == model
        assert table.column("run_id").to_pylist() == sorted(model)
