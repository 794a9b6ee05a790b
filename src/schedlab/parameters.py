"""Declared algorithm parameters: what each keyword means, which values it takes, checked before any run.

An online policy declares its parameters in a class attribute ``parameters``
(a dict of :class:`Param`), an offline algorithm with the :func:`declare`
decorator; the parameter's type and default come from the keyword-only
arguments of ``__init__`` (or of the function). :mod:`schedlab.registry` reads
both, so ``schedlab algorithms`` lists every parameter with its type, default
and allowed values, and a campaign checks its grid without simulating.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from schedlab.errors import InputError

__all__ = ["Param", "convert", "declare"]

_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter: its meaning and the values it accepts (checked by :meth:`check`).

    ``choices`` lists the allowed values; ``low``/``high`` bound numbers
    (inclusive unless ``open_low``/``open_high``); ``check`` is any further rule,
    a function raising :class:`~schedlab.errors.InputError` (allocator names...).
    """

    doc: str
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    check: Callable[[Any], object] | None = None  # called with the converted value, of the parameter's type

    def allowed(self) -> str:
        """The allowed values in words (``one of a, b``, ``>= 1``, ``in (0, 1]``), or ``""``."""
        if self.choices is not None:
            return "one of " + ", ".join(map(str, self.choices))
        if self.low is not None and self.high is not None:
            return f"in {'(' if self.open_low else '['}{self.low:g}, {self.high:g}{')' if self.open_high else ']'}"
        if self.low is not None:
            return f"{'>' if self.open_low else '>='} {self.low:g}"
        if self.high is not None:
            return f"{'<' if self.open_high else '<='} {self.high:g}"
        return ""

    def validate(self, field: str, value: object) -> None:
        """Raise InputError naming ``field`` when ``value`` breaks a rule."""
        allowed = self.allowed()
        if self.choices is not None and value not in self.choices:
            raise InputError("params", field=field, value=value, expected=allowed)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            bad = isinstance(value, float) and math.isnan(value)
            if self.low is not None:
                bad |= value <= self.low if self.open_low else value < self.low
            if self.high is not None:
                bad |= value >= self.high if self.open_high else value > self.high
            if bad:
                raise InputError("params", field=field, value=value, expected=f"a number {allowed}")
        if self.check is not None:
            self.check(value)


def convert(field: str, value: object, default: object) -> object:
    """``value`` as the type of ``default`` (strings from ``--param key=value`` or TOML), or InputError.

    Booleans read true/false, yes/no, 1/0; an integer is accepted for a float
    parameter; a float with an integral value for an int parameter (TOML's 3.0).
    """
    kind: type[Any] = type(default)  # bool, int, float or str: each builds from text
    if isinstance(value, str) and kind is not str:
        text = value.strip().lower()
        try:
            if kind is bool:
                if text not in _TRUE + _FALSE:
                    raise ValueError(text)
                return text in _TRUE
            return kind(text)
        except ValueError:
            raise InputError("params", field=field, value=value, expected=kind.__name__) from None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if default is not None and not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise InputError("params", field=field, value=repr(value), expected=kind.__name__)
    return value


def declare(**params: Param) -> Callable:
    """Attach parameter declarations to an offline algorithm function (read by the registry)."""

    def attach(function: Callable) -> Callable:
        function.parameters = params  # type: ignore[attr-defined]
        return function

    return attach
