"""Types of schedlab's compiled core (Rust, ``rust/`` in the repository), used by
:mod:`schedlab.policies.rigid.compiled` (the simulation), :mod:`schedlab.validation` (rule 9),
:mod:`schedlab.output` (allocation text), :mod:`schedlab.workload.swf` (the SWF parser) and
:mod:`schedlab.policies.rigid.profile` (the set profile of forced allocators)."""

from typing import Any

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

def first_double_booking(
    events: np.ndarray, m: int, offsets: np.ndarray, lo: np.ndarray, hi: np.ndarray, n_procs: int
) -> tuple[int, int] | None:
    """The validator's rule 9: the first (processor, starting execution) used twice, or None."""

def format_ranges(offsets: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[bytearray, bytes]:
    """Batsim's interval notation of every allocation of flat ranges: (int64 starts, ASCII text)."""

def parse_swf(data: bytes) -> tuple[Any, Any, Any, Any]:
    """The job lines of an SWF text: (18 columns of float64 or int64 bytes, job lines, comment spans, None),
    or (None, None, None, error)."""

def append_csv_rows(path: str, n: int, columns: list[tuple]) -> None:
    """Append the n rows of jobs.csv: columns ("int", int64), ("integral" | "float", float64), ("text", starts, bytes)."""

class EventCore:
    """One simulation's event loop: clock, job states, pending ends and timers (``rust/src/events.rs``)."""

    def __init__(self, submit: np.ndarray, order: np.ndarray) -> None: ...
    def step(self) -> tuple[float, list[int] | None, list[int] | None] | None:
        """The next event time, the rows that ended then and those submitted then; None when no event is left."""
    def release(self) -> None:
        """The rows submitted at this event time are queued."""
    def state(self, row: int) -> int: ...
    def started(self, row: int) -> float: ...
    def launch(self, row: int, duration: float) -> None: ...
    def stop(self, row: int) -> float: ...
    def reject(self, row: int) -> None: ...
    def wake_at(self, time: float) -> None: ...
    def outcome(self) -> list[bytes]:
        """Raw bytes of the states (uint8), starts and ends (float64), per row."""

class MaskProfile:
    """Conservative backfilling's processor-set profile (Algorithm 1 on 64-bit words), used by
    :class:`schedlab.policies.rigid.profile.CompiledSetProfile`."""

    def __init__(self, n_procs: int, now: float, block: int = 0) -> None: ...
    @property
    def times(self) -> list[float]: ...
    @property
    def sizes(self) -> list[int]: ...
    def free_bytes(self, i: int) -> bytes: ...
    def trim(self, now: float) -> None: ...
    def apply(self, start: float, end: float, ranges: Any, take: bool) -> None: ...
    def index(self, t: float) -> int: ...
    def max_size(self, stop: int) -> int: ...
    def earliest_count(self, procs: int, duration: float, stop: int | None = None) -> float: ...
    def earlier(
        self,
        procs: int,
        duration: float,
        rule: str,
        width: int,
        k: int,
        start: float,
        ranges: Any,
        now_only: bool = False,
    ) -> tuple[float, tuple[list[int], list[int]] | None]: ...
    def find(
        self,
        procs: int,
        duration: float,
        rule: str,
        width: int = 0,
        k: int = 0,
        stop: int | None = None,
        own: tuple[float, Any] | None = None,
    ) -> tuple[float, tuple[list[int], list[int]] | None]: ...
