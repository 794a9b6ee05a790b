"""How long do ``campaign status`` and ``campaign report`` take on a 25,000-run store? Prints a Markdown table.

The store: a synthetic trace (one job an hour for 220 days, 64 processors), a campaign of 5,000 one-hour
periods x 5 policies = 25,000 runs, and one synthetic row per run (random metrics, 1 % failed), written
with :meth:`schedlab.campaign.Store.write` as ``campaign run`` writes them: one Parquet file per run.
Each command runs in its own Python process (start-up and imports included, as a user sees it), first
on the one-file-per-run layout, then after :meth:`~schedlab.campaign.Store.compact` (what ``campaign run``
does every 200 runs and when it stops), and with 199 newer one-row files (a campaign
between two compactions). With ``PYTHONPATH`` pointing at an older checkout's ``src``, the
same script times that version (its store has no compaction: the second line is skipped).

    python benchmarks/bench_store.py --runs 25000
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

POLICIES = ("fcfs", "easy", "conservative", "easy-sjf", "conservative-sjf")
SPEC = """
    name = "bench-store"
    seed = 1
    metrics = ["bsld_mean", "wait_mean", "utilization"]

    [[workloads]]
    name = "synthetic"
    trace = "trace.swf"
    windows = {{ sample = "periods", length = "1h", count = {periods} }}

    [[policies]]
    name = "fcfs"
    [[policies]]
    name = "easy"
    [[policies]]
    name = "conservative"
    [[policies]]
    name = "easy"
    label = "easy-sjf"
    params = {{ order = "sjf" }}
    [[policies]]
    name = "conservative"
    label = "conservative-sjf"
    params = {{ order = "sjf" }}
"""


def build(folder: Path, runs: int) -> tuple[Path, list[dict]]:
    """Write the trace, the spec and one synthetic row per run; return the spec's path and the rows."""
    from schedlab.campaign import Store, expand, load_campaign, metric_names
    from schedlab.workload.jobs import JobTable
    from schedlab.workload.swf import write_swf

    periods = -(-runs // len(POLICIES))
    hours = periods + 24
    submit = np.arange(hours, dtype=np.float64) * 3600.0
    jobs = JobTable.from_arrays(
        submit=submit, run_time=np.full(hours, 600.0), requested_time=np.full(hours, 900.0), procs=np.full(hours, 4)
    )
    write_swf(folder / "trace.swf", jobs, {"MaxProcs": 64})
    spec = folder / "bench.toml"
    spec.write_text(textwrap.dedent(SPEC.format(periods=periods)), encoding="utf-8")
    campaign = load_campaign(spec, store=folder / "store")
    store = Store(campaign.store)
    rng = np.random.default_rng(0)
    names = metric_names()
    rows = []
    for config in expand(campaign)[:runs]:
        failed = rng.random() < 0.01
        row = {
            "run_id": config.run_id,
            "campaign": config.campaign,
            "workload": config.workload,
            "label": config.label,
            "policy": config.policy,
            "window_index": config.window_index,
            "state": "failed" if failed else "done",
            "error": "RuntimeError: synthetic failure" if failed else None,
            **{f"param_{k}": str(v) for k, v in config.params},
        }
        if not failed:
            row.update(
                {
                    name: int(rng.integers(1, 100)) if name.startswith("n_") else float(rng.random() * 10)
                    for name in names
                }
            )
        store.write(row)
        rows.append(row)
    return spec, rows


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``schedlab COMMAND`` in a fresh Python process (fails loudly)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "from schedlab.cli import app; app()", *command], check=True, capture_output=True
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25_000, help="runs in the synthetic store (default 25,000)")
    parser.add_argument(
        "--skip-loose", action="store_true", help="do not time the one-file-per-run layout (minutes at 25,000)"
    )
    args = parser.parse_args()
    from schedlab import __version__
    from schedlab.campaign import Store

    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        folder = Path(tmp)
        store = Store(folder / "store")
        began = time.perf_counter()
        spec, rows = build(folder, args.runs)
        print(f"schedlab {__version__}: {args.runs:,} runs written in {time.perf_counter() - began:.0f} s\n")
        print("| store layout | campaign status: wall s (CPU s) | campaign report: wall s (CPU s) |")
        print("|---|---:|---:|")
        layouts = [] if args.skip_loose else ["one file per run"]
        if hasattr(Store, "compact"):
            layouts += ["compacted", "compacted + 199 newer one-row files"]
        for layout in layouts:
            if layout == "compacted":
                began = time.perf_counter()
                store.compact()
                compacting = time.perf_counter() - began
            if layout.startswith("compacted +"):
                for row in rows[:199]:  # retried runs, not yet compacted: a campaign between two compactions
                    store.write(row)
            status = timed(["campaign", "status", str(spec), "--store", str(store.path)])
            report = timed(
                ["campaign", "report", str(spec), "--store", str(store.path), "--out", str(folder / "r"), "--force"]
            )
            print(f"| {layout} | {status[0]:.2f} ({status[1]:.2f}) | {report[0]:.2f} ({report[1]:.2f}) |", flush=True)
        if "compacted" in layouts:
            print(
                f"\nCompacting the {args.runs:,} one-row files (once, for a store of an earlier version): {compacting:.0f} s."
            )
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; each command in a fresh Python process.")


if __name__ == "__main__":
    main()
