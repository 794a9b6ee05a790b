"""Saturation rule, capacity changes and the chapter-5 claims of Krevat (2003) on hand-made results."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from schedlab.experiments.torus_claims import capacity_changes, check_claims, saturation_points

CS = [1.0, 1.1, 1.2, 1.3]


def curve(trace, policy, utils, lost=None, unused=None, attempts=0, successes=0, repeats=0):
    lost = lost or [0.1] * len(utils)
    unused = unused or [1 - u - x for u, x in zip(utils, lost)]
    return [
        dict(
            trace=trace,
            policy=policy,
            c=c,
            w_util=u,
            w_lost=x,
            w_unused=y,
            wait_mean=1.0,
            bsld_mean=1.0,
            migration_attempts=attempts,
            migration_successes=successes,
            migration_repeats=repeats,
        )
        for c, u, x, y in zip(CS, utils, lost, unused)
    ]


def frame(sdsc_migration=(0.60, 0.728, 0.731, 0.733)):
    rows = (
        curve("SDSC", "fcfs", [0.55, 0.630, 0.632, 0.634], lost=[0.30] * 4)
        + curve("SDSC", "migration", list(sdsc_migration), lost=[0.20] * 4, attempts=100, successes=60, repeats=25)
        + curve("SDSC", "backfill", [0.60, 0.70, 0.85, 0.90], lost=[0.15] * 4)
        + curve("SDSC", "bm", [0.60, 0.70, 0.85, 0.90], lost=[0.12] * 4)
    )
    return pd.DataFrame(rows)


def test_saturation_rule_plateau_of_the_last_three_points():
    sat = saturation_points(frame()).set_index("policy")
    assert sat.loc["fcfs", "saturated"] and sat.loc["fcfs", "saturation"] == pytest.approx(0.634)
    assert sat.loc["fcfs", "thesis"] == 0.63
    assert sat.loc["migration", "saturated"] and sat.loc["migration", "saturation"] == pytest.approx(0.733)
    unsaturated = saturation_points(frame(sdsc_migration=(0.60, 0.70, 0.731, 0.733))).set_index("policy")
    assert not unsaturated.loc["migration", "saturated"]  # the last three span 3.3 points
    assert not sat.loc["backfill", "saturated"] and sat.loc["backfill", "saturation"] == 0.90
    assert np.isnan(sat.loc["backfill", "thesis"])


def test_capacity_changes_relative_to_fcfs():
    ch = capacity_changes(frame(), 1.2).set_index("policy")
    assert ch.loc["fcfs", "util_change"] == 0
    assert ch.loc["backfill", "util_change"] == pytest.approx(0.85 / 0.632 - 1)
    assert ch.loc["bm", "lost_change"] == pytest.approx(0.12 / 0.30 - 1)


def test_claims_verdicts():
    claims = {c.number: c for c in check_claims(frame())}
    assert claims[1].verdict == "holds"  # SDSC: 0.90 >= 0.733 >= 0.634; NASA absent
    assert claims[1].evidence[0].startswith("NASA: FCFS or Migration not saturated")
    assert claims[3].verdict == "holds"
    assert claims[4].verdict == "not measurable"
    assert claims[9].verdict == "holds"  # 60 of 75 fresh attempts: 80 %
    assert "80.0% of 300 attempts on a new machine state succeed (60.0% of all 400)" in claims[9].evidence[0]
    worse = {c.number: c for c in check_claims(frame(sdsc_migration=(0.55, 0.62, 0.63, 0.631)))}
    assert worse[3].verdict == "fails"  # migration saturates at 0.631, thesis 0.73
    assert claims[7].verdict == "holds"  # c = 1.2: Backfill and B+M 0.85 (+34.5 %), Migration +15.7 %
    assert claims[6].verdict == "partly"  # c = 1.0: right signs, sizes off (Migration +32.4 % vs +13 %)


def test_partly_verdicts():
    """Claim 5: NASA Backfill and B+M still rising past the thesis's 90 % agree as far as they go (partly).
    Claim 9: a rate in range only when repeated failures count as attempts (partly)."""
    rows = (
        curve("NASA", "backfill", [0.70, 0.85, 0.90, 0.93])
        + curve("NASA", "bm", [0.70, 0.85, 0.90, 0.93])
        + curve("SDSC", "migration", [0.6, 0.7, 0.71, 0.71], attempts=10, successes=8, repeats=0)
        + curve("SDSC", "migration-full", [0.6, 0.7, 0.71, 0.71], attempts=100, successes=15, repeats=50)
    )
    claims = {c.number: c for c in check_claims(pd.DataFrame(rows))}
    assert claims[5].verdict == "partly" and "not saturated by c = 1.3" in claims[5].evidence[0]
    assert claims[9].verdict == "partly"
    assert "30.0% of 200 attempts on a new machine state succeed (15.0% of all 400)" in claims[9].evidence[1]
