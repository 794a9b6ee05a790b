"""The times the help and the README state, measured: every ``schedlab reproduce NAME --quick``, wall clock.

Each reproduction runs as its own ``schedlab`` process into a fresh temporary folder, with the default
``--jobs`` (all cores), so the time is what a user of this machine waits. The result is written to
``benchmarks/cli_times.json`` (seconds per command, the 1-minute load average when it started: the machine is
shared, and a busy one is several times slower; the core count, the date). ``tests/cli/test_stated_times.py``
holds help and README to it: help texts state no duration, and the README's table equals the file.

    python benchmarks/bench_cli.py --traces ../shared/traces            # every --quick reproduction
    python benchmarks/bench_cli.py --traces ../shared/traces hybrid io  # some of them
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPRODUCTIONS = ("hybrid", "redirections", "locality-ch4", "locality-ch5", "swdual", "torus", "io", "stretch")
TIMES = Path(__file__).resolve().parent / "cli_times.json"
NO_TRACES = {"hybrid", "swdual"}  # generated instances only


def measure(name: str, traces: Path) -> float:
    """Wall seconds of ``schedlab reproduce NAME --quick`` in a fresh folder (raises if it fails)."""
    schedlab = Path(sys.executable).with_name("schedlab")
    with tempfile.TemporaryDirectory() as folder:
        command = [str(schedlab), "reproduce", name, "--quick", "--out", str(Path(folder) / "out"), "--quiet"]
        if name not in NO_TRACES:
            command += ["--traces", str(traces)]
        began = time.perf_counter()
        subprocess.run(command, check=True)
        return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"some of {', '.join(REPRODUCTIONS)} (default all)")
    parser.add_argument("--traces", type=Path, default=Path("../shared/traces"))
    args = parser.parse_args()
    unknown = set(args.names) - set(REPRODUCTIONS)
    if unknown:
        parser.error(f"unknown reproduction {', '.join(sorted(unknown))}")
    times = json.loads(TIMES.read_text()) if TIMES.exists() else {"reproduce --quick": {}}
    if not isinstance(times.get("load average"), dict):
        times["load average"] = {}
    for name in args.names or REPRODUCTIONS:
        load = os.getloadavg()[0]
        seconds = measure(name, args.traces.resolve())
        times["reproduce --quick"][name] = round(seconds, 1)
        times["load average"][name] = round(load, 1)
        print(f"| `schedlab reproduce {name} --quick` | {seconds:.1f} | {load:.1f} |", flush=True)
    times["cores"] = os.cpu_count()
    times["measured"] = datetime.date.today().isoformat()
    TIMES.write_text(json.dumps(times, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
