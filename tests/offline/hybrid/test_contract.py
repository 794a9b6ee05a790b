"""Every registered hybrid algorithm: valid (contiguous when promised), deterministic, within its ratio."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from hybrid_strategies import check, moldable_instances, sequential_instances
from schedlab.offline.hybrid import HYBRID_ALGORITHMS, HybridError, brute_force_opt
from schedlab.workload.hybrid import generate_hybrid

NAMES = sorted(HYBRID_ALGORITHMS)


def run(name, instance):
    try:
        return HYBRID_ALGORITHMS[name].run(instance)
    except HybridError:
        assert name in ("cpu-only", "gpu-only")
        return None


@pytest.mark.parametrize("name", NAMES)
def test_generated_instance(name):
    instance = generate_hybrid(30, 8, 2, rng=np.random.default_rng(11))
    a, b = run(name, instance), run(name, instance)
    check(instance, a, contiguous=HYBRID_ALGORITHMS[name].contiguous)
    assert a.start.tolist() == b.start.tolist() and a.alloc == b.alloc


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(instance=moldable_instances(max_n=4) | sequential_instances(max_n=5))
def test_valid_and_within_ratio(name, instance):
    algo = HYBRID_ALGORITHMS[name]
    schedule = run(name, instance)
    if schedule is None:
        return
    makespan = check(instance, schedule, contiguous=algo.contiguous)
    if algo.ratio is not None and (algo.moldable or not instance.moldable.any()):
        opt, _ = brute_force_opt(instance)
        assert makespan <= algo.ratio * algo.cutoff * opt * (1 + 1e-12)
