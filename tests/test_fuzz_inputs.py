"""Fuzzing the readers and the command line: whatever the input, one error line, exit 1 or 2, no partial output.

Hypothesis mutates valid files (an SWF trace, a Batsim JSON workload, a ``jobs.csv``, a campaign TOML) and
draws option values from the mistakes people make (negative, NaN, huge, 1e300, beyond 2^53, reversed ranges,
text where a number goes). Through the CLI, a run either succeeds (exit 0, its files written) or exits 1 or 2
with exactly one line, ``error: ...``, on stderr, nothing on stdout and no output folder. The ``jobs.csv`` and
campaign readers are fuzzed as the library functions their commands call: only their own error, one line.
Examples are bounded (derandomised in CI) so the whole file runs in seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.errors import SchedlabError

runner = CliRunner()
DATA = Path(__file__).resolve().parent / "data"
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

NASTY = [
    "", "-1", "0", "nan", "inf", "-inf", "1e300", "-1e300", "9007199254740993", "99999999999999999999",
    "1e-300", "zz", "0-zz", "5-1", "0x10", "1_0", "\u0663", "-0", "7d", "0:7d", ":", "1.5", "1e23", "2.5e15",
]  # fmt: skip
nasty = st.one_of(st.sampled_from(NASTY), st.text(alphabet="0123456789-.:edxz ,", max_size=6))


def check_outcome(result, out: Path | None = None) -> None:
    """Success with its files, or exit 1/2 with one ``error:`` line on stderr, nothing on stdout, no folder."""
    if result.exit_code == 0:
        if out is not None:
            assert (out / "jobs.csv").is_file() and (out / "metrics.json").is_file()
        return
    assert result.exit_code in (1, 2), (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert result.stdout == ""
    if out is not None:
        assert not out.exists()


def mutate_lines(text: str, data, tokens=nasty) -> str:
    """Replace one whitespace- or comma-separated field of one line, or drop, repeat or cut a line."""
    lines = text.splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    action = data.draw(st.sampled_from(["field", "field", "field", "drop", "repeat", "cut"]))
    if action == "drop":
        del lines[i]
    elif action == "repeat":
        lines.insert(i, lines[i])
    elif action == "cut":
        lines[i] = lines[i][: data.draw(st.integers(0, len(lines[i])))]
    else:
        sep = "," if "," in lines[i] else " "
        fields = lines[i].split(sep)
        fields[data.draw(st.integers(0, len(fields) - 1))] = data.draw(tokens)
        lines[i] = sep.join(fields)
    return "\n".join(lines) + "\n"


@FUZZ
@given(data=st.data())
def test_swf_traces(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("swf")
    trace = folder / "t.swf"
    trace.write_text(mutate_lines((DATA / "tiny.swf").read_text(), data))
    out = folder / "run"
    check_outcome(runner.invoke(app, ["simulate", str(trace), "-q", "--out", str(out)]), out)
    check_outcome(runner.invoke(app, ["trace", "info", str(trace), "--json"]))


JSON_VALUES = st.one_of(
    st.sampled_from([None, -1, 0, 1.5, 1e300, -1e300, 2**53 + 1, 2**70, "x", "", [], {}, True]),
    st.integers(-5, 20),
)


@FUZZ
@given(data=st.data())
def test_batsim_workloads(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("json")
    document = json.loads((DATA / "tiny_batsim.json").read_text())
    where = data.draw(st.sampled_from(["nb_res", "job", "job", "profile", "text"]))
    if where == "nb_res":
        document["nb_res"] = data.draw(JSON_VALUES)
    elif where == "job":
        job = data.draw(st.sampled_from(document["jobs"]))
        job[data.draw(st.sampled_from(["id", "subtime", "walltime", "res", "profile"]))] = data.draw(JSON_VALUES)
    elif where == "profile":
        document["profiles"]["p60"]["delay"] = data.draw(JSON_VALUES)
    text = json.dumps(document)
    if where == "text":
        text = text[: data.draw(st.integers(0, len(text)))]
    workload = folder / "w.json"
    workload.write_text(text)
    out = folder / "run"
    procs = data.draw(st.sampled_from([[], ["--procs", "2"], ["--procs", "0"]]))
    check_outcome(runner.invoke(app, ["simulate", str(workload), "-q", "--out", str(out), *procs]), out)
    check_outcome(runner.invoke(app, ["trace", "info", str(workload), "--json"]))


@pytest.fixture(scope="module")
def jobs_csv(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("jobs") / "run"
    assert runner.invoke(app, ["simulate", str(DATA / "tiny.swf"), "-q", "--out", str(out)]).exit_code == 0
    return (out / "jobs.csv").read_text()


@FUZZ
@given(data=st.data())
def test_jobs_csv_reader(tmp_path_factory, jobs_csv, data):
    from schedlab.output import read_jobs_csv

    path = tmp_path_factory.mktemp("csv") / "jobs.csv"
    path.write_text(mutate_lines(jobs_csv, data, st.one_of(nasty, st.sampled_from(["0-3 zz", "0-zz", "5-1", "3 1-"]))))
    try:
        read_jobs_csv(path)
    except SchedlabError as error:
        assert "\n" not in str(error) and str(error).startswith(str(path))


CAMPAIGN = """name = "fuzz"
seed = 1
bsld_threshold = 10.0
store = "store"
metrics = ["bsld_mean", "wait_mean"]

[[workloads]]
name = "tiny"
trace = "{trace}"
windows = {{ sample = "random", count = 2, length = "1d" }}

[[policies]]
name = "easy"
params = {{ order = ["fcfs", "sjf"] }}
"""


@FUZZ
@given(data=st.data())
def test_campaign_spec_reader(tmp_path_factory, data):
    from schedlab.campaign import load_campaign

    path = tmp_path_factory.mktemp("toml") / "c.toml"
    text = CAMPAIGN.format(trace=DATA / "tiny.swf")
    tokens = st.one_of(nasty, st.sampled_from(['"x"', "[]", "{}", '"-1d"', '"0s"', "-5", "1e400", '"nope"']))
    lines = text.splitlines()
    i = data.draw(st.sampled_from([k for k, line in enumerate(lines) if "=" in line]))
    key = lines[i].split("=", 1)[0]
    lines[i] = f"{key}= {data.draw(tokens)}" if data.draw(st.booleans()) else lines[i][: data.draw(st.integers(0, 40))]
    path.write_text("\n".join(lines) + "\n")
    try:
        load_campaign(path)
    except SchedlabError as error:
        assert "\n" not in str(error)


OPTIONS = {
    "simulate": ["--procs", "--status", "--window", "--bsld-threshold", "--tau", "--seed", "--runtime-scale", "-P"],
    "tasks simulate": ["--procs", "--status", "--window", "--random-window", "--bsld-threshold", "--seed", "-P"],
}


@FUZZ
@given(data=st.data())
def test_command_line_options(tmp_path_factory, data):
    command = data.draw(st.sampled_from(sorted(OPTIONS)))
    chosen = data.draw(st.lists(st.sampled_from(OPTIONS[command]), min_size=1, max_size=3, unique=True))
    args = [*command.split(), str(DATA / "tiny.swf"), "-q"]
    for option in chosen:
        value = data.draw(nasty)
        if option == "-P":
            value = data.draw(st.sampled_from(["order", "tau", "dedicated", "allocator", "x"])) + "=" + value
        args += [option, value]
    out = tmp_path_factory.mktemp("cli") / "run"
    check_outcome(runner.invoke(app, [*args, "--out", str(out)]), out)


@FUZZ
@given(data=st.data())
def test_trace_convert_and_solve_options(tmp_path_factory, data):
    """trace convert's filters, and solve hybrid's generated instance: converted or refused in one line."""
    folder = tmp_path_factory.mktemp("convert")
    target = folder / "out" / "t.json"
    args = ["trace", "convert", str(DATA / "tiny.swf"), str(target)]
    for option in data.draw(st.lists(st.sampled_from(["--procs", "--status", "--window"]), max_size=3, unique=True)):
        args += [option, data.draw(nasty)]
    result = runner.invoke(app, args)
    check_outcome(result)
    assert target.is_file() == (result.exit_code == 0)
    keys = data.draw(st.lists(st.sampled_from(["n", "m", "k", "seed", "x"]), min_size=1, max_size=4, unique=True))
    generate = ",".join(f"{key}={data.draw(nasty)}" for key in keys)
    check_outcome(runner.invoke(app, ["solve", "hybrid", "--generate", generate, "--json"]))
