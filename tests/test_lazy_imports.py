"""``schedlab simulate`` loads only what it runs: no pandas, numba or scipy, and of schedlab's own modules
only those of the policy it runs (docs/architecture.md, decisions).

Each case starts a fresh interpreter, runs the command in it and lists the modules loaded, so an eager
import anywhere on the path (the CLI, the registry, a package's ``__init__``, a policy module, the reader,
the writer) fails the test.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "numba", "scipy", "pyarrow", "matplotlib", "plotly", "duckdb", "distributed")

PROBE = """
import json, sys
from schedlab.cli import app
try:
    if sys.argv[1:]:
        app(sys.argv[1:], standalone_mode=False)
finally:
    print(json.dumps(sorted(sys.modules)))
"""

# What no command but the one that runs them may load: every algorithm of another family, the other
# families' models and readers.
ALGORITHMS = ("schedlab.policies.tasks", "schedlab.policies.stretch", "schedlab.policies.torus", "schedlab.offline")
OTHER_MODELS = (
    "schedlab.platform.hybrid",
    "schedlab.platform.io",
    "schedlab.platform.torus",
    "schedlab.runtime.hybrid",
    "schedlab.runtime.io",
    "schedlab.runtime.moldable",
    "schedlab.workload.hybrid",
    "schedlab.workload.io_jobs",
    "schedlab.workload.moldable",
    "schedlab.workload.tasks",
    "schedlab.workload.batsim",
)
# Packages whose names load on first use (schedlab._lazy).
LAZY_PACKAGES = (
    "schedlab",
    "schedlab.runtime",
    "schedlab.workload",
    "schedlab.policies",
    "schedlab.policies.rigid",
    "schedlab.policies.tasks",
    "schedlab.policies.stretch",
    "schedlab.policies.torus",
)


def modules(*args: str) -> list[str]:
    """Every module in ``sys.modules`` after ``import schedlab.cli`` and ``schedlab ARGS`` (if any) ran in a
    fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def under(names: list[str], *packages: str) -> list[str]:
    """The modules of ``names`` that are one of ``packages`` or inside one."""
    return [m for m in names if any(m == p or m.startswith(p + ".") for p in packages)]


def loaded(*args: str) -> list[str]:
    """The heavy libraries in ``sys.modules`` after ``schedlab ARGS`` ran in a fresh interpreter."""
    return under(modules(*args), *HEAVY)


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


def test_importing_the_cli_loads_no_library_module_nor_numpy():
    """What a command runs, its own module included, loads when it runs."""
    names = modules()
    assert under(names, "schedlab") == [
        "schedlab",
        "schedlab._lazy",
        "schedlab._version",
        "schedlab.cli",
        "schedlab.cli.common",
        "schedlab.durations",
        "schedlab.errors",
    ]
    assert under(names, "numpy", *HEAVY) == []


def test_simulate_loads_the_policy_it_runs_and_no_other_algorithm(data_dir):
    names = modules("simulate", str(data_dir / "tiny.swf"), "--policy", "easy", "--quiet")
    assert "schedlab.policies.rigid.fcfs" in names
    assert under(names, "schedlab.cli") == ["schedlab.cli", "schedlab.cli.common", "schedlab.cli.simulate"]
    assert under(names, "schedlab.policies.rigid.conservative", *ALGORITHMS, *OTHER_MODELS) == []


def test_the_registry_imports_no_algorithm():
    """Names, families, commands and sources are read without importing the code (registered by dotted path)."""
    probe = "import json, sys; import schedlab.registry; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert under(json.loads(done.stdout), "schedlab.policies", "schedlab.offline", "schedlab.engine", "numpy") == []


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_lazy_packages_export_every_name_of_their_all(package):
    """Each name of ``__all__`` loads from its module on first use, and ``dir()`` lists it before."""
    module = importlib.import_module(package)
    assert set(module.__all__) <= set(dir(module))
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None
        assert getattr(module, name) is value
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        module.nope  # noqa: B018
