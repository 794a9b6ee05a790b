"""The numba CUDA kernel against the Gotoh reference and the CPU engine: in numba's CUDA simulator
everywhere, and on a real device where one is present (skipped elsewhere).

The simulator must be switched on before numba.cuda is imported, so each
check runs in a fresh interpreter, with ``NUMBA_ENABLE_CUDASIM=1`` or without.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from schedlab.swdual.reference import gotoh_score
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.synthetic import generate_sequences
from swdual.swdual_cases import edge_query, edge_targets

pytest.importorskip("numba")

_SCRIPT = """
import json, sys
from schedlab.swdual.gpu import CudaEngine, gpu_count
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.sequences import sequence_set
args = json.loads(sys.stdin.read())
scoring = Scoring.load(args["matrix"], args["gap_start"], args["gap_extend"])
engine = CudaEngine(sequence_set(args["targets"], alphabet=scoring.alphabet), scoring)
print(json.dumps({"gpus": gpu_count(), "simulated": engine.simulated,
                  "scores": [engine.scores(q).tolist() for q in args["queries"]]}))
"""


def _simulate(queries, targets, scoring: Scoring, *, simulator: bool = True) -> dict:
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1" if simulator else "0"}
    args = {
        "matrix": scoring.name,
        "gap_start": scoring.gap_start,
        "gap_extend": scoring.gap_extend,
        "queries": queries,
        "targets": targets,
    }
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], input=json.dumps(args), capture_output=True, text=True, env=env, timeout=300
    )
    if done.returncode != 0 and "numba" in done.stderr and "cannot be imported" in done.stderr:
        pytest.skip("numba.cuda unavailable")
    if done.returncode != 0 and not simulator and "no CUDA device" in done.stderr:
        pytest.skip("no CUDA device")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_kernel_edge_cases_in_simulator():
    """Empty, length 1, identical, no positive score, a 173-residue query across two profile chunks,
    a query shorter than one pass of 4 rows, and the empty query."""
    scoring = Scoring.load("BLOSUM62", 11, 1)
    targets = edge_targets(np.random.default_rng(7))
    queries = [edge_query(), "W", "MKV", ""]
    out = _simulate(queries, targets, scoring)
    assert out["simulated"] and out["gpus"] == 1
    for query, scores in zip(queries, out["scores"]):
        assert scores == [gotoh_score(query, t, scoring) for t in targets], query[:10]
    assert out["scores"][0][:4] == [0, 11, 0, 892]


def test_kernel_many_blocks_other_scoring():
    """More sequences than one block of 128 threads (several warps and blocks), PAM70, G_s = 3, G_e = 2."""
    scoring = Scoring.load("PAM70", 3, 2)
    rng = np.random.default_rng(11)
    targets = list(generate_sequences(300, rng=rng, min_length=1, max_length=8, lengths="uniform").texts)
    query = generate_sequences(1, rng=rng, min_length=9, max_length=9).texts[0]
    out = _simulate([query], targets, scoring)
    assert out["scores"][0] == [gotoh_score(query, t, scoring) for t in targets]


def test_kernel_on_a_real_gpu():
    """On a CUDA device: the edge cases against Gotoh, and 3,000 UniProt-like sequences (many blocks,
    warps of unequal lengths, sequences up to 4,000 residues) against pyopal, query by query."""
    from schedlab.swdual.cpu import OpalEngine
    from schedlab.swdual.sequences import sequence_set

    scoring = Scoring.load("BLOSUM62", 11, 1)
    rng = np.random.default_rng(5)
    edges = edge_targets(rng)
    db = list(generate_sequences(3000, rng=rng, max_length=4000).texts)
    queries = [edge_query(), "W", *generate_sequences(3, rng=rng, min_length=50, max_length=1500).texts]
    out = _simulate(queries, edges + db, scoring, simulator=False)
    assert not out["simulated"] and out["gpus"] >= 1
    cpu = OpalEngine(sequence_set(db, alphabet=scoring.alphabet), scoring)
    for query, scores in zip(queries, out["scores"]):
        assert scores[: len(edges)] == [gotoh_score(query, t, scoring) for t in edges], query[:10]
        assert scores[len(edges) :] == cpu.scores(query).tolist(), query[:10]


@pytest.mark.slow
def test_hybrid_search_in_simulator(tmp_path):
    """``schedlab swdual search --cpus 1 --gpus 1`` with the simulated GPU: same hits as the CPU alone,
    and the plan puts tasks on both kinds (the model makes the GPU 3x faster)."""
    from schedlab.swdual.calibration import EngineModel, PerformanceModel
    from schedlab.swdual.synthetic import write_fasta

    rng = np.random.default_rng(3)
    write_fasta(generate_sequences(30, rng=rng, max_length=40), tmp_path / "db.fa")
    write_fasta(generate_sequences(4, rng=rng, min_length=20, max_length=40, prefix="q"), tmp_path / "q.fa")
    PerformanceModel(EngineModel("pyopal", (10,), (1.0,)), EngineModel("numba-cuda", (10,), (3.0,))).write(
        tmp_path / "m.json"
    )
    cli = [sys.executable, "-c", "from schedlab.cli import app; app(prog_name='schedlab')"]
    common = [*cli, "swdual", "search", "q.fa", "db.fa", "--model", "m.json", "--quiet"]
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    for args in (["--cpus", "1", "--gpus", "1", "--out", "hybrid"], ["--cpus", "1", "--out", "cpu"]):
        done = subprocess.run(common + args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "hybrid" / "hits.tsv").read_text() == (tmp_path / "cpu" / "hits.tsv").read_text()
    report = json.loads((tmp_path / "hybrid" / "report.json").read_text())
    assert {t["worker"] for t in report["tasks"]} == {"cpu0", "gpu0"}
    assert {w["engine"] for w in report["workers"]} == {"pyopal", "numba-cuda"}


def test_calibrate_measures_a_gpu_on_the_whole_database(tmp_path):
    """``swdual calibrate --gpus 1 --db``: the CPUs run a sample, the (simulated) GPU all 40 sequences
    (a sample of a few thousand sequences leaves most of a real GPU idle)."""
    from schedlab.swdual.synthetic import write_fasta

    write_fasta(generate_sequences(40, rng=np.random.default_rng(4), max_length=30), tmp_path / "db.fa")
    cli = [sys.executable, "-c", "from schedlab.cli import app; app(prog_name='schedlab')"]
    args = ["swdual", "calibrate", "--cpus", "1", "--gpus", "1", "--db", "db.fa", "--lengths", "4,8"]
    args += ["--sample-residues", "100", "--repeats", "1", "--out", "m"]
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    done = subprocess.run(cli + args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    model = json.loads((tmp_path / "m" / "model.json").read_text())
    assert model["gpu"]["engine"] == "numba-cuda" and model["cpu"]["engine"] == "pyopal"
    assert model["calibration"]["gpu_sequences"] == 40
    assert model["calibration"]["sample_sequences"] < 40
