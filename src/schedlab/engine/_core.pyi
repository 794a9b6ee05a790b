"""Types of schedlab's compiled core (Rust, ``rust/`` in the repository); see
:mod:`schedlab.policies.rigid.compiled`, its only user."""

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
