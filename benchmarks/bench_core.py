"""Time FCFS, EASY (and conservative) end to end on full real traces, Python engine against the compiled core.

Each (trace, policy, engine) runs in its own process (``SCHEDLAB_ENGINE`` set to ``python`` or
``core``): start the interpreter, import schedlab, read the trace, filter, simulate, validate,
write ``jobs.csv`` and ``metrics.json`` to a temporary directory. ``wall`` is that whole
process, as a user sees ``schedlab simulate``; ``cpu`` its user + system time (steadier than
wall on a shared machine); ``MiB`` its peak resident memory. The phases come from the run.
Both engines must write the same ``jobs.csv``; the table says so per row. ``conservative:start-now`` is
conservative backfilling with ``compress=start-now``; ``--engines core`` skips the Python engine (which
does not finish full RICC with conservative backfilling).

First, the import line: ``import schedlab.cli`` (what ``schedlab`` loads before running any command)
and ``import schedlab.runner`` (what a simulation needs besides), each the best of 5 fresh
interpreters, wall and CPU seconds.

    python benchmarks/bench_core.py --traces ../shared/traces [--policies easy] [--only RICC] [--engines core]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRACES = (
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "HPC2N-2002-2.2-cln.swf.gz",
    "CEA-Curie-2011-2.1-cln.swf.gz",
    "RICC-2010-2.swf.gz",
)
POLICIES = ("easy", "fcfs", "conservative", "conservative:start-now")
ENGINES = ("python", "core")


def one_run(trace: str, policy: str) -> dict:
    """One run in this process: timings of its phases and the digest of its ``jobs.csv``."""
    from schedlab.runner import load_instance, run

    began = time.perf_counter()
    instance, report = load_instance(trace)
    read = time.perf_counter() - began
    name, _, compress = policy.partition(":")
    result = run(instance, name, {"compress": compress} if compress else None, report=report)
    with tempfile.TemporaryDirectory() as out:
        result.write(out)
        with open(Path(out) / "jobs.csv", "rb") as jobs_csv:  # streamed: reading it whole would add to the peak
            digest = hashlib.file_digest(jobs_csv, "sha256").hexdigest()[:16]
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)  # the whole process, imports included
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "mib": usage.ru_maxrss / 1024,
        "jobs": len(instance.jobs),
        "procs": instance.platform.n_procs,
        "read": read,
        **result.seconds,
        "sha": digest,
    }


def import_times(module: str, tries: int = 5) -> tuple[float, float]:
    """Best wall and CPU seconds of ``python -c "import MODULE"`` over ``tries`` fresh interpreters."""
    import resource

    walls, cpus = [], []
    for _ in range(tries):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
        walls.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return min(walls), min(cpus)


def measure(path: str, policy: str, engine: str, timeout: float) -> dict:
    """Run ``--one`` in a child process; add its wall time, CPU time and peak memory."""
    command = [sys.executable, __file__, "--one", path, policy]
    env = dict(os.environ, SCHEDLAB_ENGINE=engine)
    began = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        stdout, stderr = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return {"error": f"> {timeout:.0f} s"}
    wall = time.perf_counter() - began
    if child.returncode:
        return {"error": (stderr.strip().splitlines() or ["failed"])[-1]}
    return {**json.loads(stdout), "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", default=os.path.join("..", "shared", "traces"), help="directory of the traces")
    parser.add_argument("--policies", nargs="+", default=POLICIES[:2], choices=POLICIES)
    parser.add_argument("--engines", nargs="+", default=ENGINES, choices=ENGINES)
    parser.add_argument("--only", nargs="+", default=None, help="substrings selecting traces (e.g. RICC HPC2N)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per run")
    parser.add_argument("--one", nargs=2, metavar=("TRACE", "POLICY"), help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.one:
        print(json.dumps(one_run(*args.one)))
        return

    for module in ("schedlab.cli", "schedlab.runner"):
        wall, cpu = import_times(module)
        print(f"import {module}: {wall:.2f} s wall, {cpu:.2f} s cpu (best of 5 fresh interpreters)", flush=True)
    print()
    traces = [t for t in TRACES if args.only is None or any(s in t for s in args.only)]
    print(
        "| trace | policy | jobs | P | engine | read s | simulate s | validate s | write s | wall s | cpu s | MiB |"
        " same jobs.csv |"
    )
    print("|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|---|")
    for name in traces:
        path = os.path.join(args.traces, name)
        if not os.path.exists(path):
            print(f"| {name} | - | missing | | | | | | | | | | |")
            continue
        label = name.split("-cln")[0].removesuffix(".swf.gz")
        for policy in args.policies:
            digests = []
            for engine in args.engines:
                r = measure(path, policy, engine, args.timeout)
                if "error" in r:
                    print(f"| {label} | {policy} | | | {engine} | {r['error']} | | | | | | | |", flush=True)
                    continue
                digests.append(r["sha"])
                same = "" if len(digests) < 2 else ("yes" if digests[0] == digests[1] else "NO")
                cells = [label, policy, f"{r['jobs']:,}", f"{r['procs']:,}", engine]
                cells += [f"{r.get(k, 0.0):.2f}" for k in ("read", "simulate", "validate", "write", "wall")]
                cells += [f"{r['cpu']:.2f}", f"{r['mib']:.0f}", same]
                print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
