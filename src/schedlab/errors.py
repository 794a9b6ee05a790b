"""The exceptions schedlab raises: one base class, one line of text each.

The CLI prints ``str(error)`` on one line and exits 1, so every message names
what is wrong and where (file, line, field) without a traceback.
"""

from __future__ import annotations


class SchedlabError(Exception):
    """Base class of every error schedlab raises on purpose."""


class InputError(SchedlabError):
    """Bad input data: a file, a line, a field, the value found and what was expected.

    ``InputError("trace.swf", 12, "field 8 (requested processors)", "0", "an integer >= 1 or -1")``
    reads ``trace.swf:12: field 8 (requested processors) = 0, expected an integer >= 1 or -1``.
    Any part may be None when it does not apply (a missing file has no line).
    """

    def __init__(
        self,
        source: str,
        line: int | None = None,
        field: str | None = None,
        value: object = None,
        expected: str | None = None,
        *,
        message: str | None = None,
    ) -> None:
        self.source = source
        self.line = line
        self.field = field
        self.value = value
        self.expected = expected
        where = source if line is None else f"{source}:{line}"
        if message is None:
            parts = []
            if field is not None:
                parts.append(field if value is None else f"{field} = {value}")
            if expected is not None:
                parts.append(f"expected {expected}")
            message = ", ".join(parts) if parts else "invalid input"
        super().__init__(f"{where}: {message}")


class ArgumentError(SchedlabError, ValueError):
    """A library function was called with an argument out of its range; the message names the argument.

    Also a :class:`ValueError`, as Python callers expect of a bad argument value.
    """


class IllegalDecision(SchedlabError):
    """A policy asked the engine for something impossible (double booking, start before submit...)."""


class ValidationError(SchedlabError):
    """A schedule breaks a rule of its instance; raised by :func:`schedlab.validation.validate`."""
