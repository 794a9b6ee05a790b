"""GPU engine: an inter-sequence Smith-Waterman CUDA kernel written with numba-cuda.

Source: Mendonca (2017), chapter 2, section 2.2.3: GPU workers run CUDASW++
2.0, whose inter-task kernel gives each CUDA thread one database sequence and
reads the query profile from fast on-chip memory (Liu, Schmidt and Maskell
2010). This kernel follows the same plan:

* the database is sorted by decreasing length and cut into groups of 32
  sequences (one warp); inside a group residue ``p`` of lane ``l`` is stored at
  ``start[g] + 32 p + l``, so the 32 threads of a warp read consecutive bytes;
* each thread walks its sequence once per block of :data:`ROWS` query rows,
  keeping those rows' ``H``, ``E`` and diagonal values in registers and
  passing ``H`` and ``F`` of the block's last row to the next block through a
  global buffer laid out like the residues (so ``ROWS`` cells cost one read
  and one write of global memory);
* the query profile ``P[a, i] = S(q_i, a)`` of :data:`QCHUNK` query rows at a
  time is loaded by the whole block into shared memory;
* scores are 32-bit integers: no saturation below 2^29.

The same kernel runs on a real GPU (an H100: 58-60 GCUPS on 10^5 sequences,
scores equal to pyopal's) and, with ``NUMBA_ENABLE_CUDASIM=1``, in numba's
CUDA simulator (slowly: tests use it on small inputs). It needs many
sequences to fill a GPU (one thread each): on 5,600 the H100 did 7 GCUPS. numba-cuda is
optional (the ``gpu`` extra): the kernel is in :mod:`schedlab.swdual.gpu_kernel`,
imported on first use, and the layout in :mod:`schedlab.swdual.layout`.
"""

from __future__ import annotations

import math
import os
import threading

import numpy as np

from schedlab.swdual.cpu import EngineError
from schedlab.swdual.layout import ALPHA_MAX, THREADS, interleave
from schedlab.swdual.scoring import Scoring
from schedlab.swdual.sequences import SequenceSet

__all__ = ["CudaEngine", "gpu_count"]


def _cuda():
    """``numba.cuda``, or EngineError with the reason it cannot be used."""
    try:
        from numba import cuda
    except Exception as error:
        raise EngineError(f"no GPU engine: numba-cuda cannot be imported ({error}); install schedlab[gpu]") from None
    return cuda


def gpu_count() -> int:
    """How many CUDA devices numba sees (the simulator counts as one); 0 when none or numba is missing."""
    try:
        cuda = _cuda()
        if not cuda.is_available():
            return 0
        return len(cuda.gpus)
    except Exception:
        return 0


class CudaEngine:
    """The inter-sequence kernel on one CUDA device (or the simulator), for one database.

    Guarantee: exact scores (int32, no saturation for scores below 2^29);
    tested against :func:`~schedlab.swdual.reference.gotoh_score` and pyopal, in the
    simulator and on a real device.
    Cost: O(|q| Σ|d|) cell updates; the database and two int32 buffers of
    its padded size stay on the device.

    Parameters
    ----------
    database : SequenceSet
    scoring : Scoring
    device : int, default 0
        CUDA device id.

    Raises
    ------
    EngineError
        When numba-cuda or the device is missing.
    """

    name = "numba-cuda"
    kind = "gpu"

    def __init__(self, database: SequenceSet, scoring: Scoring, *, device: int = 0) -> None:
        cuda = _cuda()
        if not cuda.is_available() or device >= len(cuda.gpus):
            raise EngineError(f"no CUDA device {device} (numba sees {gpu_count()})")
        if len(scoring.alphabet) > ALPHA_MAX:  # pragma: no cover - protein alphabets have 24-25 letters
            raise EngineError(f"alphabet of {len(scoring.alphabet)} letters > {ALPHA_MAX}")
        self.database = database
        self.scoring = scoring
        self.device = device
        self.simulated = bool(int(os.environ.get("NUMBA_ENABLE_CUDASIM", "0") or 0))
        layout = interleave(database.lengths, [scoring.encode(t) for t in database.texts])
        self._lock = threading.Lock()
        with cuda.gpus[device]:
            self._d = {key: cuda.to_device(value) for key, value in layout.items()}
            size = max(1, len(layout["residues"]))
            self._h = cuda.device_array(size, dtype=np.int32)
            self._f = cuda.device_array(size, dtype=np.int32)
            self._matrix = cuda.to_device(np.ascontiguousarray(scoring.matrix, dtype=np.int32))
        self._blocks = max(1, math.ceil(len(database) / THREADS))

    def scores(self, query: str) -> np.ndarray:
        """Scores of ``query`` against every database sequence, in database order (int64)."""
        n = len(self.database)
        if not query or n == 0:
            return np.zeros(n, dtype=np.int64)
        cuda = _cuda()
        codes = self.scoring.encode(query)
        from schedlab.swdual.gpu_kernel import search as kernel

        with self._lock, cuda.gpus[self.device]:
            try:
                out = cuda.device_array(n, dtype=np.int32)
                d = self._d
                kernel[self._blocks, THREADS](
                    cuda.to_device(codes),
                    np.int32(len(codes)),  # 32-bit scalars keep the cell loop in 32-bit arithmetic
                    self._matrix,
                    np.int32(len(self.scoring.alphabet)),
                    d["residues"],
                    d["start"],
                    d["length"],
                    d["order"],
                    self._h,
                    self._f,
                    np.int32(self.scoring.gap_start),
                    np.int32(self.scoring.gap_extend),
                    out,
                )
                return out.copy_to_host().astype(np.int64)
            except Exception as error:
                raise EngineError(f"CUDA device {self.device}: {error}") from None
