"""The CUDA kernel itself (numba-cuda); imported only by :class:`~schedlab.swdual.gpu.CudaEngine`.

It lives in its own module because numba's CUDA simulator swaps the module
global ``cuda`` when it runs a kernel, so ``cuda`` must be a global here.
The algorithm and layout are described in :mod:`schedlab.swdual.gpu`.
"""

from __future__ import annotations

from numba import cuda, int32

from schedlab.swdual.layout import ALPHA_MAX, LANES, NEG, QCHUNK, ROWS

__all__ = ["search"]


@cuda.jit
def search(query, qlen, matrix, alpha, residues, start, length, order, h_buf, f_buf, gs, ge, out):
    """``out[order[t]]`` = best local score of ``query`` against the sequence of thread ``t``.

    Equations (2.2)-(2.4) of Mendonca (2017), ``ROWS`` query rows per pass;
    ``h_buf``/``f_buf`` carry ``H`` and ``F`` of a pass's last row to the next.
    """
    prof = cuda.shared.array((ALPHA_MAX, QCHUNK), int32)
    hd = cuda.local.array(ROWS, int32)  # H[i-1][j-1] of each row of the pass
    hl = cuda.local.array(ROWS, int32)  # H[i][j-1]
    ee = cuda.local.array(ROWS, int32)  # E[i][j-1]
    t = cuda.grid(1)
    n = order.shape[0]
    valid = t < n
    base = 0
    dlen = 0
    if valid:
        base = start[t // LANES] + t % LANES
        dlen = length[t]
    best = 0
    for c0 in range(0, qlen, QCHUNK):
        for k in range(cuda.threadIdx.x, alpha * QCHUNK, cuda.blockDim.x):
            a = k // QCHUNK
            i = k % QCHUNK
            if c0 + i < qlen:
                prof[a, i] = matrix[query[c0 + i], a]
            else:
                prof[a, i] = NEG  # rows past the query end cannot raise the score
        cuda.syncthreads()
        if valid:
            for r0 in range(0, QCHUNK, ROWS):
                i0 = c0 + r0
                if i0 >= qlen:
                    break
                for r in range(ROWS):
                    hd[r] = 0
                    hl[r] = 0
                    ee[r] = NEG
                for j in range(dlen):
                    at = base + j * LANES
                    b = residues[at]
                    h_up = 0
                    f_up = NEG
                    if i0 > 0:
                        h_up = h_buf[at]
                        f_up = f_buf[at]
                    for r in range(ROWS):
                        f = max(f_up, h_up - gs) - ge
                        e = max(ee[r], hl[r] - gs) - ge
                        h = max(hd[r] + prof[b, r0 + r], e, f, 0)
                        ee[r] = e
                        hd[r] = h_up
                        hl[r] = h
                        if h > best:
                            best = h
                        h_up = h
                        f_up = f
                    h_buf[at] = h_up
                    f_buf[at] = f_up
        cuda.syncthreads()
    if valid:
        out[order[t]] = best
