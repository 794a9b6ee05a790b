"""Krevat (2003), chapters 4-5, through the campaign runner: the four torus schedulers and the flat machine
on NASA iPSC/860 and SDSC SP2, load varied by a run-time factor c.

Source: Krevat (2003), section 4.1 (10,000-job spans of the two 128-node logs,
each log node one BlueGene/L supernode of a 4x4x8 torus; run times multiplied
by c from 0.70 to 1.40 by 0.05, NASA backfilling beyond), chapter 5
(Figures 5-1 to 5-7) and the numbers quoted in its text
(:mod:`schedlab.experiments.torus_claims`).

Per log, two campaign specifications (TOML, in ``<out>/campaigns``): the
torus (``platform = "torus:4x4x8"``) with ``torus-fcfs``, ``torus-backfill``,
``torus-migration``, ``torus-bm`` and the full-migration variants
(``theta_tor = 0``, ``theta_max = 1``: labels ``migration-full``,
``bm-full``), and the flat machine of 128 nodes with ``flat-fcfs`` and
``flat-backfill``; one workload per value of c, all on the log's span
mapped as :func:`schedlab.workload.spans.span_jobs` does. All campaigns
share one store (``<out>/store``), so a re-run skips stored runs.

Outputs: ``results.csv`` (one row per run), ``saturation.csv`` (the plateau
rule of :func:`~schedlab.experiments.torus_claims.saturation_points`, next
to the thesis's numbers), ``capacity.csv`` (c = 1.0 and 1.2, changes over
FCFS), ``migrations.csv``, the figures ``fig-wait-<log>.png`` (Figure 5-1),
``fig-bsld-<log>.png`` (5-2), ``fig-flat-<log>.png`` (5-3),
``fig-migrations-<log>.png`` (5-4, 5-5) and ``fig-capacity-<log>.png``
(5-6, 5-7), ``claims.md``, ``summary.md`` and ``summary.html``.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.experiments.common import claims_markdown, run_campaigns, write_json, write_summary_html
from schedlab.experiments.common import write_campaigns as write_specs
from schedlab.experiments.torus_claims import capacity_changes, check_claims, saturation_points
from schedlab.report.tables import html_table, markdown_table, png

__all__ = ["LOGS", "POLICIES", "Plan", "plan", "reproduce", "write_campaigns", "write_report"]

LOGS = {"NASA": "NASA-iPSC-1993-3.1-cln.swf.gz", "SDSC": "SDSC-SP2-1998-4.2-cln.swf.gz"}
"""The thesis's two logs (Table 4.1), as the cleaned versions of the Parallel Workloads Archive."""

POLICIES = {
    "fcfs": ("torus-fcfs", {}),
    "backfill": ("torus-backfill", {}),
    "migration": ("torus-migration", {}),
    "bm": ("torus-bm", {}),
    "migration-full": ("torus-migration", {"theta_tor": 0.0, "theta_max": 1.0}),
    "bm-full": ("torus-bm", {"theta_tor": 0.0, "theta_max": 1.0}),
    "flat-fcfs": ("flat-fcfs", {}),
    "flat-backfill": ("flat-backfill", {}),
}
"""Result label -> (registered policy, parameters)."""

TORUS = "torus:4x4x8"
N_NODES = 128
STANDARD_C = tuple(round(0.70 + 0.05 * i, 2) for i in range(15))  # 0.70 .. 1.40
BEYOND_C = {"NASA": tuple(round(1.5 + 0.1 * i, 1) for i in range(10)), "SDSC": (1.5, 1.6)}
"""c beyond 1.40: NASA's curves saturate only there (the thesis also goes beyond 1.40 for NASA backfilling)."""
QUICK_C = (0.8, 1.0, 1.2)
CURVES = ("fcfs", "migration", "backfill", "bm")
COLOURS = {"fcfs": "C0", "migration": "C1", "backfill": "C2", "bm": "C3", "flat-fcfs": "C7", "flat-backfill": "C5"}


@dataclass(frozen=True)
class Plan:
    """What to run: logs (name -> file under ``traces_dir``), the span (``count`` jobs after ``skip``),
    the values of c per log, and the master seed (unused by these deterministic policies; recorded)."""

    logs: dict[str, str]
    c_values: dict[str, tuple[float, ...]]
    count: int
    skip: int
    seed: int
    traces_dir: Path
    quick: bool = False


def plan(
    traces_dir,
    *,
    quick: bool = False,
    seed: int = 0,
    count: int | None = None,
    skip: int = 0,
    logs: list[str] | None = None,
) -> Plan:
    """The experiment: both logs, 10,000 jobs, c from 0.70 to 1.40 by 0.05 and beyond (NASA to 2.4, SDSC to
    1.6); with ``quick``, 1,000 jobs and c in 0.8, 1.0, 1.2.

    Raises
    ------
    InputError
        An unknown log name, a trace file missing from ``traces_dir``, or a bad count or skip.
    """
    from schedlab.errors import InputError

    names = list(logs) if logs else list(LOGS)
    chosen = {}
    for name in names:
        if name not in LOGS:
            raise InputError("--log", field="--log", value=name, expected=f"one of {', '.join(LOGS)}")
        if not (Path(traces_dir) / LOGS[name]).is_file():
            raise InputError(str(Path(traces_dir) / LOGS[name]), message="trace file not found (see --traces)")
        chosen[name] = LOGS[name]
    if count is not None and count < 1:
        raise InputError("--count", field="--count", value=count, expected="an integer >= 1")
    if skip < 0:
        raise InputError("--skip", field="--skip", value=skip, expected="an integer >= 0")
    c_values = {name: QUICK_C if quick else STANDARD_C + BEYOND_C[name] for name in chosen}
    jobs = count if count is not None else (1_000 if quick else 10_000)
    return Plan(chosen, c_values, jobs, skip, seed, Path(traces_dir).resolve(), quick)


def _campaign_text(log: str, flat: bool, plan_: Plan) -> str:
    trace = (plan_.traces_dir / plan_.logs[log]).as_posix()
    machine = "flat" if flat else "torus"
    lines = [
        f"# Krevat (2003) reproduction, {log} on the {machine} machine: written by schedlab reproduce torus",
        f'name = "torus-{log}-{machine}"',
        f"seed = {plan_.seed}",
        'store = "../store"',
        'metrics = ["bsld_mean", "wait_mean", "response_mean", "utilization"]',
    ]
    for c in plan_.c_values[log]:
        lines += [
            "",
            "[[workloads]]",
            f'name = "{log} {machine} c={c:.2f}"',
            f"trace = {json.dumps(trace)}",
            f"procs = {N_NODES}" if flat else f'platform = "{TORUS}"',
            f"span = {{ skip = {plan_.skip}, count = {plan_.count} }}",
            f"runtime_scale = {c!r}",
        ]
    for label, (name, params) in POLICIES.items():
        if label.startswith("flat") != flat:
            continue
        lines += ["", "[[policies]]", f'name = "{name}"', f'label = "{label}"']
        if params:
            lines.append("params = { " + ", ".join(f"{k} = {v!r}" for k, v in params.items()) + " }")
    return "\n".join(lines) + "\n"


def write_campaigns(out, plan_: Plan) -> list[Path]:
    """Write ``<out>/campaigns/torus-<log>-{torus,flat}.toml``; return their paths."""
    return write_specs(
        Path(out),
        {
            f"torus-{log}-{'flat' if flat else 'torus'}": _campaign_text(log, flat, plan_)
            for log in plan_.logs
            for flat in (False, True)
        },
    )


# ---------------------------------------------------------------- tables

RESULT_COLUMNS = (
    "trace",
    "policy",
    "c",
    "w_util",
    "w_unused",
    "w_lost",
    "span",
    "wait_mean",
    "bsld_mean",
    "response_mean",
    "utilization",
    "n_grown",
    "n_backfilled",
    "migration_attempts",
    "migration_successes",
    "migration_repeats",
    "migration_pinned",
    "migration_moves",
    "migration_mean_gap",
    "mfp_calls",
    "state",
    "error",
)


def tidy(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """The campaigns' rows as one table: ``trace`` (the log), ``policy`` (the result label), ``c``, metrics."""
    frame = pd.concat(tables, ignore_index=True)
    frame = frame.assign(
        trace=frame["workload"].str.split(" ").str[0], policy=frame["label"], c=frame["runtime_scale"].round(4)
    )
    for column in RESULT_COLUMNS:
        if column not in frame:
            frame[column] = np.nan
    return frame[list(RESULT_COLUMNS)].sort_values(["trace", "policy", "c"], kind="stable").reset_index(drop=True)


def migrations_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per log, migration policy and c: attempts, those on a new machine state, successes, rates, mean gap."""
    rows = results[results["policy"].isin(["migration", "bm", "migration-full", "bm-full"])].copy()
    fresh = rows["migration_attempts"] - rows["migration_repeats"]
    rows = rows.assign(
        fresh_attempts=fresh,
        success_rate_fresh=rows["migration_successes"] / fresh.where(fresh > 0),
        success_rate_all=rows["migration_successes"] / rows["migration_attempts"].where(rows["migration_attempts"] > 0),
        mean_gap_minutes=rows["migration_mean_gap"] / 60.0,
    )
    return rows[
        [
            "trace",
            "policy",
            "c",
            "w_util",
            "migration_attempts",
            "fresh_attempts",
            "migration_successes",
            "success_rate_fresh",
            "success_rate_all",
            "mean_gap_minutes",
            "migration_pinned",
        ]
    ]


# ---------------------------------------------------------------- figures


def _figure(width: float = 6.5, height: float = 4.2):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    return figure


def curve_figure(results: pd.DataFrame, log: str, metric: str, policies, title: str) -> bytes:
    """Figures 5-1 to 5-3 style: ``metric`` (log scale) against capacity utilized, one curve per scheduler
    over the values of c."""
    figure = _figure()
    ax = figure.subplots()
    for policy in policies:
        curve = results[(results["trace"] == log) & (results["policy"] == policy)].sort_values("c")
        if len(curve):
            ax.plot(
                curve["w_util"],
                curve[metric],
                marker="o",
                markersize=3,
                label=policy,
                color=COLOURS.get(policy),
                linestyle="--" if policy.startswith("flat") else "-",
            )
    ax.set_yscale("log")
    ax.set_xlabel("capacity utilized")
    ax.set_ylabel({"wait_mean": "mean wait (s)", "bsld_mean": "mean bounded slowdown"}[metric])
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return png(figure)


def migration_figure(results: pd.DataFrame, log: str) -> bytes:
    """Figures 5-4 and 5-5 style: attempts and successes against capacity utilized (Migration, B+M, full
    migration), and the mean time between applied migrations."""
    figure = _figure(10.0, 4.0)
    left, right = figure.subplots(1, 2)
    for policy, colour in (("migration", "C1"), ("bm", "C3"), ("migration-full", "C4"), ("bm-full", "C6")):
        curve = results[(results["trace"] == log) & (results["policy"] == policy)].sort_values("c")
        if not len(curve):
            continue
        fresh = curve["migration_attempts"] - curve["migration_repeats"]
        left.plot(curve["w_util"], fresh, color=colour, linestyle=":", marker=".", label=f"{policy} attempts")
        left.plot(
            curve["w_util"],
            curve["migration_successes"],
            color=colour,
            marker="o",
            markersize=3,
            label=f"{policy} successes",
        )
        right.plot(
            curve["w_util"], curve["migration_mean_gap"] / 60.0, color=colour, marker="o", markersize=3, label=policy
        )
    left.set(xlabel="capacity utilized", ylabel="migrations", title=f"{log}: attempts (new states) and successes")
    right.set(xlabel="capacity utilized", ylabel="minutes", title=f"{log}: mean time between migrations")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small")
        ax.title.set_fontsize("medium")
    return png(figure)


def capacity_figure(results: pd.DataFrame, log: str) -> bytes:
    """Figures 5-6 and 5-7 style: capacity utilized, unused and lost (stacked) per scheduler at c = 1.0 and 1.2."""
    figure = _figure(10.0, 4.0)
    axes = figure.subplots(1, 2, sharey=True)
    for ax, c in zip(axes, (1.0, 1.2), strict=True):
        at = results[(results["trace"] == log) & np.isclose(results["c"], c)]
        labels = [
            p
            for p in ("fcfs", "backfill", "migration", "bm", "flat-fcfs", "flat-backfill")
            if (at["policy"] == p).any()
        ]
        bottom = np.zeros(len(labels))
        for part, colour in (("w_util", "C2"), ("w_unused", "C9"), ("w_lost", "C3")):
            values = np.array([float(at[at["policy"] == p][part].iloc[0]) for p in labels])
            ax.bar(range(len(labels)), values, bottom=bottom, color=colour, label=part.removeprefix("w_"))
            bottom += values
        ax.set_xticks(range(len(labels)), labels, rotation=30, fontsize="small")
        ax.set_title(f"{log}, c = {c:.1f}", fontsize="medium")
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("fraction of capacity")
    axes[0].legend(fontsize="small", loc="lower left")
    return png(figure)


# ---------------------------------------------------------------- report


CLAIMS_INTRO = (
    "Saturation: the plateau rule (the three largest c within one point of utilization). 'holds' needs our number "
    "within 5 points (utilization) or 5 % (relative change; 10 % for lost capacity) of the thesis's; 'partly': the "
    "signs or orderings right, the sizes not, or a curve reaching the thesis's level without saturating."
)


def write_report(out, results: pd.DataFrame, plan_: Plan, *, wall: float | None = None) -> tuple[list[Path], list]:
    """Write the tables, figures, claims and summary (see the module docstring) into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    done = results[results["state"] == "done"]
    saturation = saturation_points(done)
    saturation["saturated"] = saturation["saturated"].map({True: "yes", False: "no"})
    capacity = pd.concat([capacity_changes(done, c) for c in (1.0, 1.2)], ignore_index=True)
    migrations = migrations_table(done)
    claims = check_claims(done)
    written = []
    for name, frame in (
        ("results.csv", results),
        ("saturation.csv", saturation),
        ("capacity.csv", capacity),
        ("migrations.csv", migrations),
    ):
        frame.to_csv(out / name, index=False, float_format="%.6g")
        written.append(out / name)
    figures = []
    for log in plan_.logs:
        for name, data, caption in (
            (
                f"fig-wait-{log}.png",
                curve_figure(done, log, "wait_mean", CURVES, f"{log}: mean wait"),
                f"{log}: mean wait against capacity utilized (Figure 5-1)",
            ),
            (
                f"fig-bsld-{log}.png",
                curve_figure(done, log, "bsld_mean", CURVES, f"{log}: mean bounded slowdown"),
                f"{log}: mean bounded slowdown against capacity utilized (Figure 5-2)",
            ),
            (
                f"fig-flat-{log}.png",
                curve_figure(
                    done,
                    log,
                    "wait_mean",
                    ("fcfs", "migration", "backfill", "bm", "flat-fcfs", "flat-backfill"),
                    f"{log}: torus and flat machine",
                ),
                f"{log}: torus against the flat machine (Figure 5-3)",
            ),
            (f"fig-migrations-{log}.png", migration_figure(done, log), f"{log}: migrations (Figures 5-4, 5-5)"),
            (
                f"fig-capacity-{log}.png",
                capacity_figure(done, log),
                f"{log}: capacity utilized, unused, lost at c = 1.0 and 1.2 (Figures 5-6, 5-7)",
            ),
        ):
            (out / name).write_bytes(data)
            figures.append((name, caption))
    written += [out / name for name, _ in figures]
    (out / "claims.md").write_text(
        claims_markdown("Krevat (2003), chapter 5: the claims, checked", CLAIMS_INTRO, claims), encoding="utf-8"
    )
    written.append(out / "claims.md")
    failed = results[results["state"] != "done"]
    c_text = "; ".join(f"{log}: c = {', '.join(f'{c:g}' for c in cs)}" for log, cs in plan_.c_values.items())
    header = [
        "# Krevat (2003) reproduction: scheduling on a 4x4x8 torus (BlueGene/L supernodes)",
        "",
        f"Logs: {', '.join(f'{k} ({v})' for k, v in plan_.logs.items())}; {plan_.count:,} jobs after the first "
        f"{plan_.skip:,} valid ones; {c_text}; {len(results)} runs ({len(failed)} not done)"
        + ("" if wall is None else f" in {wall:.1f} s")
        + ".",
        "Schedulers: FCFS, Backfill, Migration, B+M on the torus (defaults: I = 1, fixed reservation, "
        "thresholds 0.1 / 0.7, 1 s start delay, exact estimates), full migration (0 / 1), and FCFS and "
        "EASY backfilling on a flat machine of 128 nodes.",
        "",
    ]
    claim_rows = pd.DataFrame([{"claim": f"{c.number}. {c.claim}", "verdict": c.verdict} for c in claims])
    lines = header + ["## Saturation utilization (ours by the plateau rule; the thesis's from its text)", ""]
    lines += markdown_table(saturation)
    lines += ["", "## Capacity at c = 1.0 and 1.2 (changes over FCFS)", ""] + markdown_table(capacity)
    lines += ["", "## Claims (details in claims.md)", ""] + markdown_table(claim_rows)
    lines += ["", "Figures:", ""] + [f"- `{name}`: {caption}" for name, caption in figures]
    if len(failed):
        lines += ["", "## Runs not done", ""] + [
            f"- {r.trace} {r.policy} c={r.c}: {r.error}" for r in failed.itertuples()
        ]
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(out / "summary.md")
    esc = html.escape
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>schedlab: Krevat (2003) torus reproduction</title>',
        "<style>body{font-family:sans-serif;margin:2em;max-width:90em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,td:nth-child(2){text-align:left}"
        "img{max-width:100%}</style></head><body>",
    ]
    page += [f"<p>{esc(line.lstrip('# '))}</p>" for line in header if line.strip()]
    page += [
        "<h2>Saturation utilization</h2>",
        html_table(saturation),
        "<h2>Capacity at c = 1.0 and 1.2</h2>",
        html_table(capacity),
    ]
    written.append(write_summary_html(out, page, claims, figures))
    return written, claims


def reproduce(out, plan_: Plan, *, jobs: int = 1, progress: Callable[[int, int, dict], None] | None = None) -> dict:
    """Write the campaigns, run them (stored runs are skipped, failed ones run again) and write the report.

    Returns a summary: runs, failed, wall seconds, the claims' verdicts and the files written.
    """
    out = Path(out)
    tables, wall = run_campaigns(write_campaigns(out, plan_), jobs=jobs, progress=progress)
    results = tidy(tables)
    files, claims = write_report(out, results, plan_, wall=wall)
    summary = {
        "experiment": "torus",
        "seed": plan_.seed,
        "quick": plan_.quick,
        "jobs": jobs,
        "logs": dict(plan_.logs),
        "count": plan_.count,
        "skip": plan_.skip,
        "c_values": {log: list(cs) for log, cs in plan_.c_values.items()},
        "runs": int(len(results)),
        "failed": int((results["state"] != "done").sum()),
        "wall_seconds": wall,
        "claims": {str(c.number): c.verdict for c in claims},
    }
    write_json(out / "experiment.json", summary)
    summary["files"] = [str(p) for p in files] + [str(out / "experiment.json")]
    return summary
