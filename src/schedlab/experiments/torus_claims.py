"""Krevat (2003), chapter 5, checked on our sweep: saturation points, capacity changes and the claims.

Source: Krevat (2003), section 5.1 (Figures 5-1 and 5-2: wait and bounded
slowdown against utilization; the saturation utilizations quoted in the
text), 5.2 (Figure 5-3, flat machine), 5.3 (Figures 5-4 and 5-5, migrations)
and 5.4 (Figures 5-6 and 5-7, capacity at c = 1.0 and 1.2).

Every function reads one results table with a row per run: ``trace``
(``NASA`` or ``SDSC``), ``policy`` (``fcfs``, ``backfill``, ``migration``,
``bm``, ``flat-fcfs``, ``flat-backfill``, ``migration-full``, ``bm-full``),
``c`` (the run-time multiplier) and the run's metrics (``w_util``,
``w_unused``, ``w_lost``, ``wait_mean``, ``bsld_mean``,
``migration_attempts``, ``migration_successes``, ``migration_repeats``).

The thesis gives its curves only as figures; the numbers it quotes in the
text are :data:`THESIS_SATURATION`, :data:`THESIS_CAPACITY_C10` and
:data:`THESIS_CAPACITY_C12`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedlab.experiments.common import Claim

__all__ = [
    "PLATEAU",
    "THESIS_CAPACITY_C10",
    "THESIS_CAPACITY_C12",
    "THESIS_SATURATION",
    "capacity_changes",
    "check_claims",
    "saturation_points",
]

PLATEAU = 0.01
"""Saturation rule: a curve is saturated when its last three points' utilizations lie within this (1 point)."""

THESIS_SATURATION = {
    ("NASA", "fcfs"): 0.77,
    ("NASA", "migration"): 0.80,
    ("NASA", "backfill"): 0.90,
    ("NASA", "bm"): 0.90,
    ("SDSC", "fcfs"): 0.63,
    ("SDSC", "migration"): 0.73,
    ("SDSC", "flat-fcfs"): 0.80,
}
"""Saturation utilizations quoted in Krevat (2003), sections 5.1-5.2 (backfilling: "closer to 90 %")."""

THESIS_CAPACITY_C10 = {"bm": (0.15, -0.54), "backfill": (0.15, -0.44), "migration": (0.13, -0.32)}
"""SDSC at c = 1.0, Figure 5-6: relative change over FCFS of (capacity utilized, lost capacity)."""

THESIS_CAPACITY_C12 = {"bm": 0.34, "backfill": 0.34, "migration": 0.14}
"""SDSC at c = 1.2, Figure 5-7: relative change over FCFS of capacity utilized (Backfill and B+M > 84 %)."""


def saturation_points(results: pd.DataFrame, *, plateau: float = PLATEAU) -> pd.DataFrame:
    """Per (trace, policy): the saturation utilization by the plateau rule, next to the thesis's.

    Rule (ours; the thesis reads saturation off its figures): utilization
    stops growing with the load once a scheduler saturates, so a curve is
    *saturated* when the utilizations of its three largest ``c`` lie within
    ``plateau`` of each other, and its saturation utilization is the largest
    utilization it reaches. An unsaturated curve reports the largest
    utilization reached as a lower bound.

    Returns
    -------
    DataFrame
        Columns ``trace``, ``policy``, ``saturation``, ``saturated`` (bool),
        ``c_max`` (largest c run), ``thesis`` (NaN where the thesis gives no number).
    """
    rows = []
    for (trace, policy), group in results.groupby(["trace", "policy"], sort=True):
        curve = group.sort_values("c")
        util = curve["w_util"].to_numpy()
        tail = util[-3:]
        saturated = len(util) >= 3 and float(tail.max() - tail.min()) < plateau
        rows.append(
            {
                "trace": trace,
                "policy": policy,
                "saturation": float(util.max()),
                "saturated": bool(saturated),
                "c_max": float(curve["c"].max()),
                "thesis": THESIS_SATURATION.get((trace, policy), np.nan),
            }
        )
    return pd.DataFrame(rows)


def capacity_changes(results: pd.DataFrame, c: float) -> pd.DataFrame:
    """Per (trace, policy) at load ``c``: capacity utilized, unused, lost and their relative change over FCFS."""
    at = results[np.isclose(results["c"], c)]
    rows = []
    for trace, group in at.groupby("trace", sort=True):
        base = group[group["policy"] == "fcfs"]
        if base.empty:
            continue
        b = base.iloc[0]
        for row in group.sort_values("policy").itertuples(index=False):
            rows.append(
                {
                    "trace": trace,
                    "policy": row.policy,
                    "c": c,
                    "w_util": row.w_util,
                    "w_unused": row.w_unused,
                    "w_lost": row.w_lost,
                    "util_change": row.w_util / b.w_util - 1.0,
                    "lost_change": row.w_lost / b.w_lost - 1.0 if b.w_lost > 0 else np.nan,
                }
            )
    return pd.DataFrame(rows)


def _get(frame: pd.DataFrame, **where) -> pd.Series | None:
    mask = np.ones(len(frame), dtype=bool)
    for key, value in where.items():
        mask &= frame[key].to_numpy() == value
    rows = frame[mask]
    return None if rows.empty else rows.iloc[0]


def _verdict(signs_ok: bool, close: bool) -> str:
    return "holds" if signs_ok and close else "partly" if signs_ok else "fails"


def check_claims(results: pd.DataFrame, *, tolerance: float = 0.05) -> list[Claim]:
    """The thesis's chapter-5 claims, each with a verdict and the numbers behind it.

    ``tolerance``: how far (absolute, in utilization or relative change) a
    number of ours may be from the thesis's for the claim to hold rather than
    partly hold; orderings and signs must be right in both cases.
    """
    sat = saturation_points(results)
    claims: list[Claim] = []

    def s(trace, policy):
        row = _get(sat, trace=trace, policy=policy)
        return None if row is None else row

    # 1. Backfill >= Migration >= FCFS in saturation utilization, both logs (saturated FCFS and Migration curves)
    evidence, ok, measured = [], True, False
    for trace in ("NASA", "SDSC"):
        f, m, b = s(trace, "fcfs"), s(trace, "migration"), s(trace, "backfill")
        if f is None or m is None or b is None or not (f.saturated and m.saturated):
            evidence.append(f"{trace}: FCFS or Migration not saturated within the sweep")
            continue
        measured = True
        good = b.saturation >= m.saturation - 1e-9 and m.saturation >= f.saturation - 1e-9
        ok &= good
        evidence.append(
            f"{trace}: backfill {b.saturation:.3f}, migration {m.saturation:.3f}, fcfs {f.saturation:.3f}"
            + ("" if good else " (order broken)")
        )
    claims.append(
        Claim(
            1,
            "Saturation utilization: Backfill >= Migration >= FCFS on both logs.",
            ("holds" if ok else "fails") if measured else "not measurable",
            evidence,
        )
    )

    # 2. migration helps SDSC more than NASA
    gains = {}
    for trace in ("NASA", "SDSC"):
        f, m = s(trace, "fcfs"), s(trace, "migration")
        if f is not None and m is not None:
            gains[trace] = m.saturation - f.saturation
    if len(gains) == 2:
        verdict = "holds" if gains["SDSC"] > gains["NASA"] else "fails"
        evidence = [f"{t}: migration - fcfs = {g:+.3f}" for t, g in gains.items()]
    else:
        verdict, evidence = "not measurable", []
    claims.append(Claim(2, "Migration raises the saturation utilization more on SDSC than on NASA.", verdict, evidence))

    # 3-5. the saturation numbers
    for number, trace, policies, text in (
        (3, "SDSC", ("fcfs", "migration"), "SDSC saturates near 63 % (FCFS) and 73 % (Migration)."),
        (4, "NASA", ("fcfs", "migration"), "NASA saturates near 77 % (FCFS) and 80 % (Migration)."),
        (5, "NASA", ("backfill", "bm"), "NASA Backfill and B+M saturate closer to 90 %."),
    ):
        evidence, close, reached, present = [], True, True, True
        for policy in policies:
            row = s(trace, policy)
            if row is None:
                present = False
                continue
            close &= bool(row.saturated) and abs(row.saturation - row.thesis) <= tolerance
            # an unsaturated curve that already reaches the thesis's level agrees as far as it goes
            reached &= abs(row.saturation - row.thesis) <= tolerance or (
                not row.saturated and row.saturation >= row.thesis - tolerance
            )
            evidence.append(
                f"{trace} {policy}: {row.saturation:.3f}"
                + ("" if row.saturated else f" (not saturated by c = {row.c_max:g})")
                + f", thesis {row.thesis:.2f}"
            )
        verdict = "holds" if close else "partly" if reached else "fails"
        claims.append(Claim(number, text, verdict if present else "not measurable", evidence))

    # 6-7. capacity at c = 1.0 and 1.2 on SDSC
    for number, c, text in (
        (
            6,
            1.0,
            "SDSC, c = 1.0: over FCFS, capacity utilized +15 % (B+M, Backfill), +13 % (Migration); "
            "lost capacity -54 %, -44 %, -32 %.",
        ),
        (7, 1.2, "SDSC, c = 1.2: Backfill and B+M > 84 % utilized, +34 % over FCFS; Migration +14 %."),
    ):
        changes = capacity_changes(results[results["trace"] == "SDSC"], c)
        if changes.empty:
            claims.append(Claim(number, text, "not measurable", []))
            continue
        evidence, signs, close = [], True, True
        expectations: dict[str, tuple[float, float | None]] = (
            dict(THESIS_CAPACITY_C10) if c == 1.0 else {k: (v, None) for k, v in THESIS_CAPACITY_C12.items()}
        )
        for policy, (util_t, lost_t) in expectations.items():
            row = _get(changes, policy=policy)
            if row is None:
                continue
            signs &= row.util_change > 0
            close &= abs(row.util_change - util_t) <= tolerance
            line = f"{policy}: utilized {row.w_util:.3f} ({row.util_change:+.1%}, thesis {util_t:+.0%})"
            if lost_t is not None:
                signs &= row.lost_change < 0
                close &= abs(row.lost_change - lost_t) <= 2 * tolerance
                line += f", lost {row.w_lost:.3f} ({row.lost_change:+.1%}, thesis {lost_t:+.0%})"
            elif policy in ("bm", "backfill"):
                close &= row.w_util > 0.84
            evidence.append(line)
        claims.append(Claim(number, text, _verdict(signs, close), evidence))

    # 8. flat machine
    flat, mig = s("SDSC", "flat-fcfs"), s("SDSC", "migration")
    if flat is not None and mig is not None:
        verdict = _verdict(flat.saturation > mig.saturation, abs(flat.saturation - 0.80) <= tolerance)
        evidence = [f"SDSC flat FCFS {flat.saturation:.3f} (thesis about 0.80), torus migration {mig.saturation:.3f}"]
    else:
        verdict, evidence = "not measurable", []
    claims.append(
        Claim(
            8,
            "SDSC: a flat machine saturates near 80 % with FCFS; migration alone does not make the torus match it.",
            verdict,
            evidence,
        )
    )

    # 9. migration success rates: over attempts on a new machine state (a repeated failure on an unchanged
    # machine is not a new try), and over all attempts
    evidence, fresh_ok, either_ok, present = [], True, True, False
    for trace, policy, low, high in (
        ("NASA", "migration", 0.9, 1.0),
        ("SDSC", "migration", 0.7, 0.9),
        ("SDSC", "migration-full", 0.0, 0.2),
    ):
        rows = results[(results["trace"] == trace) & (results["policy"] == policy)]
        attempts = int(rows["migration_attempts"].sum())
        fresh = attempts - int(rows["migration_repeats"].sum())
        if fresh == 0:
            continue
        present = True
        successes = int(rows["migration_successes"].sum())
        rate_fresh, rate_all = successes / fresh, successes / attempts
        fresh_ok &= low <= rate_fresh <= high
        either_ok &= low <= rate_fresh <= high or low <= rate_all <= high
        quoted = "almost all" if trace == "NASA" else "about 80 %" if policy == "migration" else "<= 20 %"
        evidence.append(
            f"{trace} {policy}: {rate_fresh:.1%} of {fresh:,} attempts on a new machine state succeed "
            f"({rate_all:.1%} of all {attempts:,}); thesis {quoted}"
        )
    verdict = "holds" if fresh_ok else "partly" if either_ok else "fails"
    claims.append(
        Claim(
            9,
            "Migration attempts: almost all succeed on NASA, about 80 % on SDSC, at most 20 % with full migration.",
            verdict if present else "not measurable",
            evidence,
        )
    )

    # 10. B+M turns lost capacity into unused capacity (SDSC, c = 1.0)
    changes = capacity_changes(results[results["trace"] == "SDSC"], 1.0)
    bm, bf = _get(changes, policy="bm") if not changes.empty else None, None
    if not changes.empty:
        bf = _get(changes, policy="backfill")
    if bm is not None and bf is not None:
        good = bm.w_lost < bf.w_lost and bm.w_unused > bf.w_unused
        verdict = "holds" if good else "fails"
        evidence = [
            f"SDSC c = 1.0: B+M lost {bm.w_lost:.3f}, unused {bm.w_unused:.3f}; "
            f"Backfill lost {bf.w_lost:.3f}, unused {bf.w_unused:.3f}"
        ]
    else:
        verdict, evidence = "not measurable", []
    claims.append(
        Claim(10, "B+M converts lost capacity into unused capacity (compared with Backfill).", verdict, evidence)
    )
    return claims
