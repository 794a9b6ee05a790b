"""schedlab from Python: simulate two policies, look at their jobs, compare them, write the HTML page.

Run it from the repository root: ``python examples/quickstart.py [TRACE] [OUT]``. TRACE defaults to the
small hand-made trace of the tests; any SWF file, Batsim JSON workload, or ``pwa:NAME`` works
(``pwa:KTH-SP2-1996-2.1-cln``, resolved through ``SCHEDLAB_TRACES`` or downloaded once).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import schedlab
from schedlab.report.compare import write_comparison

trace = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[1] / "tests" / "data" / "tiny.swf")
out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="schedlab-quickstart-"))

# 1. Load the workload once (filters applied and reported), then simulate two policies on it.
instance, report = schedlab.load_instance(trace)
easy = schedlab.run(instance, "easy", report=report)
fcfs = schedlab.run(instance, "fcfs", {"order": "sjf"}, report=report)
print(easy)  # Run(easy(order=fcfs) on tiny.swf: 3 jobs, 16 processors)
print(fcfs.info["params"])  # every parameter, defaults included: {'order': 'sjf', 'allocator': 'basic'}

# 2. The jobs as a DataFrame (jobs.csv's columns) and the metrics as a dict (metrics.json's).
jobs = easy.jobs
print(jobs[["job_id", "submission_time", "starting_time", "waiting_time", "final_state"]])
print(f"mean bounded slowdown: EASY {easy.metrics['bsld_mean']:.3f}, FCFS-SJF {fcfs.metrics['bsld_mean']:.3f}")

# 3. Write the runs, measure one back from its files, and compare them.
easy.write(out / "easy", force=True)
fcfs.write(out / "fcfs-sjf", force=True)
assert schedlab.metrics(out / "easy") == easy.metrics  # the same numbers, read back from jobs.csv
comparison = schedlab.compare(out / "easy", out / "fcfs-sjf")
print(comparison.metrics[comparison.metrics["metric"].isin(["wait_mean", "bsld_mean", "utilization"])])
print(comparison.deltas[comparison.deltas["jobs"] == "all jobs"])
for path in write_comparison(comparison, out / "compare"):
    print("wrote", path)
