"""Durations and time spans as users write them: ``3600``, ``90m``, ``12h``, ``7d``, ``2w``; ``0:7d``, ``7d:``.

One parser for every command and campaign file, so ``7d`` means the same
thing everywhere.
"""

from __future__ import annotations

import math
import re

from schedlab.errors import ArgumentError

__all__ = ["DURATION_FORMS", "parse_duration", "parse_span"]

_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0}
_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([smhdw]?)\s*$")
DURATION_FORMS = "a number of seconds or a string like '3600s', '90m', '12h', '7d', '2w'"


def parse_duration(value: object, *, allow_zero: bool = False) -> float:
    """Seconds in ``value``: a number (seconds) or ``"<number><unit>"`` with unit s, m, h, d or w.

    Raises
    ------
    ArgumentError
        (a ValueError) on anything else, or on a duration <= 0 (< 0 with ``allow_zero``).
    """
    if isinstance(value, bool):
        raise ArgumentError(f"expected {DURATION_FORMS}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str) and (match := _DURATION.match(value)):
        seconds = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    else:
        raise ArgumentError(f"expected {DURATION_FORMS}")
    if not (math.isfinite(seconds) and (seconds >= 0 if allow_zero else seconds > 0)):
        raise ArgumentError(f"expected a duration {'>= 0' if allow_zero else '> 0'} ({DURATION_FORMS})")
    return seconds


def parse_span(text: str) -> tuple[float, float]:
    """``START:END`` as seconds ``(start, end)``, each a duration (``0:7d``, ``1000000:2000000``);
    an empty END means no end (``7d:`` is ``(604800, inf)``).

    Raises
    ------
    ArgumentError
        On a malformed part or ``START >= END``.
    """
    start_text, sep, end_text = text.partition(":")
    if not sep:
        raise ArgumentError(f"expected START:END ({DURATION_FORMS} each; END may be empty)")
    start = parse_duration(start_text or "0", allow_zero=True)
    end = math.inf if not end_text.strip() else parse_duration(end_text, allow_zero=True)
    if not start < end:
        raise ArgumentError(f"expected START < END, got {start:g} >= {end:g}")
    return start, end
