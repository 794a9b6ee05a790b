"""Why APPROX-2's bisection takes fewer steps here than Bleuse (2017) reports (Fig. 3.7: 10-17).

The stopping rule is the thesis's (stop when upper <= 1.01 lower, section 3.6.3) and the midpoint is
arithmetic, so a search from bounds [LB, UB] takes about 1 + log2((UB/LB - 1) / 0.01) steps: the count
depends only on how far apart the initial bounds are, which the thesis does not give. This script runs
APPROX-2 on the Table 3.1 instances of one grid (the campaign's seeds) from

* ``ours``: LB = max(area, longest task), UB = sum_j min(GPU time, fastest CPU time) (tasks one after
  another, each on its fastest resource);
* ``loose``: LB = the area bound only, UB = sum_j min(GPU time, one-CPU time) (every task on one CPU, one
  after another),
* ``ch. 2``: the bounds of the thesis's ch. 2 bisection (Algorithm 2, DADA): LB = 0,
  UB = sum_j max(one-CPU time, GPU time),

and prints, per (n, m, k), the mean initial ratio UB/LB and the steps of each, and whether the makespans
agree. Usage: ``python scripts/hybrid_bisection_steps.py [--quick] [--samples N]`` (the quick grid: seconds;
the full grid with one sample per size: minutes).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from itertools import product

import numpy as np

from schedlab.experiments.hybrid import FULL_GRID, QUICK_GRID
from schedlab.offline.hybrid.approx2 import approx2_step
from schedlab.offline.hybrid.bisection import dual_search
from schedlab.offline.hybrid.bounds import area_bound, bounds, one_cpu_upper_bound
from schedlab.offline.hybrid.schedule import search_of
from schedlab.registry import HYBRID, family


def main(quick: bool, samples: int | None) -> None:
    grid = QUICK_GRID if quick else FULL_GRID
    if samples is not None:
        grid = replace(grid, samples=samples)
    record = family(HYBRID)
    print("| n | m | k | UB/LB ours | steps ours | UB/LB loose | steps loose | same makespan | steps ch. 2 |")
    print("|--:|--:|--:|--:|--:|--:|--:|:-:|--:|")
    for n, m, k in product(grid.n, grid.m, grid.k):
        point = {"n": n, "m": m, "k": k}
        rows = []
        for sample in range(grid.samples):
            instance = record.generate(point, record.instance_seed(0, point, sample))
            b = bounds(instance)
            ours = dual_search(instance, approx2_step, cutoff=1.01)
            lo, hi = area_bound(instance), one_cpu_upper_bound(instance)
            loose = dual_search(instance, approx2_step, cutoff=1.01, lower=lo, upper=hi)
            widest = float(np.maximum(instance.seq_time, instance.gpu_time).sum())
            chapter2 = dual_search(instance, approx2_step, cutoff=1.01, lower=0.0, upper=widest)
            rows.append(
                (
                    b.upper / b.lower,
                    len(search_of(ours).steps),
                    hi / lo,
                    len(search_of(loose).steps),
                    abs(ours.makespan - loose.makespan) <= 0.011 * ours.makespan,
                    len(search_of(chapter2).steps),
                )
            )
        mean = [sum(r[i] for r in rows) / len(rows) for i in (0, 1, 2, 3, 5)]
        same = sum(r[4] for r in rows)
        print(
            f"| {n} | {m} | {k} | {mean[0]:.1f} | {mean[1]:.1f} | {mean[2]:.1f} | {mean[3]:.1f} | {same}/{len(rows)} "
            f"| {mean[4]:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    main("--quick" in args, int(args[args.index("--samples") + 1]) if "--samples" in args else None)
