"""Output files: ``jobs.csv`` (Batsim/evalys columns, number format, round trip) and ``metrics.json``.

Contract: the docstring of :mod:`schedlab.output`; evalys ``JobSet.columns``.
"""

from __future__ import annotations

import io
import json
import math
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from schedlab import output
from schedlab.engine import simulate
from schedlab.errors import InputError, ValidationError
from schedlab.metrics import aggregate, job_metrics
from schedlab.output import (
    BATSIM_COLUMNS,
    EXTRA_COLUMNS,
    TOPOLOGY_COLUMNS,
    format_allocations,
    number_array,
    read_jobs_csv,
    write_jobs_csv,
    write_metrics_json,
)
from schedlab.platform import Machine
from schedlab.platform.intervals import AllocationTable, format_allocation, normalize
from schedlab.platform.tree import FatTree
from schedlab.registry import make_policy
from schedlab.runtime import TopologyPenalty
from schedlab.schedule import Instance, JobStatus, Piece, Schedule
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import rigid_instances

C, K, R = JobStatus.COMPLETED, JobStatus.KILLED, JobStatus.REJECTED

# evalys/jobset.py, JobSet.columns: Batsim's order, where ``success`` follows ``requested_time``.
EVALYS_COLUMNS = (
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


def small():
    """5 processors.

    - job 7: submit 0, run 3, 3 procs on 0-1 and 4: [0, 3), COMPLETED;
    - job 8: submit 0.5, run 10, requested 2.5, 2 procs on 2-3: [0.5, 3), KILLED;
    - job 9: submit 1, 1 proc: one aborted piece [3, 4) on 0, then REJECTED.
    """
    jobs = JobTable.from_arrays(
        submit=[0, 0.5, 1], run_time=[3, 10, 4], requested_time=[3, 2.5, 4], procs=[3, 2, 1], id=[7, 8, 9]
    )
    schedule = Schedule(
        start=np.array([0.0, 0.5, np.nan]),
        end=np.array([3.0, 3.0, np.nan]),
        status=np.array([C, K, R], dtype=np.int8),
        alloc=[((0, 2), (4, 5)), ((2, 4),), None],
        aborted=[Piece(2, 3.0, 4.0, ((0, 1),))],
    )
    return Instance(jobs, Machine(5)), schedule


EXPECTED_CSV = (
    "job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success,starting_time,execution_time,"
    "finish_time,waiting_time,turnaround_time,stretch,allocated_resources,"
    "final_state,run_time,bounded_slowdown,bounded_slowdown_unclamped,n_aborted,n_preempted\n"
    "7,memory,0,3,3,1,0,3,3,0,3,1,0-1 4,COMPLETED_SUCCESSFULLY,3,1,0.3,0,0\n"
    "8,memory,0.5,2,2.5,0,0.5,2.5,3,0,2.5,1,2-3,COMPLETED_WALLTIME_REACHED,10,1,0.25,0,0\n"
    "9,memory,1,1,4,0,,,,,,,,REJECTED,4,,,1,0\n"
)


def test_columns_are_batsims_in_evalys_order_then_ours():
    assert BATSIM_COLUMNS == EVALYS_COLUMNS
    assert EXTRA_COLUMNS == (
        "final_state",
        "run_time",
        "bounded_slowdown",
        "bounded_slowdown_unclamped",
        "n_aborted",
        "n_preempted",
    )


def test_jobs_csv_exact_text(tmp_path):
    """Hand-written expected file: multi-range allocation, walltime kill (execution 2.5, not 10),
    rejected job with empty times, ratios and allocation, success 0 and its aborted piece counted."""
    instance, schedule = small()
    validate(instance, schedule, allow_rejected=True)
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule)
    assert path.read_bytes() == EXPECTED_CSV.encode("ascii")


def test_jobs_csv_tau_changes_the_bounded_slowdown_columns(tmp_path):
    instance, schedule = small()
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule, tau=1.0)
    header, *rows = [line.split(",") for line in path.read_text().splitlines()]
    columns = [header.index("bounded_slowdown"), header.index("bounded_slowdown_unclamped")]
    assert [rows[0][c] for c in columns] == ["1", "1"]
    assert [rows[1][c] for c in columns] == ["1", "1"]


def test_jobs_csv_refuses_not_started(tmp_path):
    instance, schedule = small()
    schedule.status[1] = JobStatus.NOT_STARTED
    with pytest.raises(ValidationError, match=r"^job 8: status code 0 cannot be written"):
        write_jobs_csv(tmp_path / "jobs.csv", instance, schedule)


def on_a_fat_tree():
    """fat-tree:1,2,4,8: clusters of 2 processors (0-1, 2-3, 4-5, 6-7), two per depth-1 node; quadratic F = 2.

    - job 1: 2 procs on 1-2: 1 block, clusters 0 and 1 (K* = 1), level 2 (L_min 1): T' = 4 * 2 = 8 <= 10;
    - job 2: 3 procs on 4-5 and 7: 2 blocks, clusters 2 and 3 (K* = 2), level 2 = L_min: T' = 5;
    - job 3: 3 procs on 0, 3 and 6: 3 blocks, 3 clusters, level 3 (L_min 2): T' = 3 * 2 = 6 > 5, KILLED at 5;
    - job 4: REJECTED.
    """
    tree = FatTree((1, 2, 4, 8))
    jobs = JobTable.from_arrays(
        submit=[0, 0, 1, 2], run_time=[4, 5, 3, 1], requested_time=[10, 5, 5, 1], procs=[2, 3, 3, 1], id=[1, 2, 3, 4]
    )
    schedule = Schedule(
        start=np.array([0.0, 0.0, 1.0, np.nan]),
        end=np.array([8.0, 5.0, 6.0, np.nan]),
        status=np.array([C, C, K, R], dtype=np.int8),
        alloc=[((1, 3),), ((4, 6), (7, 8)), ((0, 1), (3, 4), (6, 7)), None],
    )
    return Instance(jobs, tree, TopologyPenalty(tree, "quadratic", 2.0, jobs)), schedule


def test_jobs_csv_on_a_fat_tree_adds_the_topology_columns(tmp_path):
    """Hand-computed b_j, K_j, K*_j, L, L_min and T' after our columns; empty for the rejected job."""
    instance, schedule = on_a_fat_tree()
    validate(instance, schedule, allow_rejected=True)  # the hand schedule is the engine's rule
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule)
    header, *rows = [line.split(",") for line in path.read_text().splitlines()]
    assert tuple(header) == BATSIM_COLUMNS + EXTRA_COLUMNS + TOPOLOGY_COLUMNS
    width = len(TOPOLOGY_COLUMNS)
    assert [row[-width:] for row in rows] == [
        ["1", "2", "1", "2", "1", "8"],
        ["2", "2", "2", "2", "2", "5"],
        ["3", "3", "2", "3", "2", "6"],
        [""] * width,
    ]
    frame = read_jobs_csv(path)
    assert frame["level"].tolist()[:3] == [2.0, 2.0, 3.0] and math.isnan(frame["level"].iloc[3])
    assert frame["execution_time"].tolist()[:3] == [8.0, 5.0, 5.0]  # the kill at the walltime hides T' = 6


def test_penalised_run_time_is_the_run_time_without_a_penalty(tmp_path):
    penalised, schedule = on_a_fat_tree()
    instance = Instance(penalised.jobs, penalised.platform)  # the default model: rigid run times
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule)
    assert read_jobs_csv(path)["penalised_run_time"].tolist()[:3] == [4.0, 5.0, 3.0]


def test_read_jobs_csv_gives_back_the_values_and_types(tmp_path):
    instance, schedule = small()
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no pandas deprecation warning (float_precision in pandas >= 3)
        frame = read_jobs_csv(path)
    assert tuple(frame.columns) == BATSIM_COLUMNS + EXTRA_COLUMNS
    assert frame["job_id"].dtype == np.int64 and frame["job_id"].tolist() == [7, 8, 9]
    for c in ("requested_number_of_resources", "success", "n_aborted", "n_preempted"):
        assert frame[c].dtype == np.int64
    assert frame["success"].tolist() == [1, 0, 0]
    assert frame["n_aborted"].tolist() == [0, 0, 1]
    assert frame["starting_time"].dtype == np.float64
    assert frame["starting_time"].tolist()[:2] == [0.0, 0.5] and math.isnan(frame["starting_time"][2])
    assert frame["allocated_resources"].tolist() == ["0-1 4", "2-3", ""]
    assert frame["final_state"].tolist() == ["COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "REJECTED"]


_times = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)
_lengths = st.floats(min_value=1e-6, max_value=1e7, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(_times, _times, _lengths, _lengths), min_size=1, max_size=8))
@example(
    rows=[(0.1, 0.2, 1 / 3, 1e-5), (1e16, 0.0, 12.5, 2.0**53 + 2), (2.0**53 - 1, 5e-324, 1e-6, 0.30000000000000004)]
)
def test_float_columns_round_trip_exactly(tmp_path, rows):
    """Whatever the floats, read_jobs_csv(write_jobs_csv(...)) gives back the very same float64 values."""
    submit, wait, run, requested = (np.array(c, dtype=np.float64) for c in zip(*rows))
    n = len(rows)
    ones = np.ones(n, dtype=np.int64)
    # built unchecked: the writer must round-trip any float, even times the readers refuse (beyond 2^53)
    jobs = JobTable(
        id=np.arange(1, n + 1), submit=submit, run_time=run, requested_time=requested, procs=ones, line=ones
    )
    start = submit + wait
    schedule = Schedule(
        start=start,
        end=start + np.minimum(run, requested),
        status=np.where(run > requested, K, C).astype(np.int8),
        alloc=[((0, 1),)] * n,
    )
    instance = Instance(jobs, Machine(1))
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule)
    frame = read_jobs_csv(path)
    m = job_metrics(instance, schedule)
    expected = {
        "submission_time": submit,
        "requested_time": requested,
        "run_time": run,
        "starting_time": schedule.start,
        "finish_time": schedule.end,
        "execution_time": m["execution"],
        "waiting_time": m["wait"],
        "turnaround_time": m["response"],
        "stretch": m["slowdown"],
        "bounded_slowdown": m["bsld"],
        "bounded_slowdown_unclamped": m["bsld_unclamped"],
    }
    for column, values in expected.items():
        got = frame[column].to_numpy()
        assert got.dtype == np.float64
        assert np.array_equal(got, values, equal_nan=True), column


@pytest.mark.parametrize("column", ["job_id", "success", "allocated_resources", "stretch"])
def test_missing_batsim_column_is_an_input_error_at_line_1(tmp_path, column):
    instance, schedule = small()
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False).drop(columns=[column])
    frame.to_csv(path, index=False)
    with pytest.raises(InputError, match=rf"jobs\.csv:1: header, expected .*missing {column}$") as info:
        read_jobs_csv(path)
    assert info.value.source == str(path) and info.value.line == 1


@pytest.mark.parametrize(
    ("column", "cell"),
    [("stretch", "\u0663"), ("stretch", "1_0"), ("success", "\u0661"), ("success", "1_0"), ("run_time", "1e")],
)
def test_a_cell_that_is_no_ascii_number_is_an_input_error_naming_its_column(tmp_path, column, cell):
    """Python's float() reads other scripts' digits ('\u0663' is 3) and underscores, pandas does not: both refuse them."""
    instance, schedule = small()
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[1, column] = cell
    frame.to_csv(path, index=False)
    number = list(frame.columns).index(column) + 1
    with pytest.raises(InputError, match=rf"jobs\.csv:3: column {number} \({column}\)") as info:
        read_jobs_csv(path)
    assert info.value.line == 3


def test_read_keeps_non_integer_ids_as_text(tmp_path):
    """Batsim ids such as ``w0!1`` stay strings."""
    instance, schedule = small()
    path = tmp_path / "jobs.csv"
    write_jobs_csv(path, instance, schedule)
    text = path.read_text().replace("\n7,", "\nw0!7,")
    path.write_text(text)
    assert read_jobs_csv(path)["job_id"].tolist() == ["w0!7", "8", "9"]


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(instance=rigid_instances(), name=st.sampled_from(["fcfs", "easy", "conservative"]))
def test_same_instance_twice_gives_byte_identical_files(tmp_path, instance, name):
    paths = []
    for k in range(2):
        schedule = simulate(instance, make_policy(name, {}))
        paths.append(tmp_path / f"jobs{k}.csv")
        write_jobs_csv(paths[-1], instance, schedule)
    first, second = (p.read_bytes() for p in paths)
    assert first == second
    assert first.count(b"\n") == len(instance.jobs) + 1


# -- number format and format_allocations -------------------------------------------


def _cells(values) -> list[str]:
    """The text ``jobs.csv`` writes for a column holding ``values`` (one cell per line)."""
    sink = io.BytesIO()
    table = pa.table({"x": number_array(np.array(values, dtype=np.float64))})
    pa_csv.write_csv(table, sink, pa_csv.WriteOptions(include_header=False, quoting_style="none"))
    return sink.getvalue().decode().splitlines()


@pytest.mark.parametrize(
    ("values", "texts"),
    [
        ([12.0, -3.0, 0.0, np.nan], ["12", "-3", "0", ""]),  # integral column: integers, NaN empty
        ([2.0**53 - 1], ["9007199254740991"]),  # largest integral written as an int
        ([12.0, 12.5, 0.1], ["12", "12.5", "0.1"]),  # mixed column: shortest round trip
        ([1e-05, np.nan], ["0.00001", ""]),
        ([2.0**53], ["9.007199254740992e+15"]),  # not below 2**53: a float column
        ([float("inf"), float("-inf")], ["inf", "-inf"]),
    ],
)
def test_number_format_rule(values, texts):
    assert _cells(values) == texts


def test_number_array_types():
    assert number_array(np.array([1.0, np.nan])).type == pa.int64()
    assert number_array(np.array([1.5, 2.0])).type == pa.float64()
    assert number_array(np.array([], dtype=np.float64)).type == pa.int64()


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20))
def test_number_format_round_trips(values):
    assert [float(t) for t in _cells(values)] == [v + 0.0 for v in values]


_allocs = st.one_of(
    st.none(),
    st.just(()),
    st.sets(st.integers(0, 70), min_size=1, max_size=30).map(lambda ids: normalize((i, i + 1) for i in ids)),
)


@given(st.lists(_allocs, max_size=12), st.booleans())
def test_format_allocations_matches_format_allocation(allocs, numpy_ints):
    if numpy_ints:
        allocs = [None if a is None else tuple((np.int64(lo), np.int64(hi)) for lo, hi in a) for a in allocs]
    expected = [format_allocation(a or ()) for a in allocs]
    assert format_allocations(allocs) == expected


@given(st.lists(_allocs, max_size=12))
def test_allocation_text_of_a_table_equals_that_of_its_list(allocs):
    """The compiled core's schedules hold an AllocationTable: same text, on the core and in numpy."""
    expected = [format_allocation(a or ()) for a in allocs]
    assert format_allocations(AllocationTable.from_allocations(allocs)) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(output, "_core", None)
        assert format_allocations(AllocationTable.from_allocations(allocs)) == expected


def test_format_allocations_by_hand():
    assert format_allocations([((0, 2), (4, 5)), None, (), ((3, 4),), ((0, 8),)]) == ["0-1 4", "", "", "3", "0-7"]


# -- metrics.json ----------------------------------------------------------------------


def test_metrics_json_exact_text(tmp_path):
    """Keys sorted, indent 2, NaN and inf as null, numpy values as Python numbers, trailing newline."""
    path = tmp_path / "metrics.json"
    metrics = {"wait_mean": np.float64(0.1), "n_jobs": np.int64(3), "bsld_max": float("nan"), "b": np.inf}
    write_metrics_json(path, metrics, extra={"policy": "easy", "ok": np.bool_(True), "procs": np.array([1, 2])})
    assert path.read_text() == (
        "{\n"
        '  "b": null,\n'
        '  "bsld_max": null,\n'
        '  "n_jobs": 3,\n'
        '  "ok": true,\n'
        '  "policy": "easy",\n'
        '  "procs": [\n    1,\n    2\n  ],\n'
        '  "wait_mean": 0.1\n'
        "}\n"
    )


def test_metrics_json_is_deterministic_and_loads_back(tmp_path):
    instance, schedule = small()
    a = aggregate(instance, schedule)
    one, two = tmp_path / "1.json", tmp_path / "2.json"
    write_metrics_json(one, a, extra={"seed": 1})
    write_metrics_json(two, dict(reversed(list(a.items()))), extra={"seed": 1})
    assert one.read_bytes() == two.read_bytes()
    assert json.loads(one.read_text()) == {**a, "seed": 1}


def test_metrics_json_key_clash_raises(tmp_path):
    path = tmp_path / "metrics.json"
    with pytest.raises(ValueError, match=r"keys in both metrics and extra: n_jobs, tau"):
        write_metrics_json(path, {"tau": 10.0, "n_jobs": 3, "x": 1}, extra={"tau": 1.0, "n_jobs": 2})
    assert not path.exists()


# -- the compiled jobs.csv writer against Arrow's, byte for byte --------------------------------------

_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-1e12, max_value=1e12),
    st.integers(-(2**53) + 1, 2**53 - 1).map(float),
    st.sampled_from([1e-7, 1e-6, 9.5e-7, 1e9, 999999999.5, 1e10, -0.0, 0.1 + 0.2]),
)


@pytest.mark.skipif(output._core is None, reason="the compiled core is not built")
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_floats, min_size=1, max_size=40), st.booleans())
def test_compiled_rows_equal_arrows(tmp_path, values, integral_only):
    if integral_only:
        values = [v if math.isnan(v) else float(int(v)) if math.isfinite(v) and abs(v) < 2**53 else 1.0 for v in values]
    n = len(values)
    texts = [format_allocation(((i, i + 1 + i % 3),)) for i in range(n)]
    columns = {
        "x": ("number", *output._numbers(values)),
        "id": ("int", np.arange(n, dtype=np.int64) - 3),
        "alloc": ("text", *output._text_starts(texts)),
        "y": ("number", *output._numbers(values[::-1])),
    }
    compiled, arrow = tmp_path / "compiled.csv", tmp_path / "arrow.csv"
    compiled.write_bytes(b"")
    arrow.write_bytes(b"")
    output._core.append_csv_rows(str(compiled), n, [output._core_column(*c) for c in columns.values()])
    output._append_arrow_rows(arrow, columns, n)
    assert compiled.read_bytes() == arrow.read_bytes()


@pytest.mark.skipif(output._core is None, reason="the compiled core is not built")
def test_jobs_csv_same_bytes_with_and_without_the_core(tmp_path):
    """A whole jobs.csv with fractional times and ratios (stretch, bounded slowdowns), both writers."""
    rng = np.random.default_rng(3)
    jobs = JobTable.from_arrays(
        submit=np.round(rng.uniform(0, 50, 40), 3),
        run_time=rng.uniform(0.5, 30, 40),
        requested_time=rng.uniform(0.5, 40, 40),
        procs=rng.integers(1, 9, 40),
    )
    instance = Instance(jobs, Machine(8))
    schedule = simulate(instance, make_policy("easy", {}), engine="python")
    write_jobs_csv(tmp_path / "core.csv", instance, schedule)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(output, "_core", None)
        write_jobs_csv(tmp_path / "arrow.csv", instance, schedule)
    assert (tmp_path / "core.csv").read_bytes() == (tmp_path / "arrow.csv").read_bytes()
    assert "." in (tmp_path / "core.csv").read_text()  # fractional values were written
