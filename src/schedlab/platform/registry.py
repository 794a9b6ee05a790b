"""One registry of platform kinds: ``--platform KIND:VALUES`` parses here, for every command.

A platform family registers a reader ``VALUES -> Platform`` under its kind
name with :func:`register`; :func:`parse_platform` splits the text at the
first colon, calls the reader, and words every failure as one line naming
``--platform`` and the forms it accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from schedlab.errors import InputError
from schedlab.platform.base import Platform
from schedlab.platform.hybrid import parse_hybrid
from schedlab.platform.io import parse_line, parse_ring
from schedlab.platform.torus import parse_torus
from schedlab.platform.tree import parse_clusters, parse_fat_tree

__all__ = ["PLATFORMS", "PlatformKind", "parse_platform", "register"]


@dataclass(frozen=True, slots=True)
class PlatformKind:
    """A registered platform family: its name, its reader, and an example of its text."""

    name: str
    parse: Callable[[str], Platform]
    example: str
    summary: str


PLATFORMS: dict[str, PlatformKind] = {}


def register(name: str, parse: Callable[[str], Platform], example: str, summary: str) -> None:
    """Make ``--platform NAME:VALUES`` build a platform with ``parse(VALUES)``."""
    PLATFORMS[name] = PlatformKind(name, parse, example, summary)


register("fat-tree", parse_fat_tree, "fat-tree:1,2,8,240", "nodes per tree depth, the last level the processors")
register("clusters", parse_clusters, "clusters:512,16", "machine size, cluster size (one root over the clusters)")
register("hybrid", parse_hybrid, "hybrid:16,4", "CPU cores, GPUs (CPUs first in the id space)")
register(
    "line",
    parse_line,
    "line:m=32,io=4",
    "compute and I/O nodes on a line: m nodes, io I/O nodes m/io apart (or layout=ICCC...), mode=shared|exclusive",
)
register("ring", parse_ring, "ring:m=32,io=4", "the same on a ring (routing=arc|shortest)")
register("torus", parse_torus, "torus:4x4x8", "a 3-D torus DXxDYxDZ whose jobs get boxes (wrapping allowed)")


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
