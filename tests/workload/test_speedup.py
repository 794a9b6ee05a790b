"""Downey's speed-up model (Downey 1997, as used by Saule, Bozdag and Catalyurek 2014, section 7): spec case 10."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.workload.speedup import downey_speedup, downey_times

params = st.tuples(st.floats(1.0, 600.0), st.floats(0.0, 3.0))


@given(params)
def test_downey_starts_at_one_and_is_continuous(case):
    """Spec case 10: S(1) = 1; continuous at A and 2A - 1 (sigma <= 1), at A + A sigma - sigma (sigma > 1)."""
    a, sigma = case
    assert downey_speedup(1, a, sigma) == pytest.approx(1.0)
    breaks = [a, 2 * a - 1] if sigma <= 1 else [a + a * sigma - sigma]
    for b in breaks:
        if b >= 1:
            below, above = downey_speedup(b * (1 - 1e-12), a, sigma), downey_speedup(b * (1 + 1e-12), a, sigma)
            assert below == pytest.approx(above, rel=1e-8) and downey_speedup(b, a, sigma) == pytest.approx(
                below, rel=1e-8
            )
    n = np.arange(1, 1200)
    assert np.all(np.diff(downey_speedup(n, a, sigma)) >= -1e-9)
    assert downey_speedup(5000, a, sigma) == pytest.approx(a)


def test_downey_values():
    """sigma = 0 gives min(n, A); A = 10, sigma = 1: S(2) = 20 / 10.5; sigma = 2, A = 3: S(2) = 18 / 11."""
    assert downey_speedup(np.arange(1, 8), 4.0, 0.0).tolist() == [1, 2, 3, 4, 4, 4, 4]
    assert downey_speedup(2, 10.0, 1.0) == pytest.approx(20 / 10.5)
    assert downey_speedup(2, 3.0, 2.0) == pytest.approx(18 / 11)
    times = downey_times(np.array([100.0]), np.array([4.0]), np.array([0.0]), 6)
    assert times.tolist() == [[100, 50, 100 / 3, 25, 25, 25]]
