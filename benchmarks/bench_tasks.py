"""Time the sequential-task policies of Lucarelli, Mendonca and Trystram (2017) on a random trace window and print a Markdown table.

Each policy runs in its own process so that peak memory (``ru_maxrss``) is its
own: read the trace, cut the window, convert jobs to tasks (conversion C),
simulate, validate. Defaults: a 60-day window of CEA-Curie (about 65k tasks),
the Table II parameters of Lucarelli, Mendonca and Trystram (2017) for Curie.

    python benchmarks/bench_tasks.py --trace ../shared/traces/CEA-Curie-2011-2.1-cln.swf.gz --days 60 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

# Lucarelli, Mendonca and Trystram (2017), Table II, Curie row
POLICIES = {
    "gspt": {},
    "spt": {},
    "gspt-rd": {"dedicated": "10", "tau": "4"},
    "spt-rd": {"dedicated": "10", "tau": "10"},
    "gspt-rr": {"dedicated": "10", "c": "0.8"},
    "spt-rr": {"dedicated": "9", "c": "0.8"},
    "gsrpt": {},
    "srpt": {},
}


def one_run(trace: str, days: float, seed: int, policy: str) -> dict:
    import resource

    from schedlab.runner import run, tasks_instance
    from schedlab.workload.tasks import load_tasks

    began = time.perf_counter()
    tasks, _ = load_tasks(trace, window=days * 86400, seed=seed)
    read = time.perf_counter() - began
    result = run(tasks_instance(tasks), policy, POLICIES[policy], seed=seed)
    return {
        "tasks": len(tasks.jobs),
        "procs": tasks.n_procs,
        "read": read,
        **result.seconds,
        "total": time.perf_counter() - began,
        "stretch": result.metrics["bsld_unclamped_mean"],
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", default=os.path.join("..", "shared", "traces", "CEA-Curie-2011-2.1-cln.swf.gz"))
    parser.add_argument("--days", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=list(POLICIES))
    parser.add_argument("--one", metavar="POLICY", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_run(args.trace, args.days, args.seed, args.one)))
        return
    print(
        "| policy | params | tasks | m | read s | simulate s | validate s | total s | tasks/s | mean stretch | peak MiB |"
    )
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for policy in args.policies:
        command = [
            sys.executable,
            __file__,
            "--trace",
            args.trace,
            "--days",
            str(args.days),
            "--seed",
            str(args.seed),
            "--one",
            policy,
        ]
        r = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        params = " ".join(f"{k}={v}" for k, v in POLICIES[policy].items()) or "-"
        cells = [policy, params, f"{r['tasks']:,}", str(r["procs"])]
        cells += [f"{r.get(k, 0.0):.2f}" for k in ("read", "simulate", "validate", "total")]
        cells += [f"{r['tasks'] / r['simulate']:,.0f}", f"{r['stretch']:.3f}", f"{r['peak_mib']:.0f}"]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
