"""``schedlab simulate`` on a torus, ``schedlab torus mfp`` and ``schedlab torus view``.

Source: Krevat (2003), chapters 2-3; the migration example of the scheduler tests (1x1x8: C moves from
{4,5} to {2,3} at 11, D starts at 12 on {4..7}).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.output import read_jobs_csv
from schedlab.report.torus_view import run_occupancy

runner = CliRunner()

SWF = """; MaxProcs: 8
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
2 0 0 10 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
3 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
4 5 0 20 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
"""


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def run_dir(tmp_path):
    trace = tmp_path / "ring.swf"
    trace.write_text(SWF)
    out = tmp_path / "run"
    result = invoke("simulate", trace, "--platform", "torus:1x1x8", "--policy", "torus-migration", "--out", out, "-q")
    assert result.exit_code == 0, result.output
    return out


def test_simulate_on_a_torus_writes_moves(run_dir):
    jobs = read_jobs_csv(run_dir / "jobs.csv")
    assert jobs["starting_time"].tolist() == [1, 1, 1, 12]
    assert jobs["allocated_resources"].tolist() == ["0-1", "2-3", "2-3", "4-7"]
    assert jobs["box_z"].tolist() == [2, 2, 2, 4] and jobs["base_z"].tolist() == [0, 2, 2, 4]
    assert (
        run_dir / "moves.csv"
    ).read_text() == "job_id,starting_time,finish_time,allocated_resources\n3,1.0,11.0,4-5\n"
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["migration_successes"] == 1 and metrics["run"]["platform"] == "torus:1x1x8"
    assert metrics["run"]["penalty"] == "partition"
    assert metrics["w_util"] + metrics["w_unused"] + metrics["w_lost"] == pytest.approx(1.0)


def test_runtime_scale_multiplies_run_times(tmp_path):
    trace = tmp_path / "ring.swf"
    trace.write_text(SWF)
    result = invoke(
        "simulate", trace, "--platform", "torus:1x1x8", "--policy", "torus-fcfs", "--runtime-scale", "1.5", "--json"
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.output)
    assert metrics["run"]["runtime_scale"] == 1.5
    assert metrics["makespan"] == 1 + 150 + 30 + 1  # A and C end at 151, D then runs 30 s from 152


def test_view_draws_the_placement_at_a_time(run_dir, tmp_path):
    """Before the move (t = 5) job 3 holds {4, 5}; after it (t = 20) {2, 3}, and job 4 holds {4..7}."""
    torus, before, _ = run_occupancy(run_dir, 5.0)
    assert before == {0: 1, 1: 1, 2: 2, 3: 2, 4: 3, 5: 3}
    _, after, boxes = run_occupancy(run_dir, 20.0)
    assert after == {0: 1, 1: 1, 2: 3, 3: 3, 4: 4, 5: 4, 6: 4, 7: 4}
    assert boxes[4] == "1x1x4 at (0, 0, 4)"
    html, png = tmp_path / "v.html", tmp_path / "v.png"
    result = invoke("torus", "view", run_dir, "--at", 20, "--html", html, "--png", png)
    assert result.exit_code == 0, result.output
    assert "8 of 8 nodes held" in result.output
    assert "job 4" in html.read_text() and png.read_bytes()[:4] == b"\x89PNG"


def test_view_errors(run_dir, tmp_path, data_dir):
    assert "nothing to write" in invoke("torus", "view", run_dir, "--at", 0).output
    plain = tmp_path / "plain"
    assert invoke("simulate", data_dir / "tiny.swf", "--out", plain, "-q").exit_code == 0
    result = invoke("torus", "view", plain, "--at", 0, "--html", tmp_path / "x.html")
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "expected a torus" in result.output


def test_mfp_of_an_occupancy_file(tmp_path):
    occ = tmp_path / "occ.txt"
    occ.write_text("# the x = 1 plane\n" + "".join(f"1 {y} {z}\n" for y in range(4) for z in range(8)))
    result = invoke("torus", "mfp", occ, "--torus", "4x4x8")
    assert result.exit_code == 0
    assert result.output.strip() == "torus:4x4x8, 96 of 128 nodes free; MFP 96: 3x4x8 at (2, 0, 0)"
    data = json.loads(invoke("torus", "mfp", occ, "--json").output)
    assert data == {
        "allocated": 32,
        "box": {"base": [2, 0, 0], "shape": [3, 4, 8]},
        "free": 96,
        "mfp": 96,
        "torus": "torus:4x4x8",
    }
    occ.write_text("0 0 0\n0 0 0\n")
    result = invoke("torus", "mfp", occ)
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "occ.txt:2: node = 0 0 0, expected each node once" in result.output
    assert "torus dimensions = 4x4" in invoke("torus", "mfp", occ, "--torus", "4x4").output
