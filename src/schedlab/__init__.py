"""schedlab: design, simulate, compare and run resource allocation policies for parallel systems."""

from schedlab._version import __version__ as __version__
from schedlab.errors import IllegalDecision, InputError, SchedlabError, ValidationError
from schedlab.runner import Run, load_instance, run
from schedlab.validation import validate

from schedlab.api import compare, metrics  # isort: skip  (after the modules it shadows: schedlab.metrics)

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
