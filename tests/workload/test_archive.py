"""Traces by name: the archive's registry, and the fetcher against a real HTTP server on 127.0.0.1.

The server serves files from a dict; a path listed in ``cut`` announces its
full length and closes the connection halfway, as a dropped download does.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import json
import threading

import pytest

from schedlab.errors import InputError
from schedlab.workload.archive import LOGS, ArchiveLog, fetch, get_log, resolve
from schedlab.workload.swf import read_swf


class _Handler(http.server.BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}
    cut: set[str] = set()

    def do_GET(self):
        data = self.files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.path in self.cut:
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.connection.close()
            return
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Handler.files, _Handler.cut = {}, set()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", _Handler
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def tiny_log(data_dir):
    data = gzip.compress((data_dir / "tiny.swf").read_bytes(), mtime=0)
    log = ArchiveLog("TINY-2000-1", "l_tiny", hashlib.sha256(data).hexdigest(), 3, 16)
    return log, data


def test_a_good_download_lands_in_the_cache_and_reads(tmp_path, server, tiny_log):
    url, handler = server
    log, data = tiny_log
    handler.files["/l_tiny/TINY-2000-1.swf.gz"] = data
    seen = []
    path = fetch(log, cache=tmp_path / "cache", base_url=url, progress=lambda done, total: seen.append((done, total)))
    assert path == tmp_path / "cache" / "TINY-2000-1.swf.gz"
    assert path.read_bytes() == data
    assert len(read_swf(path)) == 7
    assert seen and seen[-1] == (len(data), len(data))
    handler.files.clear()  # a second fetch finds it in the cache: no request made
    assert fetch(log, cache=tmp_path / "cache", base_url=url) == path


def test_a_wrong_checksum_is_refused_and_nothing_is_cached(tmp_path, server, tiny_log):
    url, handler = server
    log, data = tiny_log
    handler.files["/l_tiny/TINY-2000-1.swf.gz"] = data + b"tampered"
    cache = tmp_path / "cache"
    with pytest.raises(InputError, match="refused: its SHA-256 is not the one registered for TINY-2000-1"):
        fetch(log, cache=cache, base_url=url)
    assert not cache.exists() or list(cache.iterdir()) == []


def test_an_interrupted_download_leaves_nothing_in_the_cache(tmp_path, server, tiny_log):
    url, handler = server
    log, data = tiny_log
    handler.files["/l_tiny/TINY-2000-1.swf.gz"] = data
    handler.cut.add("/l_tiny/TINY-2000-1.swf.gz")
    cache = tmp_path / "cache"
    with pytest.raises(InputError, match="download failed .*by hand into"):
        fetch(log, cache=cache, base_url=url, timeout=5)
    assert not cache.exists() or list(cache.iterdir()) == []


def test_a_missing_file_says_what_to_do(tmp_path, server, tiny_log):
    url, _ = server
    log, _ = tiny_log
    with pytest.raises(InputError) as info:
        fetch(log, cache=tmp_path / "cache", base_url=url)
    assert "404" in str(info.value) and "SCHEDLAB_TRACES" in str(info.value)
    assert len(str(info.value).splitlines()) == 1


def test_pwa_names_resolve_through_the_archive_url(tmp_path, server, traces_dir, monkeypatch):
    """A registered log fetched over HTTP from a mirror with the archive's layout, its registered SHA-256
    checked; then found in the cache."""
    url, handler = server
    log = LOGS["KTH-SP2-1996-2.1-cln"]
    handler.files["/l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz"] = (traces_dir / log.file).read_bytes()
    monkeypatch.setenv("SCHEDLAB_ARCHIVE_URL", url)
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SCHEDLAB_TRACES", raising=False)
    path = resolve("pwa:KTH-SP2-1996-2.1-cln")
    assert path == str(tmp_path / "cache" / log.file)
    assert len(read_swf("pwa:KTH-SP2-1996-2.1-cln")) == log.jobs


def test_a_local_mirror_comes_first(traces_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("SCHEDLAB_TRACES", str(traces_dir))
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "empty"))
    assert resolve("pwa:HPC2N-2002-2.2-cln") == str(traces_dir / "HPC2N-2002-2.2-cln.swf.gz")
    assert resolve(traces_dir / "x.swf") == str(traces_dir / "x.swf")  # a path stays a path


def test_registered_checksums_and_sizes_match_the_shared_copies(traces_dir):
    for log in LOGS.values():
        path = traces_dir / log.file
        if path.is_file():
            assert hashlib.sha256(path.read_bytes()).hexdigest() == log.sha256, log.name


def test_unknown_names_suggest_close_ones():
    with pytest.raises(InputError, match=r"^pwa:KTH-SP2: not a log .*did you mean KTH-SP2-1996-2.1-cln\?"):
        get_log("pwa:KTH-SP2")
    assert get_log("HPC2N-2002-2.2-cln.swf.gz").folder == "l_hpc2n"


def test_trace_list_and_fetch_commands(tmp_path, server, traces_dir, monkeypatch):
    from typer.testing import CliRunner

    from schedlab.cli import app

    url, handler = server
    log = LOGS["NASA-iPSC-1993-3.1-cln"]
    handler.files[f"/{log.folder}/{log.file}"] = (traces_dir / log.file).read_bytes()
    monkeypatch.setenv("SCHEDLAB_ARCHIVE_URL", url)
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SCHEDLAB_TRACES", raising=False)
    runner = CliRunner()
    listed = {row["name"]: row for row in json.loads(runner.invoke(app, ["trace", "list", "--json"]).stdout)}
    assert listed[log.name]["where"] is None and listed[log.name]["sha256"] == log.sha256
    fetched = runner.invoke(app, ["trace", "fetch", "pwa:" + log.name, "-q"])
    assert fetched.exit_code == 0, fetched.output
    assert f"{log.name}: fetched to {tmp_path / 'cache' / log.file}" in fetched.stderr
    again = runner.invoke(app, ["trace", "fetch", log.name])
    assert "already at" in again.stderr
    listed = {row["name"]: row for row in json.loads(runner.invoke(app, ["trace", "list", "--json"]).stdout)}
    assert listed[log.name]["where"] == str(tmp_path / "cache" / log.file)
    mirrored = runner.invoke(app, ["trace", "list", "--json", "--traces", str(traces_dir)])
    assert {row["name"]: row for row in json.loads(mirrored.stdout)}["HPC2N-2002-2.2-cln"]["where"] == str(
        traces_dir / "HPC2N-2002-2.2-cln.swf.gz"
    )
    unknown = runner.invoke(app, ["trace", "fetch", log.name, "NOPE-1"])
    assert unknown.exit_code == 1 and "pwa:NOPE-1: not a log schedlab knows by name" in unknown.stderr
    run = runner.invoke(
        app, ["simulate", "pwa:" + log.name, "--window", "0:2d", "--json", "--traces", str(tmp_path / "nowhere")]
    )
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout)["run"]["workload"] == str(tmp_path / "cache" / log.file)
