"""schedlab: design, simulate, compare and run resource allocation policies for parallel systems."""

__version__ = "0.1.0"

from schedlab.errors import IllegalDecision, InputError, SchedlabError, ValidationError
from schedlab.runner import Run, load_instance, run
from schedlab.validation import validate

__all__ = [
    "IllegalDecision",
    "InputError",
    "Run",
    "SchedlabError",
    "ValidationError",
    "load_instance",
    "run",
    "validate",
]
