"""Line and ring platforms of compute and I/O nodes (Bleuse 2017, sections 4.1 and 5.1)."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.platform.io import IOPlatform, parse_io_platform, uniform_layout


def test_uniform_line_layout_and_ranks():
    plat = parse_io_platform("line:m=12,io=3")
    assert plat.io_nodes.tolist() == [0, 4, 8]
    assert plat.compute.tolist() == [1, 2, 3, 5, 6, 7, 9, 10, 11]
    assert plat.rank.tolist() == [-1, 0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8]
    assert (plat.m, plat.m_c, plat.m_io, plat.delta, plat.n_procs) == (12, 9, 3, 4, 12)
    assert plat.name == "line:m=12,io=3"
    assert not plat.exclusive and not plat.ring


def test_distances_line_and_ring():
    line = parse_io_platform("line:m=10,io=2")
    ring = parse_io_platform("ring:m=10,io=2")
    assert line.dist(0, 9) == 9 and ring.dist(0, 9) == 1
    assert ring.dist(2, 7) == 5 and ring.dist(1, 8) == 3
    assert line.neighbours(0) == (1,) and ring.neighbours(0) == (1, 9)
    # Prop. 4.2: an I/O node at the end of a line has one compute neighbour, inside two
    assert line.compute_degree(0) == 1 and line.compute_degree(5) == 2 and ring.compute_degree(0) == 2


def test_layout_text_mode_and_routing_round_trip():
    plat = parse_io_platform("ring:layout=ICCICCC,mode=exclusive,routing=shortest")
    assert plat.io_nodes.tolist() == [0, 3] and plat.delta is None
    assert plat.name == "ring:layout=ICCICCC,mode=exclusive,routing=shortest"
    again = parse_io_platform(plat.name)
    assert np.array_equal(again.is_io, plat.is_io) and again.name == plat.name
    assert plat.with_mode("shared").name == "ring:layout=ICCICCC,routing=shortest"


def test_uniform_layout_is_detected_from_a_layout():
    assert parse_io_platform("line:layout=ICCICC").name == "line:m=6,io=2"
    assert uniform_layout(8, 2).tolist() == [True, False, False, False, True, False, False, False]


@pytest.mark.parametrize(
    "text, needle",
    [
        ("ring:m=2,io=1", "at least 3 nodes on a ring"),
        ("line:m=10,io=3", "a divisor of m = 10"),
        ("torus:m=4", "line:KEY=VALUE"),
        ("line:m=10,io=2,colour=red", "KEY one of"),
        ("line:layout=ICX", "letters I (I/O) and C"),
        ("line:layout=III", "at least one compute node"),
        ("line:m=x,io=2", "an integer >= 1"),
        ("line:m=10,io=2,mode=private", "shared or exclusive"),
    ],
)
def test_bad_platform_text_is_one_line(text, needle):
    with pytest.raises(InputError, match="^--platform") as info:
        parse_io_platform(text)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_ring_below_three_nodes_from_the_constructor():
    with pytest.raises(InputError, match="at least 3 nodes on a ring"):
        IOPlatform("ring", np.array([True, False]))
