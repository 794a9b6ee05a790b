"""The largest free partition of a torus: POP (Projection Of Partitions) and an exhaustive search.

Source: Krevat (2003), chapter 3. POP finds, for every base ``(i, j, k)``,
the largest free box rooted there and takes the maximum: a table of 1-D free
runs along Y, then Y-runs projected (minimum) over growing X offsets (2-D),
then over growing Z offsets (3-D). The exhaustive search tests every shape at
every base; it is the oracle POP is tested against.

Occupancies here are boolean numpy arrays ``occ[x, y, z]`` (True: allocated);
:func:`occupancy_array` converts a bitmask occupancy of
:class:`~schedlab.platform.torus.Torus`.

Cost: POP is O(DX * DY * DZ * DZ * DX) element operations (``O(M^5)`` on an
``M x M x M`` torus, against ``O(M^9)`` for the naive search), vectorised over
all bases at once: ``DZ`` numpy steps on arrays of ``DX * DY * DZ * DX``
entries, about 0.1 ms on 4x4x8. :func:`mfp_exhaustive` is
``O(DX * DY * DZ)`` numpy steps on ``DX * DY * DZ`` entries (``O(M^6)``).
The scheduler's fast path (:mod:`schedlab.platform.boxsearch`) is tested
equal to both.
"""

from __future__ import annotations

import numpy as np

from schedlab.platform.torus import Box, Torus

__all__ = ["mfp_exhaustive", "occupancy_array", "pop", "pop_per_base", "run_table_y"]


def occupancy_array(torus: Torus, mask: int) -> np.ndarray:
    """Bitmask occupancy (bit ``id`` set: node ``id`` allocated) as a ``(DX, DY, DZ)`` boolean array."""
    n = torus.n_procs
    raw = np.frombuffer(mask.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little")[:n].astype(bool)
    return bits.reshape(torus.dims)


def run_table_y(occ: np.ndarray) -> np.ndarray:
    """``run[x, y, z]``: free nodes in a row from ``(x, y, z)`` in the +Y direction, wrapping, at most ``DY``.

    Krevat (2003), chapter 3, step 1 (the 1-D partition table of the Y
    dimension; the X and Z tables are not needed by the projections). Each
    ring is scanned twice backwards, so the cost is O(DX * DY * DZ).
    """
    dy = occ.shape[1]
    free = ~occ
    run = np.zeros(occ.shape, dtype=np.int64)
    nxt = np.zeros((occ.shape[0], occ.shape[2]), dtype=np.int64)
    for y in range(2 * dy - 1, -1, -1):
        nxt = np.where(free[:, y % dy, :], np.minimum(nxt + 1, dy), 0)
        if y < dy:
            run[:, y, :] = nxt
    return run


def _projections(occ: np.ndarray):
    """Yield ``(zt, vols)`` for ``zt = 1..DZ``: ``vols[i, j, k, xt - 1]`` is the volume of the largest
    free box at base ``(i, j, k)`` with X extent ``xt`` and Z extent ``zt`` (its Y extent is the
    minimum of the Y-runs over the box's X-Z face)."""
    dx, dy, dz = occ.shape
    run = run_table_y(occ)
    xs = (np.arange(dx)[:, None] + np.arange(dx)[None, :]) % dx  # xs[i, t] = (i + t) mod DX
    face = run[xs].transpose(0, 2, 3, 1)  # face[i, j, z, t] = run[(i + t) mod DX, j, z]
    xt = np.arange(1, dx + 1)
    proj = np.full((dx, dy, dz, dx), dy, dtype=np.int64)
    for zt in range(1, dz + 1):
        # plane z = (k + zt - 1) mod DZ for base k: roll the z axis by zt - 1
        np.minimum(proj, np.roll(face, -(zt - 1), axis=2), out=proj)
        m = np.minimum.accumulate(proj, axis=3)  # 2-D scan: running minimum over X offsets
        yield zt, m, xt * m * zt


def pop_per_base(occ: np.ndarray) -> np.ndarray:
    """Per base ``(i, j, k)``, the volume of the largest free box rooted there (0 if the node is allocated).

    Krevat (2003), chapter 3, steps 2 and 3 for every base.
    """
    best = np.zeros(occ.shape, dtype=np.int64)
    for _, _, vols in _projections(occ):
        np.maximum(best, vols.max(axis=3), out=best)
    return best


def pop(occ: np.ndarray) -> tuple[int, Box | None]:
    """The largest free partition: its volume and one box achieving it (None when nothing is free).

    Source: Krevat (2003), chapter 3 (POP).
    Guarantee: equals :func:`mfp_exhaustive` (tested on random occupancies of
    several shapes, dimensions of size 1 included).
    Cost: O(DX^2 DY DZ^2) element operations in ``DZ`` numpy steps.

    Parameters
    ----------
    occ : bool array of shape (DX, DY, DZ)
        True where a node is allocated.

    Returns
    -------
    (int, Box or None)
        The MFP and, among the boxes achieving it, the one with the smallest
        base ``(i, j, k)`` in lexicographic order, then the smallest Z extent,
        then the smallest X extent (its Y extent is the longest free run).
    """
    dx, dy, dz = occ.shape
    best = np.zeros(occ.shape, dtype=np.int64)
    best_xt = np.zeros(occ.shape, dtype=np.int64)
    best_zt = np.zeros(occ.shape, dtype=np.int64)
    best_y = np.zeros(occ.shape, dtype=np.int64)
    for zt, m, vols in _projections(occ):
        t = vols.argmax(axis=3)  # first X extent achieving this base's maximum for this Z extent
        v = np.take_along_axis(vols, t[..., None], axis=3)[..., 0]
        better = v > best
        best[better] = v[better]
        best_xt[better] = t[better] + 1
        best_zt[better] = zt
        best_y[better] = np.take_along_axis(m, t[..., None], axis=3)[..., 0][better]
    flat = int(best.argmax())
    volume = int(best.flat[flat])
    if volume == 0:
        return 0, None
    i, j, k = (int(v) for v in np.unravel_index(flat, occ.shape))
    shape = (int(best_xt[i, j, k]), int(best_y[i, j, k]), int(best_zt[i, j, k]))
    return volume, Box((i, j, k), shape)


def mfp_exhaustive(occ: np.ndarray) -> int:
    """The largest free partition by testing every shape at every base at once (the test oracle).

    Krevat (2003), chapter 3, the naive alternative: ``free_abc[i, j, k]``
    (a box of shape ``(a, b, c)`` at base ``(i, j, k)`` is free) is built by
    AND-ing rolled copies of the free array one extent at a time, sharing
    nothing with POP.
    Cost: O(DX DY DZ) numpy steps on ``DX * DY * DZ`` booleans.
    """
    dx, dy, dz = occ.shape
    free = ~occ
    best = 0
    fa = np.ones_like(free)
    for a in range(1, dx + 1):
        fa = fa & np.roll(free, -(a - 1), axis=0)
        fab = np.ones_like(free)
        for b in range(1, dy + 1):
            fab = fab & np.roll(fa, -(b - 1), axis=1)
            fabc = np.ones_like(free)
            for c in range(1, dz + 1):
                fabc = fabc & np.roll(fab, -(c - 1), axis=2)
                if not fabc.any():
                    break
                best = max(best, a * b * c)
            if not fab.any():
                break
        if not fa.any():
            break
    return best
