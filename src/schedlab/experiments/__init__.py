"""Reproductions of the papers' experiments, one module per experiment, each through the campaign runner.

Each module plans its campaign (instances, algorithms, parameters), runs it
with :mod:`schedlab.campaign` (locally or on a Dask cluster, resumable), turns
the store into the paper's tables and figures, checks the paper's claims
against the numbers, and writes a report (Markdown and HTML).
"""
