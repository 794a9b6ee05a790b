"""One registry of platform kinds: ``--platform KIND:VALUES`` parses here, for every command.

A platform family registers a reader ``VALUES -> Platform`` under its kind
name with :func:`register`, by its dotted path (``"schedlab.platform.torus:parse_torus"``: the module
loads when a platform of its kind is asked for, not with every command); :func:`parse_platform` splits
the text at the first colon, calls the reader, and words every failure as one line naming
``--platform`` and the forms it accepts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from schedlab._lazy import resolve
from schedlab.errors import InputError

if TYPE_CHECKING:
    from schedlab.platform.base import Platform

__all__ = ["PLATFORMS", "PlatformKind", "parse_platform", "register"]


@dataclass(frozen=True, slots=True)
class PlatformKind:
    """A registered platform family: its name, its reader's dotted path, and an example of its text."""

    name: str
    path: str
    example: str
    summary: str

    def parse(self, values: str) -> Platform:
        """The platform ``values`` describe, read by the family's reader (imported on first use)."""
        return resolve(self.path)(values)


PLATFORMS: dict[str, PlatformKind] = {}


def register(name: str, path: str, example: str, summary: str) -> None:
    """Make ``--platform NAME:VALUES`` build a platform with the reader at ``path`` (``"module:function"``)."""
    PLATFORMS[name] = PlatformKind(name, path, example, summary)


register(
    "fat-tree",
    "schedlab.platform.tree:parse_fat_tree",
    "fat-tree:1,2,8,240",
    "nodes per tree depth, the last level the processors",
)
register(
    "clusters",
    "schedlab.platform.tree:parse_clusters",
    "clusters:512,16",
    "machine size, cluster size (one root over the clusters)",
)
register(
    "hybrid", "schedlab.platform.hybrid:parse_hybrid", "hybrid:16,4", "CPU cores, GPUs (CPUs first in the id space)"
)
register(
    "line",
    "schedlab.platform.io:parse_line",
    "line:m=32,io=4",
    "compute and I/O nodes on a line: m nodes, io I/O nodes m/io apart (or layout=ICCC...), mode=shared|exclusive",
)
register("ring", "schedlab.platform.io:parse_ring", "ring:m=32,io=4", "the same on a ring (routing=arc|shortest)")
register(
    "torus",
    "schedlab.platform.torus:parse_torus",
    "torus:4x4x8",
    "a 3-D torus DXxDYxDZ whose jobs get boxes (wrapping allowed)",
)


def forms() -> str:
    """The accepted forms, for messages and help texts."""
    return " or ".join(f"{kind.name}:... (e.g. {kind.example})" for kind in PLATFORMS.values())


def parse_platform(text: str) -> Platform:
    """Build the platform ``text`` names, e.g. ``fat-tree:1,2,8,240`` or ``clusters:512,16``.

    Raises
    ------
    InputError
        ``--platform = TEXT, expected ...``: an unknown kind, or the kind's own
        complaint about its values.
    """
    name, sep, values = text.partition(":")
    kind = PLATFORMS.get(name)
    if kind is None or not sep or not values:
        raise InputError("--platform", field="--platform", value=text, expected=forms())
    try:
        return kind.parse(values)
    except InputError as error:
        expected = error.expected or str(error).partition(": ")[2]
        raise InputError("--platform", field="--platform", value=text, expected=expected) from None
