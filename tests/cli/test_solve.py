"""``schedlab solve hybrid``: table, JSON, written schedules, one-line errors."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.workload.hybrid import HybridInstance, read_hybrid, write_hybrid

runner = CliRunner()

EXAMPLE_A = HybridInstance.from_tasks(
    4,
    1,
    [
        ([4, 4, 4, 4], 12),
        ([7, 4, 3, 2.5], 3),
        ([12, 6.5, 5, 4], 8),
        ([9, 9, 9, 9], 20),
        ([30, 16, 11, 9], 6),
    ],
    ids=[1, 2, 3, 4, 5],
)


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_instance_file_json_output(tmp_path):
    """Spec 7.2 Example A through the CLI: APPROX-3/2 12, APPROX-2 17, LPT/SEQ 12, lower bound 9."""
    path = tmp_path / "a.json"
    write_hybrid(EXAMPLE_A, path)
    result = invoke("solve", "hybrid", path, "--algo", "approx32,approx2,lpt-seq", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    got = {r["algorithm"]: r["makespan"] for r in data["results"]}
    assert got == {"approx32": 12, "approx2": 17, "lpt-seq": 12}
    assert data["bounds"]["lower"] == 9 and data["bounds"]["upper"] == 25.5
    rows = {r["algorithm"]: r for r in data["results"]}
    assert rows["approx32"]["steps"] >= 1 and rows["lpt-seq"]["steps"] is None
    assert rows["approx2"]["ratio"] == 17 / rows["approx2"]["best_lower_bound"]


def test_generate_table(tmp_path):
    result = invoke("solve", "hybrid", "--generate", "n=30,m=8,k=2,seed=1", "--algo", "da2,approx2,heft,lpt-seq")
    assert result.exit_code == 0, result.output
    for word in ("algorithm", "makespan", "lower", "ratio", "bisection", "da2", "lpt-seq"):
        assert word in result.output


def test_out_directory(tmp_path):
    out = tmp_path / "run"
    result = invoke("solve", "hybrid", "--generate", "n=10,m=4,k=1,seed=2", "--algo", "approx32", "--out", out)
    assert result.exit_code == 0, result.output
    assert read_hybrid(out / "instance.json").n == 10
    schedule = json.loads((out / "schedule_approx32.json").read_text())
    assert len(schedule["tasks"]) == 10 and {t["kind"] for t in schedule["tasks"]} <= {"cpu", "gpu"}
    again = invoke("solve", "hybrid", "--generate", "n=10,m=4,k=1,seed=2", "--out", out)
    assert again.exit_code == 1 and "not empty" in again.output


def test_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"m": 2, "k": 1, "tasks": [{"cpu": [3, 4], "gpu": 1}]}))
    cases = [
        (("solve", "hybrid", bad), "bad.json: tasks[0].cpu"),
        (("solve", "hybrid", "--generate", "n=2,m=1,k=1", "--algo", "foo"), "--algo = foo"),
        (("solve", "hybrid", "--generate", "n=2,m=1"), "expected also k"),
        (("solve", "hybrid", "--generate", "n=2,m=1,k=x"), "k = x, expected an integer"),
        (
            (
                "solve",
                "hybrid",
            ),
            "give either INSTANCE or --generate",
        ),
        (("solve", "hybrid", "--generate", "n=2,m=1,k=0", "--algo", "gpu-only"), "gpu-only"),
    ]
    for args, message in cases:
        result = invoke(*args)
        assert result.exit_code == 1, (args, result.output)
        assert message in result.output and "Traceback" not in result.output


def test_gantt(tmp_path):
    path = tmp_path / "a.json"
    write_hybrid(EXAMPLE_A, path)
    one = tmp_path / "g.png"
    result = invoke("solve", "hybrid", path, "--algo", "approx32", "--gantt", one)
    assert result.exit_code == 0, result.output
    assert one.read_bytes()[:4] == b"\x89PNG"
    result = invoke("solve", "hybrid", path, "--algo", "approx2,heft", "--gantt", tmp_path / "many.png")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "many_approx2.png").exists() and (tmp_path / "many_heft.png").exists()


# -- schedlab solve io ---------------------------------------------------------------------------------
IO_INSTANCE = {
    "platform": "line:m=12,io=3",
    "jobs": [
        {"id": 1, "p": 1, "q": 3, "io": [4]},
        {"id": 2, "p": 1, "q": 3, "io": [4]},
        {"id": 3, "p": 1, "q": 3, "io": [4]},
    ],
}


def test_io_instance_file_json(tmp_path):
    """Three unit jobs of 3 nodes on I/O node 4: LP 1.5 (the best bound), OPT 2, every algorithm validated."""
    path = tmp_path / "io.json"
    path.write_text(json.dumps(IO_INSTANCE))
    result = invoke("solve", "io", path, "--algo", "pinned,unit-pinned,greedy,sequential", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["bounds"]["lp"] == 1.5 and data["bounds"]["tight"] == "io"
    rows = {r["algorithm"]: r for r in data["results"]}
    assert rows["sequential"]["makespan"] == 3 and rows["greedy"]["makespan"] == 2
    assert 2 <= rows["unit-pinned"]["makespan"] <= 3 and rows["unit-pinned"]["proven_ratio"] == 2
    assert rows["pinned"]["proven_ratio"] == 6 and rows["pinned"]["lp"] == 1.5


def test_io_generate_gantt_and_out(tmp_path):
    out = tmp_path / "run"
    gantt = tmp_path / "g.png"
    result = invoke(
        "solve",
        "io",
        "--generate",
        "ring:m=16,io=4,n=12,seed=3,kind=unpinned",
        "--algo",
        "unpinned-ffdh",
        "--param",
        "pcmax=exact",
        "--out",
        out,
        "--gantt",
        gantt,
    )
    assert result.exit_code == 0, result.output
    assert "12 unpinned jobs on ring:m=16,io=4" in result.output and gantt.stat().st_size > 1000
    schedule = json.loads((out / "schedule_unpinned-ffdh.json").read_text())
    assert schedule["algorithm"] == "unpinned[exact,ffdh]" and len(schedule["jobs"]) == 12
    assert all(len(job["io"]) == 1 for job in schedule["jobs"])
    assert json.loads((out / "instance.json").read_text())["platform"]["topology"] == "ring"


def test_io_default_algorithm_follows_the_jobs():
    result = invoke("solve", "io", "--generate", "line:m=32,io=4,n=20,seed=1", "--json")
    assert [r["algorithm"] for r in json.loads(result.output)["results"]] == ["pinned"]


def test_io_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**IO_INSTANCE, "jobs": [{"p": 1, "q": 3, "io": [5]}]}))
    cases = [
        (("solve", "io", bad), "bad.json: jobs[0].io[0] = 5, expected an I/O node id"),
        (("solve", "io", "--generate", "ring:m=2,io=1,n=3"), "expected at least 3 nodes on a ring"),
        (("solve", "io", "--generate", "line:m=32,io=4,n=4", "--algo", "unpinned"), "unpinned needs: unpinned"),
        (
            ("solve", "io", "--generate", "line:m=32,io=4,n=4", "--algo", "pinned", "--param", "shelves=tall"),
            "pinned shelves = tall, expected one of compressed, uncompressed",
        ),
        (("solve", "io"), "give either INSTANCE or --generate"),
    ]
    for args, message in cases:
        result = invoke(*args)
        assert result.exit_code == 1 and message in result.output and result.output.count("\n") == 1, result.output
