"""``schedlab campaign`` says what it does: progress lines in a log, warnings as one line, read-only queries."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from campaign.conftest import DAY, synthetic_trace
from schedlab.cli import app
from schedlab.cli.campaign import ProgressLog

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_progress_is_logged_when_stderr_is_not_a_terminal(small_spec):
    result = invoke("campaign", "run", small_spec, "--jobs", "1")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    pattern = re.compile(r"^spec: (\d+)/12 runs stored \(0 failed\), \d+s(, about \S+ left)?$")
    assert lines and all(pattern.match(line) for line in lines), lines
    counts = [int(pattern.match(line).group(1)) for line in lines]
    assert counts == sorted(set(counts)) and counts[-1] == 12 and len(counts) <= 10
    assert "about" not in lines[-1]
    assert invoke("campaign", "run", small_spec, "--quiet", "--retry-failed").stderr == ""


def test_progress_log_prints_a_line_per_tenth(capsys):
    log = ProgressLog("c", every=1e9)
    for done in range(1, 101):
        log(done, 100, {"state": "failed" if done % 25 == 0 else "done"})
    lines = capsys.readouterr().err.splitlines()
    assert [line.split()[1] for line in lines] == [f"{10 * k}/100" for k in range(1, 11)]
    assert "(4 failed)" in lines[-1] and "(1 failed)" in lines[2]


def test_coinciding_windows_warn_on_one_line(tmp_path):
    synthetic_trace(tmp_path / "short.swf", n_jobs=40, days=4 / DAY)
    spec = tmp_path / "short.toml"
    spec.write_text(
        '[[workloads]]\ntrace = "short.swf"\nwindows = { sample = "random", count = 10, length = "1" }\n'
        '[[policies]]\nname = "fcfs"\n',
        encoding="utf-8",
    )
    result = invoke("campaign", "status", spec)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and re.search(r"workloads\[0\] \(short\): \d of 10 windows coincide", warnings[0])


def test_a_window_longer_than_the_trace_is_one_error_line(make_spec):
    spec = make_spec(
        '[[workloads]]\ntrace = "{trace}"\nwindows = { sample = "random", count = 2, length = "30d" }\n'
        '[[policies]]\nname = "fcfs"\n'
    )
    result = invoke("campaign", "run", spec)
    assert result.exit_code == 1
    assert len(result.stderr.splitlines()) == 1 and "windows.length = 2.592e+06 s (30 d)" in result.stderr


def test_query_refuses_to_write_files(small_spec, tmp_path):
    invoke("campaign", "run", small_spec, "--jobs", "1", "--quiet")
    target = tmp_path / "out.csv"
    result = invoke("campaign", "query", small_spec, f"COPY runs TO '{target}'")
    assert result.exit_code == 1 and not target.exists()
    assert result.stderr.startswith("error: query: queries are read-only") and len(result.stderr.splitlines()) == 1
