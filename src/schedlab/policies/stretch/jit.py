"""numba's ``njit(cache=True)``, compiled on the first call instead of at import.

Importing numba costs about half a second and 120 MiB, which every command that loads a stretch policy
(``schedlab algorithms``, the contract tests, a campaign checking its grid) would pay for listing it
or checking its parameters. :func:`njit` marks a function instead; the first call of
a marked function imports numba, wraps every marked function in ``numba.njit(cache=True)`` (each
compiles on its first argument types, as usual) and rebinds the module globals that named a marked
function to its dispatcher, so compiled functions call each other in nopython mode, across modules too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["njit"]

F = TypeVar("F", bound=Callable[..., Any])

# id(wrapper) -> (wrapper, the plain function): every marked function, kept alive so that ids stay unique
_MARKED: dict[int, tuple[Callable, Callable]] = {}
_COMPILED: dict[int, Callable] = {}  # id(wrapper) -> numba dispatcher


def njit(func: F) -> F:
    """``numba.njit(cache=True)(func)``, deferred until the first call of a marked function."""

    @functools.wraps(func)
    def call(*args):
        compiled = _COMPILED.get(id(call))
        if compiled is None:
            _compile_pending()
            compiled = _COMPILED[id(call)]
        return compiled(*args)

    _MARKED[id(call)] = (call, func)
    return call  # type: ignore[return-value]


def _compile_pending() -> None:
    """Hand every marked function to numba and point the globals that named a wrapper at its dispatcher."""
    import numba

    for key, (_, func) in _MARKED.items():
        if key not in _COMPILED:
            _COMPILED[key] = numba.njit(cache=True)(func)
    for _, func in _MARKED.values():
        names = func.__globals__
        for name, value in list(names.items()):
            dispatcher = _COMPILED.get(id(value))
            if dispatcher is not None:
                names[name] = dispatcher
