"""Mendonca (2017) ch. 5 through the campaign runner: topology-aware allocators on 7-day periods of PWA traces.

Source: Mendonca (2017), chapter 5 (instances and Table 5.2, section 5.7; Figs 5.8-5.16); the
per-platform ``levels`` are schedlab's (reading M45-10, docs/readings.md).

For each of the six platforms of Table 5.2 (Curie, HPC2N, KTH-SP2, LLNL-Thunder, RICC, SDSC-Blue), one campaign
specification (TOML, written to ``<out>/campaigns``) with a workload on the trace's fat tree
(:data:`TRACES` ``levels``, recorded in every output), ``penalty = "quadratic:2"`` (F = 2),
``instances`` random runs of the trace's Table 5.2 number of contiguous 7-day periods, and conservative
backfilling (reassignment moves a waiting job only to now: ``compress = "start-now"``, section 5.5) with the
allocators basic, becont (largest runs first, reading M45-1), beloc and beplat;
the forced cont, loc and plat only when asked (default: not with ``quick``) and only on platforms of at
most :data:`SMALL` processors by default (their reservations are slow; ``forced_max_procs`` raises the cap). All campaigns share one store
(``<out>/store``), so a re-run skips stored runs.

Instances (section 5.7): the trace is cut into 7-day periods aligned on its first submission; an instance is a
run of :attr:`TraceInfo.periods` contiguous periods (Curie 3, RICC 2, others 1), its start period drawn
uniformly without replacement while possible with the campaign's seed (the campaign runner's
``sample = "period-runs"``, :func:`schedlab.workload.windows.period_runs`; runs holding no job are never
drawn); it holds the jobs submitted in its periods, shifted to 0, size > m dropped by the platform; the trace
is otherwise unfiltered (wall times and run times kept).

Normalisation (section 5.7): per (platform, metric), ``norm = value / mean over instances of basic's value``;
a variant's bar is the mean of ``norm`` (basic = 1). :func:`normalised` computes it, :func:`check_claim`
checks "Full Locality (beplat/plat) best on sum flow, platform-level factor and success rate on most platforms".
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from schedlab.experiments.common import Claim, claims_markdown, done, toml_value
from schedlab.report.tables import html_table, markdown_table, png

__all__ = [
    "ALLOCATORS",
    "HIGHER_IS_BETTER",
    "METRICS",
    "Plan",
    "TRACES",
    "TraceInfo",
    "check_claim",
    "normalised",
    "plan",
    "reproduce",
    "write_campaigns",
    "write_report",
]

DAY = 86400.0
PERIOD_DAYS = 7.0


@dataclass(frozen=True, slots=True)
class TraceInfo:
    """One platform of Table 5.2: trace file, fat-tree ``levels`` (reading M45-10, docs/readings.md), cluster size
    ``l`` (the last switch level's nodes), the number of contiguous 7-day periods per instance, and Table
    5.2's processors and (whole-trace) jobs."""

    file: str
    levels: tuple[int, ...]
    cluster: int
    periods: int
    table_procs: int
    table_jobs: int

    @property
    def platform(self) -> str:
        return "fat-tree:" + ",".join(str(n) for n in self.levels)

    @property
    def procs(self) -> int:
        return self.levels[-1]


TRACES: dict[str, TraceInfo] = {
    "Curie": TraceInfo("CEA-Curie-2011-2.1-cln.swf.gz", (1, 2, 40, 80640), 2016, 3, 80640, 279991),
    "HPC2N": TraceInfo("HPC2N-2002-2.2-cln.swf.gz", (1, 2, 8, 240), 30, 1, 240, 201998),
    "KTH-SP2": TraceInfo("KTH-SP2-1996-2.1-cln.swf.gz", (1, 2, 10, 100), 10, 1, 100, 20483),
    "LLNL-Thunder": TraceInfo("LLNL-Thunder-2007-1.1-cln.swf.gz", (1, 2, 64, 1024), 16, 1, 1024, 97875),
    "RICC": TraceInfo("RICC-2010-2.swf.gz", (1, 2, 64, 8192), 128, 2, 8192, 431547),
    "SDSC-Blue": TraceInfo("SDSC-BLUE-2000-4.1-cln.swf.gz", (1, 2, 36, 1152), 32, 1, 1152, 195587),
}
"""The six platforms of Table 5.2 (Mendonca 2017, section 5.7), with schedlab's ``levels`` (reading M45-10)."""

QUICK = ("KTH-SP2", "HPC2N")
SMALL = 2048
"""Forced allocators (cont, loc, plat) run by default only on platforms of at most this many processors: KTH-SP2,
HPC2N, LLNL-Thunder and SDSC-Blue (the busiest week of either: under 1.2 s a run on the compiled set
profile), not RICC (its first 2-period instance: 27 to 86 s CPU a variant, a busy one over 400 s,
so hours for 30 instances) nor Curie (80,640 processors)."""
ALLOCATORS = {
    "basic": "basic",
    "becont": "becont:largest_first",
    "beloc": "beloc",
    "beplat": "beplat",
    "cont": "cont",
    "loc": "loc",
    "plat": "plat",
}
"""Result label -> ``allocator`` parameter of the conservative policy, in the thesis' order."""
BEST_EFFORT = ("basic", "becont", "beloc", "beplat")
FORCED = ("cont", "loc", "plat")
METRICS = ("sum_flow", "sum_stretch", "contiguity_factor", "locality_factor", "platform_level_factor", "success_rate")
"""Ch. 5 metrics (Mendonca 2017, section 5.7): sum flow, sum of bounded stretch (B = 10 s), the three factors and the success rate."""
HIGHER_IS_BETTER = frozenset({"success_rate"})
TITLES = {
    "sum_flow": "sum flow (Fig. 5.8)",
    "sum_stretch": "sum bounded stretch",
    "contiguity_factor": "contiguity factor (Fig. 5.13)",
    "locality_factor": "locality factor (Fig. 5.14)",
    "platform_level_factor": "platform level factor (Fig. 5.15)",
    "success_rate": "success rate (Fig. 5.16)",
}
CLAIM_METRICS = ("sum_flow", "platform_level_factor", "success_rate")
CLAIM = (
    "Full Locality (beplat, and plat where the forced variants run) is best on sum flow, platform-level factor "
    "and success rate on most platforms."
)
FULL_LOCALITY = ("beplat", "plat")
"""The thesis' "Full Locality" variants (section 5.6.4: "Full Locality" = beplat/plat)."""
TIE = 1e-9


@dataclass(frozen=True)
class Plan:
    """What to run: platforms (name -> :class:`TraceInfo`, files resolved against ``traces_dir``), instances
    per platform, the master seed, whether forced allocators run (on platforms of at most ``forced_max_procs``
    processors), and the penalty."""

    traces: dict[str, TraceInfo]
    instances: int
    seed: int
    traces_dir: Path
    quick: bool = False
    forced: bool = True
    penalty: str = "quadratic:2"
    forced_max_procs: int = SMALL

    def labels(self, name: str) -> tuple[str, ...]:
        """The allocator labels run on platform ``name``."""
        small = self.traces[name].procs <= self.forced_max_procs
        return BEST_EFFORT + (FORCED if self.forced and small else ())


def plan(
    traces_dir,
    *,
    quick: bool = False,
    seed: int = 0,
    instances: int | None = None,
    traces: list[str] | None = None,
    forced: bool | None = None,
    forced_max_procs: int = SMALL,
    infos: dict[str, TraceInfo] | None = None,
) -> Plan:
    """The experiment: every platform of :data:`TRACES` and 30 instances, or with ``quick`` 2 instances of
    KTH-SP2 and HPC2N and no forced allocators; forced allocators on platforms of at most ``forced_max_procs``
    processors (8,192 adds RICC, 80,640 Curie too). ``infos`` replaces :data:`TRACES` (tests).

    Raises
    ------
    InputError
        An unknown trace name, or a trace file missing from ``traces_dir``.
    """
    from schedlab.errors import InputError

    known = TRACES if infos is None else infos
    names = list(traces) if traces else [n for n in (QUICK if quick and infos is None else known)]
    chosen = {}
    for name in names:
        if name not in known:
            raise InputError("--trace", field="--trace", value=name, expected=f"one of {', '.join(known)}")
        if not (Path(traces_dir) / known[name].file).is_file():
            raise InputError(str(Path(traces_dir) / known[name].file), message="trace file not found (see --traces)")
        chosen[name] = known[name]
    count = instances if instances is not None else (2 if quick else 30)
    use_forced = (not quick) if forced is None else forced
    return Plan(chosen, count, seed, Path(traces_dir).resolve(), quick, use_forced, forced_max_procs=forced_max_procs)


def _campaign_text(name: str, plan_: Plan) -> str:
    info = plan_.traces[name]
    trace = (plan_.traces_dir / info.file).as_posix()
    lines = [
        f"# Mendonca (2017) ch. 5 reproduction, {name}: written by schedlab reproduce locality-ch5",
        f"# levels {list(info.levels)} (reading M45-10 in docs/readings.md), l = {info.cluster}, "
        f"{info.periods} period(s) of {PERIOD_DAYS:g} days per instance",
        f'name = "locality-ch5-{name}"',
        f"seed = {plan_.seed}",
        'store = "../store"',
        'metrics = ["bsld_mean", "wait_mean", "utilization"]',
        "",
        "[[workloads]]",
        f'name = "{name}"',
        f"trace = {json.dumps(trace)}",
        f'platform = "{info.platform}"',
        f'penalty = "{plan_.penalty}"',
        f'windows = {{ sample = "period-runs", count = {plan_.instances}, length = "{PERIOD_DAYS:g}d", '
        f"periods = {info.periods} }}",
    ]
    for label in plan_.labels(name):
        lines += [
            "",
            "[[policies]]",
            'name = "conservative"',
            f'label = "{label}"',
            f'params = {{ allocator = {toml_value(ALLOCATORS[label])}, compress = "start-now" }}',
        ]
    return "\n".join(lines) + "\n"


def write_campaigns(out, plan_: Plan) -> list[Path]:
    """Write ``<out>/campaigns/<trace>.toml``, one per platform; returns their paths."""
    folder = Path(out) / "campaigns"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in plan_.traces:
        path = folder / f"{name}.toml"
        path.write_text(_campaign_text(name, plan_), encoding="utf-8")
        paths.append(path)
    return paths


# ---------------------------------------------------------------- tables


def normalised(results: pd.DataFrame, metrics=METRICS, base: str = "basic") -> pd.DataFrame:
    """The normalisation of Mendonca (2017), section 5.7: one row per (workload, label, metric) with ``n`` (instances), ``mean`` (raw),
    ``base_mean`` (basic's mean over its instances) and ``normalised`` = mean over instances of
    ``value / base_mean`` (so basic = 1; NaN without a basic run or when its mean is 0). Finished runs only."""
    finished = done(results)
    rows = []
    order = {label: i for i, label in enumerate(ALLOCATORS)}
    for workload, here in finished.groupby("workload", sort=False):
        labels = sorted(here["label"].unique(), key=lambda label: (order.get(label, len(order)), label))
        for metric in metrics:
            if metric not in here:
                continue
            base_values = pd.to_numeric(here.loc[here["label"] == base, metric], errors="coerce").dropna()
            base_mean = float(base_values.mean()) if len(base_values) else math.nan
            for label in labels:
                values = pd.to_numeric(here.loc[here["label"] == label, metric], errors="coerce").dropna()
                usable = len(values) and math.isfinite(base_mean) and base_mean != 0.0
                norm = float((values / base_mean).mean()) if usable else math.nan
                rows.append(
                    {
                        "workload": workload,
                        "label": label,
                        "metric": metric,
                        "n": int(len(values)),
                        "mean": float(values.mean()) if len(values) else math.nan,
                        "base_mean": base_mean,
                        "normalised": norm,
                    }
                )
    frame = pd.DataFrame(rows, columns=["workload", "label", "metric", "n", "mean", "base_mean", "normalised"])
    known = {name: i for i, name in enumerate(TRACES)}
    if len(frame):
        frame["_w"] = frame["workload"].map(lambda w: known.get(w, len(known)))
        frame = frame.sort_values("_w", kind="stable").drop(columns="_w").reset_index(drop=True)
    return frame


def _wide(norm: pd.DataFrame) -> pd.DataFrame:
    """Normalised values, one row per (workload, label), one column per metric."""
    if norm.empty:
        return pd.DataFrame(columns=["workload", "label", "n"])
    wide = norm.pivot_table(
        index=["workload", "label"], columns="metric", values="normalised", sort=False, dropna=False
    ).reset_index()
    counts = norm.groupby(["workload", "label"], sort=False)["n"].max().reset_index()
    wide = wide.merge(counts, on=["workload", "label"], how="left")
    return wide[["workload", "label", "n", *[m for m in METRICS if m in wide]]]


def check_claim(norm: pd.DataFrame) -> Claim:
    """The thesis' Full Locality claim (Figs 5.8, 5.15, 5.16) on a :func:`normalised` table: per metric, the
    platforms where the better of beplat and plat (plat only where forced variants ran) has the best
    normalised value of the allocators run there (lowest, highest for success rate; ties within 1e-9 count
    as best). "Most" means more than half. Verdict: ``holds`` when all three metrics hold, ``fails`` when
    none, else ``partly``; ``not measurable`` without beplat. The evidence also counts beplat alone: best of
    all allocators, and best of the best-effort ones (the issue's literal reading)."""
    evidence = []
    held = []
    for metric in CLAIM_METRICS:
        rows = norm[(norm["metric"] == metric)].dropna(subset=["normalised"])
        platforms = [w for w, here in rows.groupby("workload", sort=False) if (here["label"] == "beplat").any()]
        if not platforms:
            continue
        higher = metric in HIGHER_IS_BETTER
        wins, alone, best_effort = [], [], []

        def is_best(value, values, higher=higher):
            return value >= max(values) - TIE if higher else value <= min(values) + TIE

        for workload in platforms:
            here = rows[rows["workload"] == workload].set_index("label")["normalised"]
            full = here[[label for label in FULL_LOCALITY if label in here.index]]
            mine = float(full.max() if higher else full.min())
            best_label = here.idxmax() if higher else here.idxmin()
            wins.append(is_best(mine, here))
            alone.append(is_best(float(here["beplat"]), here))
            best_effort.append(
                is_best(float(here["beplat"]), here[[label for label in BEST_EFFORT if label in here.index]])
            )
            evidence.append(
                f"{metric} on {workload}: beplat {float(here['beplat']):.4g}"
                + (f", plat {float(here['plat']):.4g}" if "plat" in here.index else "")
                + f", best {best_label} {float(here[best_label]):.4g} "
                f"({'Full Locality best' if wins[-1] else 'Full Locality not best'}; basic = 1)"
            )
        held.append(sum(wins) * 2 > len(platforms))
        evidence.append(
            f"{metric}: Full Locality best on {sum(wins)} of {len(platforms)} platform(s); beplat alone "
            f"best on {sum(alone)}, best of the best-effort variants on {sum(best_effort)}"
        )
    if not held:
        verdict = "not measurable"
    elif all(held):
        verdict = "holds"
    elif any(held):
        verdict = "partly"
    else:
        verdict = "fails"
    return Claim(1, CLAIM, verdict, evidence)


# ---------------------------------------------------------------- figures


def bar_figure(norm: pd.DataFrame, metric: str) -> bytes:
    """Figs 5.8, 5.13-5.16 style: normalised means per platform (groups) and allocator (bars), basic = 1."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = norm[norm["metric"] == metric]
    platforms = list(dict.fromkeys(rows["workload"]))
    labels = [label for label in ALLOCATORS if (rows["label"] == label).any()]
    figure = Figure(figsize=(max(6.0, 1.4 * len(platforms) + 2), 4.0), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    width = 0.8 / max(len(labels), 1)
    for i, label in enumerate(labels):
        values = [rows[(rows["workload"] == w) & (rows["label"] == label)]["normalised"] for w in platforms]
        heights = [float(v.iloc[0]) if len(v) else math.nan for v in values]
        ax.bar(
            [p + (i - (len(labels) - 1) / 2) * width for p in range(len(platforms))],
            heights,
            width,
            label=label,
            color=f"C{list(ALLOCATORS).index(label)}",
        )
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(platforms)), platforms)
    ax.set_ylabel("normalised to basic's mean")
    ax.set_title(TITLES.get(metric, metric), fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", ncol=min(len(labels), 4))
    return png(figure)


# ---------------------------------------------------------------- report


def _setup(plan_: Plan) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "platform": name,
                "levels": str(list(info.levels)),
                "l": info.cluster,
                "procs": info.procs,
                "periods": info.periods,
                "trace": info.file,
                "paper_jobs_trace": info.table_jobs,
                "allocators": ", ".join(plan_.labels(name)),
            }
            for name, info in plan_.traces.items()
        ]
    )


def write_report(out, results: pd.DataFrame, plan_: Plan, *, wall: float | None = None) -> tuple[list[Path], Claim]:
    """Write ``metrics.csv`` (long: raw and normalised means per platform, allocator and metric),
    ``runs.csv``, ``platforms.csv`` (the ``levels`` used), ``fig-<metric>.png``, ``claims.md``, ``summary.md``
    and ``summary.html`` into ``out``. Returns the files and the claim."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    norm = normalised(results)
    wide = _wide(norm)
    setup = _setup(plan_)
    claim = check_claim(norm)
    written = []
    for name, frame in (("metrics.csv", norm), ("runs.csv", results), ("platforms.csv", setup)):
        frame.to_csv(out / name, index=False, float_format="%.6g")
        written.append(out / name)
    figures = []
    for metric in METRICS:
        if (norm["metric"] == metric).any():
            name = f"fig-{metric}.png"
            (out / name).write_bytes(bar_figure(norm, metric))
            figures.append((name, f"{TITLES[metric]}, normalised to basic"))
    written += [out / name for name, _ in figures]
    (out / "claims.md").write_text(
        claims_markdown(
            "Mendonca (2017), ch. 5: the thesis' claim, checked",
            "Normalised values (mean over instances of value / basic's mean); lower is better except the "
            "success rate; 'most' = more than half of the platforms.",
            [claim],
        ),
        encoding="utf-8",
    )
    written.append(out / "claims.md")
    failed = results[results["state"] != "done"] if "state" in results else results.iloc[:0]
    header = [
        "# Mendonca (2017) ch. 5: topology-aware allocation with conservative backfilling",
        "",
        f"Platforms: {', '.join(plan_.traces)}; {plan_.instances} instance(s) each (random runs of the Table 5.2 "
        f"number of contiguous {PERIOD_DAYS:g}-day periods, aligned on the first submission); seed {plan_.seed}; "
        f"penalty {plan_.penalty}; "
        f"{len(results)} runs ({len(failed)} not done){'' if wall is None else f' in {wall:.1f} s'}.",
        "Forced allocators: "
        + (f"on platforms of at most {plan_.forced_max_procs} processors." if plan_.forced else "not run.")
        + " becont = largest runs first (reading M45-1, docs/readings.md).",
        "Values: mean over instances of value / basic's mean (basic = 1); lower is better except the success rate. "
        "Fat-tree levels are schedlab's choice (reading M45-10, docs/readings.md), listed below.",
        "",
    ]
    lines = header + ["## Platforms", ""] + markdown_table(setup)
    lines += ["", "## Normalised metrics per platform and allocator", ""] + markdown_table(wide)
    lines += ["", "## Claim", "", f"{claim.claim} **{claim.verdict}** (details in claims.md)", "", "Figures:", ""]
    lines += [f"- `{name}`: {caption}" for name, caption in figures]
    if len(failed):
        lines += ["", "## Runs not done", ""] + [
            f"- {r.workload} window {r.window_index} {r.label}: {r.error}" for r in failed.itertuples()
        ]
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(out / "summary.md")
    esc = html.escape
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>schedlab: Mendonca (2017) ch. 5 locality</title>',
        "<style>body{font-family:sans-serif;margin:2em;max-width:90em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,td:nth-child(2){text-align:left}"
        "img{max-width:100%}</style></head><body>",
    ]
    page += [f"<p>{esc(line.lstrip('# '))}</p>" for line in header if line.strip()]
    page += [
        "<h2>Platforms</h2>",
        html_table(setup),
        "<h2>Normalised metrics (basic = 1)</h2>",
        html_table(wide),
        f"<h2>Claim</h2><h3>{esc(claim.claim)} <em>{esc(claim.verdict)}</em></h3><ul>"
        + "".join(f"<li>{esc(line)}</li>" for line in claim.evidence)
        + "</ul>",
    ]
    for name, caption in figures:
        page.append(f'<h2>{esc(caption)}</h2><img src="{esc(name)}" alt="{esc(caption)}">')
    page.append("</body></html>")
    (out / "summary.html").write_text("\n".join(page) + "\n", encoding="utf-8")
    written.append(out / "summary.html")
    return written, claim


def reproduce(out, plan_: Plan, *, jobs: int = 1, progress: Callable[[int, int, dict], None] | None = None) -> dict:
    """Write the campaigns, run them (stored runs are skipped, failed ones run again) and write the report.

    Returns a summary: runs, failed, wall seconds, the claim's verdict and the files written.
    """
    from schedlab.campaign.runner import run_spec_files

    out = Path(out)
    tables, wall = run_spec_files(write_campaigns(out, plan_), jobs=jobs, progress=progress)
    results = pd.concat(tables, ignore_index=True)
    files, claim = write_report(out, results, plan_, wall=wall)
    summary = {
        "experiment": "locality-ch5",
        "seed": plan_.seed,
        "quick": plan_.quick,
        "jobs": jobs,
        "penalty": plan_.penalty,
        "instances": plan_.instances,
        "forced_max_procs": plan_.forced_max_procs if plan_.forced else None,
        "platforms": {
            name: {
                "levels": list(info.levels),
                "l": info.cluster,
                "periods": info.periods,
                "trace": info.file,
                "allocators": list(plan_.labels(name)),
            }
            for name, info in plan_.traces.items()
        },
        "runs": int(len(results)),
        "failed": int((results["state"] != "done").sum()) if "state" in results else 0,
        "wall_seconds": wall,
        "claim": claim.verdict,
    }
    (out / "experiment.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    summary["files"] = [str(p) for p in files] + [str(out / "experiment.json")]
    return summary
