"""What a campaign needs to run the max-stretch policies on generated instances: instances, seeds, measures.

Source: Saule, Bozdag and Catalyurek (2014), section 4.1 (sequential tasks
p ~ U[a, b] with exponential inter-arrival times at a target load) and
section 7.2 (the short-sequence-mapping workload, here its SSM-like
approximation); the measures are :func:`schedlab.metrics.stretch_metrics`.
The campaign runner reaches these through the registry's family records
("max-stretch tasks", "moldable tasks"), so the campaign package stays free
of stretch code.

A grid point names the generator: ``dist`` (``uniform:A,B`` or ``ssm-like``),
``n`` tasks, ``m`` processors, the target ``load`` and optionally ``seed``:
sample i is drawn with ``numpy.random.default_rng(seed + i)``, as ``schedlab
tasks generate --seed`` does (``seed`` defaults to the campaign's).
"""

from __future__ import annotations

import functools

import numpy as np

from schedlab.errors import InputError
from schedlab.metrics import FAIRNESS_BINS, stretch_metrics
from schedlab.platform.homogeneous import Machine
from schedlab.runtime.moldable import MoldableTimes, moldable_jobs
from schedlab.schedule import Instance, Schedule
from schedlab.workload.jobs import JobTable
from schedlab.workload.moldable import MoldableTasks
from schedlab.workload.stretch_generators import generate_tasks

__all__ = ["COLUMNS", "common", "generate", "instance_seed", "measure", "task_instance"]

COLUMNS = (
    ("max_stretch", "float64"),
    ("mean_stretch", "float64"),
    ("max_flow", "float64"),
    ("mean_flow", "float64"),
    ("load", "float64"),
    ("delta", "float64"),
    *((f"fairness_{size}_{what}", "int64") for size, _ in FAIRNESS_BINS for what in ("tasks", "above_1")),
)
"""The measures of one run (:func:`schedlab.metrics.stretch_metrics`), with their Arrow types."""

_KEYS = ("dist", "n", "m", "load")


def task_instance(tasks: JobTable | MoldableTasks, m: int) -> Instance:
    """Tasks on a plain machine of ``m`` processors: sequential ones as one-processor jobs, moldable ones with
    their run-time model (:class:`~schedlab.runtime.moldable.MoldableTimes`)."""
    if isinstance(tasks, JobTable):
        return Instance(tasks, Machine(m))
    if tasks.n_procs < m:
        raise InputError(
            tasks.source, field="run-time table", value=f"{tasks.n_procs} processor counts", expected=f"at least {m}"
        )
    return Instance(moldable_jobs(tasks), Machine(m), MoldableTimes(tasks))


def _value(point, key: str, kind: type):
    value = point.get(key)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise InputError("generate", field=f"grid.{key}", value=value, expected=f"a {kind.__name__}")
    return value


def instance_seed(master: int, point, sample: int) -> int:
    """Seed of sample ``sample``: the point's ``seed`` (default: the campaign's ``master``) plus ``sample``."""
    return int(point.get("seed", master)) + sample


def generate(point, seed: int) -> Instance:
    """The instance of grid point ``point`` (``dist``, ``n``, ``m``, ``load``; ``seed``) drawn with ``seed``."""
    unknown = set(point) - {*_KEYS, "seed"}
    if unknown:
        raise InputError("generate", field="grid", value=sorted(unknown)[0], expected="dist, n, m, load or seed")
    return _generated(
        _value(point, "dist", str), _value(point, "n", int), _value(point, "m", int), _value(point, "load", float), seed
    )


@functools.lru_cache(maxsize=2)
def _generated(dist: str, n: int, m: int, load: float, seed: int) -> Instance:
    """One drawn instance, kept for the next runs of this process (the policies of one instance run in a row)."""
    return task_instance(generate_tasks(dist, n, m, load=load, rng=np.random.default_rng(seed)), m)


def common(instance: Instance) -> Instance:
    """The instance itself: generated tasks are already an :class:`~schedlab.schedule.Instance`."""
    return instance


def measure(instance: Instance, schedule: Schedule) -> dict:
    """The values of :data:`COLUMNS` for one run: :func:`schedlab.metrics.stretch_metrics`."""
    return stretch_metrics(instance, schedule)
