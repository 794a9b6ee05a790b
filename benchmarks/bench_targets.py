"""The compiled core's speed targets in one run: each target run, schedlab's time, the C++ reference's, met or not.

Each row runs in its own process, through the entry point of the benchmark that owns it
(``bench_core.py`` for the rigid policies end to end, ``bench_topology.py`` for the forced
allocators, ``bench_tasks.py`` for SRPT), so its peak memory and CPU time are its own. The C++
column is what a C++ simulator of the same algorithms took on this 2-core development machine
(EASY: a C++ EASY simulator; conservative: the C++ conservative reference, which agrees with
schedlab job for job on KTH-SP2, SDSC-SP2, HPC2N and Curie); each target is about three (EASY:
five) times it, or a fixed bound where there is no C++ run. ``measured`` is the figure the target
is about: the whole process's wall time for the end-to-end row, else the simulation's wall time;
``cpu s`` is the process's CPU time (steadier on a shared machine). The load average when each
row started is printed beside it: the machine is shared, and a loaded one is slower.

    python benchmarks/bench_targets.py --traces ../shared/traces [--only RICC] [--skip-slow]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_core  # noqa: E402  (a sibling script, not a package)

RICC = "RICC-2010-2.swf.gz"
WEEK = [0.0, 7 * 86400.0]


@dataclass(frozen=True)
class Target:
    """One target run: what it measures, the C++ reference, the bound, and how to run it."""

    label: str
    kind: str  # "core" (bench_core), "forced" (bench_topology), "tasks" (bench_tasks)
    trace: str
    setting: str  # the policy (core), the allocator (forced), the task policy (tasks)
    cpp: str
    bound: float
    mib: float | None = None
    slow: bool = False


TARGETS = (
    Target("EASY, full RICC, end to end (import, read, simulate, validate, write)", "core", RICC, "easy",
           "0.50 s, 55 MiB", 2.5, mib=300.0),
    Target("conservative, full compression, HPC2N", "core", "HPC2N-2002-2.2-cln.swf.gz", "conservative",
           "0.85 s", 2.6),
    Target("conservative, full compression, Curie", "core", "CEA-Curie-2011-2.1-cln.swf.gz", "conservative",
           "1.05 s", 3.2),
    Target("conservative, full compression, full RICC", "core", RICC, "conservative", "28.5 s", 85.0, slow=True),
    Target("conservative, start-now, full RICC", "core", RICC, "conservative:start-now", "6.3 s", 10.0),
    Target("conservative + forced plat, first RICC week", "forced", RICC, "plat", "", 30.0),
    Target("conservative + forced cont, first RICC week", "forced", RICC, "cont", "", 30.0, slow=True),
    Target("conservative + forced loc, first RICC week", "forced", RICC, "loc", "", 30.0, slow=True),
    Target("SRPT, 60-day Curie window (simulation)", "tasks", "CEA-Curie-2011-2.1-cln.swf.gz", "srpt", "", 0.5),
)  # fmt: skip


def child(command: list[str], timeout: float, env: dict | None = None) -> dict:
    """Run a benchmark's ``--one`` entry point; its JSON line plus ``wall`` (the whole process), or ``error``."""
    began = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"> {timeout:.0f} s"}
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return {**json.loads(done.stdout), "wall": time.perf_counter() - began}


def run_target(target: Target, traces: Path, timeout: float) -> tuple[float, dict]:
    """The measured figure of ``target`` (seconds) and its run's record."""
    path = str(traces / target.trace)
    if target.kind == "core":
        r = bench_core.measure(path, target.setting, "core", timeout)
        return (r.get("wall" if target.mib else "simulate", float("nan")), r)
    if target.kind == "forced":
        spec = {
            "trace": path,
            "platform": "fat-tree:1,2,64,8192",
            "window": WEEK,
            "allocator": target.setting,
            "penalty": "quadratic:2",
            "compress": "full",
        }
        r = child([sys.executable, str(HERE / "bench_topology.py"), "--one", json.dumps(spec)], timeout)
        return (r.get("simulate", float("nan")), r)
    command = [sys.executable, str(HERE / "bench_tasks.py"), "--trace", path, "--days", "60", "--seed", "1"]
    r = child([*command, "--one", target.setting], timeout)
    return (r.get("simulate", float("nan")), r)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=Path, default=Path("..", "shared", "traces"), help="directory of the traces")
    parser.add_argument("--only", nargs="+", default=None, help="substrings selecting rows (e.g. RICC loc)")
    parser.add_argument("--skip-slow", action="store_true", help="leave out the rows of a minute or more")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per run")
    args = parser.parse_args()

    wall, cpu = bench_core.import_times("schedlab.cli")
    print(f"import schedlab.cli: {wall:.2f} s wall, {cpu:.2f} s cpu, best of 5 (target 0.2 s): "
          f"{'met' if wall <= 0.2 else 'not met'}\n")  # fmt: skip
    print("| run | measured s | cpu s | MiB | C++ | target | met | load |")
    print("|---|--:|--:|--:|---|---|---|--:|")
    for target in TARGETS:
        if args.only is not None and not all(s in target.label for s in args.only):
            continue
        if args.skip_slow and target.slow:
            continue
        if not (args.traces / target.trace).exists():
            print(f"| {target.label} | missing {target.trace} | | | {target.cpp} | | | |", flush=True)
            continue
        load = os.getloadavg()[0]
        seconds, r = run_target(target, args.traces, args.timeout)
        bound = f"{target.bound:g} s" + (f", {target.mib:g} MiB" if target.mib else "")
        if "error" in r:
            print(f"| {target.label} | {r['error']} | | | {target.cpp} | {bound} | no | {load:.1f} |", flush=True)
            continue
        mib = r.get("mib", r.get("peak_mib"))
        met = seconds <= target.bound and (target.mib is None or mib <= target.mib)
        cpu_s = f"{r['cpu']:.2f}" if "cpu" in r else ""  # bench_tasks reports no CPU time
        cells = [target.label, f"{seconds:.2f}", cpu_s, f"{mib:.0f}", target.cpp]
        cells += [bound, "yes" if met else "no", f"{load:.1f}"]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
