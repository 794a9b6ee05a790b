"""Batsim JSON workloads: a hand-made file, round trips, and the error for each bad member."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given

from schedlab.errors import InputError
from schedlab.workload import JobTable, read_batsim, write_batsim
from strategies import job_tables

COLUMNS = ("id", "submit", "run_time", "requested_time", "procs")


def assert_tables_equal(a: JobTable, b: JobTable) -> None:
    assert len(a) == len(b)
    for name in COLUMNS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        assert getattr(a, name).dtype == getattr(b, name).dtype, name


def write_json(path, document) -> str:
    path.write_text(json.dumps(document))
    return str(path)


def workload(**job_changes) -> dict:
    """A valid two-job workload whose second job gets ``job_changes`` (None deletes a key)."""
    second = {"id": "w!2", "subtime": 3, "walltime": 50, "res": 2, "profile": "d10"}
    for key, value in job_changes.items():
        if value is None:
            second.pop(key)
        else:
            second[key] = value
    return {
        "nb_res": 4,
        "jobs": [{"id": "w!1", "subtime": 0, "walltime": 20, "res": 1, "profile": "d10"}, second],
        "profiles": {
            "d10": {"type": "delay", "delay": 10},
            "par": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0},
        },
    }


def test_read_hand_made(data_dir):
    jobs, nb_res = read_batsim(data_dir / "tiny_batsim.json")
    assert nb_res == 8
    np.testing.assert_array_equal(jobs.id, [3, 1, 2])  # numeric part of "w0!N", file order kept
    np.testing.assert_array_equal(jobs.submit, [0, 5.5, 7])
    np.testing.assert_array_equal(jobs.run_time, [60, 30.5, 60])
    np.testing.assert_array_equal(jobs.requested_time, [100, 30.5, 60])  # no walltime / -1: the run time
    np.testing.assert_array_equal(jobs.procs, [4, 8, 1])
    np.testing.assert_array_equal(jobs.line, [0, 0, 0])
    assert jobs.extra == {}
    assert jobs.source == str(data_dir / "tiny_batsim.json")


def test_ids_without_numbers_are_renumbered_and_kept(tmp_path):
    document = workload(id="w!job-b")
    document["jobs"][0]["id"] = 17
    jobs, _ = read_batsim(write_json(tmp_path / "w.json", document))
    np.testing.assert_array_equal(jobs.id, [1, 2])
    assert jobs.extra["batsim_id"].dtype == object
    assert jobs.extra["batsim_id"].tolist() == [17, "w!job-b"]


def test_duplicate_numeric_ids_are_renumbered(tmp_path):
    document = workload(id="other!1")  # "w!1" and "other!1"
    jobs, _ = read_batsim(write_json(tmp_path / "w.json", document))
    np.testing.assert_array_equal(jobs.id, [1, 2])
    assert jobs.extra["batsim_id"].tolist() == ["w!1", "other!1"]


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        ({"res": 0}, "jobs[1].res = 0", "an integer from 1 to 2^63 - 1"),
        ({"res": 1.5}, "jobs[1].res = 1.5", "an integer from 1 to 2^63 - 1"),
        ({"res": None}, "jobs[1].res", "an integer from 1 to 2^63 - 1"),  # missing
        ({"res": 10**30}, "jobs[1].res = 1000000000000000000000000000000", "an integer from 1 to 2^63 - 1"),
        ({"subtime": 1e300}, "job 2 submit = 1e+300", "a time >= 0 and <= 2^53 = 9007199254740992 s"),
        ({"subtime": -1}, "jobs[1].subtime = -1", "a number >= 0"),
        ({"subtime": "5"}, "jobs[1].subtime = 5", "a number >= 0"),
        ({"id": 2.5}, "jobs[1].id = 2.5", "a string or an integer"),
        ({"walltime": "long"}, "jobs[1].walltime = long", "a number"),
        ({"profile": "nope"}, "jobs[1].profile = nope", "the name of a profile in profiles"),
        (
            {"profile": "par"},
            "jobs[1].profile = par",
            "a \"delay\" profile (job w!2: profile 'par' has type 'parallel_homogeneous')",
        ),
    ],
)
def test_bad_job_names_json_path(tmp_path, change, field, expected):
    path = write_json(tmp_path / "w.json", workload(**change))
    with pytest.raises(InputError, match=re.escape(f"{path}: {field}, expected {expected}")) as info:
        read_batsim(path)
    assert info.value.line is None


def test_bad_top_level(tmp_path):
    document = workload()
    document["nb_res"] = 0
    with pytest.raises(InputError, match=re.escape("nb_res = 0, expected an integer from 1 to 67,108,864")):
        read_batsim(write_json(tmp_path / "a.json", document))
    document = workload()
    document["profiles"]["d10"]["delay"] = 0
    with pytest.raises(InputError, match=re.escape("profiles['d10'].delay = 0, expected a number > 0")):
        read_batsim(write_json(tmp_path / "b.json", document))
    (tmp_path / "c.json").write_text("{not json")
    with pytest.raises(InputError, match="c.json: not valid JSON"):
        read_batsim(tmp_path / "c.json")
    with pytest.raises(InputError, match="no such file"):
        read_batsim(tmp_path / "absent.json")


def test_write_format(tmp_path):
    jobs = JobTable.from_arrays(
        id=[5, 2], submit=[0, 1.5], run_time=[3600, 12.5], requested_time=[7200, 12.5], procs=[2, 1]
    )
    write_batsim(tmp_path / "w.json", jobs, nb_res=4)
    document = json.loads((tmp_path / "w.json").read_text())
    assert document == {
        "nb_res": 4,
        "jobs": [
            {"id": 5, "subtime": 0, "walltime": 7200, "res": 2, "profile": "delay_3600"},
            {"id": 2, "subtime": 1.5, "walltime": 12.5, "res": 1, "profile": "delay_12.5"},
        ],
        "profiles": {"delay_3600": {"type": "delay", "delay": 3600}, "delay_12.5": {"type": "delay", "delay": 12.5}},
    }


def test_write_refuses_jobs_wider_than_the_platform(tmp_path):
    jobs = JobTable.from_arrays(id=[5], submit=[0], run_time=[1], procs=[8])
    with pytest.raises(InputError, match=re.escape("job 5 processors = 8, expected <= nb_res (4)")):
        write_batsim(tmp_path / "w.json", jobs, nb_res=4)


def test_hand_made_round_trip(data_dir, tmp_path):
    jobs, nb_res = read_batsim(data_dir / "tiny_batsim.json")
    write_batsim(tmp_path / "w.json", jobs, nb_res)
    again, nb_again = read_batsim(tmp_path / "w.json")
    assert nb_again == nb_res
    assert_tables_equal(again, jobs)


@given(jobs=job_tables(max_jobs=12, max_procs=64, max_id=2**53))
def test_round_trip_property(tmp_path_factory, jobs):
    """JobTable -> JSON -> JobTable gives the same arrays; writing twice gives the same bytes."""
    folder = tmp_path_factory.mktemp("batsim")
    write_batsim(folder / "a.json", jobs, 64)
    write_batsim(folder / "b.json", jobs, 64)
    assert (folder / "a.json").read_bytes() == (folder / "b.json").read_bytes()
    again, nb_res = read_batsim(folder / "a.json")
    assert nb_res == 64
    assert_tables_equal(again, jobs)
