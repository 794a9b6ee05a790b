"""Instances from the thesis's NP-hardness proofs: 3-PARTITION and N3DM on a line with three I/O nodes.

Source: Bleuse (2017), PhD thesis, section 5.2.1 (Theorem 5.1: unpinned I/O is
strongly NP-complete from three I/O nodes, by reduction from 3-PARTITION) and
section 5.3.1 (Lemma 5.5 and Theorem 5.6: pinned I/O is strongly NP-complete,
by reduction from numerical 3-dimensional matching with every element of one
set above half the target). Both use the line
``IO, B/2 compute, IO, B/2 compute, IO`` and unit jobs; a YES instance has a
schedule of makespan ``M`` (the number of triples), a NO instance has none.
The constructions need ``B`` even (ambiguity A13; Theorem 5.6 uses ``2B``).
"""

from __future__ import annotations

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.io import IOPlatform
from schedlab.workload.io_jobs import IOInstance

__all__ = ["n3dm_instance", "three_partition_instance"]


def _line(half: int, io_mode: str) -> IOPlatform:
    layout = [True] + [False] * half + [True] + [False] * half + [True]
    return IOPlatform("line", np.array(layout), io_mode, source="gadget")


def three_partition_instance(values, *, io_mode: str = "shared") -> tuple[IOInstance, int]:
    """Theorem 5.1: one unpinned unit job of ``q = a`` per element ``a`` of a 3-PARTITION instance.

    ``values``: ``3M`` integers of sum ``M B`` with ``B/4 < a < B/2`` and ``B``
    even. Returns the instance and ``M``: OPT = M iff the values split into
    ``M`` triples of sum ``B``.
    """
    a = [int(v) for v in values]
    if len(a) % 3 or not a:
        raise InputError("3-partition", field="values", value=len(a), expected="3M values")
    M = len(a) // 3
    B, rest = divmod(sum(a), M)
    if rest or B % 2 or not all(4 * v > B and 2 * v < B for v in a):
        raise InputError("3-partition", field="values", value=a, expected="sum M B, B even, B/4 < a < B/2")
    plat = _line(B // 2, io_mode)
    return IOInstance.from_jobs(plat, [(1, v, 1) for v in a], source="3-partition gadget"), M


def n3dm_instance(w, x, y, *, io_mode: str = "shared") -> tuple[IOInstance, int]:
    """Theorem 5.6 (with Lemma 5.5): pinned unit jobs from an N3DM instance ``W, X, Y`` of ``M`` elements each.

    With ``B = (sum W + sum X + sum Y) / M``, X becomes ``x + B`` (all above
    ``B' / 2`` for ``B' = 2B``); on the line ``IO, B compute, IO, B compute,
    IO`` the W-jobs are pinned to the first I/O node, the X-jobs to the middle
    one, the Y-jobs to the last. OPT = M iff ``W, X, Y`` match into ``M``
    triples of sum ``B``.
    """
    w, x, y = ([int(v) for v in s] for s in (w, x, y))
    M = len(w)
    if not (M == len(x) == len(y)) or M == 0 or min(w + x + y) < 1:
        raise InputError("n3dm", field="W, X, Y", expected="three lists of M >= 1 positive integers")
    B, rest = divmod(sum(w) + sum(x) + sum(y), M)
    if rest:
        raise InputError("n3dm", field="W, X, Y", value=(w, x, y), expected="a total divisible by M")
    plat = _line(B, io_mode)
    first, middle, last = (int(s) for s in plat.io_nodes)
    jobs = [(1, v, (first,)) for v in w] + [(1, v + B, (middle,)) for v in x] + [(1, v, (last,)) for v in y]
    return IOInstance.from_jobs(plat, jobs, source="n3dm gadget"), M
