"""Per-engine performance models: predicted task time from query length and database size, measured here.

Source: Mendonca (2017), chapter 2, section 2.3 needs a CPU time and a GPU
time for every task but does not say how they are obtained (our choice,
like a pilot run of each engine type):

    time(L, R) = overhead + L * R / (GCUPS(L) * 10^9)

for a query of ``L`` residues against ``R`` database residues. ``GCUPS(L)``
is measured at a few query lengths on a sample of the database and
interpolated linearly in ``log L`` (constant beyond the measured range): SIMD
and GPU engines are slower on short queries, which is what makes the CPU/GPU
ratio differ between tasks. The sample has the database's length mix, so the
effective GCUPS include the per-sequence costs of each engine.

Models are stored as JSON::

    {"format": "schedlab-swdual-model/1",
     "cpu": {"engine": "pyopal", "lengths": [100, 300], "gcups": [5.1, 7.9], "overhead": 1e-4},
     "gpu": null,
     "calibration": {...}}
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from time import perf_counter

import numpy as np

from schedlab.errors import InputError
from schedlab.swdual.cpu import Engine
from schedlab.swdual.sequences import SequenceSet
from schedlab.swdual.synthetic import generate_sequences
from schedlab.workload.json_file import load_json

__all__ = ["FORMAT", "EngineModel", "PerformanceModel", "calibrate_engine", "database_sample"]

FORMAT = "schedlab-swdual-model/1"
KINDS = ("cpu", "gpu")


@dataclass(frozen=True)
class EngineModel:
    """Measured throughput of one engine: ``GCUPS`` at increasing query ``lengths`` and a fixed overhead (s)."""

    engine: str
    lengths: tuple[int, ...]
    gcups: tuple[float, ...]
    overhead: float = 0.0

    def gcups_at(self, length) -> np.ndarray:
        """GCUPS at query length(s) ``length``: linear in ``log L`` between measured points, constant outside."""
        x = np.log(np.maximum(np.asarray(length, dtype=float), 1.0))
        return np.interp(x, np.log(np.asarray(self.lengths, dtype=float)), np.asarray(self.gcups, dtype=float))

    def times(self, query_lengths, residues: int) -> np.ndarray:
        """Predicted seconds of each query against ``residues`` database residues."""
        lengths = np.asarray(query_lengths, dtype=float)
        return self.overhead + lengths * float(residues) / (self.gcups_at(lengths) * 1e9)

    def to_json(self) -> dict:
        return {
            "engine": self.engine,
            "lengths": list(self.lengths),
            "gcups": list(self.gcups),
            "overhead": self.overhead,
        }

    @classmethod
    def from_json(cls, data, *, source: str, path: str) -> EngineModel:
        if not isinstance(data, dict):
            raise InputError(source, field=path, value=type(data).__name__, expected="an object")
        for key in ("engine", "lengths", "gcups"):
            if key not in data:
                raise InputError(source, field=f"{path}.{key}", message=f"missing key {path}.{key}")
        lengths, gcups = data["lengths"], data["gcups"]
        if (
            not isinstance(lengths, list)
            or not lengths
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in lengths)
        ):
            raise InputError(source, field=f"{path}.lengths", value=lengths, expected="a list of integers >= 1")
        if any(b <= a for a, b in zip(lengths, lengths[1:])):
            raise InputError(source, field=f"{path}.lengths", value=lengths, expected="increasing lengths")
        if (
            not isinstance(gcups, list)
            or len(gcups) != len(lengths)
            or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and math.isfinite(v) for v in gcups
            )
        ):
            raise InputError(
                source,
                field=f"{path}.gcups",
                value=gcups,
                expected=f"{len(lengths)} finite numbers > 0 (one per length)",
            )
        overhead = data.get("overhead", 0.0)
        if isinstance(overhead, bool) or not isinstance(overhead, (int, float)) or not 0 <= overhead < math.inf:
            raise InputError(source, field=f"{path}.overhead", value=overhead, expected="a number >= 0")
        return cls(str(data["engine"]), tuple(lengths), tuple(float(v) for v in gcups), float(overhead))


@dataclass(frozen=True)
class PerformanceModel:
    """The CPU-core model and the GPU model (either may be missing), plus how they were measured."""

    cpu: EngineModel | None
    gpu: EngineModel | None
    calibration: dict = field(default_factory=dict)

    def task_times(self, query_lengths, residues: int) -> tuple[np.ndarray, np.ndarray]:
        """Predicted ``(cpu_time, gpu_time)`` of each query against ``residues`` residues (``inf`` without a model)."""
        n = len(query_lengths)
        cpu = self.cpu.times(query_lengths, residues) if self.cpu else np.full(n, math.inf)
        gpu = self.gpu.times(query_lengths, residues) if self.gpu else np.full(n, math.inf)
        return cpu, gpu

    def require(self, cpus: int, gpus: int, source: str = "model") -> None:
        """Raise InputError when a kind with workers has no model."""
        for kind, count in (("cpu", cpus), ("gpu", gpus)):
            if count and getattr(self, kind) is None:
                raise InputError(
                    source,
                    field=kind,
                    message=f"no {kind.upper()} model for {count} {kind} worker(s); calibrate with --{kind}s {count}",
                )

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "cpu": self.cpu.to_json() if self.cpu else None,
            "gpu": self.gpu.to_json() if self.gpu else None,
            "calibration": self.calibration,
        }

    @classmethod
    def from_json(cls, data, *, source: str = "model") -> PerformanceModel:
        if not isinstance(data, dict):
            raise InputError(source, field="$", value=type(data).__name__, expected="an object")
        if data.get("format") != FORMAT:
            raise InputError(source, field="format", value=data.get("format"), expected=repr(FORMAT))
        models = {
            kind: None if data.get(kind) is None else EngineModel.from_json(data[kind], source=source, path=kind)
            for kind in KINDS
        }
        if models["cpu"] is None and models["gpu"] is None:
            raise InputError(source, field="cpu, gpu", message="neither a cpu nor a gpu model")
        calibration = data.get("calibration", {})
        return cls(models["cpu"], models["gpu"], calibration if isinstance(calibration, dict) else {})

    def write(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n")

    @classmethod
    def read(cls, path: str | Path) -> PerformanceModel:
        return cls.from_json(load_json(path), source=str(path))


def database_sample(database: SequenceSet, residues: int, *, rng: np.random.Generator) -> SequenceSet:
    """Random records of ``database`` (without replacement, kept in database order) totalling >= ``residues``.

    The whole database when it is smaller.
    """
    order = rng.permutation(len(database))
    total = np.cumsum(database.lengths[order])
    take = int(np.searchsorted(total, residues) + 1)
    return database.subset(sorted(order[:take].tolist()))


def _median_time(run: Callable[[], object], repeats: int, parallel: int = 1) -> float:
    """Median over ``repeats`` of the wall time of ``parallel`` simultaneous calls of ``run``."""
    times = []
    with ThreadPoolExecutor(parallel) as pool:
        for _ in range(repeats):
            t0 = perf_counter()
            for future in [pool.submit(run) for _ in range(parallel)]:
                future.result()
            times.append(perf_counter() - t0)
    return float(np.median(times))


def calibrate_engine(
    make_engine: Callable[[SequenceSet], Engine],
    sample: SequenceSet,
    *,
    rng: np.random.Generator,
    lengths=(100, 300, 1000, 3000),
    repeats: int = 3,
    parallel: int = 1,
) -> EngineModel:
    """Measure an engine's GCUPS at each query length on ``sample`` (median of ``repeats`` runs).

    Parameters
    ----------
    make_engine : callable
        ``make_engine(sequences) -> Engine``: builds the engine over a database.
    sample : SequenceSet
        A sample of the database the model is for (:func:`database_sample`).
    rng : numpy.random.Generator
        Draws the synthetic queries.
    lengths : sequence of int
        Increasing query lengths to measure.
    repeats : int
        Timed runs per length (one warm-up run first).
    parallel : int
        Copies of each query run at once, one thread each (the number of CPU
        workers of the searches the model is for: cores then share memory
        bandwidth and caches, as they will in the search).

    Returns
    -------
    EngineModel
        ``overhead`` is the time of a one-residue query against a one-sequence
        database; ``gcups[i] = L_i R / (t_i - overhead) / 10^9``.

    Notes
    -----
    Cost: ``repeats`` x Σ L x R cell updates (about 2 s per engine for the
    defaults and a 2 x 10^6-residue sample at 8 GCUPS).
    """
    lengths = tuple(int(v) for v in lengths)
    tiny = make_engine(sample.subset([0]))
    tiny.scores("A")
    overhead = _median_time(lambda: tiny.scores("A"), repeats)
    engine = make_engine(sample)
    gcups = []
    for length in lengths:
        query = generate_sequences(1, rng=rng, min_length=length, max_length=length, lengths="uniform").texts[0]
        engine.scores(query)  # warm-up (JIT compilation, caches)
        elapsed = _median_time(partial(engine.scores, query), repeats, parallel)
        gcups.append(length * sample.residues / max(elapsed - overhead, 1e-9) / 1e9)
    return EngineModel(engine.name, lengths, tuple(gcups), overhead)
