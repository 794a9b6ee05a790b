"""Hypothesis strategies shared by the test modules: small valid rigid-job instances."""

from __future__ import annotations

from hypothesis import strategies as st

from schedlab.platform import Machine
from schedlab.schedule import Instance
from schedlab.workload.jobs import JobTable


@st.composite
def rigid_instances(
    draw,
    max_jobs: int = 12,
    max_procs: int = 8,
    max_time: int = 20,
    kills: bool = True,
    min_procs: int = 1,
    sequential: bool = False,
):
    """A machine of 1..max_procs processors and up to max_jobs jobs with integer times.

    Submit times collide often (small range) so ties are exercised; run times may
    exceed requested times (killed at walltime) when ``kills``; ``sequential``
    gives one-processor tasks on at least ``min_procs`` processors.
    """
    n_procs = draw(st.integers(min_procs, max_procs))
    n = draw(st.integers(1, max_jobs))
    submit = draw(st.lists(st.integers(0, max_time), min_size=n, max_size=n))
    requested = draw(st.lists(st.integers(1, max_time), min_size=n, max_size=n))
    if kills:
        run = [draw(st.integers(1, r + 3)) for r in requested]
    else:
        run = [draw(st.integers(1, r)) for r in requested]
    procs = [1] * n if sequential else draw(st.lists(st.integers(1, n_procs), min_size=n, max_size=n))
    ids = draw(st.permutations(list(range(1, n + 1))))
    jobs = JobTable.from_arrays(submit=submit, run_time=run, requested_time=requested, procs=procs, id=ids)
    return Instance(jobs, Machine(n_procs))


@st.composite
def job_tables(draw, min_jobs: int = 0, max_jobs: int = 15, max_procs: int = 4096, max_id: int = 2**40):
    """Valid JobTables with unsorted float submit times, unique ids, and run times that may exceed the estimate."""
    n = draw(st.integers(min_jobs, max_jobs))
    times = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)
    positive = st.floats(min_value=1e-6, max_value=1e7, allow_nan=False, allow_infinity=False) | st.integers(
        1, 10**6
    ).map(float)
    return JobTable.from_arrays(
        id=draw(st.lists(st.integers(1, max_id), min_size=n, max_size=n, unique=True)),
        submit=draw(st.lists(times, min_size=n, max_size=n)),
        run_time=draw(st.lists(positive, min_size=n, max_size=n)),
        requested_time=draw(st.lists(positive, min_size=n, max_size=n)),
        procs=draw(st.lists(st.integers(1, max_procs), min_size=n, max_size=n)),
    )


@st.composite
def partition_instances(draw, max_jobs: int = 10, flat: bool = False):
    """Jobs on a small torus (or, ``flat``, a plain machine of as many nodes) under the partition run-time
    model of Krevat (2003): never killed, any allocation at least the job's size."""
    from schedlab.platform.torus import Torus
    from schedlab.runtime.partition import PartitionRuntime

    dims = draw(st.sampled_from([(1, 1, 8), (2, 2, 2), (2, 2, 3), (1, 3, 4), (2, 3, 2)]))
    n_procs = dims[0] * dims[1] * dims[2]
    n = draw(st.integers(1, max_jobs))
    submit = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    run = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    requested = [r + draw(st.integers(0, 10)) for r in run]
    procs = draw(st.lists(st.integers(1, n_procs), min_size=n, max_size=n))
    jobs = JobTable.from_arrays(submit=submit, run_time=run, requested_time=requested, procs=procs)
    return Instance(jobs, Machine(n_procs) if flat else Torus(dims), PartitionRuntime(jobs))
