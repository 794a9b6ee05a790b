"""Lower bounds (spec section 3.6 on Bleuse 2017, Prop. 4.2)."""

from __future__ import annotations

import pytest

from schedlab.offline.io.bounds import io_bounds
from schedlab.platform.io import parse_io_platform
from schedlab.workload.io_jobs import IOInstance


def test_hand_bounds_exclusive_and_shared():
    plat = parse_io_platform("line:m=12,io=3,mode=exclusive")  # I/O 0 (1 compute neighbour), 4 and 8 (2)
    jobs = [(6, 3, (4,)), (2, 2, (4,)), (4, 1, 1), (1, 9, 1)]
    b = io_bounds(IOInstance.from_jobs(plat, jobs))
    assert b.area == pytest.approx((18 + 4 + 4 + 9) / 9)
    assert b.longest == 6
    assert b.io == 8  # exclusive: I/O node 4 serves 6 + 2 in sequence
    assert b.lp is None  # not all pinned: no LP
    assert b.lower == 8 and b.tight == "io"
    shared = IOInstance.from_jobs(plat.with_mode("shared"), jobs)
    bs = io_bounds(shared)
    assert bs.io == pytest.approx(max(8 / 2, 13 / 5))  # per node / degree, total / (1 + 2 + 2)
    assert bs.lower == 6 and bs.tight == "longest"


def test_lp_bound_for_pinned_instances():
    inst = IOInstance.from_jobs(parse_io_platform("line:m=12,io=3"), [(1, 3, (4,))] * 3)
    b = io_bounds(inst)
    assert b.lp == pytest.approx(1.5) and b.lower == pytest.approx(1.5) and b.tight == "io"
    assert io_bounds(inst, lp=False).lp is None
