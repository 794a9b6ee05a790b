"""Offline algorithms: a whole instance in, a schedule out (no simulation clock)."""
