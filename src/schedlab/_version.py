"""The version of schedlab, in a module of its own so that any layer may read it without importing the package's
top-level API (which reaches the report layer)."""

__version__ = "0.1.0"
