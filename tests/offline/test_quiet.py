"""HiGHS's own messages never reach the terminal: what C code writes to fds 1 and 2 inside quiet_solver is kept."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_writes_to_file_descriptors_1_and_2_are_captured_not_shown():
    """In a child process (so pytest's capture is not in the way): only the text outside the block is shown."""
    code = textwrap.dedent(
        """
        import os
        from schedlab.offline.quiet import quiet_solver
        print("before", flush=True)
        with quiet_solver() as captured:
            os.write(1, b"Running HiGHS (stdout)\\n")
            os.write(2, b"HiGHS warning (stderr)\\n")
        print("after", captured[0].split(), flush=True)
        """
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert child.stderr == ""
    assert child.stdout.splitlines() == [
        "before",
        "after ['Running', 'HiGHS', '(stdout)', 'HiGHS', 'warning', '(stderr)']",
    ]
