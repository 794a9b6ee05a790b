"""The registry's written facts agree with the code they name, so registering by dotted path cannot drift.

:mod:`schedlab.registry` names each algorithm's code as ``"module:attribute"`` and writes down, without
importing it, what it is: its name, online or offline, its family and command, the ratio of the I/O strip
packers. Each test here imports the code and checks one of those facts against it.
"""

from __future__ import annotations

import inspect

import pytest

from schedlab import registry
from schedlab.engine.policy import OnlinePolicy
from schedlab.offline import io as io_offline
from schedlab.offline.io.strip import STRIP_RATIOS
from schedlab.platform.registry import PLATFORMS, parse_platform
from schedlab.registry import ALGORITHMS, FAMILIES, HYBRID, IO, MOLDABLE, PARTITIONS, RIGID, STRETCH, TASKS

NAMES = list(ALGORITHMS)

# Where each family's code lives and which command runs it, by kind.
HOME = {
    (RIGID, "online"): ("schedlab.policies.rigid", "simulate"),
    (RIGID, "offline"): ("schedlab.offline.nfdh", ""),
    (PARTITIONS, "online"): ("schedlab.policies.torus", "simulate"),
    (TASKS, "online"): ("schedlab.policies.tasks", "tasks simulate"),
    (STRETCH, "online"): ("schedlab.policies.stretch.sequential", "tasks simulate"),
    (MOLDABLE, "online"): ("schedlab.policies.stretch.moldable", "moldable simulate"),
    (HYBRID, "offline"): ("schedlab.offline.hybrid", "solve hybrid"),
    (IO, "offline"): ("schedlab.offline.io", "solve io"),
}


@pytest.mark.parametrize("name", NAMES)
def test_the_path_names_the_code_of_the_entrys_kind(name):
    """An online entry is a policy class whose objects keep the engine's protocol; an offline one a function."""
    algorithm = ALGORITHMS[name]
    target = registry.resolve(algorithm.path)
    assert algorithm.target is target
    if algorithm.kind == "online":
        assert inspect.isclass(target)
        assert isinstance(algorithm.build(), OnlinePolicy)
    else:
        assert algorithm.kind == "offline"
        assert inspect.isfunction(target)


@pytest.mark.parametrize("name", NAMES)
def test_the_name_is_the_codes(name):
    """A policy calls itself by the registered name; an offline function is named after its entry."""
    algorithm = ALGORITHMS[name]
    if algorithm.kind == "online":
        assert algorithm.build().name == name
    elif not algorithm.bound:  # variants of a shared function (lpt-seq, unpinned-ffdh) are named by their settings
        assert algorithm.target.__name__.startswith(name.replace("-", "_"))


@pytest.mark.parametrize("name", NAMES)
def test_family_and_command_match_where_the_code_lives(name):
    algorithm = ALGORITHMS[name]
    home, command = HOME[(algorithm.family, algorithm.kind)]
    assert algorithm.target.__module__.startswith(home) and algorithm.path.startswith(home)
    assert algorithm.command == command


@pytest.mark.parametrize("name", NAMES)
def test_fixed_settings_are_keyword_parameters_of_the_code(name):
    algorithm = ALGORITHMS[name]
    function = algorithm.target.__init__ if algorithm.kind == "online" else algorithm.target
    keywords = {p.name for p in inspect.signature(function).parameters.values() if p.kind is p.KEYWORD_ONLY}
    assert set(algorithm.bound) <= keywords


def test_the_strip_packers_ratios_are_the_codes():
    """unpinned's stated ratio and guarantee use rho' of its strip packer (Bleuse 2017, Theorem 5.4)."""
    for name in ("unpinned", "unpinned-ffdh"):
        algorithm = ALGORITHMS[name]
        rho = STRIP_RATIOS[algorithm.bound["strip"]]
        assert algorithm.ratio == pytest.approx(2 * 4 / 3 + 2 * rho)
        assert f"rho' = {rho:g})" in algorithm.guarantee


@pytest.mark.parametrize("platform", ["line:m=12,io=3", "ring:m=12,io=3", "line:m=12,io=3,mode=exclusive"])
def test_lazy_ratio_traits_call_the_codes_functions(platform):
    io_platform = parse_platform(platform)
    assert ALGORITHMS["pinned"].traits["ratio_of"](io_platform) == io_offline.pinned_ratio(io_platform)
    for name in ("unpinned", "unpinned-ffdh"):
        algorithm = ALGORITHMS[name]
        expected = io_offline.unpinned_ratio(io_platform, strip=algorithm.bound["strip"])
        assert io_offline.proven_ratio(algorithm.traits, io_platform) == expected


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_records_resolve(name):
    record = registry.family(name)
    assert record.name == name
    assert all(callable(f) for f in (record.generate, record.instance_seed, record.common, record.measure))
    assert record.columns and all(isinstance(c, str) and isinstance(t, str) for c, t in record.columns)
    assert registry.names(kind="offline", family=name) or registry.names(kind="online", family=name)


def test_register_refuses_a_target_that_is_not_a_path():
    with pytest.raises(ValueError, match="module:attribute"):
        registry.register("x", RIGID, "online", "simulate", "schedlab.policies.rigid.fcfs.EASY", "s", "g")
    assert "x" not in ALGORITHMS


@pytest.mark.parametrize("kind", sorted(PLATFORMS))
def test_every_platform_kind_reads_its_example(kind):
    """Platform readers are registered by dotted path too: each one's example builds a platform of its kind."""
    record = PLATFORMS[kind]
    platform = parse_platform(record.example)
    assert platform.name == record.example or kind == "clusters"  # clusters are a two-level fat tree
    assert platform.name.partition(":")[0] in PLATFORMS and platform.n_procs > 0
