"""Package attributes imported on first use (PEP 562), so that importing a package runs none of its modules.

``import schedlab.cli`` imports the packages ``schedlab``, ``schedlab.runtime``, ``schedlab.workload``...
on its way; when each package's ``__init__`` imported every module it re-exports, a command paid for all
of them (the CPU+GPU and I/O models, every policy) whatever it ran. A package lists its exports instead::

    __getattr__, __dir__ = exports(__name__, {"Machine": "schedlab.platform.homogeneous", ...})

and ``from schedlab.platform import Machine`` imports ``schedlab.platform.homogeneous`` then, not before.
Type checkers read the same names from an ``if TYPE_CHECKING:`` block of plain imports. :func:`resolve`
does the same for one object named by a dotted path (the algorithm and platform registries' entries).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["exports", "resolve"]


def exports(package: str, names: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose attribute ``NAME`` is ``names[NAME]``'s
    attribute of that name, imported and kept in the package on first use."""

    def __getattr__(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__


def resolve(path: str) -> Any:
    """The object at ``"module:attribute"`` (``"schedlab.offline.io:pinned_ratio"``), its module imported."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)
