"""Seed 000 chapter 4's experiment: offline conservative backfilling of 300-job Curie samples on m = 512.

Source: seed 000 ch.4 section 4.6-4.7; spec 000-ch4-5 sections 5.1 (instances)
and 6 (headline results). Each instance draws ``size`` jobs of at most ``m``
processors from the trace, uniformly without replacement (spec default;
``with_replacement`` as option, the reference code's; ``block``: ``size``
consecutive jobs from a random start, section 1.2.3's "subsets of jobs taken
from random starting points"), keeps the draw order as queue order and sets
every release to 0; every allocator then schedules it with conservative
backfilling on ``clusters:m,l`` (one root over clusters of ``l``), without
penalty. Measured per run: makespan, contiguous jobs, local jobs
(``K_j = K*_j``) and the locality ratio; per allocator: the makespan deviation
from basic on the same instance.

The runs are independent offline solves, so they go through a process pool
(``jobs``) rather than the campaign store; results do not depend on ``jobs``.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.errors import InputError
from schedlab.workload.jobs import JobTable

ALLOCATORS = ("basic", "becont", "cont", "beloc", "loc")
"""The chapter 4 variants (beplat and plat belong to chapter 5)."""


@dataclass(frozen=True)
class Plan:
    trace: str
    n_procs: int = 512
    cluster: int = 16
    size: int = 300
    instances: int = 512
    seed: int = 0
    with_replacement: bool = False
    block: bool = False
    allocators: tuple[str, ...] = ALLOCATORS

    @property
    def platform(self) -> str:
        return f"clusters:{self.n_procs},{self.cluster}"


def sample(jobs: JobTable, plan: Plan, index: int) -> JobTable:
    """Instance ``index``: ``plan.size`` jobs drawn with ``default_rng([seed, index])`` (one by one, or with
    ``plan.block`` as one run of consecutive jobs of the trace), releases 0, ids in draw order."""
    rng = np.random.default_rng([plan.seed, index])
    if plan.block:
        first = int(rng.integers(0, len(jobs) - plan.size + 1))
        rows = np.arange(first, first + plan.size)
    else:
        rows = rng.choice(len(jobs), size=plan.size, replace=plan.with_replacement)
    picked = jobs.take(rows)
    return JobTable.from_arrays(
        submit=np.zeros(plan.size),
        run_time=picked.run_time,
        requested_time=picked.requested_time,
        procs=picked.procs,
        id=np.arange(1, plan.size + 1),
        source=jobs.source,
    )


def run_instance(args: tuple[JobTable, Plan, int]) -> list[dict]:
    """Every allocator of ``plan`` on instance ``index``; one row each."""
    from schedlab.engine import simulate
    from schedlab.metrics import topology_metrics
    from schedlab.platform.registry import parse_platform
    from schedlab.registry import make_policy
    from schedlab.schedule import Instance
    from schedlab.validation import validate

    jobs, plan, index = args
    instance = Instance(sample(jobs, plan, index), parse_platform(plan.platform))
    rows = []
    for allocator in plan.allocators:
        schedule = simulate(instance, make_policy("conservative", {"allocator": allocator}))
        validate(instance, schedule)
        topo = topology_metrics(instance, schedule)
        rows.append(
            {
                "instance": index,
                "allocator": allocator,
                "makespan": float(np.max(schedule.end)),
                "contiguous": topo["n_contiguous"] / plan.size,
                "local": topo["n_local"] / plan.size,
                "locality_ratio": topo["locality_ratio"],
            }
        )
    return rows


def run_plan(plan: Plan, *, jobs: int = 1) -> pd.DataFrame:
    """All instances of ``plan``, with each run's deviation from basic's makespan on the same instance."""
    from schedlab.workload.filters import to_jobs
    from schedlab.workload.swf import read_swf

    table, _ = to_jobs(read_swf(plan.trace), procs=plan.n_procs)
    if plan.block and plan.with_replacement:
        raise InputError("--block", message="a block of consecutive jobs cannot be drawn with replacement")
    if len(table) < plan.size and not plan.with_replacement:
        raise InputError(
            plan.trace, message=f"{len(table)} jobs of at most {plan.n_procs} processors, fewer than {plan.size}"
        )
    work = [(table, plan, i) for i in range(plan.instances)]
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            chunks = list(pool.map(run_instance, work, chunksize=4))
    else:
        chunks = [run_instance(w) for w in work]
    frame = pd.DataFrame([row for chunk in chunks for row in chunk])
    basic = frame[frame["allocator"] == "basic"].set_index("instance")["makespan"]
    frame["deviation"] = frame["makespan"] / frame["instance"].map(basic) - 1.0
    return frame


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Per allocator: mean deviation from basic, share of instances within 2 % of basic, mean contiguous and
    local shares, mean locality ratio (seed 000 ch.4 figures 4.7-4.12)."""
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


def claims(summary: pd.DataFrame) -> list[tuple[str, str, str]]:
    """The thesis's chapter 4 findings, each (claim, verdict, numbers)."""
    out = []
    others = [a for a in summary.index if a not in ("basic", "cont")]
    within = {a: summary.loc[a, "within_2pct"] for a in others}
    out.append(
        (
            "all but forced contiguous: > 99.6 % of instances within 2 % of basic's makespan",
            "holds" if all(v > 0.996 for v in within.values()) else "fails",
            ", ".join(f"{a} {v:.1%}" for a, v in within.items()),
        )
    )
    if "becont" in summary.index:
        dev = summary.loc["becont", "mean_deviation"]
        out.append(
            ("becont's mean makespan within 0.1 % of basic's", "holds" if abs(dev) < 0.001 else "fails", f"{dev:+.3%}")
        )
    if "cont" in summary.index:
        dev = summary.loc["cont", "mean_deviation"]
        out.append(
            ("cont's mean makespan within 2 % of basic's", "holds" if abs(dev) < 0.02 else "fails", f"{dev:+.3%}")
        )
    if "beloc" in summary.index:
        local = summary.loc["beloc", "local"]
        best = summary["local"].drop(labels=[a for a in ("loc",) if a in summary.index]).idxmax()
        out.append(
            (
                "beloc makes about 90 % of jobs local, the most of the non-forced variants",
                "holds"
                if local >= 0.85 and best == "beloc"
                else "partly"
                if local >= 0.85 or best == "beloc"
                else "fails",
                f"beloc {local:.1%}, best {best}",
            )
        )
    return out


def write_report(out, frame: pd.DataFrame, plan: Plan, *, wall: float) -> list[Path]:
    """``runs.csv``, ``summary.csv``, ``summary.md``, ``claims.md`` and ``fig-makespan.png`` (basic vs each variant)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(frame)
    frame.to_csv(out / "runs.csv", index=False, float_format="%.10g")
    summary.to_csv(out / "summary.csv", float_format="%.10g")
    lines = [
        f"# Seed 000 ch.4: {plan.instances} instances of {plan.size} jobs, {plan.platform}, seed {plan.seed}",
        "",
        f"Trace `{os.path.basename(plan.trace)}`, wall {wall:.1f} s.",
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
    (out / "claims.md").write_text("".join(f"- {c}: **{v}** ({n})\n" for c, v, n in claims(summary)), encoding="utf-8")
    basic = frame[frame["allocator"] == "basic"].set_index("instance")["makespan"]
    fig, ax = plt.subplots(figsize=(6, 6), constrained_layout=True)
    for allocator in [a for a in plan.allocators if a != "basic"]:
        part = frame[frame["allocator"] == allocator]
        ax.scatter(part["instance"].map(basic), part["makespan"], s=8, label=allocator)
    low, high = float(frame["makespan"].min()), float(frame["makespan"].max())
    ax.plot([low, high], [low, high], color="black", linewidth=0.8)
    ax.set_xlabel("basic makespan (s)")
    ax.set_ylabel("variant makespan (s)")
    ax.legend()
    fig.savefig(out / "fig-makespan.png", dpi=110)
    plt.close(fig)
    (out / "experiment.json").write_text(
        json.dumps(
            {**plan.__dict__, "platform": plan.platform, "wall_seconds": wall}, indent=2, sort_keys=True, default=list
        )
        + "\n",
        encoding="utf-8",
    )
    return [out / name for name in ("runs.csv", "summary.csv", "summary.md", "claims.md", "fig-makespan.png")]


__all__ = ["ALLOCATORS", "Plan", "claims", "run_instance", "run_plan", "sample", "summarize", "write_report"]
