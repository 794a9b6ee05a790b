"""Time FCFS, EASY and conservative backfilling on full real traces and print a Markdown table.

Each (trace, policy) runs in its own process, so that its peak memory
(``ru_maxrss``) is its own: read the trace, filter, simulate, validate, write
``jobs.csv`` and ``metrics.json`` to a temporary directory. ``total`` covers all
of it (interpreter start-up and imports excluded). Runs that exceed
``--timeout`` seconds are reported as such.

    python benchmarks/bench_rigid.py --traces ../shared/traces [--policies easy] [--only RICC]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TRACES = (
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-SP2-1998-4.2-cln.swf.gz",
    "HPC2N-2002-2.2-cln.swf.gz",
    "RICC-2010-2.swf.gz",
    "CEA-Curie-2011-2.1-cln.swf.gz",
)
POLICIES = ("fcfs", "easy", "conservative")


def one_run(trace: str, policy: str, check: bool) -> dict:
    """Run one simulation in this process and return its timings (seconds) and peak memory (MiB)."""
    import resource

    from schedlab.runner import load_instance, run

    began = time.perf_counter()
    instance, _ = load_instance(trace)
    read = time.perf_counter() - began
    result = run(instance, policy, check=check)
    with tempfile.TemporaryDirectory() as out:
        result.write(out)
    total = time.perf_counter() - began
    return {
        "jobs": len(instance.jobs),
        "procs": instance.platform.n_procs,
        "read": read,
        **result.seconds,
        "total": total,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", default=os.path.join("..", "shared", "traces"), help="directory of the traces")
    parser.add_argument("--policies", nargs="+", default=POLICIES, choices=POLICIES)
    parser.add_argument("--only", nargs="+", default=None, help="substrings selecting traces (e.g. RICC HPC2N)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per run")
    parser.add_argument("--no-validate", action="store_true", help="skip the validator (as other simulators do)")
    parser.add_argument("--one", nargs=2, metavar=("TRACE", "POLICY"), help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.one:
        print(json.dumps(one_run(args.one[0], args.one[1], not args.no_validate)))
        return

    traces = [t for t in TRACES if args.only is None or any(s in t for s in args.only)]
    print("| trace | policy | jobs | P | read s | simulate s | validate s | write s | total s | jobs/s | peak MiB |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name in traces:
        path = os.path.join(args.traces, name)
        if not os.path.exists(path):
            print(f"| {name} | - | missing | | | | | | | | |")
            continue
        for policy in args.policies:
            command = [sys.executable, __file__, "--one", path, policy] + (
                ["--no-validate"] if args.no_validate else []
            )
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, check=True)
            except subprocess.TimeoutExpired:
                print(f"| {name} | {policy} | | | | > {args.timeout:.0f} | | | | | |", flush=True)
                continue
            except subprocess.CalledProcessError as error:
                print(
                    f"| {name} | {policy} | failed: {error.stderr.strip().splitlines()[-1]} | | | | | | | | |",
                    flush=True,
                )
                continue
            r = json.loads(done.stdout)
            cells = [name.split("-cln")[0].removesuffix(".swf.gz"), policy, f"{r['jobs']:,}", f"{r['procs']:,}"]
            cells += [f"{r.get(k, 0.0):.2f}" for k in ("read", "simulate", "validate", "write", "total")]
            cells += [f"{r['jobs'] / r['total']:,.0f}", f"{r['peak_mib']:.0f}"]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
