"""The run API: how the machine is chosen and recorded."""

from __future__ import annotations

from schedlab import load_instance, run


def test_platform_sets_and_records_the_machine_size(data_dir):
    instance, report = load_instance(data_dir / "tiny.swf", platform="fat-tree:1,2,8")
    assert instance.platform.n_procs == 8 and report.machine_procs == 8
    assert report.machine_how.startswith("--platform")
    assert run(instance, "easy", report=report).info["machine_size_from"] == report.machine_how


def test_header_size_is_recorded_without_platform(data_dir):
    instance, report = load_instance(data_dir / "tiny.swf")
    assert instance.platform.n_procs == 16 and report.machine_how == "MaxProcs header"
