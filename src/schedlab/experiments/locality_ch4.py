"""Mendonca (2017), chapter 4's experiment: conservative backfilling of 300-job Curie samples on m = 512.

Source: Mendonca (2017), ch. 4 sections 4.6-4.7 (Figs. 4.7-4.12). The trace
is, by default, the cleaned Curie extract the thesis's own code read
(:data:`THESIS_TRACE`: 29,524 jobs of the Curie log with run time > 0 and
allocated = requested processors); the Parallel Workloads Archive's log
(:data:`STANDARD_TRACE`) is the option. Reservations are exact (the thesis
considers only real execution times, section 4.6: each job reserves its run
time), and every variant, ``basic`` and the best-effort ones included, reserves
processor sets (Algorithm 1 for every variant); ``exact=False`` and
``profile="counts"`` give the earlier settings (requested times; counts with
processors chosen at the start, which makes basic, becont and beloc share
their makespans by construction). Each instance draws ``size`` jobs of at most ``m`` processors from the trace,
uniformly without replacement (``with_replacement`` as option, the reference
code's; ``block``: ``size`` consecutive jobs from a random start, section
1.2.3's "subsets of jobs taken from random starting points"), keeps the draw
order as queue order and releases every job at 0; every allocator then
schedules it with conservative backfilling on ``clusters:m,l`` (one root over
clusters of ``l``), without penalty. Measured per run: makespan, contiguous
jobs, local jobs (``K_j = K*_j``) and the locality ratio; per allocator: the
makespan deviation from basic on the same instance.

The runs go through the campaign runner (job samples are a campaign workload
option), so they are stored, resumable and spread over ``jobs`` processes;
the results do not depend on ``jobs``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.experiments.common import (
    Claim,
    claims_markdown,
    done,
    run_campaigns,
    toml_value,
    write_campaigns,
    write_json,
)
from schedlab.report.figures import pyplot

__all__ = ["ALLOCATORS", "Plan", "campaign_text", "claims", "reproduce", "results_frame", "summarize", "write_report"]

ALLOCATORS = ("basic", "becont", "cont", "beloc", "loc")
"""The chapter 4 variants (beplat and plat belong to chapter 5)."""
THESIS_TRACE = "CEA-Curie-2011-2.1-cln-b1-clean2.swf.gz"
"""The cleaned Curie extract the thesis's ch. 4 code read (the default trace)."""
STANDARD_TRACE = "CEA-Curie-2011-2.1-cln.swf.gz"
"""The Parallel Workloads Archive's Curie log (the option)."""


@dataclass(frozen=True)
class Plan:
    """The experiment's settings: trace, machine, sample size and count, seed, sampling, allocators,
    reservations (``exact``: real run times; else requested times) and profile (``sets`` or ``counts``)."""

    trace: str
    n_procs: int = 512
    cluster: int = 16
    size: int = 300
    instances: int = 512
    seed: int = 0
    with_replacement: bool = False
    block: bool = False
    allocators: tuple[str, ...] = ALLOCATORS
    exact: bool = True
    profile: str = "sets"

    @property
    def platform(self) -> str:
        return f"clusters:{self.n_procs},{self.cluster}"


def campaign_text(plan: Plan) -> str:
    """The campaign spec: one workload of ``instances`` job samples, conservative with each allocator."""
    lines = [
        "# Mendonca (2017), ch. 4: conservative backfilling of job samples released at 0, one run per allocator.",
        'name = "locality-ch4"',
        f"seed = {plan.seed}",
        "validate = true",
        'store = "../store"',
        'metrics = ["makespan"]',
        "",
        "[[workloads]]",
        'name = "ch4"',
        f"trace = {toml_value(Path(plan.trace).resolve().as_posix())}",
        f'platform = "{plan.platform}"',
        f"samples = {{ count = {plan.instances}, jobs = {plan.size}, "
        f"replacement = {str(plan.with_replacement).lower()}, block = {str(plan.block).lower()} }}",
    ]
    estimate = "exact" if plan.exact else "requested"
    for allocator in plan.allocators:
        lines += [
            "",
            "[[policies]]",
            'name = "conservative"',
            f'label = "{allocator}"',
            f'params = {{ allocator = "{allocator}", profile = "{plan.profile}", estimate = "{estimate}" }}',
        ]
    return "\n".join(lines) + "\n"


def results_frame(results: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """One row per (instance, allocator), in that order: makespan, contiguous and local shares, locality ratio,
    and the deviation from basic's makespan on the same instance."""
    finished = done(results)
    order = {label: i for i, label in enumerate(plan.allocators)}
    frame = pd.DataFrame(
        {
            "instance": finished["window_index"].astype(np.int64),
            "allocator": finished["label"],
            "makespan": finished["makespan"].astype(np.float64),
            "contiguous": finished["n_contiguous"] / plan.size,
            "local": finished["n_local"] / plan.size,
            "locality_ratio": finished["locality_ratio"].astype(np.float64),
        }
    )
    frame = (
        frame.assign(_order=frame["allocator"].map(order)).sort_values(["instance", "_order"]).drop(columns="_order")
    )
    basic = frame[frame["allocator"] == "basic"].set_index("instance")["makespan"]
    frame["deviation"] = frame["makespan"] / frame["instance"].map(basic) - 1.0
    return frame.reset_index(drop=True)


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Per allocator: mean deviation from basic, share of instances within 2 % of basic, mean contiguous and
    local shares, mean locality ratio (Mendonca 2017, Figs. 4.7-4.12)."""
    grouped = frame.groupby("allocator", sort=False)
    return pd.DataFrame(
        {
            "instances": grouped.size(),
            "mean_deviation": grouped["deviation"].mean(),
            "within_2pct": grouped["deviation"].apply(lambda d: float(np.mean(np.abs(d) < 0.02))),
            "contiguous": grouped["contiguous"].mean(),
            "local": grouped["local"].mean(),
            "locality_ratio": grouped["locality_ratio"].mean(),
        }
    )


def claims(summary: pd.DataFrame) -> list[Claim]:
    """The thesis's chapter 4 findings, each with its verdict and numbers."""
    out = []
    others = [a for a in summary.index if a not in ("basic", "cont")]
    within = {a: summary.loc[a, "within_2pct"] for a in others}
    out.append(
        Claim(
            1,
            "all but forced contiguous: > 99.6 % of instances within 2 % of basic's makespan",
            "holds" if all(v > 0.996 for v in within.values()) else "fails",
            [", ".join(f"{a} {v:.1%}" for a, v in within.items())],
        )
    )
    if "becont" in summary.index:
        dev = summary.loc["becont", "mean_deviation"]
        out.append(
            Claim(
                2,
                "becont's mean makespan within 0.1 % of basic's",
                "holds" if abs(dev) < 0.001 else "fails",
                [f"{dev:+.3%}"],
            )
        )
    if "cont" in summary.index:
        dev = summary.loc["cont", "mean_deviation"]
        out.append(
            Claim(
                3,
                "cont's mean makespan within 2 % of basic's",
                "holds" if abs(dev) < 0.02 else "fails",
                [f"{dev:+.3%}"],
            )
        )
    if "beloc" in summary.index:
        local = summary.loc["beloc", "local"]
        best = summary["local"].drop(labels=[a for a in ("loc",) if a in summary.index]).idxmax()
        verdict = (
            "holds" if local >= 0.85 and best == "beloc" else "partly" if local >= 0.85 or best == "beloc" else "fails"
        )
        out.append(
            Claim(
                4,
                "beloc makes about 90 % of jobs local, the most of the non-forced variants",
                verdict,
                [f"beloc {local:.1%}, best {best}"],
            )
        )
    order = [a for a in ("beloc", "cont", "becont", "basic") if a in summary.index]
    if len(order) == 4:
        ratio = summary.loc[order, "locality_ratio"]
        pairs = [ratio.iloc[i] < ratio.iloc[i + 1] for i in range(3)]
        out.append(
            Claim(
                5,
                "Fig. 4.12: locality ratio beloc best, then cont, then becont slightly ahead of basic",
                "holds" if all(pairs) else "partly" if any(pairs) else "fails",
                [", ".join(f"{a} {ratio[a]:.3f}" for a in order)],
            )
        )
    if {"basic", "becont", "cont"} <= set(summary.index):
        local = summary["local"]
        worse, better = local["becont"] < local["basic"], local["cont"] > local["basic"]
        out.append(
            Claim(
                6,
                "Fig. 4.11: becont makes fewer jobs local than basic, cont more",
                "holds" if worse and better else "partly" if worse or better else "fails",
                [f"basic {local['basic']:.1%}, becont {local['becont']:.1%}, cont {local['cont']:.1%}"],
            )
        )
    return out


def write_report(out, frame: pd.DataFrame, plan: Plan, *, wall: float) -> list[Path]:
    """``runs.csv``, ``summary.csv``, ``summary.md``, ``claims.md`` and ``fig-makespan.png`` (basic vs each variant)."""
    plt = pyplot()

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(frame)
    frame.to_csv(out / "runs.csv", index=False, float_format="%.10g")
    summary.to_csv(out / "summary.csv", float_format="%.10g")
    sampling = (
        "consecutive jobs from a random start"
        if plan.block
        else "uniform draws " + ("with" if plan.with_replacement else "without") + " replacement"
    )
    lines = [
        f"# Mendonca (2017), ch. 4: {plan.instances} instances of {plan.size} jobs, {plan.platform}, seed {plan.seed}",
        "",
        f"Trace read: `{os.path.basename(plan.trace)}`"
        + (
            " (the cleaned Curie extract of the thesis's own code)"
            if os.path.basename(plan.trace) == THESIS_TRACE
            else ""
        )
        + f"; {sampling}; reservations "
        + ("exact (real run times)" if plan.exact else "of the requested times")
        + "; "
        + (
            "every variant reserves processor sets (Algorithm 1)"
            if plan.profile == "sets"
            else "basic and best-effort variants reserve processor counts (processors chosen at the start)"
        )
        + f"; wall {wall:.1f} s.",
        "",
        "| allocator | mean deviation | within 2 % | contiguous | local | locality ratio |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for allocator, r in summary.iterrows():
        lines.append(
            f"| {allocator} | {r['mean_deviation']:+.3%} | {r['within_2pct']:.1%} | {r['contiguous']:.1%} | "
            f"{r['local']:.1%} | {r['locality_ratio']:.3f} |"
        )
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "claims.md").write_text(
        claims_markdown(
            "Mendonca (2017), ch. 4: the thesis's findings, checked",
            "Deviation = makespan / basic's makespan on the same instance - 1.",
            claims(summary),
        ),
        encoding="utf-8",
    )
    basic = frame[frame["allocator"] == "basic"].set_index("instance")["makespan"]
    fig, ax = plt.subplots(figsize=(6, 6), constrained_layout=True)
    for allocator in [a for a in plan.allocators if a != "basic"]:
        part = frame[frame["allocator"] == allocator]
        ax.scatter(part["instance"].map(basic), part["makespan"], s=8, label=allocator)
    low, high = float(frame["makespan"].min()), float(frame["makespan"].max())
    ax.plot([low, high], [low, high], color="black", linewidth=0.8)
    ax.set_xlabel("basic makespan (s)")
    ax.set_ylabel("variant makespan (s)")
    ax.set_title(f"Makespan of each allocator against basic ({plan.instances} instances)")
    ax.legend()
    fig.savefig(out / "fig-makespan.png", dpi=110)
    plt.close(fig)
    write_json(out / "experiment.json", {**asdict(plan), "platform": plan.platform, "wall_seconds": wall})
    return [out / name for name in ("runs.csv", "summary.csv", "summary.md", "claims.md", "fig-makespan.png")]


def reproduce(
    out, plan: Plan, *, jobs: int = 1, progress: Callable[[int, int, dict], None] | None = None
) -> tuple[pd.DataFrame, list[Path]]:
    """Write and run the campaign under ``out`` (store in ``out/store``), then the report; return the runs and files."""
    (results,), wall = run_campaigns(
        write_campaigns(Path(out), {"locality-ch4": campaign_text(plan)}), jobs=jobs, progress=progress
    )
    frame = results_frame(results, plan)
    return frame, write_report(out, frame, plan, wall=wall)
