"""Traces by name: the Parallel Workloads Archive's logs, found in a local mirror or the cache, else downloaded.

``pwa:NAME`` (``pwa:KTH-SP2-1996-2.1-cln``) is accepted wherever a trace
path is: :func:`resolve` turns it into a file, looking in this order

1. the ``traces`` folder given (``--traces``), then the folder named by the
   ``SCHEDLAB_TRACES`` environment variable: a local mirror of ``NAME.swf.gz``
   files, taken as they are;
2. the cache (``SCHEDLAB_CACHE``, else the user's cache folder,
   ``~/.cache/schedlab/traces`` on Linux), whose files were checked on download;
3. the archive itself: :func:`fetch` downloads the file with pooch into the
   cache, checks its SHA-256 against :data:`LOGS` and refuses it otherwise.
   A download that fails or is interrupted leaves nothing in the cache (pooch
   writes to a temporary file and moves it only once checked).

``SCHEDLAB_ARCHIVE_URL`` replaces the archive's address by a mirror with the
same layout (``<url>/l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz``).

Source: the Parallel Workloads Archive (Feitelson, Tsafrir and Krakov 2014,
"Experience with using the Parallel Workloads Archive", JPDC 74(10)), whose
request applies to every log: cite the archive and the log's contributor,
named in each file's header. The checksums are those of the copies schedlab
is tested with (the archive's files as distributed; they could not be
compared with the archive's own from the machines schedlab is built on).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from schedlab.errors import InputError

__all__ = ["ARCHIVE_URL", "LOGS", "PREFIX", "ArchiveLog", "cache_dir", "fetch", "find_local", "get_log", "resolve"]

ARCHIVE_URL = "https://www.cs.huji.ac.il/labs/parallel/workload"
PREFIX = "pwa:"


@dataclass(frozen=True)
class ArchiveLog:
    """One log of the archive: its name, folder there, SHA-256, size, and what a reader must know of it."""

    name: str
    folder: str
    sha256: str
    jobs: int
    max_procs: int | None
    notes: str = ""

    @property
    def file(self) -> str:
        return f"{self.name}.swf.gz"

    def url(self, base: str | None = None) -> str:
        """Its address in the archive, or under ``base`` (a mirror with the archive's layout)."""
        base = base or os.environ.get("SCHEDLAB_ARCHIVE_URL") or ARCHIVE_URL
        return f"{base.rstrip('/')}/{self.folder}/{self.file}"


LOGS: dict[str, ArchiveLog] = {
    log.name: log
    for log in (
        ArchiveLog(
            "NASA-iPSC-1993-3.1-cln",
            "l_nasa_ipsc",
            "5589ae9b2fb78e3bf92de097497cf33a91607de1ad54563e43533f7827597f29",
            18_239,
            128,
            "hypercube of 128 nodes; many jobs are system checks",
        ),
        ArchiveLog(
            "LANL-CM5-1994-4.1-cln",
            "l_lanl_cm5",
            "71ff3dfa301b3ee1bd30ebc63c5363b5e8ec488e75f1f9398aa46d485ef23c3c",
            122_060,
            1024,
            "partitions of 32 nodes and more",
        ),
        ArchiveLog(
            "CTC-SP2-1996-3.1-cln",
            "l_ctc_sp2",
            "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4",
            77_222,
            338,
            "MaxNodes/MaxProcs header values carry text after the number: the first integer is the size",
        ),
        ArchiveLog(
            "KTH-SP2-1996-2.1-cln",
            "l_kth_sp2",
            "3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b",
            28_476,
            100,
            "some jobs run past their requested time",
        ),
        ArchiveLog(
            "SDSC-Par-1996-3.1-cln",
            "l_sdsc_par",
            "cb1aab02b5e3c34659d1c1d6f73c002d415229c59f40c03fab4e20331abdaff7",
            32_135,
            400,
            "MaxProcs header value carries text after the number",
        ),
        ArchiveLog(
            "SDSC-SP2-1998-4.2-cln",
            "l_sdsc_sp2",
            "e03fe48be50c4ab04d6bb2285296d9c3399e9c1f27ee79b754ad32a14abd9bac",
            59_715,
            128,
        ),
        ArchiveLog(
            "OSC-Clust-2000-3.1-cln",
            "l_osc",
            "f2d762130a55ab26cfedc37a9f4ab55923dd07bf185912ded67628f14dbf09ab",
            36_097,
            178,
            "a cluster of 2- and 4-processor nodes",
        ),
        ArchiveLog(
            "SDSC-BLUE-2000-4.1-cln",
            "l_sdsc_blue",
            "bb9e53e2090954e61089cd6560890cd22d14b68c9f66cfe2c9aeb47a495da9ba",
            243_314,
            1152,
            "version 4.1; the archive now lists 4.2, and may no longer serve this one",
        ),
        ArchiveLog(
            "HPC2N-2002-2.2-cln",
            "l_hpc2n",
            "3c534857d6065cfd9cc35aac8d064c9c17172be7acf336de835006f43a626e64",
            202_871,
            240,
        ),
        ArchiveLog(
            "SDSC-DS-2004-2.1-cln",
            "l_sdsc_ds",
            "0ddb885a96a7f5ee9009d8a36ef350b1d1c451044c205811938995aac80fcc36",
            96_069,
            1664,
            "MaxNodes/MaxProcs header values carry text after the number",
        ),
        ArchiveLog(
            "LCG-2005-1",
            "l_lcg",
            "cda5d512febf84a3e07b3ad7b9481f8a0ba0f4c6e10f5d639aae73d2587448d9",
            188_041,
            24_515,
            "a grid log: no MaxNodes line, every job uses one processor",
        ),
        ArchiveLog(
            "LLNL-Thunder-2007-1.1-cln",
            "l_llnl_thunder",
            "00d9bce501efd3a23cd0713bbae591516b7a69217d5f4b851725f601f3b75247",
            121_039,
            4008,
            "1,190 jobs have submit time -1 (dropped by the default filters)",
        ),
        ArchiveLog(
            "METACENTRUM-2009-2",
            "l_metacentrum",
            "7c0b347e77fc7a9aafe91f96a20186a8dd16c11a51e5f19c692a93d11a64893c",
            103_656,
            None,
            "no header at all: give the machine size (806 processors) with --procs",
        ),
        ArchiveLog(
            "RICC-2010-2",
            "l_ricc",
            "38b7c5c9843d9a9f3d61a2d8b927f6d39b68b368fb713886b5f2ce3499f2ec82",
            447_794,
            8192,
        ),
        ArchiveLog(
            "CEA-Curie-2011-2.1-cln",
            "l_cea_curie",
            "2a0fdbd40837590b491bbbac7d4cfe521de1f0b14c0dc39bbf82c4e49ea75bce",
            312_826,
            93_312,
            "no Computer line; a very wide machine",
        ),
    )
}
"""The archive's logs schedlab knows by name, with the SHA-256 of their ``.swf.gz`` file."""


def get_log(name: str) -> ArchiveLog:
    """The log called ``name`` (with or without ``pwa:`` or ``.swf.gz``); InputError naming close names."""
    bare = name.removeprefix(PREFIX).removesuffix(".swf.gz")
    if bare in LOGS:
        return LOGS[bare]
    close = difflib.get_close_matches(bare, list(LOGS), n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}?" if close else "see `schedlab trace list`"
    raise InputError(f"{PREFIX}{bare}", message=f"not a log schedlab knows by name ({hint})")


def cache_dir() -> Path:
    """Where downloaded logs are kept: ``SCHEDLAB_CACHE``, else the user's cache folder for schedlab."""
    import pooch

    env = os.environ.get("SCHEDLAB_CACHE")
    return Path(env) if env else Path(pooch.os_cache("schedlab")) / "traces"


def find_local(log: ArchiveLog, traces: str | os.PathLike | None = None) -> Path | None:
    """The log's file in ``traces``, in ``SCHEDLAB_TRACES`` or in the cache, else None."""
    folders = [Path(f) for f in (traces, os.environ.get("SCHEDLAB_TRACES")) if f]
    for folder in [*folders, cache_dir()]:
        if (folder / log.file).is_file():
            return folder / log.file
    return None


class _Progress:
    """pooch's progress-bar protocol (``total``, ``update``, ``reset``, ``close``) feeding a
    ``progress(bytes done, bytes in all)`` callback."""

    def __init__(self, callback: Callable[[int, int], None]) -> None:
        self.callback = callback
        self.total = 0
        self.done = 0

    def update(self, n: int) -> None:
        self.done = min(self.done + n, self.total) if self.total else self.done + n
        self.callback(self.done, self.total)

    def reset(self) -> None:
        self.done = 0

    def close(self) -> None:
        pass


def fetch(
    log: str | ArchiveLog,
    *,
    cache: str | os.PathLike | None = None,
    base_url: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download a log into the cache (``cache``, else :func:`cache_dir`) unless it is there, check its
    SHA-256, and return its path. ``progress(bytes done, bytes in all)`` is called as it arrives.

    Raises
    ------
    InputError
        An unknown name; a download that fails (no network, an HTTP error, an interruption) or whose
        checksum differs: nothing is left in the cache, and the message says how to get the file by hand.
    """
    import pooch
    import requests

    pooch.get_logger().setLevel("WARNING")  # the callers say what is fetched, where
    log = get_log(log) if isinstance(log, str) else log
    folder = Path(cache) if cache is not None else cache_dir()
    url = log.url(base_url)
    downloader = pooch.HTTPDownloader(progressbar=_Progress(progress) if progress else False, timeout=timeout)
    by_hand = f"download {url} by hand into {folder}, or set SCHEDLAB_TRACES to a folder that holds {log.file}"
    try:
        path = pooch.retrieve(
            url, known_hash=f"sha256:{log.sha256}", fname=log.file, path=folder, downloader=downloader
        )
    except ValueError as error:  # pooch: the SHA-256 differs
        raise InputError(
            url, message=f"refused: its SHA-256 is not the one registered for {log.name} ({_first(error)})"
        ) from None
    except (requests.exceptions.RequestException, OSError) as error:
        raise InputError(url, message=f"download failed ({_first(error)}): {by_hand}") from None
    return Path(path)


def resolve(
    path: str | os.PathLike,
    *,
    traces: str | os.PathLike | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """``path`` itself, or for ``pwa:NAME`` the log's file: local (:func:`find_local`), else downloaded."""
    text = os.fspath(path)
    if not text.startswith(PREFIX):
        return text
    log = get_log(text)
    local = find_local(log, traces)
    return str(local if local is not None else fetch(log, progress=progress))


def _first(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
