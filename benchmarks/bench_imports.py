"""What a command costs before it does anything: ``import schedlab.cli``, the help and a 3-job ``simulate``.

Each command runs in its own fresh process, ``--repeat`` times; the best wall and CPU (user + system)
seconds are printed as a Markdown table, with the 1-minute load average before and after (the machine is
shared: a loaded one inflates both). ``--trace`` adds a full run, e.g. EASY on RICC with its outputs.
``--src OTHER/src`` measures another checkout with this one's interpreter (its ``PYTHONPATH``), the way
the README's before and after were taken.

    python benchmarks/bench_imports.py
    python benchmarks/bench_imports.py --trace ../shared/traces/RICC-2010-2.swf.gz --repeat 3
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "data" / "tiny.swf"
CLI = "import sys; from schedlab.cli import app; sys.argv[0] = 'schedlab'; app()"


def best(command: list[str], repeat: int, env: dict[str, str]) -> tuple[float, float]:
    """The best wall and CPU seconds of ``command`` over ``repeat`` fresh processes (raises if it fails)."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        before, began = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elapsed, after = time.perf_counter() - began, resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = min(wall, elapsed)
        cpu = min(cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command; the best is kept")
    parser.add_argument("--trace", type=Path, help="also simulate EASY on this trace, writing its outputs")
    parser.add_argument("--src", type=Path, help="measure this checkout's src/ instead of the installed package")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.src is not None:
        env["PYTHONPATH"] = str(args.src.resolve())
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        commands = {
            "`python -c 'import schedlab.cli'`": [python, "-c", "import schedlab.cli"],
            "`schedlab --help`": [python, "-c", CLI, "--help"],
            "`schedlab simulate --help`": [python, "-c", CLI, "simulate", "--help"],
            "`schedlab simulate tiny.swf -q` (3 jobs)": [python, "-c", CLI, "simulate", str(TINY), "-q"],
        }
        if args.trace is not None:
            out = str(Path(folder) / "out")
            trace = str(args.trace.resolve())
            commands[f"`schedlab simulate {args.trace.name} -p easy -q --out DIR`"] = [
                python,
                "-c",
                CLI,
                "simulate",
                trace,
                "-p",
                "easy",
                "-q",
                "--out",
                out,
                "--force",
            ]
        print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores, best of {args.repeat}\n")
        print("| command | wall s | CPU s |\n|---|--:|--:|")
        for label, command in commands.items():
            wall, cpu = best(command, args.repeat, env)
            print(f"| {label} | {wall:.2f} | {cpu:.2f} |", flush=True)
        print(f"\nload average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
