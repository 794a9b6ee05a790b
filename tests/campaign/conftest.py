"""Small synthetic traces and specs for the campaign tests (fast: a few ms per run)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from schedlab.workload.jobs import JobTable
from schedlab.workload.swf import write_swf

DAY = 86400.0


def synthetic_trace(path, *, n_jobs: int = 150, days: float = 6.0, procs: int = 16, seed: int = 7) -> None:
    """A random SWF trace of ``n_jobs`` over ``days`` on ``procs`` processors (header MaxProcs)."""
    rng = np.random.default_rng(seed)
    submit = np.sort(np.floor(rng.uniform(0, days * DAY, n_jobs)))
    run_time = np.floor(rng.exponential(3 * 3600, n_jobs)) + 1
    requested = np.floor(run_time * rng.uniform(0.8, 3.0, n_jobs)) + 1  # some jobs are killed at walltime
    job_procs = rng.integers(1, procs + 1, n_jobs)
    jobs = JobTable.from_arrays(submit=submit, run_time=run_time, requested_time=requested, procs=job_procs)
    write_swf(path, jobs, {"MaxProcs": procs})


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "synthetic.swf"
    synthetic_trace(path)
    return path


@pytest.fixture
def make_spec(tmp_path, trace):
    """``make_spec(body, name="spec")`` writes ``<tmp>/<name>.toml``; ``{trace}`` in body is the synthetic trace."""

    def make(body: str, name: str = "spec"):
        path = tmp_path / f"{name}.toml"
        path.write_text(textwrap.dedent(body).replace("{trace}", trace.name), encoding="utf-8")
        return path

    return make


SMALL = """
    seed = 11
    metrics = ["bsld_mean", "wait_mean", "utilization"]

    [[workloads]]
    trace = "{trace}"
    windows = { sample = "random", count = 3, length = "1d" }

    [[policies]]
    name = "fcfs"

    [[policies]]
    name = "easy"
    params = { order = ["fcfs", "sjf"] }

    [[policies]]
    name = "conservative"
"""
"""12 runs: 3 windows x (fcfs, easy x 2 orders, conservative)."""


@pytest.fixture
def small_spec(make_spec):
    return make_spec(SMALL)


@pytest.fixture
def small_text():
    return SMALL
