"""How fast is the SWDUAL CPU path here, and does the dual-approximation plan keep every core busy?

Questions (the SWDUAL issue's speed checks):

1. GCUPS per core of each CPU engine (pyopal, parasail) by query length,
   one thread, against a synthetic UniProt-like database sample; and of
   pyopal with one thread per core at once; whether each engine releases
   the GIL (a Python loop must keep running beside it).
   Target: >= 6 GCUPS per core (one SWIPE core did about 8.2 in Mendonca
   (2017), Table 2.2).
2. A search of ``--queries`` queries (uniform lengths 100-5,000, as the
   thesis's 40 queries; ``--query-lengths 4500,5000`` for its homogeneous
   set) against a ``--sequences``-sequence synthetic database on ``--cpus``
   CPU and ``--gpus`` GPU workers, per scheduler: measured and predicted
   makespan, idle share of the makespan (target < 5 %), GCUPS, and a digest
   of the hit table (identical for every scheduler). With ``--gpus`` the GPU
   engine is calibrated too, so its GCUPS appear in the header line.
3. With ``--gpus``: the GPU kernel's GCUPS by query length on the whole
   search database and on the calibration sample (a GPU fills its cores only
   with enough sequences), and its scores against the CPU engine's, every
   database sequence compared (mismatches must be 0).

Prints Markdown tables. The database, queries and calibration are seeded;
only the times vary between runs.

    python benchmarks/bench_swdual.py [--sequences 100000] [--queries 40] [--cpus 2] [--gpus 0]
        [--query-lengths 100,5000] [--schedulers dual2,self-scheduling] [--repeat 3]
        [--skip-engines] [--skip-search]

On a CUDA machine (the GPU rows of the README's Performance section):

    python benchmarks/bench_swdual.py --cpus 15 --gpus 1 --skip-engines --repeat 1 \\
        --schedulers dual2,eft,self-scheduling,cpu-only,gpu-only
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from schedlab.swdual import (
    OpalEngine,
    ParasailEngine,
    PerformanceModel,
    Scoring,
    calibrate_engine,
    database_sample,
    generate_sequences,
    search,
)


def _median_seconds(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def engines_table(scoring: Scoring, args) -> None:
    rng = np.random.default_rng(args.seed)
    db = generate_sequences(args.engine_sequences, rng=rng)
    print(
        f"\nGCUPS per core: {len(db)} synthetic sequences, {db.residues} residues, BLOSUM62, "
        f"G_s = {scoring.gap_start}, G_e = {scoring.gap_extend}; median of {args.repeat}\n"
    )
    print("| engine | threads | query length | s | GCUPS per core |")
    print("|---|---:|---:|---:|---:|")
    engines = {"pyopal": OpalEngine(db, scoring), "parasail": ParasailEngine(db, scoring)}
    for length in args.lengths:
        query = generate_sequences(1, rng=rng, min_length=length, max_length=length, lengths="uniform").texts[0]
        for name, engine in engines.items():
            engine.scores(query)
            sec = _median_seconds(lambda e=engine, q=query: e.scores(q), args.repeat)
            print(f"| {name} | 1 | {length} | {sec:.3f} | {length * db.residues / sec / 1e9:.2f} |")
        threads = args.cpus
        with ThreadPoolExecutor(threads) as pool:
            batch = [query] * threads
            sec = _median_seconds(lambda b=batch: list(pool.map(engines["pyopal"].scores, b)), args.repeat)
        print(f"| pyopal | {threads} | {length} | {sec:.3f} | {length * db.residues / sec / 1e9:.2f} |")
        sys.stdout.flush()


def longest_stall(engine, query: str) -> tuple[float, float]:
    """(call seconds, longest gap between two steps of a Python loop in the main thread meanwhile).

    A stall as long as the call means the engine holds the GIL; a few ms is the OS scheduler.
    """
    done = threading.Event()
    thread = threading.Thread(target=lambda: (engine.scores(query), done.set()))
    t0 = last = time.perf_counter()
    gap = 0.0
    thread.start()
    while not done.is_set():
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    thread.join()
    return last - t0, gap


def gil_table(scoring: Scoring, args) -> None:
    rng = np.random.default_rng(args.seed)
    db = generate_sequences(5000, rng=rng)
    query = generate_sequences(1, rng=rng, min_length=3000, max_length=3000, lengths="uniform").texts[0]
    print("\nGIL: a Python loop in the main thread while a worker thread aligns (5,000 sequences, |q| = 3,000)\n")
    print("| engine | call s | longest main-thread stall s |")
    print("|---|---:|---:|")
    for engine in (OpalEngine(db, scoring), ParasailEngine(db, scoring)):
        engine.scores(query)
        call, gap = longest_stall(engine, query)
        print(f"| {engine.name} | {call:.3f} | {gap:.3f} |")


def gpu_table(scoring: Scoring, db, sample, queries, args) -> None:
    """GPU GCUPS on ``db`` and on the calibration ``sample`` by query length, and score agreement with pyopal."""
    from schedlab.swdual.gpu import CudaEngine

    t0 = time.perf_counter()
    engines = {"search database": CudaEngine(db, scoring), "calibration sample": CudaEngine(sample, scoring)}
    print(f"\nGPU kernel (numba-cuda), one device; set-up of the search database {time.perf_counter() - t0:.1f} s\n")
    print("| database | sequences | residues | query length | s | GCUPS |")
    print("|---|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(args.seed + 1)
    for length in args.lengths:
        query = generate_sequences(1, rng=rng, min_length=length, max_length=length, lengths="uniform").texts[0]
        for label, engine in engines.items():
            engine.scores(query)
            sec = _median_seconds(lambda e=engine, q=query: e.scores(q), args.repeat)
            residues = engine.database.residues
            print(
                f"| {label} | {len(engine.database)} | {residues} | {length} | {sec:.3f} | {length * residues / sec / 1e9:.2f} |"
            )
        sys.stdout.flush()
    cpu = OpalEngine(db, scoring)
    checked = sorted(queries.texts, key=len)[:3]  # the shortest: pyopal runs them on one thread
    mismatches = sum(int((engines["search database"].scores(q) != cpu.scores(q)).sum()) for q in checked)
    print(f"\nGPU vs pyopal scores: {len(checked)} queries x {len(db)} sequences, {mismatches} mismatches")


def search_table(scoring: Scoring, args) -> None:
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    db = generate_sequences(args.sequences, rng=rng)
    low, high = (int(v) for v in args.query_lengths.split(","))
    queries = generate_sequences(args.queries, rng=rng, min_length=low, max_length=high, lengths="uniform", prefix="q")
    generation = time.perf_counter() - t0
    t0 = time.perf_counter()
    sample = database_sample(db, 2_000_000, rng=rng)
    cpu = calibrate_engine(lambda s: OpalEngine(s, scoring), sample, rng=rng, parallel=args.cpus) if args.cpus else None
    gpu = None
    if args.gpus:
        from schedlab.swdual.gpu import CudaEngine

        gpu = calibrate_engine(lambda s: CudaEngine(s, scoring), db, rng=rng)  # a sample underfills a GPU
    model = PerformanceModel(cpu, gpu)
    calibration = time.perf_counter() - t0
    if args.gpus:
        gpu_table(scoring, db, sample, queries, args)
    print(
        f"\nSearch: {len(queries)} queries ({queries.residues} residues), {len(db)} sequences "
        f"({db.residues} residues), {queries.residues * db.residues:.3e} cells, {args.cpus} CPU + {args.gpus} GPU "
        f"workers; generation {generation:.1f} s, calibration {calibration:.1f} s; calibrated GCUPS per worker: "
        + "; ".join(
            f"{m.engine} " + ", ".join(f"{g:.2f} at {n}" for n, g in zip(m.lengths, m.gcups)) for m in (cpu, gpu) if m
        )
        + "\n"
    )
    print("| scheduler | makespan s | predicted s | idle % | GCUPS | GCUPS per worker | hits sha256 | peak MiB |")
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for scheduler in args.schedulers.split(","):
        result = search(queries, db, scoring=scoring, model=model, cpus=args.cpus, gpus=args.gpus, scheduler=scheduler)
        report = result.report()
        digest = hashlib.sha256(result.hits_tsv().encode()).hexdigest()[:12]
        per_worker = ", ".join(f"{w['gcups']:.2f}" for w in report["workers"])
        mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"| {scheduler} | {report['makespan']:.1f} | {report['predicted_makespan']:.1f} "
            f"| {100 * report['idle_fraction']:.2f} | {report['gcups']:.2f} | {per_worker} | {digest} | {mib:.0f} |"
        )
        sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequences", type=int, default=100_000, help="database size of the search")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--gpus", type=int, default=0, help="GPU workers (CUDA devices; calibrated too)")
    parser.add_argument("--query-lengths", default="100,5000", help="MIN,MAX uniform query lengths")
    parser.add_argument("--schedulers", default="dual2,self-scheduling")
    parser.add_argument("--engine-sequences", type=int, default=10_000, help="database size of the GCUPS table")
    parser.add_argument("--lengths", default="100,300,1000,3000,5000", help="query lengths of the GCUPS tables")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-engines", action="store_true")
    parser.add_argument("--skip-search", action="store_true")
    args = parser.parse_args(argv)
    args.lengths = tuple(int(v) for v in args.lengths.split(","))
    scoring = Scoring.load("BLOSUM62", 11, 1)
    if not args.skip_engines:
        engines_table(scoring, args)
        gil_table(scoring, args)
    if not args.skip_search:
        search_table(scoring, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
