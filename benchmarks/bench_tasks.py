"""Time the sequential-task policies of Lucarelli, Mendonca and Trystram (2017) on a random trace window and print a Markdown table.

Each policy runs in its own process so that peak memory (``ru_maxrss``) is its
own: read the trace, cut the window, convert jobs to tasks (conversion C),
simulate, validate. Defaults: a 60-day window of CEA-Curie (about 65k tasks),
the Table II parameters of Lucarelli, Mendonca and Trystram (2017) for Curie.

``--floor`` adds what the engine alone costs on the same events: the policy's actions
are recorded (start, preempt, abort, reject, with their scheduling pass), then replayed
by a policy that decides nothing; ``policy s`` is the simulation's time minus that floor.
Both simulations are timed again in CPU seconds (``cpu``), steadier than wall time on a
shared machine.

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


class Recorder:
    """Runs ``policy`` and records every action it takes on the context, grouped by scheduling pass (the time)."""

    def __init__(self, policy) -> None:
        self.policy = policy
        self.name, self.clairvoyant = policy.name, policy.clairvoyant
        self.passes: dict[float, list[tuple[str, tuple]]] = {}

    def reset(self, ctx) -> None:
        for action in ("start", "preempt", "abort", "reject"):
            setattr(ctx, action, self._recording(ctx, action, getattr(ctx, action)))
        self.policy.reset(ctx)

    def _recording(self, ctx, action: str, method):
        def recorded(*args):
            self.passes.setdefault(ctx.now, []).append((action, args))
            method(*args)

        return recorded

    def complete(self, rows, now) -> None:
        self.policy.complete(rows, now)

    def submit(self, rows, now) -> None:
        self.policy.submit(rows, now)

    def schedule(self, now) -> None:
        self.policy.schedule(now)

    def describe(self) -> str:
        return self.policy.describe()


class Replay:
    """Takes the recorded actions at their times and decides nothing: the engine's own cost for the same events."""

    name, clairvoyant = "replay", False

    def __init__(self, passes: dict[float, list[tuple[str, tuple]]]) -> None:
        self.passes = passes

    def reset(self, ctx) -> None:
        self.ctx = ctx

    def complete(self, rows, now) -> None:
        pass

    def submit(self, rows, now) -> None:
        pass

    def schedule(self, now) -> None:
        for action, args in self.passes.get(now, ()):
            getattr(self.ctx, action)(*args)

    def describe(self) -> str:
        return "replay()"


def timed(instance, policy, seed: int) -> tuple[float, float, object]:
    """Wall and CPU seconds of one simulation, and its schedule."""
    import numpy as np

    from schedlab.engine.simulator import simulate

    wall, cpu = time.perf_counter(), time.process_time()
    schedule = simulate(instance, policy, rng=np.random.default_rng(seed))
    return time.perf_counter() - wall, time.process_time() - cpu, schedule


def one_run(trace: str, days: float, seed: int, policy: str, floor: bool) -> dict:
    import resource

    from schedlab.registry import make_policy
    from schedlab.runner import run, tasks_instance
    from schedlab.workload.tasks import load_tasks

    began = time.perf_counter()
    tasks, _ = load_tasks(trace, window=days * 86400, seed=seed)
    read = time.perf_counter() - began
    instance = tasks_instance(tasks)
    result = run(instance, policy, POLICIES[policy], seed=seed)
    row = {
        "tasks": len(tasks.jobs),
        "procs": tasks.n_procs,
        "read": read,
        **result.seconds,
        "total": time.perf_counter() - began,
        "stretch": result.metrics["bsld_unclamped_mean"],
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if floor:
        _, row["simulate_cpu"], schedule = timed(instance, make_policy(policy, POLICIES[policy]), seed)
        recorder = Recorder(make_policy(policy, POLICIES[policy]))
        timed(instance, recorder, seed)
        row["engine"], row["engine_cpu"], replayed = timed(instance, Replay(recorder.passes), seed)
        if replayed.start.tolist() != schedule.start.tolist() or replayed.alloc != schedule.alloc:
            raise SystemExit(f"{policy}: the replay did not give the same schedule")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", default=os.path.join("..", "shared", "traces", "CEA-Curie-2011-2.1-cln.swf.gz"))
    parser.add_argument("--days", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=list(POLICIES))
    parser.add_argument("--floor", action="store_true", help="also time the engine alone on the same events")
    parser.add_argument("--one", metavar="POLICY", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_run(args.trace, args.days, args.seed, args.one, args.floor)))
        return
    floor_columns = ["simulate cpu s", "engine alone s", "engine alone cpu s", "policy cpu s"] if args.floor else []
    columns = ["policy", "params", "tasks", "m", "read s", "simulate s", "validate s", "total s", "tasks/s"]
    columns += ["mean stretch", "peak MiB", *floor_columns]
    print("| " + " | ".join(columns) + " |")
    print("|---|---|" + "--:|" * (len(columns) - 2))
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
            *(["--floor"] if args.floor else []),
        ]
        r = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        params = " ".join(f"{k}={v}" for k, v in POLICIES[policy].items()) or "-"
        cells = [policy, params, f"{r['tasks']:,}", str(r["procs"])]
        cells += [f"{r.get(k, 0.0):.2f}" for k in ("read", "simulate", "validate", "total")]
        cells += [f"{r['tasks'] / r['simulate']:,.0f}", f"{r['stretch']:.3f}", f"{r['peak_mib']:.0f}"]
        if args.floor:
            cells += [f"{r[k]:.2f}" for k in ("simulate_cpu", "engine", "engine_cpu")]
            cells += [f"{r['simulate_cpu'] - r['engine_cpu']:.2f}"]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
