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
