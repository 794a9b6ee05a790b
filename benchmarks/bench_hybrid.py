"""How long do the hybrid CPU+GPU algorithms take on Table 3.1 instances, and how good are they?

Question: does APPROX-3/2 (one HiGHS MILP per bisection step) solve the largest
instance of Table 3.1 of Bleuse (2017) (n = 1000, m = 512, k = 16) within 120 s,
and how do the others compare? Generates the instance (generation time apart),
runs every algorithm ``--repeat`` times (median of ``perf_counter``), validates
each schedule, and prints a Markdown table: instance, algorithm, median s,
bisection steps, makespan, ratio to the best proven lower bound, peak MiB of
the process so far (``ru_maxrss``).

    python benchmarks/bench_hybrid.py [--size 1000,512,16] [--seeds 1,2] [--repeat 3] [--algos approx32,approx2]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time

import numpy as np

from schedlab.offline.hybrid import hybrid_instance, search_of
from schedlab.offline.hybrid.bounds import best_lower_bound, bounds
from schedlab.registry import get
from schedlab.validation import validate
from schedlab.workload.hybrid import generate_hybrid

DEFAULT_ALGOS = "approx32,approx2,da2,dual2,heft,lpt-seq,spt-seq,ratio-seq,lpt-par,equal,proportional,self-scheduling"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1000,512,16", help="n,m,k (repeatable with ';')")
    parser.add_argument("--seeds", default="1", help="comma-separated generator seeds")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--algos", default=DEFAULT_ALGOS)
    args = parser.parse_args(argv)
    names = args.algos.split(",")
    print("| instance | algorithm | median s | steps | makespan | ratio to best LB | peak MiB |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for size in args.size.split(";"):
        n, m, k = (int(x) for x in size.split(","))
        for seed in (int(s) for s in args.seeds.split(",")):
            t0 = time.perf_counter()
            instance = generate_hybrid(n, m, k, rng=np.random.default_rng(seed))
            gen = time.perf_counter() - t0
            label = f"n={n},m={m},k={k},seed={seed}"
            common = hybrid_instance(instance)
            rows, searches = [], []
            for name in names:
                algo = get(name)
                times, schedule = [], None
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    schedule = algo.build()(instance)
                    times.append(time.perf_counter() - t0)
                validate(common, schedule, contiguous=algo.traits["contiguous"])
                search = search_of(schedule)
                searches.append((search.lower if search else None, algo.traits["moldable"]))
                mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                rows.append(
                    (
                        name,
                        statistics.median(times),
                        search.n_steps if search else None,
                        schedule.makespan,
                        mib,
                    )
                )
            best_lower = best_lower_bound(bounds(instance).lower, searches, sequential=not instance.moldable.any())
            print(f"| {label} | (generation) | {gen:.3f} | | | | |")
            for name, sec, steps, makespan, mib in rows:
                print(
                    f"| {label} | {name} | {sec:.3f} | {steps if steps is not None else '-'} | {makespan:.2f} "
                    f"| {makespan / best_lower:.3f} | {mib:.0f} |"
                )
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
