"""HiGHS writes some messages (a time limit reached, a numerical difficulty) from C straight to the process's
stdout or stderr, whatever scipy's ``disp=False`` says. :func:`quiet_solver` sends file descriptors 1 and 2
to a temporary file around a solver call, so none of it reaches the user's terminal or a ``--json`` output;
what the solver printed is returned for a caller that wants it (an error message)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["quiet_solver"]


@contextmanager
def quiet_solver() -> Iterator[list[str]]:
    """Silence file descriptors 1 and 2 inside the block; the yielded list receives what was written there."""
    captured: list[str] = []
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile(mode="w+b") as sink:
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield captured
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            sink.seek(0)
            captured.append(sink.read().decode("utf-8", "replace"))
