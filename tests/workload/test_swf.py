"""SWF reading and writing: hand-made files with known values, then the real PWA traces.

Reading runs on the compiled core when it is built and on the Python reference parser otherwise;
the ``parser`` fixture runs a test on both, and the differential tests compare them.
"""

from __future__ import annotations

import functools
import gzip
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.workload import SWF_FIELDS, JobTable, SwfHeader, machine_size, read_swf, write_swf
from schedlab.workload import swf as swf_module
from schedlab.workload.swf import FLOAT_FIELDS

COMPILED = swf_module._core is not None
PARSERS = ["compiled", "python"] if COMPILED else ["python"]

TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"
TRACE_FILES = sorted(p.name for p in TRACES.glob("*.swf*")) if TRACES.is_dir() else []

# README.md of the shared traces: jobs and MaxProcs of each file (None: no MaxProcs line).
README = {
    "KTH-SP2-1996-2.1-cln.swf.gz": (28_476, 100),
    "SDSC-SP2-1998-4.2-cln.swf.gz": (59_715, 128),
    "NASA-iPSC-1993-3.1-cln.swf.gz": (18_239, 128),
    "CTC-SP2-1996-3.1-cln.swf.gz": (77_222, 338),
    "SDSC-Par-1996-3.1-cln.swf.gz": (32_135, 400),
    "OSC-Clust-2000-3.1-cln.swf.gz": (36_097, 178),
    "HPC2N-2002-2.2-cln.swf.gz": (202_871, 240),
    "LANL-CM5-1994-4.1-cln.swf.gz": (122_060, 1_024),
    "LLNL-Thunder-2007-1.1-cln.swf.gz": (121_039, 4_008),
    "SDSC-DS-2004-2.1-cln.swf.gz": (96_069, 1_664),
    "RICC-2010-2.swf.gz": (447_794, 8_192),
    "CEA-Curie-2011-2.1-cln.swf.gz": (312_826, 93_312),
    "LCG-2005-1.swf.gz": (188_041, 24_515),
    "lublin_256.swf.gz": (10_000, None),
}


@functools.cache
def real_trace(name: str):
    """Each real trace is read once per test session."""
    return read_swf(TRACES / name)


@pytest.fixture(params=PARSERS)
def parser(request, monkeypatch) -> str:
    """Run the test with the compiled parser and with the Python reference parser."""
    if request.param == "python":
        monkeypatch.setattr(swf_module, "_core", None)
    return request.param


def read_python(path):
    """``read_swf`` on the Python reference parser, whatever is built."""
    compiled = swf_module._core
    swf_module._core = None
    try:
        return read_swf(path)
    finally:
        swf_module._core = compiled


def outcome(path, *, python: bool = False):
    """What reading gives (on the Python parser if ``python``): the trace, or the error's message."""
    try:
        return read_python(path) if python else read_swf(path)
    except InputError as error:
        return str(error)


def assert_same_outcome(path) -> None:
    """Both parsers give equal traces, or the same error message."""
    compiled, python = outcome(path), outcome(path, python=True)
    if isinstance(compiled, str) or isinstance(python, str):
        assert compiled == python
    else:
        assert_traces_equal(compiled, python)


def assert_traces_equal(a, b) -> None:
    assert a.header == b.header
    assert len(a) == len(b)
    np.testing.assert_array_equal(a.line, b.line)
    for name in SWF_FIELDS:
        assert a.columns[name].dtype == b.columns[name].dtype, name
        np.testing.assert_array_equal(a.columns[name], b.columns[name], err_msg=name)


# ----------------------------------------------------------------------------- hand-made files


def test_tiny_values_and_dtypes(parser, data_dir):
    trace = read_swf(data_dir / "tiny.swf")
    assert len(trace) == 7
    assert trace.source == str(data_dir / "tiny.swf")
    assert set(trace.columns) == set(SWF_FIELDS)
    for name in SWF_FIELDS:
        assert trace.columns[name].dtype == (np.float64 if name in FLOAT_FIELDS else np.int64), name
    c = trace.columns
    np.testing.assert_array_equal(c["job_id"], [1, 2, 3, 4, 5, 6, 7])
    np.testing.assert_array_equal(c["submit_time"], [0, 10, 20, -1, 40, 50, 60])
    np.testing.assert_array_equal(c["wait_time"], [5, -1, 0, 0, 0, 2.5, 0])
    np.testing.assert_array_equal(c["run_time"], [100, 50, 0, 30, 70, 12.25, 20])
    np.testing.assert_array_equal(c["avg_cpu_time"], [90.5, -1, -1, -1, -1, -1, -1])
    np.testing.assert_array_equal(c["requested_procs"], [4, -1, 8, 1, 32, 0, -1])
    np.testing.assert_array_equal(c["status"], [1, 1, 0, 1, 5, 1, 0])
    np.testing.assert_array_equal(c["think_time"], [-1] * 7)
    np.testing.assert_array_equal(trace.line, [8, 9, 10, 11, 12, 13, 14])


def test_header_takes_first_integer_and_keeps_lines(parser, data_dir):
    header = read_swf(data_dir / "tiny.swf").header
    assert header.max_procs == 16  # "16 (4 per node)"
    assert header.max_nodes == 4  # "4 nodes (2 batch)"
    assert header.unix_start_time == 1_000_000_000
    assert header.time_zone_string == "Europe/Paris"
    assert header.computer == "Tiny Test Machine"
    assert header.fields["MaxProcs"] == "16 (4 per node)"
    assert header.fields["Note"] == "hand-made for schedlab tests; every filter removes one job"
    assert len(header.lines) == 7
    assert header.lines[0] == "; Version: 2.2"


def test_header_missing_values_are_none(parser, data_dir):
    header = read_swf(data_dir / "quirks.swf").header
    assert (header.max_procs, header.max_nodes, header.unix_start_time, header.time_zone_string) == (None,) * 4
    assert header.computer == "Quirky (no size lines)"
    assert header.lines == (
        "; Computer: Quirky (no size lines)",
        "   ; indented comment between jobs",
        "; another comment",
    )


def test_line_numbers_with_interleaved_comments_and_blank_lines(parser, data_dir):
    """Blank first line, indented comment, blank-with-tabs line, trailing comment, CRLF, no final newline."""
    trace = read_swf(data_dir / "quirks.swf")
    np.testing.assert_array_equal(trace.line, [3, 6, 7, 9])
    np.testing.assert_array_equal(trace.columns["job_id"], [10, 11, 12, 13])
    # absolute Unix times, unsorted, read as given
    np.testing.assert_array_equal(trace.columns["submit_time"], [1272639895, 1272630000, 1272640000, 1272600000.5])
    np.testing.assert_array_equal(trace.columns["run_time"], [100, 50, 5, 7.75])
    np.testing.assert_array_equal(trace.columns["user_id"], [7, 7, 8, -1])


def test_bad_token_names_file_line_and_field(parser, data_dir):
    path = data_dir / "bad_field.swf"
    with pytest.raises(
        InputError, match=re.escape(f"{path}:3: field 8 (requested_procs) = abc, expected a number")
    ) as info:
        read_swf(path)
    assert (info.value.line, info.value.field, info.value.value) == (3, "field 8 (requested_procs)", "abc")


def test_wrong_field_count(parser, data_dir):
    path = data_dir / "bad_count.swf"
    with pytest.raises(InputError, match=re.escape(f"{path}:4: expected 18 fields, found 17")):
        read_swf(path)


@pytest.mark.parametrize(
    ("token", "expected"),
    [("2.5", "an integer"), ("nan", "a number"), ("1_0", "a number"), ("0x10", "a number"), ("inf", "a number")],
)
def test_bad_values_in_integer_field(parser, tmp_path, token, expected):
    path = tmp_path / "t.swf"
    path.write_text(
        f"1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 0 -1 10 {token} -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    )
    with pytest.raises(
        InputError, match=re.escape(f"t.swf:2: field 5 (allocated_procs) = {token}, expected {expected}")
    ):
        read_swf(path)


def test_too_many_fields(parser, tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("; h\n" + "1 " * 18 + "\n" + "1 " * 19 + "\n")
    with pytest.raises(InputError, match=re.escape("t.swf:3: expected 18 fields, found 19")):
        read_swf(path)


def test_missing_file(tmp_path):
    path = tmp_path / "absent.swf"
    with pytest.raises(InputError, match=re.escape(f"{path}: no such file")):
        read_swf(path)


def test_empty_trace_is_valid(parser, tmp_path):
    path = tmp_path / "empty.swf"
    path.write_text("; MaxProcs: 64\n\n; nothing ran\n")
    trace = read_swf(path)
    assert len(trace) == 0
    assert trace.header.max_procs == 64
    assert trace.columns["run_time"].dtype == np.float64 and trace.columns["job_id"].dtype == np.int64
    assert trace.line.shape == (0,)


def test_gzip_detected_by_magic_bytes_not_suffix(parser, data_dir, tmp_path):
    plain = read_swf(data_dir / "tiny.swf")
    disguised = tmp_path / "compressed.swf"
    disguised.write_bytes(gzip.compress((data_dir / "tiny.swf").read_bytes()))
    assert_traces_equal(read_swf(disguised), plain)
    not_gz = tmp_path / "plain.swf.gz"
    not_gz.write_bytes((data_dir / "tiny.swf").read_bytes())
    assert_traces_equal(read_swf(not_gz), plain)


# ----------------------------------------------------------------------------- machine size


def test_machine_size_order(data_dir, tmp_path):
    tiny = read_swf(data_dir / "tiny.swf")
    assert machine_size(tiny, 12) == (12, "--procs")
    assert machine_size(tiny) == (16, "MaxProcs header")
    nodes_only = tmp_path / "nodes.swf"
    nodes_only.write_text("; MaxNodes: 10 nodes\n1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert machine_size(read_swf(nodes_only)) == (10, "MaxNodes header (no MaxProcs)")
    # quirks.swf: no header sizes; widest job is 4 (allocated, requested -1), not 2 or 3
    assert machine_size(read_swf(data_dir / "quirks.swf")) == (4, "largest job (no MaxProcs/MaxNodes header)")


def test_machine_size_largest_job_uses_requested_first(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(
        "1 0 -1 10 64 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"  # requested 2 wins over allocated 64
        "2 0 -1 10 5 -1 -1 -1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    )
    assert machine_size(read_swf(path)) == (5, "largest job (no MaxProcs/MaxNodes header)")


def test_machine_size_errors(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("; nothing\n")
    trace = read_swf(path)
    with pytest.raises(InputError, match="give --procs"):
        machine_size(trace)
    with pytest.raises(InputError, match=re.escape("--procs = 0, expected an integer from 1 to 67,108,864")):
        machine_size(trace, 0)


# ----------------------------------------------------------------------------- writing


@pytest.mark.parametrize("name", ["out.swf", "out.swf.gz"])
@pytest.mark.parametrize("source", ["tiny.swf", "quirks.swf"])
def test_write_read_round_trip(data_dir, tmp_path, name, source):
    trace = read_swf(data_dir / source)
    write_swf(tmp_path / name, trace)
    if name.endswith(".gz"):
        assert (tmp_path / name).read_bytes()[:2] == b"\x1f\x8b"
    again = read_swf(tmp_path / name)
    assert again.header.lines == trace.header.lines
    assert again.header == trace.header
    for field in SWF_FIELDS:
        np.testing.assert_array_equal(again.columns[field], trace.columns[field], err_msg=field)
        assert again.columns[field].dtype == trace.columns[field].dtype


def test_write_is_deterministic(data_dir, tmp_path):
    trace = read_swf(data_dir / "tiny.swf")
    write_swf(tmp_path / "a.swf.gz", trace)
    write_swf(tmp_path / "b.swf.gz", trace)
    assert (tmp_path / "a.swf.gz").read_bytes() == (tmp_path / "b.swf.gz").read_bytes()


def test_write_jobtable_fields(tmp_path):
    jobs = JobTable.from_arrays(
        id=[7, 3],
        submit=[0.0, 12.5],
        run_time=[100.0, 30.0],
        requested_time=[200.0, 60.0],
        procs=[4, 1],
        extra={"user_id": np.array([5, 6]), "status": np.array([1, 0]), "not_swf": np.array([9, 9])},
    )
    path = tmp_path / "jobs.swf"
    write_swf(path, jobs, header={"MaxProcs": 8, "Computer": "test"})
    text = path.read_text().splitlines()
    assert text[:2] == ["; MaxProcs: 8", "; Computer: test"]
    assert text[2].split() == [
        "7",
        "0",
        "-1",
        "100",
        "4",
        "-1",
        "-1",
        "4",
        "200",
        "-1",
        "1",
        "5",
        "-1",
        "-1",
        "-1",
        "-1",
        "-1",
        "-1",
    ]
    assert text[3].split() == [
        "3",
        "12.5",
        "-1",
        "30",
        "1",
        "-1",
        "-1",
        "1",
        "60",
        "-1",
        "0",
        "6",
        "-1",
        "-1",
        "-1",
        "-1",
        "-1",
        "-1",
    ]
    trace = read_swf(path)
    assert trace.header.max_procs == 8
    np.testing.assert_array_equal(trace.line, [3, 4])


def test_write_jobtable_default_header(tmp_path):
    jobs = JobTable.from_arrays(submit=[0.0], run_time=[1.0], procs=[1])
    write_swf(tmp_path / "j.swf", jobs)
    header = read_swf(tmp_path / "j.swf").header
    assert header.fields == {"Version": "2.2", "MaxJobs": "1", "MaxRecords": "1"}
    assert header.max_procs is None


# ----------------------------------------------------------------------------- real traces


@pytest.mark.parametrize(
    "name", TRACE_FILES or [pytest.param("none", marks=pytest.mark.skip(reason=f"no traces at {TRACES}"))]
)
def test_real_trace_reads(traces_dir, name):
    trace = real_trace(name)
    assert len(trace) > 0
    assert np.all(np.diff(trace.line) > 0)
    if name in README:
        jobs, max_procs = README[name]
        assert len(trace) == jobs
        assert trace.header.max_procs == max_procs


def test_real_trace_header_quirks(traces_dir):
    """The quirks README.md lists, one assertion each."""
    ds = real_trace("SDSC-DS-2004-2.1-cln.swf.gz").header
    assert (ds.max_procs, ds.max_nodes) == (1664, 184)  # "1664 (72, 1368, 224)", "184  ( 6,  171,   7)"
    assert real_trace("SDSC-Par-1996-3.1-cln.swf.gz").header.max_nodes == 400
    assert real_trace("CTC-SP2-1996-3.1-cln.swf.gz").header.max_nodes == 338
    assert real_trace("CEA-Curie-2011-2.1-cln.swf.gz").header.computer is None
    lcg = real_trace("LCG-2005-1.swf.gz").header
    assert lcg.max_nodes is None and lcg.max_procs == 24_515
    lublin = real_trace("lublin_256.swf.gz").header
    assert (lublin.computer, lublin.max_procs, lublin.max_nodes) == (None, None, 256)
    assert int((real_trace("LLNL-Thunder-2007-1.1-cln.swf.gz").columns["submit_time"] == -1).sum()) == 1_190


def test_write_header_built_from_attributes(tmp_path):
    jobs = JobTable.from_arrays(submit=[0.0], run_time=[1.0], procs=[2])
    write_swf(tmp_path / "j.swf", jobs, header=SwfHeader(max_procs=128, computer="Made up"))
    assert (tmp_path / "j.swf").read_text().splitlines()[:2] == ["; Computer: Made up", "; MaxProcs: 128"]
    header = read_swf(tmp_path / "j.swf").header
    assert (header.max_procs, header.computer) == (128, "Made up")


# ----------------------------------------------------------------------------- one reader semantics

QUIRKY = {
    # form feed, vertical tab and tabs between fields, CRLF, a comment glued to the last field
    "blanks": b"; MaxProcs: 8\r\n1\t0\x0c-1 10\x0b1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1;done\r\n",
    # every number form of the grammar, integral floats in integer fields, signed zeros
    "numbers": b"+1 .5 5. 1e3 2.0 1E+2 -0 0003 2.5e-3 -1 1.0e0 -1 -1 -1 -1 -1 -1 -0.0\n",
    # integers beyond 2**53 go through float64, as documented
    "huge": b"9007199254740993 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 123456789012345678901234567890\n",
    # comments anywhere, latin-1 and UTF-8 bytes in them, indented ones, no final newline
    "comments": "; Computer: Caf\u00e9\n\n   ; indented\n1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1 ; \u00e9\n".encode()
    + b"; \xe9 latin-1\n \t \n2 5 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1",
    "only comments": b"; Version: 2.2\n;\n   \n",
    "empty": b"",
    # errors: the first bad line wins over a bad value before it; among values, the lowest field
    "bad line after bad value": b"1 0 -1 10 1.5 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n1 2 3\n",
    "bad values": b"1 0 -1 10 1.5 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 1e999 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
    "bad token": b"1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 0x1\n",
    "latin-1 token": b"1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 \xe9\n",
    "too big": b"1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 0 -1 10 1e19 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
}


@pytest.mark.skipif(not COMPILED, reason="the compiled core is not built")
@pytest.mark.parametrize("name", sorted(QUIRKY))
def test_compiled_and_python_parsers_agree_on_quirky_files(tmp_path, name):
    path = tmp_path / "q.swf"
    path.write_bytes(QUIRKY[name])
    assert_same_outcome(path)


def test_quirky_values(parser, tmp_path):
    """Hand-checked values of the quirky files, on either parser."""
    path = tmp_path / "q.swf"
    path.write_bytes(QUIRKY["numbers"])
    row = [float(read_swf(path).columns[name][0]) for name in SWF_FIELDS]
    assert row == [1, 0.5, 5, 1000, 2, 100, -0.0, 3, 0.0025, -1, 1, -1, -1, -1, -1, -1, -1, -0.0]
    path.write_bytes(QUIRKY["huge"])
    trace = read_swf(path)
    assert int(trace.columns["job_id"][0]) == 2**53  # 2**53 + 1 rounds to the nearest float64
    assert float(trace.columns["think_time"][0]) == 1.2345678901234568e29
    path.write_bytes(QUIRKY["comments"])
    trace = read_swf(path)
    np.testing.assert_array_equal(trace.line, [4, 7])
    assert trace.header.lines == ("; Computer: Caf\u00e9", "   ; indented", "; \u00e9 latin-1")
    for name, message in [
        ("bad line after bad value", "q.swf:2: expected 18 fields, found 3"),
        ("bad values", "q.swf:2: field 2 (submit_time) = 1e999, expected a finite number"),
        ("latin-1 token", "q.swf:1: field 18 (think_time) = \u00e9, expected a number"),
        ("too big", "q.swf:2: field 5 (allocated_procs) = 1e19, expected an integer"),
    ]:
        path.write_bytes(QUIRKY[name])
        with pytest.raises(InputError, match=re.escape(message)):
            read_swf(path)


_TOKENS = st.sampled_from(["-1", "0", "7", "+3", "2.5", ".5", "5.", "1e3", "1e999", "x", "0x1", "1e", "12.0", "-0"])
_LINES = st.one_of(
    st.lists(_TOKENS, min_size=18, max_size=18).map(" ".join),
    st.lists(_TOKENS, min_size=0, max_size=20).map(" ".join),
    st.sampled_from(["; MaxProcs: 4", "  ; note", "", " \t", "\x0c"]),
    st.tuples(st.lists(_TOKENS, min_size=18, max_size=18), st.sampled_from(["\t", "\x0b", " ;c", ";", "\r"])).map(
        lambda t: "\t".join(t[0]) + t[1]
    ),
)


@pytest.mark.skipif(not COMPILED, reason="the compiled core is not built")
@given(lines=st.lists(_LINES, max_size=8), newline=st.booleans())
def test_compiled_and_python_parsers_agree_on_random_files(tmp_path_factory, lines, newline):
    """Random mixes of good and bad lines: same columns, lines and header, or the same error message."""
    path = tmp_path_factory.mktemp("random") / "r.swf"
    path.write_bytes(("\n".join(lines) + ("\n" if newline else "")).encode())
    assert_same_outcome(path)


@pytest.mark.skipif(not COMPILED, reason="the compiled core is not built")
@pytest.mark.parametrize("name", ["tiny.swf", "quirks.swf"])
def test_compiled_parser_reads_the_test_files(data_dir, monkeypatch, name):
    """read_swf uses the compiled parser when it is built, and it matches the reference."""
    path = data_dir / name
    python = read_python(path)

    def fail(*args):
        raise AssertionError("Python parser used")

    monkeypatch.setattr(swf_module, "_parse_python", fail)
    assert_traces_equal(read_swf(path), python)


@pytest.mark.skipif(not COMPILED, reason="the compiled core is not built")
def test_real_trace_parsers_agree(traces_dir):
    """The oracle on a whole real file (the smallest real log, 28k jobs); every log in the slow test below."""
    name = "KTH-SP2-1996-2.1-cln.swf.gz"
    assert_traces_equal(real_trace(name), read_python(traces_dir / name))


@pytest.mark.slow
@pytest.mark.skipif(not COMPILED, reason="the compiled core is not built")
@pytest.mark.parametrize("name", TRACE_FILES)
def test_every_real_trace_parsers_agree(traces_dir, name):
    assert_traces_equal(read_swf(traces_dir / name), read_python(traces_dir / name))
