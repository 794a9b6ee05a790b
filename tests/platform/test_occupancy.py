"""Occupancy files: one allocated node ``x y z`` per line, every bad line named."""

from __future__ import annotations

import pytest

from schedlab.errors import InputError
from schedlab.platform.occupancy import parse_occupancy, read_occupancy
from schedlab.platform.placement import TorusPlacement
from schedlab.platform.torus import Torus

T448 = Torus((4, 4, 8))


def test_parse_plane_x1_gives_mfp_96(tmp_path):
    """The x = 1 plane written out node by node: MFP 96 (the wrap-around case)."""
    lines = ["# plane x = 1", ""] + [f"1 {y} {z}  # node" for y in range(4) for z in range(8)]
    path = tmp_path / "occ.txt"
    path.write_text("\n".join(lines) + "\n")
    occ = read_occupancy(path, T448)
    assert occ == sum(1 << v for v in range(32, 64))
    assert TorusPlacement(T448).mfp(occ) == 96


@pytest.mark.parametrize(
    "text,match",
    [
        ("0 0\n", r"occ:1: node = 0 0, expected three integers"),
        ("0 0 a\n", r"occ:1: z = a, expected an integer"),
        ("0 0 0\n4 0 0\n", r"occ:2: x = 4, expected 0..3 on torus:4x4x8"),
        ("0 -1 0\n", r"occ:1: y = -1, expected 0..3"),
        ("0 0 7\n\n0 0 7\n", r"occ:3: node = 0 0 7, expected each node once \(already on line 1\)"),
    ],
)
def test_bad_lines_are_named(text, match):
    with pytest.raises(InputError, match=match):
        parse_occupancy(text, T448, source="occ")


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="cannot read the occupancy file"):
        read_occupancy(tmp_path / "none.txt", T448)
