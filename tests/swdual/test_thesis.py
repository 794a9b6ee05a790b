"""The thesis's tables pass the constant-product check of spec section 5.3 (time x GCUPS = cells)."""

from __future__ import annotations

import pytest

from schedlab.swdual.thesis import C2050_GCUPS, SWIPE_CORE_GCUPS, TABLE_2_2, cell_checks

# spec 5.3: total cells per dataset, x 10^12
SPEC_CELLS = {
    "UniProt": 19.5,
    "Ensembl Dog": 1.48,
    "Ensembl Rat": 1.74,
    "RefSeq Mouse": 1.60,
    "RefSeq Human": 1.97,
    "Heterogeneous": 133.5,
    "Homogeneous": 36.2,
}


def test_time_times_gcups_is_constant_within_0_1_percent():
    checks = {c.dataset: c for c in cell_checks()}
    assert set(checks) == set(SPEC_CELLS)
    for name, check in checks.items():
        assert check.spread < 1e-3, name
        assert check.mean_cells / 1e12 == pytest.approx(SPEC_CELLS[name], rel=0.01), name


def test_scaling_ranges():
    """Spec 5.3: 2 -> 8 workers 3.58-4.00x, 2 -> 4 workers 1.82-2.06x."""
    checks = cell_checks()
    assert min(c.speedup_2_to_8 for c in checks) == pytest.approx(3.58, abs=0.01)
    assert max(c.speedup_2_to_8 for c in checks) == pytest.approx(4.00, abs=0.01)
    assert min(c.speedup_2_to_4 for c in checks) == pytest.approx(1.82, abs=0.01)
    assert max(c.speedup_2_to_4 for c in checks) == pytest.approx(2.06, abs=0.01)


def test_single_worker_throughputs_and_the_86_second_claim():
    """UniProt cells / one-worker times give one SWIPE core 8.2 and one C2050 24.8 GCUPS; the 16-worker
    86 s run at 19.455 x 10^12 cells is 226 GCUPS (the thesis says 225)."""
    uniprot = next(c for c in cell_checks() if c.dataset == "UniProt").mean_cells
    assert uniprot / TABLE_2_2["SWIPE"][1] / 1e9 == pytest.approx(SWIPE_CORE_GCUPS, abs=0.05)
    assert uniprot / TABLE_2_2["CUDASW++"][1] / 1e9 == pytest.approx(C2050_GCUPS, abs=0.05)
    assert uniprot / 86 / 1e9 == pytest.approx(226, abs=1)
    assert SWIPE_CORE_GCUPS + C2050_GCUPS < 35.81  # SWDUAL with 1 GPU + 1 CPU beat the sum (Table 2.4)
