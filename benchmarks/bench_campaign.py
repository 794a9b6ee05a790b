"""How much faster does a campaign finish with more local worker processes? Prints a Markdown table.

The campaign: 50 random 7-day windows of HPC2N x {fcfs, easy, conservative, easy order=sjf} = 200 runs
(validation on), run with ``--jobs 1`` (in the calling process) and ``--jobs 2`` (a process pool), each
into a fresh temporary store and in its own Python process, so no trace cache is shared. Wall time is
``run_campaign`` from start to the last stored row, window drawing and trace reading included; "run s"
is the sum of the runs' own ``wall_seconds`` (the work itself). Both stores must hold the same metrics.

    python benchmarks/bench_campaign.py --traces ../shared/traces --windows 50 --workers 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

SPEC = """
    name = "bench-campaign"
    seed = {seed}
    metrics = ["bsld_mean", "wait_mean", "utilization"]

    [[workloads]]
    name = "HPC2N"
    trace = "{trace}"
    windows = {{ sample = "random", count = {windows}, length = "7d" }}

    [[policies]]
    name = "fcfs"

    [[policies]]
    name = "easy"

    [[policies]]
    name = "conservative"

    [[policies]]
    name = "easy"
    params = {{ order = "sjf" }}
"""


def one(trace: str, windows: int, seed: int, workers: int) -> dict:
    """Run the campaign once with ``workers`` processes into a temporary store; timings and metrics."""
    from schedlab.campaign import campaign_results, load_campaign, run_campaign

    with tempfile.TemporaryDirectory(prefix="bench-campaign-") as tmp:
        spec = Path(tmp) / "bench.toml"
        spec.write_text(
            textwrap.dedent(SPEC.format(seed=seed, trace=Path(trace).resolve(), windows=windows)), encoding="utf-8"
        )
        campaign = load_campaign(spec, store=Path(tmp) / "store")
        began = time.perf_counter()
        outcome = run_campaign(campaign, jobs=workers)
        wall = time.perf_counter() - began
        table = campaign_results(campaign).to_pandas().sort_values("run_id")
    return {
        "workers": workers,
        "runs": outcome.total,
        "failed": len(outcome.failed),
        "wall": wall,
        "run_seconds": float(table["wall_seconds"].sum()),
        "jobs": int(table["window_jobs"].sum()),
        "metrics": table[["run_id", "bsld_mean", "wait_mean", "utilization"]].round(12).values.tolist(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", default=os.path.join("..", "shared", "traces"))
    parser.add_argument("--windows", type=int, default=50, help="random 7-day windows (runs = 4 x windows)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--one", type=int, metavar="WORKERS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    trace = os.path.join(args.traces, "HPC2N-2002-2.2-cln.swf.gz")
    if args.one is not None:
        print(json.dumps(one(trace, args.windows, args.seed, args.one)))
        return
    results = []
    for workers in args.workers:
        command = [
            sys.executable,
            __file__,
            "--traces",
            args.traces,
            "--windows",
            str(args.windows),
            "--seed",
            str(args.seed),
            "--one",
            str(workers),
        ]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    same = all(result["metrics"] == results[0]["metrics"] for result in results)
    base = results[0]["wall"]
    print(f"HPC2N-2002-2.2, {args.windows} random 7-day windows x 4 policies, validation on, {os.cpu_count()} cores\n")
    print("| workers | runs | failed | jobs simulated | wall s | runs/s | run s (sum) | speed-up |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|")
    for result in results:
        print(
            f"| {result['workers']} | {result['runs']} | {result['failed']} | {result['jobs']:,} | {result['wall']:.1f} | "
            f"{result['runs'] / result['wall']:.2f} | {result['run_seconds']:.1f} | {base / result['wall']:.2f} |"
        )
    print(f"\nSame metrics in every store: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
