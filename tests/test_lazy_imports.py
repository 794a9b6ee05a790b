"""``schedlab simulate`` loads only what it runs: no pandas, numba or scipy (docs/architecture.md, decisions).

Each case starts a fresh interpreter, runs the command in it and lists the heavy libraries loaded,
so an eager import anywhere on the path (the CLI, the registry, a policy module, the reader, the
writer) fails the test.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "numba", "scipy", "pyarrow", "matplotlib", "plotly", "duckdb", "distributed")

PROBE = """
import json, sys
from schedlab.cli import app
try:
    app(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps(sorted(m for m in {heavy} if m in sys.modules)))
"""


def loaded(*args: str) -> list[str]:
    """The heavy libraries in ``sys.modules`` after ``schedlab ARGS`` ran in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_simulate_loads_no_heavy_library(data_dir):
    assert loaded("simulate", str(data_dir / "tiny.swf"), "--policy", "easy", "--quiet") == []


def test_simulate_with_output_loads_no_heavy_library(data_dir, tmp_path):
    """jobs.csv is written by the compiled core (which every simulation needs), not by Arrow's CSV writer."""
    out = tmp_path / "out"
    assert loaded("simulate", str(data_dir / "tiny.swf"), "--policy", "easy", "--quiet", "--out", str(out)) == []
    assert (out / "jobs.csv").read_text().count("\n") == 4  # the header and the 3 jobs the filters keep


@pytest.mark.parametrize("args", [("--help",), ("algorithms",)])
def test_other_light_commands_load_no_heavy_library(args):
    assert loaded(*args) == []
