"""How much do topology-aware allocators cost? Conservative backfilling with each allocator on real traces.

One question: the wall time and peak memory of ``conservative`` with a
topology-aware allocator (``beplat`` by default) and the quadratic F = 2
run-time penalty, against the same run with ``basic``, on the full KTH-SP2
trace and one week of RICC (schedlab's platforms for Mendonca 2017, section 5.7:
``fat-tree:1,2,10,100`` and ``fat-tree:1,2,64,8192``).

Each run is its own process (peak memory = ``ru_maxrss``); the table shows
the median of ``--repeat`` runs of the simulation alone (reading and filtering
the trace apart, validation not timed), jobs per second, and the ratio to
``basic``; ``CPU s`` is the process's CPU time for the simulation, validation
and metrics (steadier than wall time on a loaded machine), checked against
``--target`` seconds when given.

    python benchmarks/bench_topology.py --traces ../shared/traces [--allocators basic beplat plat] [--repeat 3]

The forced rows of the README's Performance table (first RICC week, target 30 s):

    python benchmarks/bench_topology.py --only RICC --allocators basic cont loc plat --repeat 1 --target 30

Measured with one allocator a run, three rounds alternating with the code before the
per-cluster counts of the compiled set profile in the same minutes (2 cores, load 2 to 4),
CPU s before -> after: ``loc`` 49.9-53.4 -> 11.7-15.1 (wall 67.3-72.9 -> 14.9-23.6 s),
``cont`` 20.0-21.7 -> 10.5-12.7 (wall 28.4-31.4 -> 14.2-17.4 s), ``plat`` 9.9-11.1 -> 2.4-3.0
(wall 14.0-16.6 -> 3.2-4.4 s); the same ``jobs.csv`` for each.

Forced allocators (``cont``, ``loc``, ``plat``) reserve processor sets
(Algorithm 1, Mendonca 2017, section 4.5.1); ``--compress start-now`` is the
reassignment of section 5.5 that the ch. 5 experiment uses.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

WEEK = 7 * 86400.0
CASES = (  # (label, trace file, platform, submit window or None)
    ("KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz", "fat-tree:1,2,10,100", None),
    ("RICC, 1st week", "RICC-2010-2.swf.gz", "fat-tree:1,2,64,8192", (0.0, WEEK)),
)


def one_run(trace: str, platform: str, window, allocator: str, penalty: str, compress: str) -> dict:
    """Read, simulate (timed) and validate one run in this process; timings in seconds, memory in MiB."""
    import resource

    from schedlab.runner import load_instance, run

    began = time.perf_counter()
    instance, _ = load_instance(trace, platform=platform, window=tuple(window) if window else None)
    read = time.perf_counter() - began
    cpu = time.process_time()
    result = run(instance, "conservative", {"allocator": allocator, "compress": compress}, penalty=penalty)
    cpu = time.process_time() - cpu
    m = result.metrics
    return {
        "jobs": len(instance.jobs),
        "read": read,
        "simulate": result.seconds["simulate"],
        "cpu": cpu,
        "validate": result.seconds.get("validate", 0.0),
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "sum_flow": m["sum_flow"],
        "platform_level_factor": m["platform_level_factor"],
        "success_rate": m["success_rate"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", default=os.path.join("..", "shared", "traces"), help="directory of the traces")
    parser.add_argument("--allocators", nargs="+", default=["basic", "beplat"])
    parser.add_argument("--penalty", default="quadratic:2")
    parser.add_argument("--compress", default="full", choices=["full", "start-now"], help="conservative's compression")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the median is shown")
    parser.add_argument("--only", nargs="+", default=None, help="substrings selecting cases (e.g. KTH)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per run")
    parser.add_argument("--target", type=float, default=None, help="CPU seconds a run should stay under")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.one:
        print(json.dumps(one_run(**json.loads(args.one))))
        return

    load = os.getloadavg()[0]
    print(
        f"conservative backfilling, compress {args.compress}, penalty {args.penalty}, median of {args.repeat} runs, "
        f"load average {load:.1f} on {os.cpu_count()} cores\n"
    )
    target = "" if args.target is None else f" CPU s <= {args.target:g} |"
    print(
        "| trace | platform | jobs | allocator | simulate s | CPU s | jobs/s | peak MiB | validate s | "
        "sum flow / basic | level factor | success rate | s / basic |" + target
    )
    print("|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|" + ("---|" if target else ""))
    for label, name, platform, window in CASES:
        if args.only is not None and not any(s in label for s in args.only):
            continue
        path = os.path.join(args.traces, name)
        if not os.path.exists(path):
            print(f"| {label} | missing | | | | | | | | | | | |" + (" |" if target else ""))
            continue
        reference = None
        for allocator in args.allocators:
            spec = json.dumps(
                {
                    "trace": path,
                    "platform": platform,
                    "window": window,
                    "allocator": allocator,
                    "penalty": args.penalty,
                    "compress": args.compress,
                }
            )
            runs = []
            try:
                for _ in range(args.repeat):
                    done = subprocess.run(
                        [sys.executable, __file__, "--one", spec],
                        capture_output=True,
                        text=True,
                        timeout=args.timeout,
                        check=True,
                    )
                    runs.append(json.loads(done.stdout))
            except subprocess.TimeoutExpired:
                print(
                    f"| {label} | {platform} | | {allocator} | > {args.timeout:.0f} | | | | | | | | |"
                    + (" no |" if target else ""),
                    flush=True,
                )
                continue
            except subprocess.CalledProcessError as error:
                print(
                    f"| {label} | {platform} | failed: {error.stderr.strip().splitlines()[-1]} | {allocator} |"
                    " | | | | | | | | |",
                    flush=True,
                )
                continue
            r = runs[0]
            seconds = statistics.median(x["simulate"] for x in runs)
            cpu = statistics.median(x["cpu"] for x in runs)
            peak = max(x["peak_mib"] for x in runs)
            if reference is None:
                reference = (seconds, r["sum_flow"])
            cells = [
                label,
                platform,
                f"{r['jobs']:,}",
                allocator,
                f"{seconds:.2f}",
                f"{cpu:.2f}",
                f"{r['jobs'] / seconds:,.0f}",
                f"{peak:.0f}",
                f"{statistics.median(x['validate'] for x in runs):.2f}",
                f"{r['sum_flow'] / reference[1]:.3f}",
                f"{r['platform_level_factor']:.3f}",
                f"{r['success_rate']:.4f}",
                f"{seconds / reference[0]:.2f}",
            ]
            if target:
                cells.append("yes" if cpu <= args.target else "no")
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
