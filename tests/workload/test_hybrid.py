"""The hybrid instance model: JSON in and out, input errors, γ, the Table 3.1 generator (spec 003 sections 2, 5.2, 7.3)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybrid_strategies import moldable_instances, sequential_instances
from schedlab.errors import InputError
from schedlab.workload.hybrid import HybridInstance, generate_hybrid, read_hybrid, write_hybrid


@settings(max_examples=50, deadline=None)
@given(moldable_instances() | sequential_instances())
def test_json_round_trip(tmp_path_factory, instance):
    path = tmp_path_factory.mktemp("j") / "inst.json"
    write_hybrid(instance, path)
    back = read_hybrid(path)
    assert (back.m, back.k) == (instance.m, instance.k)
    assert np.array_equal(back.cpu_times, instance.cpu_times)
    assert np.array_equal(back.gpu_time, instance.gpu_time)
    assert np.array_equal(back.moldable, instance.moldable) and np.array_equal(back.ids, instance.ids)


def test_json_null_means_impossible(tmp_path):
    path = tmp_path / "i.json"
    path.write_text(json.dumps({"m": 2, "k": 1, "tasks": [{"id": 7, "cpu": None, "gpu": 3}, {"cpu": 2, "gpu": None}]}))
    inst = read_hybrid(path)
    assert inst.ids.tolist() == [7, 1] and math.isinf(inst.seq_time[0]) and math.isinf(inst.gpu_time[1])
    write_hybrid(inst, tmp_path / "o.json")
    assert json.loads((tmp_path / "o.json").read_text())["tasks"][0]["cpu"] is None


@pytest.mark.parametrize(
    "data, message",
    [
        ({"m": 2, "k": 1}, "missing key 'tasks'"),
        ({"m": -1, "k": 1, "tasks": []}, "m = -1, expected an integer >= 0"),
        ({"m": 0, "k": 0, "tasks": []}, "at least one processor"),
        ({"m": 2, "k": 1, "tasks": [{"cpu": 1, "gpu": 1}, {"cpu": [3, -1], "gpu": 1}]}, r"tasks\[1\]\.cpu\[1\] = -1"),
        ({"m": 2, "k": 1, "tasks": [{"cpu": [3, 2, 1], "gpu": 1}]}, r"tasks\[0\]\.cpu = a list of 3 times"),
        ({"m": 2, "k": 1, "tasks": [{"cpu": [3, 4], "gpu": 1}]}, "time-monotone"),
        ({"m": 2, "k": 1, "tasks": [{"cpu": [4, 1], "gpu": 1}]}, "work-monotone"),
        ({"m": 2, "k": 1, "tasks": [{"cpu": 1, "gpu": "x"}]}, r"tasks\[0\]\.gpu = 'x'"),
        ({"m": 2, "k": 0, "tasks": [{"cpu": None, "gpu": 1}]}, "can run on no processor"),
        ({"m": 2, "k": 1, "tasks": [{"cpu": 1, "gpu": 1, "mem": 3}]}, "unknown keys"),
        ({"m": 2, "k": 1, "tasks": [{"id": 1, "cpu": 1, "gpu": 1}, {"id": 1, "cpu": 1, "gpu": 1}]}, "not unique"),
    ],
)
def test_bad_json_names_file_and_path(tmp_path, data, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=message) as info:
        read_hybrid(path)
    assert str(info.value).startswith(str(path))


def test_unreadable_and_invalid_json(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_hybrid(tmp_path / "missing.json")
    (tmp_path / "x.json").write_text("{\n oops")
    with pytest.raises(InputError, match=r"x.json:2: invalid JSON"):
        read_hybrid(tmp_path / "x.json")


@settings(max_examples=100, deadline=None)
@given(moldable_instances(max_n=4, max_m=6), st.integers(1, 40).map(lambda x: x / 2))
def test_gamma_matches_linear_scan(instance, h):
    """γ(j, h): smallest l with p̄_{j,l} <= h (boundaries exact), 0 (= +inf) when none."""
    g = instance.gamma(h)
    for j in range(instance.n):
        limit = instance.m if instance.moldable[j] else 1
        expected = next((l for l in range(1, limit + 1) if instance.cpu_times[j, l - 1] <= h), 0)
        assert g[j] == expected


def test_gamma_boundary():
    inst = HybridInstance.from_tasks(3, 1, [([6, 4, 3], 1), (5, 1)])
    assert inst.gamma(4).tolist() == [2, 0]
    assert inst.gamma(5).tolist() == [2, 1]
    assert inst.gamma(2.9).tolist() == [0, 0]


def test_generator_table_3_1():
    """Spec 7.3: p̄_{j,1} in [10, 100], rows monotone, p_j = g p̄_{j,m} with g in [0.1, 1.5], same seed same instance."""
    a = generate_hybrid(500, 16, 4, rng=np.random.default_rng(7))
    b = generate_hybrid(500, 16, 4, rng=np.random.default_rng(7))
    assert np.array_equal(a.cpu_times, b.cpu_times) and np.array_equal(a.gpu_time, b.gpu_time)
    p1 = a.cpu_times[:, 0]
    assert (p1 >= 10).all() and (p1 <= 100).all()
    beta = (a.cpu_times[:, -1] - p1 / 16) / (p1 - p1 / 16)  # invert Amdahl at l = m
    assert (beta >= -1e-9).all() and (beta <= 0.5 + 1e-9).all()
    g = a.gpu_time / a.cpu_times[:, -1]
    assert (g >= 0.1 - 1e-12).all() and (g <= 1.5 + 1e-12).all()
    assert 0.4 < g.mean() < 0.7  # truncated normal N(0.2, 0.5) on [0.1, 1.5]: mean about 0.53
    assert a.moldable.all() and (np.diff(a.cpu_times, axis=1) <= 0).all()
    clamped = generate_hybrid(2000, 4, 1, rng=np.random.default_rng(1), g_bound="clamp")
    share = np.mean(np.isclose(clamped.gpu_time / clamped.cpu_times[:, -1], 0.1))
    assert 0.35 < share < 0.5  # P(N(0.2, 0.5) < 0.1) = 0.42


def test_generator_rejects_bad_sizes():
    with pytest.raises(InputError, match="m = 0"):
        generate_hybrid(3, 0, 1, rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="g_bound"):
        generate_hybrid(3, 2, 1, rng=np.random.default_rng(0), g_bound="wrap")


def test_repair_time_monotonicity(tmp_path):
    """Spec 003 ambiguity 13: repair=True takes the prefix minimum, then work monotonicity is re-checked."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"m": 3, "k": 1, "tasks": [{"cpu": [6, 4, 5], "gpu": 2}]}))
    with pytest.raises(InputError, match="time-monotone"):
        read_hybrid(path)
    assert read_hybrid(path, repair=True).cpu_times[0].tolist() == [6, 4, 4]
    path.write_text(json.dumps({"m": 3, "k": 1, "tasks": [{"cpu": [6, 2, 5], "gpu": 2}]}))
    with pytest.raises(InputError, match="work-monotone"):
        read_hybrid(path, repair=True)  # [6, 2, 2]: work 6, 4, 6 decreases
