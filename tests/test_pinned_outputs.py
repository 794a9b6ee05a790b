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
    ("KTH", "fcfs"): ("25c744aaeaeb90bb", "0972cf0d9f174509"),
    ("KTH", "easy"): ("b4c506b887841b13", "4aa54bc02fb0372b"),
    ("KTH", "conservative"): ("31dd198e81c52be6", "601998e5cf9f973f"),
    ("HPC2N", "fcfs"): ("8a5a28918d4af440", "c8fca12ece4321f4"),
    ("HPC2N", "easy"): ("89a45060248cd4da", "13ccf8dcc6864ad4"),
    ("HPC2N", "conservative"): ("4f4e18ee85a6299d", "51fd205568122c1b"),
}


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_rigid_policies_on_full_kth(tmp_path, traces_dir, policy):
    assert simulated(tmp_path, traces_dir / KTH, "--policy", policy) == PINNED_RIGID["KTH", policy]


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_rigid_policies_on_full_hpc2n(tmp_path, traces_dir, policy):
    assert simulated(tmp_path, traces_dir / HPC2N, "--policy", policy) == PINNED_RIGID["HPC2N", policy]


PINNED_ALLOCATORS = {
    "basic": ("ed6cf4dc49569da0", "b5297f921f948705"),
    "becont": ("dc7a7c388170f82c", "d0f2ebaec4189f4e"),
    "becont:largest_first": ("34f63b434be55cee", "b73ad17c3cee30af"),
    "cont": ("8e64193b30fdbddc", "34d5ad87171007d7"),
    "beloc": ("b0065e08d3f67094", "66cad20757d5355c"),
    "loc": ("e253e676c3bb0e58", "24adb2e07ec47931"),
    "beplat": ("1c3cd40cb8c8c420", "f1dca44c732d0010"),
    "plat": ("5937c1eecf72167a", "b1ce5e45120b84f0"),
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
    ("KTH", "gspt"): ("78f56c0162f72399", "45a1849fec93f2d5"),
    ("KTH", "spt"): ("e7d7941419106f0f", "06a65aac542a0bb1"),
    ("KTH", "gspt-rd"): ("fcddc2a846a756e1", "c86ad86470390467"),
    ("KTH", "spt-rd"): ("f9d06791d19d2634", "ae3df3cbc1473279"),
    ("KTH", "gspt-rr"): ("05fe97f7ef4b5a1b", "f12f5ee291069122"),
    ("KTH", "spt-rr"): ("27f7c0732b6f076f", "5dd98b0e1fa88e8f"),
    ("KTH", "gsrpt"): ("8c152375363c293e", "954ab8be54d9055e"),
    ("KTH", "srpt"): ("594062a471ff9f2f", "c4ce0b0339e7fbe1"),
    ("KTH", "fcfs"): ("f3cb944bbdd0142c", "4aab667233ac61dc"),
    ("Curie", "gspt"): ("b8d1ddbff10355b0", "817c5b3daab820ba"),
    ("Curie", "spt"): ("615379e5643f4136", "73aca4bc2683ad33"),
    ("Curie", "gspt-rd"): ("d2c89642a623e096", "7c8e091bbbfd4cab"),
    ("Curie", "spt-rd"): ("8fff9023b066910e", "5a3ff479c6728df2"),
    ("Curie", "gspt-rr"): ("51ca97a535d7181c", "2b70985dbc69e25a"),
    ("Curie", "spt-rr"): ("efa3883c5b74a8a4", "47140c886088afde"),
    ("Curie", "gsrpt"): ("32c1e1256d9bae28", "51a5b4f592a3418f"),
    ("Curie", "srpt"): ("28d786b5857aef2e", "bd6b61be77f2aba1"),
    ("Curie", "fcfs"): ("506291abe1aad2b6", "358b11a7a6f6219a"),
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
    "fcfs-stretch": ("6567fb426aab14c5", "996de7e9cc673b0e"),
    "dasedf": ("689c5d3910acb001", "e74c3919c5fa79bd"),
    "split": ("9ffeaaa523a36870", "a041d3ce59ee8e59"),
    "dbos": ("5812ea06884a74a6", "df3b1fa863c809a8"),
    "iterative": ("a75e841054832398", "64ef0ac9c51fe852"),
    "improved-iterative": ("a75e841054832398", "29d70a9a6c22fa91"),
    "scojo-like": ("781473ea9bba031a", "aa4e9522e68a230d"),
    "fcfs-sequential": ("6823c5993d6fdc30", "b32758c9d7205635"),
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
    ("redirections", "runs.csv"): "9ab280713275924c",
    ("redirections", "metrics.csv"): "f25dbfc6d7cbd5e7",
    ("locality-ch5", "runs.csv"): "b6abc621766fec30",
    ("locality-ch5", "metrics.csv"): "4df1019f2fac09c2",
    ("locality-ch4", "runs.csv"): "bd48dcb3d2fb927c",
    ("locality-ch4", "summary.csv"): "a525769b3c5febd4",
    ("hybrid", "runs.csv"): "b4b3108e226f9a83",
    ("hybrid", "steps.csv"): "abd848c1b884ca5d",
    ("stretch", "runs-sequential.csv"): "bdf4a264b84092e9",
    ("stretch", "runs-reservation.csv"): "894249cadf39e3d6",
    ("stretch", "runs-logs.csv"): "e0ae14ea669391f1",
    ("stretch", "runs-ssm.csv"): "0b82ee2df506ac0d",
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
