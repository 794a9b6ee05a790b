"""The run API: how the machine is chosen and recorded."""

from __future__ import annotations

from schedlab import load_instance, run
from schedlab.output import BATSIM_COLUMNS, EXTRA_COLUMNS, TOPOLOGY_COLUMNS, read_jobs_csv
from schedlab.platform.tree import FatTree
from schedlab.schedule import Instance
from schedlab.workload.jobs import JobTable


def test_platform_sets_and_records_the_machine_size(data_dir):
    instance, report = load_instance(data_dir / "tiny.swf", platform="fat-tree:1,2,8")
    assert instance.platform.n_procs == 8 and report.machine_procs == 8
    assert report.machine_how.startswith("--platform")
    assert run(instance, "easy", report=report).info["machine_size_from"] == report.machine_how


def test_header_size_is_recorded_without_platform(data_dir):
    instance, report = load_instance(data_dir / "tiny.swf")
    assert instance.platform.n_procs == 16 and report.machine_how == "MaxProcs header"


def test_jobs_csv_has_topology_columns_on_a_fat_tree_only(data_dir, tmp_path):
    """fat-tree:1,2,4,8 (clusters of 2), quadratic F = 2: job 0 takes processor 0, so job 1's 2 processors
    straddle clusters 0 and 1 (level 2, L_min 1) and it runs T' = 10 * 2 = 20 s, as written."""
    jobs = JobTable.from_arrays(submit=[0, 0], run_time=[100, 10], requested_time=[100, 100], procs=[1, 2])
    run(Instance(jobs, FatTree((1, 2, 4, 8))), "conservative", penalty="quadratic:2").write(tmp_path / "tree")
    frame = read_jobs_csv(tmp_path / "tree" / "jobs.csv")
    assert tuple(frame.columns[-len(TOPOLOGY_COLUMNS) :]) == TOPOLOGY_COLUMNS
    assert frame["allocated_resources"].tolist() == ["0", "1-2"]
    assert frame["level"].tolist() == [1, 2] and frame["min_level"].tolist() == [1, 1]
    assert frame["penalised_run_time"].tolist() == frame["execution_time"].tolist() == [100, 20]
    plain, _ = load_instance(data_dir / "tiny.swf")
    run(plain, "conservative").write(tmp_path / "plain")
    assert tuple(read_jobs_csv(tmp_path / "plain" / "jobs.csv").columns) == BATSIM_COLUMNS + EXTRA_COLUMNS
