"""The experiment of Lucarelli, Mendonca and Trystram (2017) through the campaign runner, on 7 PWA traces.

Source: Lucarelli, Mendonca and Trystram (2017), section V (instances, Tables
I and II, the six qualitative claims); readings LMT-A7 (m_d clamping), LMT-A9
(windows) and LMT-A11 (seeds) in docs/readings.md.

The paper's 7 traces (Curie, HPC2N, KTH-SP2, LLNL-Thunder, Metacentrum, RICC,
SDSC-Blue-4.1): for each trace, one campaign specification (TOML, written to
``<out>/campaigns``) with a tasks workload of ``windows`` random windows of the
trace's Table I length, and the policies FCFS, GSPT, SPT, GSRPT and SRPT (when
registered) and the four redirection variants with Table II's parameters. With
``tuning``, one more campaign per trace holds the tuning grids (RD: tau x m_d;
RR: c x m_d, b = 0.02). All campaigns share one store (``<out>/store``), so a
re-run skips stored runs and a tuning point equal to Table II's is run once.

:func:`reproduce` runs them and writes the report (:func:`write_report`): Table I
recomputed next to the paper's (every trace read on Table I's machine size m, the ``procs``
of its workload), every metric per trace and policy, bar charts in
the style of Figs 4-10, tuning lines as Fig. 3, and the six claims checked
(:func:`check_claims`).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.experiments.common import Claim, claims_markdown, toml_value, write_summary_html
from schedlab.experiments.common import done as finished_runs
from schedlab.report.tables import html_table, markdown_table, png

__all__ = [
    "BASE",
    "Claim",
    "LABELS",
    "METRICS",
    "Plan",
    "TRACES",
    "TraceInfo",
    "check_claims",
    "metric_table",
    "plan",
    "reproduce",
    "table_one",
    "tuned_table",
    "write_campaigns",
    "write_report",
]

DAY = 86400.0


@dataclass(frozen=True, slots=True)
class TraceInfo:
    """One trace of the paper: its file, window length (days) and the paper's Table I and Table II rows.

    ``table1``: #proc, #tasks, size days of the trace, then #proc, #tasks, size days of the instances
    (means over 20). ``table2``: ``label -> (m_d, tau or c)`` for SPT-RD, GSPT-RD, SPT-RR, GSPT-RR.
    ``tau_max``: the RD grid's largest tau (10 for Curie and RICC, 5 otherwise).
    """

    file: str
    days: float
    table1: tuple[int, int, int, int, int, int]
    table2: dict[str, tuple[int, float]]
    tau_max: int = 5


TRACES: dict[str, TraceInfo] = {
    "Curie": TraceInfo(
        "CEA-Curie-2011-2.1-cln.swf.gz",
        60,
        (80640, 279991, 6089, 160, 70215, 60),
        {"SPT-RD": (10, 10), "GSPT-RD": (10, 4), "SPT-RR": (9, 0.8), "GSPT-RR": (10, 0.8)},
        10,
    ),
    "HPC2N": TraceInfo(
        "HPC2N-2002-2.2-cln.swf.gz",
        30,
        (240, 201998, 1268, 17, 4516, 30),
        {"SPT-RD": (5, 2), "GSPT-RD": (10, 1), "SPT-RR": (5, 1.0), "GSPT-RR": (10, 1.0)},
    ),
    "KTH-SP2": TraceInfo(
        "KTH-SP2-1996-2.1-cln.swf.gz",
        15,
        (100, 20483, 333, 12, 860, 15),
        {"SPT-RD": (8, 1), "GSPT-RD": (7, 1), "SPT-RR": (2, 0.8), "GSPT-RR": (3, 0.8)},
    ),
    "LLNL-Thunder": TraceInfo(
        "LLNL-Thunder-2007-1.1-cln.swf.gz",
        7,
        (4096, 97875, 148, 48, 4601, 7),
        {"SPT-RD": (7, 2), "GSPT-RD": (10, 5), "SPT-RR": (8, 1.0), "GSPT-RR": (9, 1.0)},
    ),
    "Metacentrum": TraceInfo(
        "METACENTRUM-2009-2.swf.gz",
        7,
        (806, 86586, 157, 18, 4155, 7),
        {"SPT-RD": (4, 5), "GSPT-RD": (3, 4), "SPT-RR": (3, 0.4), "GSPT-RR": (2, 0.2)},
    ),
    "RICC": TraceInfo(
        "RICC-2010-2.swf.gz",
        7,
        (8192, 431547, 153, 200, 19401, 7),
        {"SPT-RD": (10, 5), "GSPT-RD": (10, 10), "SPT-RR": (5, 0.2), "GSPT-RR": (5, 0.2)},
        10,
    ),
    "SDSC-Blue-4.1": TraceInfo(
        "SDSC-BLUE-2000-4.1-cln.swf.gz",
        30,
        (1152, 195587, 979, 27, 6263, 30),
        {"SPT-RD": (5, 2), "GSPT-RD": (10, 1), "SPT-RR": (10, 1.0), "GSPT-RR": (8, 0.8)},
    ),
}
"""The paper's 7 traces, in its order (Lucarelli, Mendonca and Trystram 2017, Tables I and II).

Metacentrum's log has no header: its machine size comes from Table I (806 processors), as for every trace."""

QUICK = ("KTH-SP2", "HPC2N")
LABELS = ("FCFS", "GSPT", "SPT", "GSRPT", "SRPT", "GSPT-RD", "SPT-RD", "GSPT-RR", "SPT-RR")
"""Policy labels in results, in the paper's order (FCFS first; omitted from the paper's figures)."""
BASE = {"GSPT-RD": "GSPT", "GSPT-RR": "GSPT", "SPT-RD": "SPT", "SPT-RR": "SPT"}
"""Each redirection variant and the policy it modifies."""
_REGISTRY = {
    "FCFS": "fcfs",
    "GSPT": "gspt",
    "SPT": "spt",
    "GSRPT": "gsrpt",
    "SRPT": "srpt",
    "GSPT-RD": "gspt-rd",
    "SPT-RD": "spt-rd",
    "GSPT-RR": "gspt-rr",
    "SPT-RR": "spt-rr",
}
METRICS = ("stretch_max", "stretch_sum", "stretch_l2", "flow_max", "flow_sum", "flow_l2")
"""The paper's six objectives (section II): bounded stretch (B = 10 s) and flow, max / total / L2 norm."""
_EXTRA = ("n_aborted", "n_preempted", "wasted_work", "dedicated_used", "n_jobs", "n_procs")
B_RR = 0.02


@dataclass(frozen=True)
class Plan:
    """What to run: traces (names of :data:`TRACES`), windows per trace, window lengths (days), tuning grids,
    master seed (window draws and RR draws, reading LMT-A11 in docs/readings.md) and the traces folder.

    ``m_mode``: ``formula`` (m_inst = round(m/Q), the default) or ``table1`` (Table I's processor count for
    every window; reading LMT-A18). ``count_if_idle``: GSPT-RD also counts arrivals that start at once on an idle main
    processor (the literal reading) or, by default, only arrivals that wait (reading LMT-A5).
    """

    traces: tuple[str, ...]
    windows: int
    days: dict[str, float]
    tuning: bool
    seed: int
    traces_dir: Path
    quick: bool = False
    skipped: tuple[str, ...] = field(default=())
    m_mode: str = "formula"
    count_if_idle: bool = False


def plan(
    traces_dir,
    *,
    quick: bool = False,
    tuning: bool = False,
    seed: int = 0,
    windows: int | None = None,
    traces: list[str] | None = None,
    m_mode: str = "formula",
    count_if_idle: bool = False,
) -> Plan:
    """The experiment's plan: all 7 traces and 20 windows, or with ``quick`` 3 windows of KTH-SP2 and HPC2N
    (Table I lengths). Preemptive references missing from the registry are listed in ``skipped``.

    Raises
    ------
    InputError
        An unknown trace name, or a trace file missing from ``traces_dir``.
    """
    from schedlab import registry
    from schedlab.errors import InputError

    if m_mode not in ("formula", "table1"):
        raise InputError("--m-mode", field="--m-mode", value=m_mode, expected="formula or table1")
    names = list(traces) if traces else list(QUICK if quick else TRACES)
    for name in names:
        if name not in TRACES:
            raise InputError("--trace", field="--trace", value=name, expected=f"one of {', '.join(TRACES)}")
        if not (Path(traces_dir) / TRACES[name].file).is_file():
            raise InputError(str(Path(traces_dir) / TRACES[name].file), message="trace file not found (see --traces)")
    count = windows if windows is not None else (3 if quick else 20)
    skipped = tuple(label for label, name in _REGISTRY.items() if name not in registry.ALGORITHMS)
    return Plan(
        tuple(names),
        count,
        {n: TRACES[n].days for n in names},
        tuning,
        seed,
        Path(traces_dir).resolve(),
        quick,
        skipped,
        m_mode,
        count_if_idle,
    )


def _policies(name: str, plan_: Plan) -> list[dict]:
    info = TRACES[name]
    out = []
    for label in LABELS:
        if label in plan_.skipped:
            continue
        entry: dict = {"name": _REGISTRY[label], "label": label, "params": {}}
        if label in info.table2:
            dedicated, value = info.table2[label]
            entry["params"] = (
                {"dedicated": dedicated, "tau": int(value)}
                if label.endswith("RD")
                else {"dedicated": dedicated, "b": B_RR, "c": float(value)}
            )
        if label == "GSPT-RD" and plan_.count_if_idle:
            entry["params"]["count_if_idle"] = True
        out.append(entry)
    return out


def _tuning_policies(name: str, plan_: Plan) -> list[dict]:
    taus = list(range(1, TRACES[name].tau_max + 1))
    dedicated = list(range(1, 11))
    cs = [0.2, 0.4, 0.6, 0.8, 1.0]
    idle = {"count_if_idle": True} if plan_.count_if_idle else {}
    return [
        {"name": "spt-rd", "label": "SPT-RD grid", "params": {"dedicated": dedicated, "tau": taus}},
        {"name": "gspt-rd", "label": "GSPT-RD grid", "params": {"dedicated": dedicated, "tau": taus, **idle}},
        {"name": "spt-rr", "label": "SPT-RR grid", "params": {"dedicated": dedicated, "b": B_RR, "c": cs}},
        {"name": "gspt-rr", "label": "GSPT-RR grid", "params": {"dedicated": dedicated, "b": B_RR, "c": cs}},
    ]


def _campaign_text(name: str, plan_: Plan, policies: list[dict], suffix: str = "") -> str:
    trace = (plan_.traces_dir / TRACES[name].file).as_posix()
    length = plan_.days[name]
    lines = [
        f"# Lucarelli, Mendonca and Trystram (2017) reproduction, {name}{suffix}: written by schedlab reproduce redirections",
        f'name = "redirections-{name}{suffix}"',
        f"seed = {plan_.seed}",
        "bsld_threshold = 10.0",
        'store = "../store"',
        'metrics = ["bsld_unclamped_mean", "response_mean", "n_aborted"]',
        "",
        "[[workloads]]",
        f'name = "{name}"',
        f"trace = {json.dumps(trace)}",
        f"procs = {TRACES[name].table1[0]}",
        f'windows = {{ sample = "random", count = {plan_.windows}, length = "{length:g}d" }}',
        'tasks = { conversion = "C", rounding = "round", clamp_dedicated = true'
        + (f", m_inst = {TRACES[name].table1[3]}" if plan_.m_mode == "table1" else "")
        + " }",
    ]
    for policy in policies:
        lines += ["", "[[policies]]", f'name = "{policy["name"]}"', f'label = "{policy["label"]}"']
        if policy["params"]:
            lines.append(
                "params = { " + ", ".join(f"{k} = {toml_value(v)}" for k, v in policy["params"].items()) + " }"
            )
    return "\n".join(lines) + "\n"


def write_campaigns(out, plan_: Plan) -> tuple[list[Path], list[Path]]:
    """Write the campaign specifications into ``<out>/campaigns``: ``<trace>.toml`` (Table II) and, with
    tuning, ``<trace>-tuning.toml``. Returns (main files, tuning files)."""
    folder = Path(out) / "campaigns"
    folder.mkdir(parents=True, exist_ok=True)
    main, tuning = [], []
    for name in plan_.traces:
        path = folder / f"{name}.toml"
        path.write_text(_campaign_text(name, plan_, _policies(name, plan_)), encoding="utf-8")
        main.append(path)
        if plan_.tuning:
            path = folder / f"{name}-tuning.toml"
            path.write_text(_campaign_text(name, plan_, _tuning_policies(name, plan_), "-tuning"), encoding="utf-8")
            tuning.append(path)
    return main, tuning


# ---------------------------------------------------------------- tables


def table_one(results: pd.DataFrame, whole: dict[str, dict] | None = None) -> pd.DataFrame:
    """Table I recomputed: per trace, the means over windows of #tasks, m_inst, Q, load of the tasks, window
    length and release span (days), next to the paper's instance columns.

    ``results``: one row per run (``workload``, ``window_index``, ``n_jobs``, ``n_procs``, ``mean_procs``,
    ``task_load``, ``window_start``, ``window_end``, ``release_span``); the first finished run of each window
    describes it (every policy sees the same tasks). ``whole``: per trace, ``n_jobs``, ``procs`` and ``days``
    of the whole filtered trace, when measured.
    """
    done = finished_runs(results).sort_values(
        ["workload", "window_index", "run_id"] if "run_id" in results else ["workload", "window_index"]
    )
    first = done.drop_duplicates(["workload", "window_index"])
    rows = []
    for name in [n for n in list(TRACES) + sorted(set(first["workload"]) - set(TRACES)) if n in set(first["workload"])]:
        here = first[first["workload"] == name]
        paper = TRACES[name].table1 if name in TRACES else (math.nan,) * 6
        trace = (whole or {}).get(name, {})
        rows.append(
            {
                "trace": name,
                "windows": len(here),
                "procs_trace": trace.get("procs", math.nan),
                "paper_procs_trace": paper[0],
                "tasks_trace": trace.get("n_jobs", math.nan),
                "paper_tasks_trace": paper[1],
                "days_trace": trace.get("days", math.nan),
                "paper_days_trace": paper[2],
                "procs_inst": float(here["n_procs"].mean()),
                "paper_procs_inst": paper[3],
                "tasks_inst": float(here["n_jobs"].mean()),
                "paper_tasks_inst": paper[4],
                "days_inst": float(((here["window_end"] - here["window_start"]) / DAY).mean()),
                "paper_days_inst": paper[5],
                "span_days_inst": float((here["release_span"] / DAY).mean()),
                "mean_Q": float(here["mean_procs"].mean()),
                "load": float(here["task_load"].mean()),
            }
        )
    return pd.DataFrame(rows)


def metric_table(results: pd.DataFrame, labels=LABELS) -> pd.DataFrame:
    """Means over windows per (trace, policy label) of the six objectives, redirections, preemptions, wasted
    work, m_d as run, #tasks and m_inst, with the number of windows ``n``. Uses :func:`schedlab.campaign.report.summarize`."""
    from schedlab.campaign.report import summarize

    done = finished_runs(results)
    present = [label for label in labels if label in set(done["label"])]
    columns = [c for c in METRICS + _EXTRA if c in done]
    long = summarize(done, columns, order=present)
    wide = long.pivot_table(index=["workload", "label"], columns="metric", values="mean", sort=False).reset_index()
    counts = long[long["metric"] == "stretch_sum"][["workload", "label", "n"]]
    wide = wide.merge(counts, on=["workload", "label"], how="left")
    order = {name: i for i, name in enumerate(TRACES)}
    wide["_t"] = wide["workload"].map(lambda w: order.get(w, len(order)))
    wide["_l"] = wide["label"].map({label: i for i, label in enumerate(present)})
    wide = wide.sort_values(["_t", "workload", "_l"]).drop(columns=["_t", "_l"]).reset_index(drop=True)
    return wide[["workload", "label", "n", *[c for c in columns if c in wide]]]


TUNED_METRICS = ("stretch_sum", "stretch_max", "flow_sum")
"""The objectives :func:`tuned_table` tunes for: the paper selected Table II on stretch (section V)."""
_VARIANTS = ("SPT-RD", "GSPT-RD", "SPT-RR", "GSPT-RR")


def tuned_table(tuning: pd.DataFrame, metrics=TUNED_METRICS) -> pd.DataFrame:
    """Table II recomputed from the tuning grids: per trace, redirection variant and metric, the grid point
    (m_d as requested, and tau or c) with the lowest mean over windows, next to the paper's Table II point
    and the mean this point gets here (NaN when the paper's point is not on the grid).

    ``tuning``: one row per tuning run with ``workload``, ``policy``, ``param_dedicated``, ``param_tau``
    or ``param_c`` and the ``metrics``. Ties go to the first grid point in (m_d, value) order.
    """
    done = finished_runs(tuning)

    def numbers(column):  # the store keeps parameters as text
        return pd.to_numeric(done[column]) if column in done else pd.Series(np.nan, index=done.index)

    done = done.assign(
        param_dedicated=numbers("param_dedicated"), value=numbers("param_tau").fillna(numbers("param_c"))
    )
    means = done.groupby(["workload", "policy", "param_dedicated", "value"])[list(metrics)].mean().reset_index()
    label_of = {name: label for label, name in _REGISTRY.items()}
    rows = []
    order = {name: i for i, name in enumerate(TRACES)}
    keys = sorted(
        means[["workload", "policy"]].drop_duplicates().itertuples(index=False),
        key=lambda k: (order.get(k.workload, len(order)), k.workload, _VARIANTS.index(label_of[k.policy])),
    )
    for workload, policy in keys:
        grid = means[(means["workload"] == workload) & (means["policy"] == policy)]
        label = label_of[policy]
        paper = TRACES[workload].table2.get(label) if workload in TRACES else None
        at_paper = (
            grid.iloc[:0]
            if paper is None
            else grid[(grid["param_dedicated"] == paper[0]) & np.isclose(grid["value"], paper[1])]
        )
        for metric in metrics:
            best = grid.loc[grid[metric].idxmin()]
            rows.append(
                {
                    "workload": workload,
                    "label": label,
                    "metric": metric,
                    "parameter": "tau" if label.endswith("RD") else "c",
                    "dedicated": int(best["param_dedicated"]),
                    "value": float(best["value"]),
                    "mean": float(best[metric]),
                    "paper_dedicated": paper[0] if paper else math.nan,
                    "paper_value": paper[1] if paper else math.nan,
                    "mean_at_paper": float(at_paper[metric].iloc[0]) if len(at_paper) else math.nan,
                }
            )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- claims


CLAIMS = {
    1: "Tuning (SPT-RD): on Curie, stretch increases with m_d for m_d >= 4 while flow decreases; "
    "on LLNL-Thunder a similar trade-off as tau grows.",
    2: "Curie: SPT is stable for flow but highly detrimental to stretch relative to SRPT/GSRPT.",
    3: "Curie: GSPT-RD, SPT-RR and GSPT-RR decrease all stretch metrics; SPT-RD does not.",
    4: "Other traces: in most cases redirection improves all stretch metrics over SPT/GSPT, sometimes close to SRPT/GSRPT.",
    5: "FCFS is significantly worse in most cases.",
    6: "Both methods favour stretch over flow-time; RD beats RR.",
}
STRETCH = ("stretch_max", "stretch_sum", "stretch_l2")
SIGNIFICANT = 1.25
"""A ratio of means of at least this counts as "significantly worse" / "highly detrimental" (claims 2, 5)."""


def _pairs(done: pd.DataFrame, workload: str, a: str, b: str, metric: str) -> pd.DataFrame:
    """Per window of ``workload``: the metric of labels ``a`` and ``b`` (windows where both finished)."""
    key = ["window_index", "repetition"] if "repetition" in done else ["window_index"]
    here = done[done["workload"] == workload]
    left = here[here["label"] == a][key + [metric]]
    right = here[here["label"] == b][key + [metric]]
    return left.merge(right, on=key, suffixes=("_a", "_b")).dropna()


Comparison = tuple[int, int, float, float, int]
"""``(windows where a < b, paired windows, median relative change, ratio of means, windows where a > b)``."""


def _compare_all(done, workload, a, b, metrics) -> dict[str, Comparison] | None:
    """:func:`_compare` on each metric (or pair label), None as soon as one is not measurable."""
    out = {}
    for metric in metrics:
        result = _compare(done, workload, a, b, metric)
        if result is None:
            return None
        out[metric] = result
    return out


def _compare(done, workload, a, b, metric) -> Comparison | None:
    """(windows where a < b, windows, median per-window relative change (a - b) / b, mean(a) / mean(b),
    windows where a > b); None when no window has both."""
    pairs = _pairs(done, workload, a, b, metric)
    if pairs.empty:
        return None
    va, vb = pairs[f"{metric}_a"].to_numpy(float), pairs[f"{metric}_b"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.where(vb != 0, (va - vb) / vb, np.nan)
    ratio = float(va.mean() / vb.mean()) if vb.mean() else math.nan
    median = float(np.nanmedian(change)) if np.isfinite(change).any() else math.nan
    return int(np.sum(va < vb)), len(pairs), median, ratio, int(np.sum(va > vb))


def _pct(x: float) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:+.1f}%"


def _lowers_all(done, workload, variant, base, evidence) -> bool | None:
    """Whether ``variant`` has a lower mean than ``base`` on each stretch metric; appends one evidence line."""
    results = _compare_all(done, workload, variant, base, STRETCH)
    if results is None:
        return None
    parts = [
        f"{m.split('_')[1]}: lower on {r[0]}/{r[1]} windows, median change {_pct(r[2])}, ratio of means {r[3]:.3f}"
        for m, r in results.items()
    ]
    evidence.append(f"{workload} {variant} vs {base}: " + "; ".join(parts))
    return all(r[3] < 1 for r in results.values())


def _reference(done, workload) -> str | None:
    """The preemptive reference with the lower mean total stretch on ``workload`` (None when neither ran)."""
    here = done[done["workload"] == workload]
    means = {
        label: here.loc[here["label"] == label, "stretch_sum"].mean()
        for label in ("SRPT", "GSRPT")
        if (here["label"] == label).any()
    }
    return min(means, key=lambda label: means[label]) if means else None


def _verdict(flags: list[bool]) -> str:
    if not flags:
        return "not measurable"
    share = sum(flags) / len(flags)
    return "holds" if share > 0.5 else ("partly" if share > 0 else "fails")


def _claim1(tuning: pd.DataFrame | None) -> Claim:
    from schedlab.campaign.report import sweep

    evidence: list[str] = []
    if tuning is None or tuning.empty or "param_dedicated" not in tuning:
        return Claim(1, CLAIMS[1], "not measurable", ["needs the tuning grids (--tuning)"])
    done = finished_runs(tuning)
    flags = []
    for workload, along in (("Curie", "dedicated"), ("LLNL-Thunder", "tau")):
        rows = done[(done["workload"] == workload) & (done["policy"] == "spt-rd")]
        if rows.empty:
            evidence.append(f"{workload}: no SPT-RD tuning runs")
            continue
        frames = {m: sweep(rows, m, "spt-rd", along) for m in ("stretch_sum", "flow_sum")}
        ups = downs = steps = opposite = 0
        for series in frames["stretch_sum"]["series"].unique():
            s = frames["stretch_sum"][frames["stretch_sum"]["series"] == series].sort_values("value")
            f = frames["flow_sum"][frames["flow_sum"]["series"] == series].sort_values("value")
            if along == "dedicated":
                s, f = s[s["value"] >= 4], f[f["value"] >= 4]
            ds, df = np.diff(s["mean"].to_numpy()), np.diff(f["mean"].to_numpy())
            ups += int(np.sum(ds > 0))
            downs += int(np.sum(df < 0))
            opposite += int(np.sum(np.sign(ds) * np.sign(df) < 0))
            steps += len(ds)
        if not steps:
            evidence.append(f"{workload}: fewer than 2 grid values")
            continue
        if along == "dedicated":
            ok = ups / steps > 0.5 and downs / steps > 0.5
            evidence.append(
                f"Curie SPT-RD, m_d 4..10 per tau: total stretch rises on {ups}/{steps} steps of m_d, "
                f"total flow falls on {downs}/{steps}"
            )
        else:
            ok = opposite / steps > 0.5
            evidence.append(
                f"LLNL-Thunder SPT-RD, tau per m_d: total stretch and total flow move in opposite "
                f"directions on {opposite}/{steps} steps of tau"
            )
        flags.append(ok)
    verdict = "not measurable" if not flags else ("holds" if all(flags) else ("partly" if any(flags) else "fails"))
    return Claim(1, CLAIMS[1], verdict, evidence)


def _claim2(done) -> Claim:
    ref = _reference(done, "Curie")
    if ref is None or not (done["label"] == "SPT").any() or not (done["workload"] == "Curie").any():
        return Claim(2, CLAIMS[2], "not measurable", ["needs Curie runs of SPT and SRPT or GSRPT"])
    ratios = _compare_all(done, "Curie", "SPT", ref, METRICS)
    if ratios is None:
        return Claim(2, CLAIMS[2], "not measurable", ["no Curie window with both SPT and " + ref])
    flow = max(ratios[m][3] for m in ("flow_sum", "flow_l2"))
    stretch = min(ratios[m][3] for m in ("stretch_sum", "stretch_l2"))
    evidence = [f"Curie SPT / {ref} (ratio of means): " + ", ".join(f"{m} {r[3]:.3f}" for m, r in ratios.items())]
    ok = stretch >= SIGNIFICANT and flow < stretch
    evidence.append(
        f"holds iff total and norm stretch ratios >= {SIGNIFICANT} and above the flow ratios: "
        f"min stretch ratio {stretch:.3f}, max flow ratio {flow:.3f}"
    )
    return Claim(2, CLAIMS[2], "holds" if ok else "fails", evidence)


def _claim3(done) -> Claim:
    if not (done["workload"] == "Curie").any():
        return Claim(3, CLAIMS[3], "not measurable", ["needs Curie runs"])
    evidence: list[str] = []
    flags = []
    for variant in ("GSPT-RD", "SPT-RR", "GSPT-RR", "SPT-RD"):
        lowers = _lowers_all(done, "Curie", variant, BASE[variant], evidence)
        if lowers is not None:
            flags.append(lowers if variant != "SPT-RD" else not lowers)
    if not flags:
        return Claim(3, CLAIMS[3], "not measurable", ["no Curie window with a variant and its base"])
    verdict = "holds" if all(flags) else ("partly" if sum(flags) >= 2 else "fails")
    evidence.append(
        f"{sum(flags)}/{len(flags)} sub-claims as stated (the three lower all stretch means; SPT-RD does not)"
    )
    return Claim(3, CLAIMS[3], verdict, evidence)


def _claim4(done) -> Claim:
    evidence: list[str] = []
    flags = []
    for workload in [w for w in dict.fromkeys(done["workload"]) if w != "Curie"]:
        ref = _reference(done, workload)
        for variant, base in BASE.items():
            lowers = _lowers_all(done, workload, variant, base, evidence)
            if lowers is None:
                continue
            flags.append(lowers)
            if ref is not None and (r := _compare(done, workload, variant, ref, "stretch_sum")) is not None:
                evidence[-1] += f"; total stretch / {ref}: {r[3]:.3f}"
    if flags:
        evidence.append(
            f"{sum(flags)}/{len(flags)} (trace, variant) pairs lower every stretch mean; holds iff more than half"
        )
    return Claim(4, CLAIMS[4], _verdict(flags), evidence or ["needs runs of traces other than Curie"])


def _claim5(done) -> Claim:
    evidence: list[str] = []
    flags = []
    for workload in dict.fromkeys(done["workload"]):
        here = done[done["workload"] == workload]
        if not (here["label"] == "FCFS").any():
            continue
        others = [label for label in ("GSPT", "SPT") if (here["label"] == label).any()]
        if not others:
            continue
        compared = {label: _compare(done, workload, "FCFS", label, "stretch_sum") for label in others}
        ratios = {label: r for label, r in compared.items() if r is not None}
        if not ratios:
            continue
        best = min(r[3] for r in ratios.values())
        flags.append(best >= SIGNIFICANT)
        evidence.append(
            f"{workload}: FCFS total stretch / "
            + ", ".join(f"{label} {r[3]:.3f} (worse on {r[4]}/{r[1]} windows)" for label, r in ratios.items())
        )
    if flags:
        evidence.append(
            f"{sum(flags)}/{len(flags)} traces with FCFS at least {SIGNIFICANT}x the better of GSPT and SPT; holds iff more than half"
        )
    return Claim(5, CLAIMS[5], _verdict(flags), evidence or ["needs FCFS and GSPT or SPT runs"])


def _claim6(done) -> Claim:
    evidence: list[str] = []
    favour, rd_wins = [], []
    for workload in dict.fromkeys(done["workload"]):
        for variant, base in BASE.items():
            s, f = (
                _compare(done, workload, variant, base, "stretch_sum"),
                _compare(done, workload, variant, base, "flow_sum"),
            )
            if s is None or f is None:
                continue
            favour.append(s[3] < 1 and s[3] < f[3])
            evidence.append(f"{workload} {variant} vs {base}: total stretch x{s[3]:.3f}, total flow x{f[3]:.3f}")
        for family in ("GSPT", "SPT"):
            r = _compare(done, workload, f"{family}-RD", f"{family}-RR", "stretch_sum")
            if r is not None:
                rd_wins.append(r[3] < 1)
                evidence.append(
                    f"{workload} {family}-RD / {family}-RR total stretch: {r[3]:.3f} (RD lower on {r[0]}/{r[1]} windows)"
                )
    if not favour and not rd_wins:
        return Claim(6, CLAIMS[6], "not measurable", ["needs redirection runs and their bases"])
    parts = [_verdict(favour) if favour else "not measurable", _verdict(rd_wins) if rd_wins else "not measurable"]
    evidence.append(
        f"total stretch lowered, by a larger factor than total flow, on {sum(favour)}/{len(favour)} (trace, variant) pairs; "
        f"RD below RR on {sum(rd_wins)}/{len(rd_wins)} (trace, family) pairs"
    )
    verdict = (
        "holds"
        if parts == ["holds", "holds"]
        else ("fails" if all(p in ("fails", "not measurable") for p in parts) else "partly")
    )
    return Claim(6, CLAIMS[6], verdict, evidence)


def check_claims(results: pd.DataFrame, tuning: pd.DataFrame | None = None) -> list[Claim]:
    """Check the paper's six qualitative claims (section V) on a result table, where measurable.

    ``results``: one row per run with ``workload`` (trace names of :data:`TRACES`), ``window_index``,
    ``label`` (:data:`LABELS`) and the :data:`METRICS`; ``tuning``: the tuning runs (``policy``,
    ``param_dedicated``, ``param_tau``), for claim 1. Comparisons pair runs on the same window;
    verdicts compare means over windows (the paper reports means of per-instance values), and the
    evidence gives the per-window counts and the median per-window relative change.

    Thresholds (not from the paper, which gives figures only): "significantly worse" and "highly
    detrimental" mean a ratio of means >= :data:`SIGNIFICANT`; "most cases" means more than half.
    """
    done = finished_runs(results)
    return [_claim1(tuning), _claim2(done), _claim3(done), _claim4(done), _claim5(done), _claim6(done)]


# ---------------------------------------------------------------- figures


def bar_figure(results: pd.DataFrame, workload: str) -> bytes:
    """Figs 4-10 style: the mean over windows per policy as a dot with its 95 % CI, max / total / norm of
    stretch (top row) and of flow (bottom row), on a log scale (FCFS is often an order of magnitude above
    the rest): dots, not bars, since a bar's length on a log axis cut above 0 means nothing; means and
    intervals by :func:`schedlab.campaign.report.summarize`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from schedlab.campaign.report import summarize

    done = finished_runs(results)
    here = done[done["workload"] == workload]
    labels = [label for label in LABELS if (here["label"] == label).any()]
    stats = summarize(here, list(METRICS), order=labels)
    figure = Figure(figsize=(max(8.0, 1.6 * len(labels)), 6.0), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.subplots(2, 3)
    colours = {label: f"C{i}" for i, label in enumerate(LABELS)}
    for ax, metric in zip(axes.flat, METRICS):
        rows = stats[stats["metric"] == metric].set_index("label").reindex(labels)
        means = rows["mean"].to_numpy()
        spread = [(means - rows["ci95_low"]).fillna(0).to_numpy(), (rows["ci95_high"] - means).fillna(0).to_numpy()]
        for i, label in enumerate(labels):
            ax.errorbar(
                [i], means[i : i + 1], yerr=[spread[0][i : i + 1], spread[1][i : i + 1]],
                fmt="o", color=colours[label], capsize=3,
            )  # fmt: skip
        if (rows["ci95_low"].fillna(rows["mean"]) > 0).all():
            ax.set_yscale("log")
        ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize="small")
        kind, agg = metric.split("_")
        ax.set_title(f"{workload}: {dict(max='max', sum='total', l2='norm')[agg]} {kind}", fontsize="medium")
        ax.grid(axis="y", alpha=0.3)
    return png(figure)


def _numbers(text: str) -> tuple[float, ...]:
    """The numbers in ``text`` (``"tau=10"`` -> (10.0,)), to order series numerically."""
    import re

    return tuple(float(x) for x in re.findall(r"[-+]?\d*\.?\d+", text))


def tuning_figures(tuning: pd.DataFrame, workload: str, policy: str) -> bytes | None:
    """Fig. 3 style: total stretch and total flow against m_d, one line per tau (RD) or c (RR), means over
    windows (:func:`schedlab.campaign.report.sweep`); None without such runs."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from schedlab.campaign.report import sweep

    rows = finished_runs(tuning)
    rows = rows[(rows["workload"] == workload) & (rows["policy"] == policy)]
    if rows.empty or rows["param_dedicated"].nunique() < 2:
        return None
    figure = Figure(figsize=(10.0, 3.8), dpi=100)
    FigureCanvasAgg(figure)
    for ax, metric in zip(figure.subplots(1, 2), ("stretch_sum", "flow_sum")):
        frame = sweep(rows, metric, policy, "dedicated")
        groups = sorted(frame.groupby("series", sort=False), key=lambda item: _numbers(item[0]))
        for series, line in groups:
            ax.plot(line["value"], line["mean"], marker="o", markersize=3, label=series.replace(f"b={B_RR} ", ""))
        if (frame["mean"] > 0).all():
            ax.set_yscale("log")
        ax.set_xlabel("m_d (requested; clamped to m_inst - 1 where larger)")
        ax.set_title(f"{workload} {policy.upper()}: total {metric.split('_')[0]}", fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small", ncol=2)
    return png(figure)


# ---------------------------------------------------------------- report


def write_report(
    out,
    results: pd.DataFrame,
    tuning: pd.DataFrame | None,
    plan_: Plan,
    *,
    whole: dict[str, dict] | None = None,
    wall: float | None = None,
) -> list[Path]:
    """Write the report into ``out``: ``table1.csv``, ``metrics.csv`` (means per trace and policy),
    ``runs.csv`` (every run), ``tuning.csv`` and ``tuned.csv`` (with tuning: every tuning run, and
    :func:`tuned_table`), ``fig-<trace>.png`` (Figs 4-10 style),
    ``fig3-<trace>-<policy>.png`` (tuning), ``claims.md``, ``summary.md`` and ``summary.html``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    one = table_one(results, whole)
    metrics = metric_table(results)
    claims = check_claims(results, tuning)
    for name, frame in (("table1.csv", one), ("metrics.csv", metrics), ("runs.csv", results)):
        frame.to_csv(out / name, index=False, float_format="%.6g")
        written.append(out / name)
    tuned = tuned_table(tuning) if tuning is not None and not tuning.empty else None
    if tuning is not None and tuned is not None:
        tuning.to_csv(out / "tuning.csv", index=False, float_format="%.6g")
        tuned.to_csv(out / "tuned.csv", index=False, float_format="%.6g")
        written += [out / "tuning.csv", out / "tuned.csv"]
    figures: list[tuple[str, str]] = []
    for workload in [w for w in TRACES if (results["workload"] == w).any()]:
        name = f"fig-{workload}.png"
        (out / name).write_bytes(bar_figure(results, workload))
        figures.append((name, f"{workload}: max, total and norm of stretch and flow per policy (means over windows)"))
    if tuning is not None and not tuning.empty:
        for workload in [w for w in TRACES if (tuning["workload"] == w).any()]:
            for policy in ("spt-rd", "gspt-rd", "spt-rr", "gspt-rr"):
                png = tuning_figures(tuning, workload, policy)
                if png is not None:
                    name = f"fig3-{workload}-{policy}.png"
                    (out / name).write_bytes(png)
                    figures.append((name, f"{workload} {policy.upper()} tuning: total stretch and flow vs m_d"))
    written += [out / name for name, _ in figures]
    (out / "claims.md").write_text(
        claims_markdown(
            "Lucarelli, Mendonca and Trystram (2017): the paper's qualitative claims, checked",
            f"Means over windows, paired by window. Thresholds (ours): ratio of means >= {SIGNIFICANT} for "
            "'significantly worse' / 'highly detrimental', more than half for 'most cases'.",
            claims,
        ),
        encoding="utf-8",
    )
    written.append(out / "claims.md")

    failed = results[results["state"] != "done"] if "state" in results else results.iloc[:0]
    header = [
        "# Lucarelli, Mendonca and Trystram (2017): redirecting heavy tasks",
        "",
        f"Traces: {', '.join(plan_.traces)} ({plan_.windows} random windows each, Table I lengths "
        f"{', '.join(f'{n} {plan_.days[n]:g} d' for n in plan_.traces)}); seed {plan_.seed}; "
        f"{len(results)} runs ({len(failed)} not done){'' if tuning is None else f' and {len(tuning)} tuning runs'}"
        f"{'' if wall is None else f', {wall:.1f} s in all'}.",
        (f"Policies not registered, skipped: {', '.join(plan_.skipped)}." if plan_.skipped else ""),
        "Tasks: status 1, run time > 0, 0 < q <= m, with m the machine size of Table I (column procs_trace; "
        "not the log header's MaxProcs: Curie's says 93,312); conversion C (p = (q/Q) e on "
        + (
            "round(m/Q) processors"
            if plan_.m_mode == "formula"
            else "Table I's processor count (m_mode table1, reading LMT-A18 in docs/readings.md)"
        )
        + "); releases shifted to 0; m_d clamped to m_inst - 1 (reading LMT-A7, column dedicated_used); GSPT-RD counts "
        + (
            "every shorter arrival, even one that starts at once on an idle main processor (the literal reading, "
            "--count-if-idle)."
            if plan_.count_if_idle
            else "an arrival only when it waits, no main processor being idle (heavy tasks delay short ones, "
            "section IV-B; the literal reading counts every arrival: --count-if-idle)."
        )
        + " Stretch = F / max(p, 10 s), unclamped; totals are sums over tasks, norms L2.",
        "",
    ]
    shown_one = one[
        [
            "trace",
            "windows",
            "procs_trace",
            "paper_procs_trace",
            "tasks_inst",
            "paper_tasks_inst",
            "procs_inst",
            "paper_procs_inst",
            "days_inst",
            "paper_days_inst",
            "span_days_inst",
            "mean_Q",
            "load",
            "tasks_trace",
            "paper_tasks_trace",
            "days_trace",
            "paper_days_trace",
        ]
    ]
    means = metrics.copy()
    lines = header + ["## Table I (means over our windows; paper_* = the paper's)", ""] + markdown_table(shown_one)
    lines += ["", "## Metrics per trace and policy (means over windows)", ""] + markdown_table(means)
    tuned_caption = (
        "Table II recomputed: the best tuning grid point per trace, variant and metric (means over "
        "windows; value = tau for RD, c for RR; paper_* = the paper's Table II point, mean_at_paper = its mean here)"
    )
    if tuned is not None:
        lines += ["", "## " + tuned_caption, ""] + markdown_table(tuned)
    lines += ["", "## Claims", ""] + [f"{c.number}. {c.claim} **{c.verdict}**" for c in claims]
    lines += ["", "Details in claims.md; figures:", ""] + [f"- `{name}`: {caption}" for name, caption in figures]
    if len(failed):
        lines += ["", "## Runs not done", ""] + [
            f"- {r.workload} window {r.window_index} {r.label}: {r.error}" for r in failed.itertuples()
        ]
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(out / "summary.md")
    esc = html.escape
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>schedlab: redirecting heavy tasks (Lucarelli et al. 2017)</title>',
        "<style>body{font-family:sans-serif;margin:2em;max-width:90em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,td:nth-child(2){text-align:left}"
        "img{max-width:100%}</style></head><body>",
    ]
    page += [f"<p>{esc(line.lstrip('# '))}</p>" for line in header if line.strip()]
    page += ["<h2>Table I</h2>", html_table(shown_one), "<h2>Metrics (means over windows)</h2>", html_table(means)]
    if tuned is not None:
        page += [f"<h2>{esc(tuned_caption)}</h2>", html_table(tuned)]
    written.append(write_summary_html(out, page, claims, figures))
    return written


def _whole_trace(plan_: Plan) -> dict[str, dict]:
    from schedlab.campaign.expand import task_jobs

    out = {}
    for name in plan_.traces:
        instance, report = task_jobs(str(plan_.traces_dir / TRACES[name].file), procs=TRACES[name].table1[0])
        submit = instance.jobs.submit
        out[name] = {
            "n_jobs": len(instance.jobs),
            "procs": report.machine_procs,
            "days": float(submit.max() - submit.min()) / DAY if len(submit) else math.nan,
        }
    return out


def reproduce(out, plan_: Plan, *, jobs: int = 1, progress: Callable[[int, int, dict], None] | None = None) -> dict:
    """Write the campaigns, run them (runs stored as done are skipped, failed ones run again) and write the
    report into ``out``.

    Returns a summary: runs, failed, wall seconds, the files written, and the claims.
    """
    from schedlab.campaign.runner import run_spec_files

    out = Path(out)
    main_files, tuning_files = write_campaigns(out, plan_)
    tables, wall = run_spec_files(main_files + tuning_files, jobs=jobs, progress=progress)
    results = pd.concat(tables[: len(main_files)], ignore_index=True)
    tuning = pd.concat(tables[len(main_files) :], ignore_index=True) if tuning_files else None
    files = write_report(out, results, tuning, plan_, whole=_whole_trace(plan_), wall=wall)
    claims = check_claims(results, tuning)
    summary = {
        "experiment": "redirections",
        "seed": plan_.seed,
        "quick": plan_.quick,
        "tuning": plan_.tuning,
        "jobs": jobs,
        "m_mode": plan_.m_mode,
        "count_if_idle": plan_.count_if_idle,
        "traces": list(plan_.traces),
        "windows": plan_.windows,
        "days": plan_.days,
        "skipped_policies": list(plan_.skipped),
        "runs": int(len(results) + (0 if tuning is None else len(tuning))),
        "failed": int(
            (results["state"] != "done").sum() + (0 if tuning is None else (tuning["state"] != "done").sum())
        ),
        "wall_seconds": wall,
        "claims": {c.number: c.verdict for c in claims},
    }
    (out / "experiment.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    summary["files"] = [str(p) for p in files] + [str(out / "experiment.json")]
    return summary
