"""Independent tasks for hybrid CPU+GPU nodes: the ``(Pm,Pk)||Cmax`` and ``(Pm,Pk)|mold|Cmax`` model.

Source: Bleuse (2017), ch. 2 section 2.1 and ch. 3 sections 3.1 and 3.6.1
(Table 3.1 generator); Mendonca (2017), ch. 2 section 2.3.

The platform (:class:`~schedlab.platform.hybrid.HybridPlatform`) has ``m``
identical CPUs and ``k`` identical GPUs. Every task runs either on one GPU for ``gpu_time[j]`` or on
``l`` CPUs at once for ``cpu_times[j, l-1]``; a *sequential* task may only use
``l = 1``, a *moldable* one any ``l`` in ``1 .. m``. The task table is columnar:

* ``cpu_times``: float array ``(n, m)``; row ``j`` is non-increasing in ``l``
  (time-monotone) and ``l * cpu_times[j, l-1]`` is non-decreasing (work-monotone).
  A sequential task's row is constant (its one-CPU time repeated), so the
  canonical allotment :meth:`HybridInstance.gamma` never gives it more than one
  CPU. ``inf`` means the task cannot run on CPUs.
* ``gpu_time``: float array ``(n,)``; ``inf`` means it cannot run on a GPU.
* ``moldable``: bool array ``(n,)``.
* ``ids``: int array ``(n,)``, the ids named in messages and outputs.

JSON (read by :func:`read_hybrid`, written by :func:`write_hybrid`)::

    {"m": 4, "k": 1,
     "tasks": [{"id": 1, "cpu": [4, 4, 4, 4], "gpu": 12},    # moldable: m CPU times
               {"id": 2, "cpu": 6, "gpu": 1},                # sequential: one CPU time
               {"id": 3, "cpu": null, "gpu": 5}]}            # null: impossible there
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.hybrid import HybridPlatform
from schedlab.workload.json_file import load_json

__all__ = [
    "HybridInstance",
    "generate_hybrid",
    "instance_from_json",
    "instance_to_json",
    "read_hybrid",
    "write_hybrid",
]

_WORK_RTOL = 1e-12  # float rounding of l * p(l) on Amdahl rows


@dataclass(frozen=True, eq=False)
class HybridInstance:
    """A hybrid platform and ``n`` independent tasks, as columns (see the module docstring).

    Build it with :meth:`from_tasks` (checks everything) or the constructor
    (checks shapes and monotonicity). The arrays are made read-only.
    """

    platform: HybridPlatform
    cpu_times: np.ndarray
    gpu_time: np.ndarray
    moldable: np.ndarray
    ids: np.ndarray
    source: str = "instance"

    def __post_init__(self) -> None:
        n = len(self.gpu_time)
        m = self.platform.m
        if self.cpu_times.shape != (n, m) or self.moldable.shape != (n,) or self.ids.shape != (n,):
            raise InputError(
                self.source,
                field="tasks",
                message=f"column shapes {self.cpu_times.shape}, "
                f"{self.moldable.shape}, {self.ids.shape} do not match n = {n}, m = {m}",
            )
        for array in (self.cpu_times, self.gpu_time, self.moldable, self.ids):
            array.setflags(write=False)
        _check_tasks(self)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_tasks(
        cls, m: int, k: int, tasks: list[tuple], *, ids=None, source: str = "instance", repair: bool = False
    ) -> HybridInstance:
        """Build from ``(cpu, gpu)`` pairs: ``cpu`` a number (sequential), a length-``m``
        sequence (moldable) or None; ``gpu`` a number or None (None means impossible).

        ``repair`` replaces moldable rows by their prefix minimum
        ``p̄'_{j,l} = min_{q<=l} p̄_{j,q}`` (time-monotone, same optimum); work
        monotonicity is still checked afterwards (reading BH-13, docs/readings.md).
        """
        platform = HybridPlatform(m, k)
        n = len(tasks)
        cpu = np.empty((n, m), dtype=float)
        gpu = np.empty(n, dtype=float)
        mold = np.zeros(n, dtype=bool)
        for j, (c, g) in enumerate(tasks):
            path = f"tasks[{j}]"
            gpu[j] = math.inf if g is None else _time(g, source, f"{path}.gpu")
            if c is None:
                cpu[j] = math.inf
            elif isinstance(c, (list, tuple, np.ndarray)):
                if len(c) != m:
                    raise InputError(
                        source,
                        field=f"{path}.cpu",
                        value=f"a list of {len(c)} times",
                        expected=f"one time per CPU count 1..m = {m}, or one number",
                    )
                cpu[j] = [_time(v, source, f"{path}.cpu[{i}]") for i, v in enumerate(c)]
                mold[j] = True
            else:
                cpu[j] = _time(c, source, f"{path}.cpu")
        if repair and m > 0:
            cpu = np.where(mold[:, None], np.minimum.accumulate(cpu, axis=1), cpu)
        id_array = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
        if len(np.unique(id_array)) != n:
            raise InputError(source, field="tasks[].id", message="task ids are not unique")
        return cls(platform, cpu, gpu, mold, id_array, source)

    # -- derived columns ------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.gpu_time)

    @property
    def m(self) -> int:
        return self.platform.m

    @property
    def k(self) -> int:
        return self.platform.k

    @property
    def max_cpus(self) -> np.ndarray:
        """Largest CPU count each task may use: ``m`` when moldable, else 1 (0 without CPUs)."""
        if self.m == 0:
            return np.zeros(self.n, dtype=np.int64)
        return np.where(self.moldable, self.m, 1).astype(np.int64)

    def cpu_time(self, l) -> np.ndarray:
        """Time of every task on ``l`` CPUs (``l`` an int or an array of ints >= 1);
        ``inf`` where ``l`` is 0, above the task's :attr:`max_cpus`, or without CPUs."""
        l_arr = np.broadcast_to(np.asarray(l, dtype=np.int64), (self.n,))
        out = np.full(self.n, math.inf)
        ok = (l_arr >= 1) & (l_arr <= self.max_cpus)
        rows = np.nonzero(ok)[0]
        out[rows] = self.cpu_times[rows, l_arr[rows] - 1]
        return out

    @property
    def seq_time(self) -> np.ndarray:
        """One-CPU time ``p̄_{j,1}`` (``inf`` without CPUs)."""
        return self.cpu_time(1)

    @property
    def fastest_cpu_time(self) -> np.ndarray:
        """``p̄_{j,max_cpus}``: the shortest CPU time of every task (time-monotone rows)."""
        return self.cpu_time(np.maximum(self.max_cpus, 1))

    @property
    def usable_gpu_time(self) -> np.ndarray:
        """``p_j``, or ``inf`` everywhere when ``k = 0``."""
        return self.gpu_time.copy() if self.k > 0 else np.full(self.n, math.inf)

    def gamma(self, h: float) -> np.ndarray:
        """Canonical CPU counts ``γ(j, h)``: the smallest ``l`` with ``p̄_{j,l} <= h``, or 0 if none.

        Source: Bleuse (2017), section 3.1. Rows are non-increasing, so the count of
        entries above ``h`` is the position of the first one at or below it.
        Cost: O(n m) vectorised (a binary search per row would be O(n log m)
        Python steps, slower for every m of Table 3.1).
        """
        if self.m == 0:
            return np.zeros(self.n, dtype=np.int64)
        above = (self.cpu_times > h).sum(axis=1)
        g = above + 1
        g[(above >= self.m) | (g > self.max_cpus)] = 0
        return g.astype(np.int64)


def _time(value, source: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(source, field=field, value=repr(value), expected="a number > 0 or null")
    value = float(value)
    if not (value > 0 and math.isfinite(value)):
        raise InputError(source, field=field, value=value, expected="a finite number > 0")
    return value


def _check_tasks(inst: HybridInstance) -> None:
    """Monotonicity of moldable rows, constant sequential rows, and one usable resource per task."""
    src = inst.source
    if inst.m > 0:
        cpu = inst.cpu_times
        if np.isnan(cpu).any() or (cpu <= 0).any():
            j = int(np.argwhere(np.isnan(cpu) | (cpu <= 0))[0, 0])
            raise InputError(src, field=f"tasks[{j}].cpu", value=list(cpu[j]), expected="times > 0")
        finite = np.isfinite(cpu)
        mixed = finite.any(axis=1) & ~finite.all(axis=1)
        if mixed.any():
            j = int(np.argmax(mixed))
            raise InputError(src, field=f"tasks[{j}].cpu", value=list(cpu[j]), expected="all finite or null")
        rows = finite[:, 0]
        seq_bad = ~inst.moldable & rows & (cpu != cpu[:, :1]).any(axis=1)
        if seq_bad.any():
            j = int(np.argmax(seq_bad))
            raise InputError(src, field=f"tasks[{j}].cpu", message="a sequential task's CPU row must be constant")
        safe = np.where(rows[:, None], cpu, 1.0)  # rows without CPU times: nothing to check
        inc = rows & (np.diff(safe, axis=1) > 0).any(axis=1)
        if inc.any():
            j = int(np.argmax(inc))
            raise InputError(
                src,
                field=f"tasks[{j}].cpu",
                value=list(cpu[j]),
                expected="times non-increasing in the CPU count (time-monotone)",
            )
        work = safe * np.arange(1, inst.m + 1)
        dec = rows & (np.diff(work, axis=1) < -_WORK_RTOL * work[:, 1:]).any(axis=1)
        if dec.any():
            j = int(np.argmax(dec))
            raise InputError(
                src,
                field=f"tasks[{j}].cpu",
                value=list(cpu[j]),
                expected="work l * time(l) non-decreasing in l (work-monotone)",
            )
    gpu = inst.gpu_time
    if np.isnan(gpu).any() or (gpu <= 0).any():
        j = int(np.argmax(np.isnan(gpu) | (gpu <= 0)))
        raise InputError(src, field=f"tasks[{j}].gpu", value=gpu[j], expected="a time > 0 or null")
    runnable = np.isfinite(inst.fastest_cpu_time) | np.isfinite(inst.usable_gpu_time)
    if not runnable.all():
        j = int(np.argmin(runnable))
        raise InputError(
            src,
            field=f"tasks[{j}]",
            message=f"task {inst.ids[j]} can run on no processor of this platform (m = {inst.m}, k = {inst.k})",
        )


# -- JSON -----------------------------------------------------------------------------------
def read_hybrid(path: str | Path, *, repair: bool = False) -> HybridInstance:
    """Read an instance from JSON (format in the module docstring); ``repair`` as in
    :meth:`HybridInstance.from_tasks`.

    Raises
    ------
    InputError
        Naming the file and the JSON path of the bad value, e.g.
        ``inst.json: tasks[3].cpu[2] = -1.0, expected a finite number > 0``.
    """
    source = str(path)
    data = load_json(path)
    return instance_from_json(data, source=source, repair=repair)


def instance_from_json(data, *, source: str = "instance", repair: bool = False) -> HybridInstance:
    """Build an instance from already parsed JSON (see :func:`read_hybrid`)."""
    if not isinstance(data, dict):
        raise InputError(source, field="$", value=type(data).__name__, expected="an object with m, k, tasks")
    for key in ("m", "k", "tasks"):
        if key not in data:
            raise InputError(source, field=key, message=f"missing key {key!r}")
    for key in ("m", "k"):
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(source, field=key, value=value, expected="an integer >= 0")
    if data["m"] + data["k"] == 0:
        raise InputError(source, field="m + k", value=0, expected="at least one processor")
    tasks = data["tasks"]
    if not isinstance(tasks, list):
        raise InputError(source, field="tasks", value=type(tasks).__name__, expected="a list")
    pairs, ids = [], []
    for j, task in enumerate(tasks):
        if not isinstance(task, dict):
            raise InputError(source, field=f"tasks[{j}]", value=type(task).__name__, expected="an object")
        unknown = set(task) - {"id", "cpu", "gpu"}
        if unknown:
            raise InputError(source, field=f"tasks[{j}]", message=f"unknown keys {sorted(unknown)}")
        tid = task.get("id", j)
        if isinstance(tid, bool) or not isinstance(tid, int):
            raise InputError(source, field=f"tasks[{j}].id", value=tid, expected="an integer")
        cpu = task.get("cpu")
        if data["m"] == 0:
            cpu = None
        pairs.append((cpu, task.get("gpu")))
        ids.append(tid)
    return HybridInstance.from_tasks(data["m"], data["k"], pairs, ids=ids, source=source, repair=repair)


def instance_to_json(instance: HybridInstance) -> dict:
    """The JSON object of :func:`write_hybrid` (times as floats, ``null`` for impossible)."""
    tasks = []
    for j in range(instance.n):
        row = instance.cpu_times[j]
        cpu: float | list[float] | None
        if instance.m == 0 or not math.isfinite(row[0]):
            cpu = None
        elif instance.moldable[j]:
            cpu = [float(v) for v in row]
        else:
            cpu = float(row[0])
        g = float(instance.gpu_time[j])
        tasks.append({"id": int(instance.ids[j]), "cpu": cpu, "gpu": g if math.isfinite(g) else None})
    return {"m": instance.m, "k": instance.k, "tasks": tasks}


def write_hybrid(instance: HybridInstance, path: str | Path) -> None:
    """Write ``instance`` as JSON; :func:`read_hybrid` reads back equal columns."""
    Path(path).write_text(json.dumps(instance_to_json(instance), indent=1) + "\n")


# -- generator --------------------------------------------------------------------------------
def generate_hybrid(n: int, m: int, k: int, *, rng: np.random.Generator, g_bound: str = "truncate") -> HybridInstance:
    """Random moldable instance of Table 3.1 (Amdahl CPU times, GPU factor of the m-CPU time).

    Source: Bleuse (2017), ch. 3 section 3.6.1 (Table 3.1); reading BH-11
    (docs/readings.md).

    Draws, in this order: ``p̄_{j,1} ~ U[10, 100]``, ``β_j ~ U[0, 0.5]``, then
    ``g_j ~ Normal(0.2, 0.5)`` bounded to ``[0.1, 1.5]``. Times:
    ``p̄_{j,l} = β_j p̄_{j,1} + (1 - β_j) p̄_{j,1} / l`` and ``p_j = g_j p̄_{j,m}``.

    Parameters
    ----------
    n, m, k : int
        Tasks (>= 0), CPUs (>= 1; the GPU time is relative to all m CPUs), GPUs (>= 0).
    rng : numpy.random.Generator
        The only source of randomness; same state, same instance.
    g_bound : {"truncate", "clamp"}, default "truncate"
        ``truncate`` redraws out-of-range factors (a truncated normal, mean about
        0.53); ``clamp`` clips them (about 42 % of tasks at exactly 0.1).

    Raises
    ------
    InputError
        On a bad size or ``g_bound``.
    """
    for name, value, low in (("n", n, 0), ("m", m, 1), ("k", k, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise InputError("generator", field=name, value=value, expected=f"an integer >= {low}")
    if g_bound not in ("truncate", "clamp"):
        raise InputError("generator", field="g_bound", value=g_bound, expected="'truncate' or 'clamp'")
    p1 = rng.uniform(10.0, 100.0, size=n)
    beta = rng.uniform(0.0, 0.5, size=n)
    g = rng.normal(0.2, 0.5, size=n)
    if g_bound == "clamp":
        g = np.clip(g, 0.1, 1.5)
    else:
        bad = (g < 0.1) | (g > 1.5)
        while bad.any():
            g[bad] = rng.normal(0.2, 0.5, size=int(bad.sum()))
            bad = (g < 0.1) | (g > 1.5)
    l = np.arange(1, m + 1, dtype=float)
    cpu = (beta * p1)[:, None] + ((1.0 - beta) * p1)[:, None] / l[None, :]
    gpu = g * cpu[:, -1]
    return HybridInstance(
        HybridPlatform(int(m), int(k)),
        cpu,
        gpu,
        np.ones(n, dtype=bool),
        np.arange(n, dtype=np.int64),
        f"generate(n={n},m={m},k={k})",
    )
