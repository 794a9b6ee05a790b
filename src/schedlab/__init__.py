"""schedlab: design, simulate, compare and run resource allocation policies for parallel systems."""

from schedlab.errors import IllegalDecision, InputError, SchedlabError, ValidationError

__all__ = ["IllegalDecision", "InputError", "SchedlabError", "ValidationError"]
__version__ = "0.1.0"
