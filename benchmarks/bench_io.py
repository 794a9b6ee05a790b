"""How long does the pinned-I/O two-phase algorithm take on 1,000 jobs and 256 compute nodes, LP included?

Question: Bleuse (2017), section 5.3.2, proposes LP rounding then Gergov's
algorithm (a 6-approximation); is it fast enough for a batch of 1,000 jobs on
256 compute nodes, and what do the LP formulation (the thesis's window
variables, or load differences) and the job widths cost? Generates pinned
instances (generation apart), runs the algorithm ``--repeat`` times (median of
``perf_counter``), checks each schedule with the independent checker, and
prints a Markdown table: platform, widest job, formulation, median s of the LP
alone and of the whole algorithm (checked by the one validator), LP size (variables, non-zeros), makespan
over the LP bound, peak MiB of Python allocations during one run
(``tracemalloc``, HiGHS's own memory excluded) and of the process (``ru_maxrss``).

    python benchmarks/bench_io.py [--platforms line:m=288,io=32;ring:m=288,io=32,mode=exclusive]
                                  [--n 1000] [--qmax 18,64] [--seed 1] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc
from functools import partial

import numpy as np

from schedlab.offline.io import io_instance, pinned_two_phase, solve_lp
from schedlab.platform.io import parse_io_platform
from schedlab.validation import validate
from schedlab.workload.io_jobs import generate_io_instance

DEFAULT_PLATFORMS = "line:m=288,io=32;line:m=288,io=32,mode=exclusive;ring:m=288,io=32"


def _median_time(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platforms", default=DEFAULT_PLATFORMS, help="';'-separated platform texts")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--qmax", default="18,64", help="comma-separated widest job sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formulations", default="differences,windows")
    args = parser.parse_args(argv)
    print(
        "| platform | n | q max | formulation | generation s | LP s | total s | LP vars | LP nnz "
        "| Cmax / LP | peak MiB (Python) | max RSS MiB |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for text in args.platforms.split(";"):
        plat = parse_io_platform(text)
        for qmax in (int(v) for v in args.qmax.split(",")):
            t0 = time.perf_counter()
            inst = generate_io_instance(plat, args.n, rng=np.random.default_rng(args.seed), q_max=qmax)
            for j in range(inst.n):
                inst.windows(j)  # fill the window cache: enumeration is part of generation here
            gen = time.perf_counter() - t0
            for formulation in args.formulations.split(","):
                lp_s, lp = _median_time(partial(solve_lp, inst, formulation=formulation), args.repeat)
                total_s, sched = _median_time(partial(pinned_two_phase, inst, formulation=formulation), args.repeat)
                validate(io_instance(inst), sched)
                tracemalloc.start()
                pinned_two_phase(inst, formulation=formulation)
                peak = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                print(
                    f"| {plat.name} | {inst.n} | {qmax} | {formulation} | {gen:.2f} | {lp_s:.2f} | {total_s:.2f} "
                    f"| {lp.n_vars} | {lp.nnz} | {sched.makespan / sched.info['lp']:.3f} "
                    f"| {peak:.0f} | {rss:.0f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
