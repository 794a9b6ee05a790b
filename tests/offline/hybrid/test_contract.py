"""Every registered hybrid algorithm: valid (contiguous when promised), deterministic, within its ratio."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from offline.hybrid.hybrid_strategies import moldable_instances, sequential_instances
from schedlab.offline.hybrid import HYBRID_ALGORITHMS, HybridError, brute_force_opt
from schedlab.platform.hybrid import generate_hybrid
from schedlab.validation_hybrid import validate_hybrid

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
    validate_hybrid(instance, a, require_contiguous=HYBRID_ALGORITHMS[name].contiguous)
    assert a.start.tolist() == b.start.tolist() and a.resources == b.resources


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(instance=moldable_instances(max_n=4) | sequential_instances(max_n=5))
def test_valid_and_within_ratio(name, instance):
    algo = HYBRID_ALGORITHMS[name]
    schedule = run(name, instance)
    if schedule is None:
        return
    makespan = validate_hybrid(instance, schedule, require_contiguous=algo.contiguous)
    if algo.ratio is not None and (algo.moldable or not instance.moldable.any()):
        opt, _ = brute_force_opt(instance)
        assert makespan <= algo.ratio * algo.cutoff * opt * (1 + 1e-12)
