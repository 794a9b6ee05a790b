"""Time the max-stretch policies (Saule, Bozdag and Catalyurek 2014) and print a Markdown table.

Two questions: DASEDF on 20,000 sequential tasks on 300 processors (the paper's
section 4.1 setting; its C++ took 40 s on average, 553 s at worst), and DBOS
on the first 8,000 jobs of SDSC Par 96 as moldable tasks on 512 processors
(Downey speed-ups, seed 1; the paper's C++ took about a minute).

Each case runs in its own process (peak memory ``ru_maxrss`` is its own),
after a tiny warm-up run that loads the numba kernels from their cache, so
the times exclude compilation. Every run goes through :func:`schedlab.runner.run`
(engine, validator, metrics); "simulate s" is the engine and the policy,
"validate s" the independent validator.

    python benchmarks/bench_stretch.py [--traces ../shared/traces] [--moldable-policies dbos-1.5 dbos-1 iterative]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

SEQUENTIAL = {  # name: (Delta, load)
    "delta20-load280": (20.0, 280.0),
    "delta100-load300": (100.0, 300.0),
    "delta100-load310": (100.0, 310.0),
    "delta5-load310": (5.0, 310.0),
}
SEQUENTIAL_POLICIES = ("fcfs-stretch", "dasedf", "dasedf-paper")
MOLDABLE_POLICIES = ("dbos-1.5", "dbos-1", "fcfs-sequential", "scojo-like", "iterative", "improved-iterative")


PARAMS = {
    "fcfs-stretch": ("fcfs-stretch", {}),
    "dasedf": ("dasedf", {}),
    "dasedf-paper": ("dasedf", {"validity": "paper"}),
    "dbos-1.5": ("dbos", {"rho": 1.5}),
    "dbos-1": ("dbos", {"rho": 1.0}),
    "fcfs-sequential": ("fcfs-sequential", {}),
    "scojo-like": ("scojo-like", {}),
    "iterative": ("iterative", {}),
    "improved-iterative": ("improved-iterative", {}),
}


def _timed(instance, label: str, warm) -> dict:
    """Simulate through the runner (engine, validator, metrics) after a warm-up run on ``warm``."""
    from schedlab.runner import run

    policy, params = PARAMS[label]
    run(warm, policy, params)
    began = time.perf_counter()
    result = run(instance, policy, params, stretch=True)
    total = time.perf_counter() - began
    return {
        "tasks": len(instance.jobs),
        "m": instance.platform.n_procs,
        "seconds": result.seconds["simulate"],
        "validate": result.seconds["validate"],
        "total": total,
        **result.metrics,
    }


def _sequential(case: str, label: str) -> dict:
    import numpy as np

    from schedlab.platform import Machine
    from schedlab.schedule import Instance
    from schedlab.workload.stretch_generators import uniform_tasks

    warm = Instance(uniform_tasks(50, 1.0, 10.0, load=4.0, rng=np.random.default_rng(0)), Machine(3))
    delta, load = SEQUENTIAL[case]
    jobs = uniform_tasks(20000, 1.0, delta, load=load, rng=np.random.default_rng(1))
    return _timed(Instance(jobs, Machine(300)), label, warm)


def _moldable(traces: str, label: str) -> dict:
    import numpy as np

    from schedlab.runner import load_moldable, moldable_instance
    from schedlab.workload.moldable import MoldableTasks

    warm_times = np.minimum.accumulate(np.array([[8.0 / j for j in range(1, 5)]] * 6), axis=1)
    warm = MoldableTasks(id=np.arange(1, 7), release=np.arange(6.0), times=warm_times, line=np.zeros(6, dtype=np.int64))
    instance = load_moldable(os.path.join(traces, "SDSC-Par-1996-3.1-cln.swf.gz"), m=512, first=8000, seed=1)
    return _timed(instance, label, moldable_instance(warm, 4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", default=os.path.join("..", "shared", "traces"))
    parser.add_argument("--moldable-policies", nargs="*", default=["dbos-1.5", "dbos-1"], choices=MOLDABLE_POLICIES)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        case, policy = args.one
        result = _moldable(args.traces, policy) if case == "sdsc-par" else _sequential(case, policy)
        import resource

        result["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    print(
        "| workload | policy | tasks | m | simulate s | validate s | ms/task | max stretch | mean stretch | load "
        "| peak MiB |"
    )
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    cases = [(c, p) for c in SEQUENTIAL for p in SEQUENTIAL_POLICIES] + [
        ("sdsc-par", p) for p in args.moldable_policies
    ]
    for case, policy in cases:
        command = [sys.executable, __file__, "--traces", args.traces, "--one", case, policy]
        r = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        cells = [
            case,
            policy,
            f"{r['tasks']:,}",
            str(r["m"]),
            f"{r['seconds']:.2f}",
            f"{r['validate']:.2f}",
            f"{1000 * r['seconds'] / r['tasks']:.3f}",
            f"{r['max_stretch']:.3g}",
            f"{r['mean_stretch']:.3g}",
            f"{r['load']:.1f}",
            f"{r['peak_mib']:.0f}",
        ]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
