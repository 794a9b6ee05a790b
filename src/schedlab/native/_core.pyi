"""Types of schedlab's compiled core (Rust, ``rust/`` in the repository), used by
:mod:`schedlab.policies.rigid.compiled` (the simulation), :mod:`schedlab.validation` (rule 9) and
:mod:`schedlab.output` (allocation text)."""

import numpy as np

def simulate_rigid(
    policy: str,
    n_procs: int,
    submit: np.ndarray,
    procs: np.ndarray,
    estimate: np.ndarray,
    duration: np.ndarray,
    rank: np.ndarray,
    order: np.ndarray,
) -> list[bytes]:
    """FCFS, EASY or conservative (full or start-now compression) with first-fit allocation; raw bytes of start, end, offsets, los, his."""

def allocation_tuples(offsets: np.ndarray, los: np.ndarray, his: np.ndarray) -> list:
    """Per job, the tuple of its ranges ``(los[k], his[k])`` for k in ``offsets[r]:offsets[r + 1]``."""

def first_double_booking(
    events: np.ndarray, m: int, offsets: np.ndarray, lo: np.ndarray, hi: np.ndarray, n_procs: int
) -> tuple[int, int] | None:
    """The validator's rule 9: the first (processor, starting execution) used twice, or None."""

def format_allocations(allocs: object) -> list[str]:
    """Batsim's interval notation for each allocation (``""`` for None or ``()``)."""
