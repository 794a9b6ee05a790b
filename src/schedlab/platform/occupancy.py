"""Read a torus occupancy: the allocated nodes, one ``x y z`` per line.

Blank lines and text after ``#`` are ignored. The result is the bitmask
occupancy of :class:`~schedlab.platform.torus.Torus` (bit ``id`` set for each
allocated node). Every malformed line, out-of-range coordinate or repeated
node is an :class:`~schedlab.errors.InputError` naming the file, the line and
the field.

Cost: O(lines).
"""

from __future__ import annotations

from pathlib import Path

from schedlab.errors import InputError
from schedlab.platform.torus import Torus

__all__ = ["parse_occupancy", "read_occupancy"]

_AXES = "xyz"


def parse_occupancy(text: str, torus: Torus, *, source: str = "occupancy") -> int:
    """The occupancy bitmask of ``text`` (one allocated node ``x y z`` per line) on ``torus``.

    Raises
    ------
    InputError
        A line without exactly three integers, a coordinate outside its
        dimension, or a node listed twice.
    """
    occ = 0
    first_line: dict[int, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        if len(parts) != 3:
            raise InputError(source, number, "node", line, "three integers 'x y z'")
        coords = []
        for axis, part, dim in zip(_AXES, parts, torus.dims):
            try:
                value = int(part)
            except ValueError:
                raise InputError(source, number, axis, part, "an integer") from None
            if not 0 <= value < dim:
                raise InputError(source, number, axis, value, f"0..{dim - 1} on {torus.name}")
            coords.append(value)
        node = torus.node_id(*coords)
        if occ >> node & 1:
            raise InputError(
                source, number, "node", " ".join(parts), f"each node once (already on line {first_line[node]})"
            )
        first_line[node] = number
        occ |= 1 << node
    return occ


def read_occupancy(path: str | Path, torus: Torus) -> int:
    """:func:`parse_occupancy` of a file; a missing or unreadable file is an InputError too."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(str(path), message=f"cannot read the occupancy file ({error.__class__.__name__})") from None
    return parse_occupancy(text, torus, source=str(path))
