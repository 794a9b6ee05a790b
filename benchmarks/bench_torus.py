"""Time the torus machinery of Krevat (2003) and print Markdown tables.

1. MFP: calls per second on random 4x4x8 occupancies of several densities, for
   POP (numpy, all bases at once), the exhaustive search (numpy), and the
   schedulers' box-table search (memo bypassed: every occupancy is new); and
   the MFP-maximising placement of a job (sizes 1-32) per second.
2. Runs: the four torus schedulers (registered policies on the engine) on
   10,000-job spans of NASA iPSC/860 and SDSC SP2 at c = 1.0 and 1.2, each in
   its own process (peak memory is its own): simulation and validation wall
   time, the scheduler's time per job (wall clock inside the scheduler: mean
   per job, and the longest invocation that scheduled a job), MFP values
   computed, memo hits, peak MiB.

    python benchmarks/bench_torus.py [--traces ../shared/traces] [--skip-runs]

The thesis's POP took 0.063-0.16 s per scheduled job on 2003 hardware (B+M,
c = 1); the target here is under 1 ms per scheduled job.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

TRACES = {"NASA": "NASA-iPSC-1993-3.1-cln.swf.gz", "SDSC": "SDSC-SP2-1998-4.2-cln.swf.gz"}
POLICIES = ("torus-fcfs", "torus-backfill", "torus-migration", "torus-bm")


def per_second(fn, items, min_time: float = 0.5) -> float:
    """Calls of ``fn`` per second over ``items`` (repeated until ``min_time`` has passed)."""
    calls = 0
    began = time.perf_counter()
    while True:
        for item in items:
            fn(item)
        calls += len(items)
        elapsed = time.perf_counter() - began
        if elapsed >= min_time:
            return calls / elapsed


def mfp_table() -> None:
    from schedlab.platform.placement import TorusPlacement
    from schedlab.platform.pop import mfp_exhaustive, occupancy_array, pop
    from schedlab.platform.torus import Torus

    torus = Torus((4, 4, 8))
    rng = np.random.default_rng(0)
    print("| density | POP calls/s | exhaustive calls/s | box table calls/s | placements/s (sizes 1-32) |")
    print("|--:|--:|--:|--:|--:|")
    for density in (0.1, 0.3, 0.5, 0.7, 0.9):
        masks = [int(sum(1 << v for v in range(128) if rng.random() < density)) for _ in range(200)]
        arrays = [occupancy_array(torus, m) for m in masks]
        pop_rate = per_second(pop, arrays)
        exh_rate = per_second(mfp_exhaustive, arrays)
        place = TorusPlacement(torus, cache_size=1)  # a memo of one entry: every new occupancy is searched
        table_rate = per_second(place.mfp, masks)
        sizes = [1, 2, 4, 8, 16, 32]
        jobs = [(m, q) for m in masks for q in sizes]
        place_rate = per_second(lambda mq, place=place: place.best_placement(mq[0], mq[1]), jobs)
        print(
            f"| {density:.1f} | {pop_rate:,.0f} | {exh_rate:,.0f} | {table_rate:,.0f} | {place_rate:,.0f} |", flush=True
        )


def one_run(trace: str, policy: str, c: float) -> dict:
    import resource

    from schedlab.engine import simulate
    from schedlab.metrics import partition_metrics
    from schedlab.platform.torus import Torus
    from schedlab.registry import make_policy
    from schedlab.runtime.partition import PartitionRuntime
    from schedlab.schedule import Instance
    from schedlab.validation import validate
    from schedlab.workload.filters import scale_times
    from schedlab.workload.spans import span_jobs
    from schedlab.workload.swf import read_swf

    jobs, _ = span_jobs(read_swf(trace), 128)
    jobs = scale_times(jobs, c)
    instance = Instance(jobs, Torus((4, 4, 8)), PartitionRuntime(jobs))
    chosen = make_policy(policy)
    began = time.perf_counter()
    schedule = simulate(instance, chosen)
    simulated = time.perf_counter() - began
    validate(instance, schedule)
    metrics = partition_metrics(instance, schedule)
    return {
        "jobs": len(jobs),
        "simulate": simulated,
        "validate": time.perf_counter() - began - simulated,
        "sched_mean_ms": 1000 * chosen.seconds_total / len(jobs),
        "sched_max_ms": 1000 * chosen.seconds_max,
        "mfp": metrics["mfp_calls"],
        "hits": metrics["mfp_memo_hits"],
        "migrations": metrics["migration_successes"],
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def runs_table(traces: str) -> None:
    print(
        "| log | c | policy | jobs | simulate s | validate s | scheduler ms/job | max ms | MFP computed | memo hits "
        "| migrations | peak MiB |"
    )
    print("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name, file in TRACES.items():
        path = os.path.join(traces, file)
        if not os.path.exists(path):
            print(f"| {name} | - | (missing {file}) |" + " |" * 9)
            continue
        for c in (1.0, 1.2):
            for policy in POLICIES:
                command = [sys.executable, __file__, "--one", path, policy, str(c)]
                r = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
                cells = [
                    name,
                    f"{c:.1f}",
                    policy,
                    f"{r['jobs']:,}",
                    f"{r['simulate']:.2f}",
                    f"{r['validate']:.2f}",
                    f"{r['sched_mean_ms']:.3f}",
                    f"{r['sched_max_ms']:.1f}",
                    f"{r['mfp']:,}",
                    f"{r['hits']:,}",
                    f"{r['migrations']:,}",
                    f"{r['peak_mib']:.0f}",
                ]
                print("| " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", default=os.path.join("..", "shared", "traces"))
    parser.add_argument("--skip-runs", action="store_true", help="only the MFP table")
    parser.add_argument("--one", nargs=3, metavar=("TRACE", "POLICY", "C"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        trace, policy, c = args.one
        print(json.dumps(one_run(trace, policy, float(c))))
        return
    mfp_table()
    if not args.skip_runs:
        print()
        runs_table(args.traces)


if __name__ == "__main__":
    main()
