"""Online policies, registered under the names the seeds use.

The registry is the one list the CLI, campaigns and contract tests read: a new
policy is one module, its tests, and one line here.
"""

from __future__ import annotations

import inspect

from schedlab.errors import InputError
from schedlab.policies.rigid import EASY, FCFS, Conservative
from schedlab.policies.tasks import GSPT, GSPTRD, GSPTRR, GSRPT, SPT, SPTRD, SPTRR, SRPT

POLICIES = {
    "fcfs": FCFS,
    "easy": EASY,
    "conservative": Conservative,
    "gspt": GSPT,
    "gspt-rd": GSPTRD,
    "gspt-rr": GSPTRR,
    "spt": SPT,
    "spt-rd": SPTRD,
    "spt-rr": SPTRR,
    "gsrpt": GSRPT,
    "srpt": SRPT,
}
_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def _convert(value: str, default):
    """A ``--param`` string as the type of the parameter's default (bools from true/false, yes/no, 1/0)."""
    if isinstance(default, bool):
        if value.lower() not in _TRUE + _FALSE:
            raise ValueError(value)
        return value.lower() in _TRUE
    return type(default)(value)


def make_policy(name: str, params: dict[str, str] | None = None):
    """Build the policy registered as ``name`` with keyword parameters checked against its ``__init__``.

    String values (from ``--param key=value``) are converted to the type of the parameter's default.
    """
    if name not in POLICIES:
        raise InputError("--policy", field="policy", value=name, expected=f"one of {', '.join(sorted(POLICIES))}")
    cls = POLICIES[name]
    signature = inspect.signature(cls.__init__)
    accepted = {p.name: p for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY}
    kwargs = {}
    for key, value in (params or {}).items():
        if key not in accepted:
            raise InputError(
                "--param",
                field=f"{name} parameter",
                value=key,
                expected=f"one of {', '.join(sorted(accepted)) or '(none)'}",
            )
        default = accepted[key].default
        if isinstance(value, str) and default is not inspect.Parameter.empty and not isinstance(default, str):
            try:
                value = _convert(value, default)
            except ValueError:
                raise InputError(
                    "--param", field=f"{name} {key}", value=value, expected=type(default).__name__
                ) from None
        kwargs[key] = value
    return cls(**kwargs)


__all__ = ["POLICIES", "make_policy"]
