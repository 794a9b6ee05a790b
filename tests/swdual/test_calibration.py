"""Performance models: interpolation by hand, JSON round trip and errors, calibration on a fake clock."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.swdual import calibration
from schedlab.swdual.calibration import EngineModel, PerformanceModel, calibrate_engine, database_sample
from schedlab.swdual.synthetic import generate_sequences

MODEL = EngineModel("fake", (100, 10000), (2.0, 8.0), 0.5)


def test_interpolation_in_log_length():
    """GCUPS 2 at L = 100, 8 at L = 10^4: 5 at L = 1000 (halfway in log), constant outside."""
    assert MODEL.gcups_at([10, 100, 1000, 10000, 10**6]).tolist() == pytest.approx([2, 2, 5, 8, 8])
    # 1000 x 10^9 cells at 5 GCUPS = 200 s, plus 0.5 s overhead
    assert MODEL.times([1000], 10**9).tolist() == pytest.approx([200.5])


def test_task_times_and_missing_kinds():
    model = PerformanceModel(MODEL, None)
    cpu, gpu = model.task_times(np.array([100, 1000]), 10**9)
    assert cpu.tolist() == pytest.approx([50.5, 200.5]) and np.isinf(gpu).all()
    model.require(4, 0)
    with pytest.raises(InputError, match="no GPU model for 1 gpu worker"):
        model.require(4, 1)


def test_json_round_trip(tmp_path):
    model = PerformanceModel(MODEL, EngineModel("gpu-fake", (500,), (100.0,), 0.01), {"sample_residues": 7})
    model.write(tmp_path / "m.json")
    assert PerformanceModel.read(tmp_path / "m.json") == model


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"format": "x"}, "format = x"),
        ({"format": calibration.FORMAT, "cpu": None, "gpu": None}, "neither a cpu nor a gpu model"),
        (
            {"format": calibration.FORMAT, "cpu": {"engine": "e", "lengths": [3, 2], "gcups": [1, 1]}},
            r"cpu.lengths = \[3, 2\], expected increasing lengths",
        ),
        (
            {"format": calibration.FORMAT, "cpu": {"engine": "e", "lengths": [3], "gcups": [0]}},
            r"cpu.gcups = \[0\], expected 1 finite numbers > 0",
        ),
        (
            {"format": calibration.FORMAT, "gpu": {"engine": "e", "lengths": [3], "gcups": [1], "overhead": -1}},
            "gpu.overhead = -1, expected a number >= 0",
        ),
        ({"format": calibration.FORMAT, "gpu": {"lengths": [3], "gcups": [1]}}, "missing key gpu.engine"),
    ],
)
def test_bad_model_is_one_line(tmp_path, data, message):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=message):
        PerformanceModel.read(path)


def test_unreadable_model(tmp_path):
    (tmp_path / "m.json").write_text("{\n  oops")
    with pytest.raises(InputError, match=r"m.json:2: invalid JSON"):
        PerformanceModel.read(tmp_path / "m.json")
    with pytest.raises(InputError, match="cannot read"):
        PerformanceModel.read(tmp_path / "none.json")


class _Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


class _FakeEngine:
    """Advances a fake clock by overhead + cells / (GCUPS(L) 10^9): the throughput calibration must find."""

    name = "fake"
    kind = "cpu"

    def __init__(self, database, clock):
        self.database, self.clock = database, clock

    def scores(self, query):
        cells = len(query) * self.database.residues
        self.clock.now += 0.25 + cells / ((1.0 if len(query) < 500 else 4.0) * 1e9)
        return np.zeros(len(self.database), dtype=np.int64)


def test_calibration_recovers_the_engine_speed(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(calibration, "perf_counter", clock)
    db = generate_sequences(200, rng=np.random.default_rng(0))
    model = calibrate_engine(
        lambda s: _FakeEngine(s, clock), db, rng=np.random.default_rng(1), lengths=(100, 1000), repeats=3
    )
    # the tiny engine (one sequence, query "A") also pays 0.25 s plus its cells at 1 GCUPS
    assert model.overhead == pytest.approx(0.25 + db.lengths[0] / 1e9)
    assert model.lengths == (100, 1000)
    tiny = db.lengths[0] / 1e9  # the overhead also holds the tiny engine's cells
    expected = [
        length * db.residues / (length * db.residues / (g * 1e9) - tiny) / 1e9
        for length, g in ((100, 1.0), (1000, 4.0))
    ]
    assert model.gcups == pytest.approx(expected, rel=1e-9)
    assert model.gcups == pytest.approx((1.0, 4.0), rel=1e-3)


def test_database_sample():
    db = generate_sequences(1000, rng=np.random.default_rng(0))
    sample = database_sample(db, 20000, rng=np.random.default_rng(1))
    assert sample.residues >= 20000 and sample.residues - max(sample.lengths) < 20000
    rows = [db.names.index(n) for n in sample.names]
    assert rows == sorted(rows)
    assert database_sample(db, 10**9, rng=np.random.default_rng(1)).names == db.names
    assert math.isclose(sample.residues / len(sample), db.residues / len(db), rel_tol=0.25)
