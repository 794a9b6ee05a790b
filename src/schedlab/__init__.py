"""schedlab: design, simulate, compare and run resource allocation policies for parallel systems.

The API's functions load on first use (:mod:`schedlab._lazy`): ``import schedlab.cli`` runs no
simulator, policy or reader module until a command needs it.
"""

import sys
from types import ModuleType
from typing import TYPE_CHECKING

from schedlab._lazy import exports
from schedlab._version import __version__ as __version__
from schedlab.errors import IllegalDecision, InputError, SchedlabError, ValidationError

if TYPE_CHECKING:
    from schedlab.api import compare, metrics
    from schedlab.runner import Run, load_instance, run
    from schedlab.validation import validate

__all__ = [
    "IllegalDecision",
    "InputError",
    "Run",
    "SchedlabError",
    "ValidationError",
    "compare",
    "load_instance",
    "metrics",
    "run",
    "validate",
]

__getattr__, __dir__ = exports(
    __name__,
    {
        "Run": "schedlab.runner",
        "compare": "schedlab.api",
        "load_instance": "schedlab.runner",
        "metrics": "schedlab.api",  # read through _Package.metrics: listed here for dir()
        "run": "schedlab.runner",
        "validate": "schedlab.validation",
    },
)


class _Package(ModuleType):
    """The package, whose ``metrics`` is the notebook function :func:`schedlab.api.metrics` even once the module
    :mod:`schedlab.metrics` is imported (which binds the module to the package's attribute of its name, a
    binding this property ignores); ``from schedlab.metrics import aggregate`` still reads the module."""

    @property
    def metrics(self):
        from schedlab.api import metrics

        return metrics

    @metrics.setter
    def metrics(self, value) -> None:
        if not isinstance(value, ModuleType):
            raise AttributeError("schedlab.metrics is the function schedlab.api.metrics")


sys.modules[__name__].__class__ = _Package
