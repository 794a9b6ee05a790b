"""One CLI convention: every command's options walked, the shared ones checked to have one name and meaning.

Shared options (README, "Command line"): ``-o/--out`` a folder, ``--force`` a flag that allows overwriting,
``-j/--jobs`` worker processes defaulting to all cores, ``-q/--quiet`` a flag, ``--json`` a flag,
``--window START:END`` with durations, ``--procs`` the machine size, ``--bsld-threshold`` the bounded-slowdown
threshold (``--tau`` only as its hidden former name), ``-p/--policy`` and ``-P/--param``, ``-h/--help``.
"""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from schedlab.cli import app

runner = CliRunner()

SHORT = {"-o": "--out", "-j": "--jobs", "-q": "--quiet", "-p": "--policy", "-P": "--param", "-h": "--help"}
FLAGS = ("--force", "--quiet", "--json")
IMAGE_OUT = {"gantt"}  # its --out is the image it draws (issue 17 item 5, another change)


def commands(group=typer.main.get_command(app), path: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        if command.hidden:
            continue
        if hasattr(command, "commands"):  # a group
            yield from commands(command, (*path, name))
        else:
            yield " ".join((*path, name)), command


COMMANDS = dict(commands())


def options(command) -> dict:
    return {name: p for p in command.params if p.param_type_name == "option" for name in p.opts + p.secondary_opts}


def test_every_command_is_walked():
    assert {"simulate", "tasks simulate", "trace info", "reproduce hybrid", "solve io", "algorithms"} <= set(COMMANDS)
    assert len(COMMANDS) >= 25


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_shared_options_have_one_name_and_meaning(name):
    command = COMMANDS[name]
    opts = options(command)
    for short, long in SHORT.items():
        if short in opts:
            assert long in opts[short].opts, f"{name}: {short} is {opts[short].opts}"
    for flag in FLAGS:
        if flag in opts:
            assert opts[flag].is_flag and opts[flag].default is False, f"{name}: {flag}"
    if "--out" in opts and name not in IMAGE_OUT:
        assert "-o" in opts["--out"].opts and opts["--out"].help.startswith("Directory"), (
            f"{name}: {opts['--out'].help}"
        )
    if "--jobs" in opts:
        jobs = opts["--jobs"]
        assert "-j" in jobs.opts and jobs.default is None and "default: all cores" in jobs.help, name
    if "--quiet" in opts:
        assert "-q" in opts["--quiet"].opts, name
    if "--window" in opts:
        assert "START:END" in opts["--window"].help, f"{name}: {opts['--window'].help}"
    if "--tau" in opts:
        assert opts["--tau"].hidden and "--bsld-threshold" in opts, f"{name}: --tau visible"
    if "--bsld-threshold" in opts:
        threshold = opts["--bsld-threshold"]  # 10 s, or (measuring a finished run) the run's own
        assert threshold.default == 10.0 or (threshold.default is None and "the run's" in threshold.help), name
    if "--procs" in opts:
        assert opts["--procs"].help.startswith(("Machine size", "Processors")), f"{name}: {opts['--procs'].help}"
    if "--m" in opts and "--procs" in opts:
        assert opts["--m"].hidden, f"{name}: --m and --procs both visible"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_h_is_help_everywhere(name):
    result = runner.invoke(app, [*name.split(), "-h"], terminal_width=120, prog_name="schedlab")
    assert result.exit_code == 0 and "Usage: schedlab " + name in " ".join(result.stdout.split())


def test_simulate_and_tasks_simulate_share_simulate_options():
    shared = {"--quiet", "-q", "--status", "--procs", "--bsld-threshold", "--no-validate", "--json", "--window"}
    shared |= {"--out", "--force", "--seed", "--policy", "--param"}
    assert shared <= set(options(COMMANDS["simulate"])) and shared <= set(options(COMMANDS["tasks simulate"]))


def test_version_and_policies_json():
    from schedlab import __version__

    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0 and version.stdout == f"schedlab {__version__}\n"
    listing = runner.invoke(app, ["policies", "--json"])
    assert listing.exit_code == 0 and listing.stdout.lstrip().startswith("[")


def test_writers_refuse_to_overwrite_without_force(tmp_path, data_dir):
    """An existing file is never overwritten silently: the command stops before any work, --force allows it."""
    target = tmp_path / "t.json"
    target.write_text("keep")
    chart = tmp_path / "g.png"
    chart.write_bytes(b"keep")
    cases = [
        (["trace", "convert", str(data_dir / "tiny.swf"), str(target)], target),
        (["solve", "hybrid", "--generate", "n=8,m=2,k=1,seed=1", "--gantt", str(chart)], chart),
    ]
    for args, path in cases:
        refused = runner.invoke(app, args)
        assert refused.exit_code == 1 and "exists (use --force to overwrite)" in refused.stderr, refused.output
        assert path.read_bytes() == b"keep"
        assert runner.invoke(app, [*args, "--force"]).exit_code == 0
    assert target.read_text() != "keep" and chart.read_bytes() != b"keep"


def test_a_missing_output_folder_is_created_and_an_impossible_one_refused_before_work(tmp_path, data_dir):
    made = runner.invoke(app, ["trace", "convert", str(data_dir / "tiny.swf"), str(tmp_path / "new" / "t.json")])
    assert made.exit_code == 0 and (tmp_path / "new" / "t.json").is_file()
    refused = runner.invoke(app, ["trace", "convert", str(data_dir / "tiny.swf"), "/dev/null/x/t.json"])
    assert (
        refused.exit_code == 1
        and refused.stderr.strip() == "error: /dev/null/x: cannot create this folder (Not a directory)"
    )
