"""Outputs pinned byte for byte: refactorings must change no result.

Each test runs a public command (through the CLI, the interface that stays
stable) and compares SHA-256 digests of what it wrote with digests recorded
before the architecture rework (issue 10). A legitimate change of results
updates the digest in the same commit, with the reason in its message.

What is hashed: ``jobs.csv`` whole; ``metrics.json`` without the workload's
path (it names the machine's trace folder); campaign and reproduction tables
without their timing columns and trace paths (wall times vary, paths differ
between machines), so every metric and every configuration column is covered.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli import app

runner = CliRunner()

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
HPC2N = "HPC2N-2002-2.2-cln.swf.gz"
CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"
EXAMPLES = Path(__file__).resolve().parent / "data" / "hybrid"
_VOLATILE = {
    "run_id",
    "trace",
    "wall_seconds",
    "load_seconds",
    "simulate_seconds",
    "validate_seconds",
    "seconds",
    "ilp_seconds",
    "mean_seconds",
    "seconds_mean",
}


def invoke(*args) -> None:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def metrics_digest(path: Path) -> str:
    data = json.loads(path.read_text())
    data["run"].pop("workload")
    return digest(json.dumps(data, sort_keys=True).encode())


def table_digest(path: Path) -> str:
    """A CSV table without its volatile columns (timings, run ids, trace paths)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    keep = [i for i, name in enumerate(rows[0]) if name not in _VOLATILE]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([[row[i] for i in keep] for row in rows])
    return digest(text.getvalue().encode())


def simulated(tmp_path: Path, *args) -> tuple[str, str]:
    out = tmp_path / "run"
    invoke("simulate", *args, "--out", out, "--force", "--quiet")
    return digest((out / "jobs.csv").read_bytes()), metrics_digest(out / "metrics.json")


PINNED_RIGID = {
    ("KTH", "fcfs"): ("15008a9bf3f84a61", "8af4b7afb21a7e0c"),
    ("KTH", "easy"): ("05757c656a637256", "f3d9525ac58b37e9"),
    ("KTH", "conservative"): ("9f7ecc7c1eb6e967", "4630782b5d43a99a"),
    ("HPC2N", "fcfs"): ("2396faf3f88d5c83", "5e1daeb25e4a428b"),
    ("HPC2N", "easy"): ("51be9c95b0c4d510", "cf174fa749e0d090"),
    ("HPC2N", "conservative"): ("aeb6fc873991dd8b", "07c525d00c59f514"),
}


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_rigid_policies_on_full_kth(tmp_path, traces_dir, policy):
    assert simulated(tmp_path, traces_dir / KTH, "--policy", policy) == PINNED_RIGID["KTH", policy]


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_rigid_policies_on_full_hpc2n(tmp_path, traces_dir, policy):
    assert simulated(tmp_path, traces_dir / HPC2N, "--policy", policy) == PINNED_RIGID["HPC2N", policy]


PINNED_ALLOCATORS = {
    "basic": ("633d7e958b014b2e", "fb82211e0d777f0c"),
    "becont": ("c78a1cf0e5c9dec6", "2b72e32699b508e7"),
    "becont:largest_first": ("dfa0212a0341bda5", "c03c88f8fd94c1d3"),
    "cont": ("ebfc0ad0fd324a71", "c13a4d10439dcc08"),
    "beloc": ("2eac392a3cd28465", "b73a4f82d9fba641"),
    "loc": ("409d1959c70a2de3", "4b6b2057ea76f834"),
    "beplat": ("d420cd6b8910a815", "6c7605888c6d5b76"),
    "plat": ("75289f5356699ed5", "1e3bfac5da93254d"),
}


@pytest.mark.parametrize("allocator", sorted(PINNED_ALLOCATORS))
def test_fat_tree_allocators_on_kth(tmp_path, traces_dir, allocator):
    """Conservative (start-now) with every allocator on the first 60 days of KTH-SP2, on a three-level
    fat tree with the quadratic penalty: the jobs.csv topology columns are covered too."""
    got = simulated(
        tmp_path,
        traces_dir / KTH,
        "--policy",
        "conservative",
        "--param",
        "compress=start-now",
        "--allocator",
        allocator,
        "--platform",
        "fat-tree:1,2,10,100",
        "--penalty",
        "quadratic:2",
        "--window",
        "0:5184000",
    )
    assert got == PINNED_ALLOCATORS[allocator]


TASK_POLICIES = ("gspt", "spt", "gspt-rd", "spt-rd", "gspt-rr", "spt-rr", "gsrpt", "srpt", "fcfs")
PINNED_TASKS = {
    ("KTH", "gspt"): ("c0ea24f77ac52705", "54da3f05d8042180"),
    ("KTH", "spt"): ("d8cb58d4d176bbf0", "3528b15e9a05ca7a"),
    ("KTH", "gspt-rd"): ("e78586bc7912b5ec", "3dad61168c452219"),
    ("KTH", "spt-rd"): ("77bd2d4cf30dba73", "d9fc1da89eff663e"),
    ("KTH", "gspt-rr"): ("3785e0c8b74e677f", "ff1fc9fa82d494ce"),
    ("KTH", "spt-rr"): ("26c357a553196e88", "e6c5f8266772f0f2"),
    ("KTH", "gsrpt"): ("52d0ccb619f1bde8", "1b065c17cc70418e"),
    ("KTH", "srpt"): ("f7051fd459c9fcc6", "253535c0ebd1743a"),
    ("KTH", "fcfs"): ("f638204955e87e90", "71c35830b44c5362"),
    ("Curie", "gspt"): ("46010365b5bb1284", "b56ff477ce92fed4"),
    ("Curie", "spt"): ("b5db511452d10f3e", "57fb3883067b1edc"),
    ("Curie", "gspt-rd"): ("493ae470613f5de9", "407b66cfa769cd96"),
    ("Curie", "spt-rd"): ("c25796941af49242", "8811368917b28b9e"),
    ("Curie", "gspt-rr"): ("93b2cf6e6463b563", "d86238fd467f7824"),
    ("Curie", "spt-rr"): ("de02fc47ccbc8c0f", "dff5d1be4b2d16ba"),
    ("Curie", "gsrpt"): ("a52610d1b875f788", "f2e68ff464a4f1d7"),
    ("Curie", "srpt"): ("7400800cd220f0cc", "e0222cfb520afd59"),
    ("Curie", "fcfs"): ("731f2dd90eecfb5f", "3d9e4153308fbd5a"),
}


def tasks_simulated(tmp_path: Path, trace: Path, policy: str, window: str) -> tuple[str, str]:
    out = tmp_path / "tasks"
    invoke(
        "tasks",
        "simulate",
        trace,
        "--policy",
        policy,
        "--random-window",
        window,
        "--seed",
        "3",
        "--out",
        out,
        "--force",
        "--json",
    )
    return digest((out / "jobs.csv").read_bytes()), metrics_digest(out / "metrics.json")


@pytest.mark.parametrize("policy", TASK_POLICIES)
def test_task_policies_on_a_kth_window(tmp_path, traces_dir, policy):
    assert tasks_simulated(tmp_path, traces_dir / KTH, policy, "30d") == PINNED_TASKS["KTH", policy]


@pytest.mark.parametrize("policy", TASK_POLICIES)
def test_task_policies_on_a_curie_window(tmp_path, traces_dir, policy):
    assert tasks_simulated(tmp_path, traces_dir / CURIE, policy, "7d") == PINNED_TASKS["Curie", policy]


STRETCH_POLICIES = ("fcfs-stretch", "dasedf", "split")
MOLDABLE_POLICIES = ("dbos", "iterative", "improved-iterative", "scojo-like", "fcfs-sequential")
PINNED_STRETCH = {
    "tasks.csv": "0be98c10eea54f5b",
    "fcfs-stretch": ("59acfcd08f6ee116", "befd0bc9bcd68d85"),
    "dasedf": ("48bdcc335b27b4da", "12cd924ef3b295b3"),
    "split": ("b31c739b985b9615", "df3cc41da237d855"),
    "dbos": ("30bb4799b47b2349", "1e90db191629adcc"),
    "iterative": ("8ed20fc62ec20680", "64ef0ac9c51fe852"),
    "improved-iterative": ("8ed20fc62ec20680", "29d70a9a6c22fa91"),
    "scojo-like": ("6c68f0fc5b022139", "71dbdc6d03b4ff30"),
    "fcfs-sequential": ("fb9077faa21a7e51", "b32758c9d7205635"),
}


@pytest.fixture(scope="module")
def generated_tasks(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("stretch")
    invoke(
        "tasks",
        "generate",
        "--n",
        3000,
        "--m",
        60,
        "--dist",
        "uniform:1,100",
        "--load",
        59,
        "--seed",
        1,
        "--out",
        folder,
    )
    return folder / "tasks.csv"


def test_generated_tasks(generated_tasks):
    assert digest(generated_tasks.read_bytes()) == PINNED_STRETCH["tasks.csv"]


@pytest.mark.parametrize("policy", STRETCH_POLICIES)
def test_max_stretch_policies_on_generated_tasks(tmp_path, generated_tasks, policy):
    """Saule, Bozdag and Catalyurek (2014): 3,000 uniform tasks (Delta 100) at load 59 on 60 processors."""
    out = tmp_path / "run"
    invoke("tasks", "simulate", generated_tasks, "--procs", 60, "--policy", policy, "--out", out, "--json")
    assert (digest((out / "jobs.csv").read_bytes()), metrics_digest(out / "metrics.json")) == PINNED_STRETCH[policy]


@pytest.mark.parametrize("policy", MOLDABLE_POLICIES)
def test_moldable_policies_on_sdsc_par(tmp_path, traces_dir, policy):
    """The first 1,000 jobs of SDSC Par 96 as moldable tasks (Downey draws, seed 3) on 512 processors."""
    out = tmp_path / "run"
    trace = traces_dir / "SDSC-Par-1996-3.1-cln.swf.gz"
    invoke(
        "moldable",
        "simulate",
        trace,
        "--first",
        1000,
        "--procs",
        512,
        "--seed",
        3,
        "--policy",
        policy,
        "--out",
        out,
        "--json",
    )
    assert (digest((out / "jobs.csv").read_bytes()), metrics_digest(out / "metrics.json")) == PINNED_STRETCH[policy]


HYBRID_ALGOS = (
    "approx32,approx32-mk,approx2,da2,dual2,dada,heft,lpt-seq,spt-seq,ratio-seq,lpt-par,spt-par,"
    "ratio-par,eft,equal,proportional,self-scheduling,cpu-only,gpu-only"
)
PINNED_HYBRID = {"example_a": "3e32876aa43a1e5c", "example_b": "cdd55abc05c06f7e"}


@pytest.mark.parametrize("example", sorted(PINNED_HYBRID))
def test_solve_hybrid_on_the_spec_examples(tmp_path, example):
    out = tmp_path / "solved"
    invoke("solve", "hybrid", EXAMPLES / f"{example}.json", "--algo", HYBRID_ALGOS, "--out", out)
    files = sorted(p for p in out.iterdir())
    assert len(files) == 1 + len(HYBRID_ALGOS.split(","))
    assert digest(b"".join(p.name.encode() + p.read_bytes() for p in files)) == PINNED_HYBRID[example]


def test_campaign_run_ids_of_the_shipped_example():
    from schedlab.campaign import expand, load_campaign

    root = Path(__file__).resolve().parents[1]
    runs = expand(load_campaign(root / "campaigns" / "easy-vs-conservative.toml"))
    assert digest(" ".join(r.run_id for r in runs).encode()) == "045e218e867d7642"


PINNED_REPRODUCTIONS = {
    ("redirections", "runs.csv"): "a87ec2e447bbc09f",
    ("redirections", "metrics.csv"): "b990818ef7c161cc",
    ("locality-ch5", "runs.csv"): "8c25bac53f95c8a9",
    ("locality-ch5", "metrics.csv"): "4df1019f2fac09c2",
    ("locality-ch4", "runs.csv"): "6d9977bfe81db37c",
    ("locality-ch4", "summary.csv"): "24fa2433b7d51133",
    ("hybrid", "runs.csv"): "b4b3108e226f9a83",
    ("hybrid", "steps.csv"): "abd848c1b884ca5d",
    ("stretch", "runs-sequential.csv"): "62d2d76bb09e12a0",
    ("stretch", "runs-reservation.csv"): "69948ff0c93e0d67",
    ("stretch", "runs-logs.csv"): "36df9337f8751a32",
    ("stretch", "runs-ssm.csv"): "a97a25b1758b8bf8",
    ("stretch", "fig1b.csv"): "7d0245750691a3bd",
}


def reproduced(tmp_path: Path, traces_dir: Path, name: str) -> dict[str, str]:
    out = tmp_path / name
    extra = () if name == "hybrid" else ("--traces", traces_dir)
    invoke("reproduce", name, "--quick", "--out", out, *extra)
    return {file: table_digest(out / file) for (what, file) in PINNED_REPRODUCTIONS if what == name}


@pytest.mark.parametrize("name", ["redirections", "locality-ch5", pytest.param("stretch", marks=pytest.mark.slow)])
def test_quick_campaign_reproductions(tmp_path, traces_dir, name):
    expected = {file: value for (what, file), value in PINNED_REPRODUCTIONS.items() if what == name}
    assert reproduced(tmp_path, traces_dir, name) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", ["locality-ch4", "hybrid"])
def test_quick_offline_reproductions(tmp_path, traces_dir, name):
    expected = {file: value for (what, file), value in PINNED_REPRODUCTIONS.items() if what == name}
    assert reproduced(tmp_path, traces_dir, name) == expected
