"""Pinned I/O: the two-phase 6-approximation (LP dedication, then Gergov) on a line, and its ring extension.

Source: Bleuse (2017), PhD thesis, section 5.3.2 (Theorem 5.9: LP + rounding +
Gergov is a 6-approximation of ``P^C, P^IO | size_j^C, fix_j^IO, convex, local
| Cmax`` when each job needs one I/O node), the ring "brings us to the same
setup as the line" and several pinned I/O nodes per job on a line (Fig. 5.6).

Guarantee: on a line, ``Cmax <= 3 Lambda_round <= 6 Lambda_LP <= 6 OPT``
(Lemmas 5.7 and 5.8), with any number of pinned I/O nodes per job (they only
change the windows). On a ring, ``Cmax <= 4 Lambda_round <= 8 OPT``: the
thesis does not say how to schedule on a ring, so the ring is cut where the
jobs crossing the cut are lightest, Gergov schedules the others on the
resulting line (``<= 3 Lambda``) and the crossing jobs, which all hold the two
positions of the cut, run one after another afterwards (``<= Lambda``)
(ambiguity A9; the thesis's 6 is not claimed).
With ``phase2="best"`` the dedicated windows are also list-scheduled (longest
first) and the shorter schedule is kept: the guarantee stands, and the study
(``schedlab reproduce io``) measures what it gains.
Cost: one LP (see :mod:`.lp`) and Gergov's O(n^2).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from schedlab.errors import InputError
from schedlab.offline.io.baselines import list_schedule
from schedlab.offline.io.gergov import gergov
from schedlab.offline.io.lp import dedicate, footprints
from schedlab.offline.io.schedule import io_schedule
from schedlab.parameters import Param, declare
from schedlab.platform.io import IOPlatform
from schedlab.schedule import Schedule
from schedlab.workload.io_jobs import IOInstance

__all__ = ["PHASE2", "cut_and_append", "pinned_ratio", "pinned_two_phase", "require_pinned"]

PHASE2 = ("gergov", "list", "best")


def pinned_ratio(platform: IOPlatform) -> float:
    """The proven ratio of :func:`pinned_two_phase` on ``platform``: 6 on a line, 8 on a ring."""
    return 8.0 if platform.ring else 6.0


def require_pinned(inst: IOInstance, algorithm: str) -> None:
    """Raise InputError unless every job is pinned."""
    if inst.n and not inst.pinned.all():
        j = int(np.argmin(inst.pinned))
        raise InputError(
            inst.source,
            field=f"jobs[{j}].io",
            value=inst.io[j],
            expected=f"a list of pinned I/O node ids ({algorithm} schedules pinned jobs)",
        )


def cut_and_append(low, high, p, n_positions: int, **gergov_options) -> tuple[np.ndarray, dict]:
    """Schedule fixed arcs ``[low_j, high_j]`` (unrolled, length <= M) of a ring of ``M`` positions.

    The cut is the edge ``(c - 1, c)`` crossed by the least total ``p``
    (lowest ``c`` on ties); Gergov schedules the arcs that do not cross it, in
    index order, and the crossing ones follow in index order.

    Returns the starts and ``{"cut": c, "crossing": count, "crossing_p": sum, "colours": Gergov's colours}``.
    """
    low, high, p = np.asarray(low), np.asarray(high), np.asarray(p, dtype=float)
    M = n_positions
    first = low % M
    length = high - low + 1
    weight = np.zeros(M + 1)
    for s, ell, pj in zip(first.tolist(), length.tolist(), p.tolist()):
        if ell >= 2:  # crosses the cuts c with (c - s) mod M in 1 .. ell - 1
            a, b = (s + 1) % M, (s + ell - 1) % M
            if a <= b:
                weight[a] += pj
                weight[b + 1] -= pj
            else:
                weight[a] += pj
                weight[M] -= pj
                weight[0] += pj
                weight[b + 1] -= pj
    crossing_p = np.cumsum(weight[:-1])
    cut = int(np.argmin(crossing_p))
    rel = (first - cut) % M
    crosses = rel + length - 1 >= M
    start = np.zeros(low.size)
    keep = np.flatnonzero(~crosses)
    offset = 0.0
    if keep.size:
        g = gergov(rel[keep], rel[keep] + length[keep] - 1, p[keep], M, **gergov_options)
        start[keep] = g.start
        offset = g.makespan
    for j in np.flatnonzero(crosses).tolist():
        start[j] = offset
        offset += float(p[j])
    colours = g.n_colours if keep.size else 0
    return start, {
        "cut": cut,
        "crossing": int(crosses.sum()),
        "crossing_p": float(p[crosses].sum()),
        "colours": colours,
    }


@declare(
    formulation=Param("how the dedication LP is written (same optimum)", choices=("differences", "windows")),
    shelves=Param(
        "Gergov's shelves: compressed to their jobs' span, or from 0", choices=("compressed", "uncompressed")
    ),
    colour_order=Param("Gergov's first-fit colouring order", choices=("list", "placement")),
    phase2=Param(
        "scheduling phase: Gergov (proven), list scheduling (none), or the shorter of both (proven)", choices=PHASE2
    ),
)
def pinned_two_phase(
    inst: IOInstance,
    *,
    formulation: str = "differences",
    shelves: str = "compressed",
    colour_order: str = "list",
    phase2: str = "gergov",
) -> Schedule:
    """Dedicate every pinned job to one window by LP rounding, then schedule the windows.

    Parameters
    ----------
    inst : IOInstance
        Every job pinned (one I/O node per job on a ring).
    formulation : {"differences", "windows"}
        How the LP is written (same optimum; see :mod:`.lp`).
    shelves, colour_order : str
        Gergov's phase-2 conventions (see :func:`~schedlab.offline.io.gergov.gergov`).
    phase2 : {"gergov", "list", "best"}
        How the dedicated windows are scheduled: Gergov's algorithm (the
        thesis; on a ring, cut and append), list scheduling longest first (no
        guarantee), or whichever of the two ends first (the guarantee kept).

    Returns
    -------
    Schedule
        ``info`` holds ``lp`` (``Lambda_LP``), ``rounded`` (``Lambda_round``),
        ``height`` (Gergov's phase 1), ``colours``, on a ring the cut, and
        ``phase2`` (the schedule kept).

    Raises
    ------
    InputError
        A job that is not pinned.
    """
    require_pinned(inst, "pinned")
    if phase2 not in PHASE2:
        raise InputError("pinned", field="phase2", value=phase2, expected=" or ".join(PHASE2))
    if inst.n == 0:
        return io_schedule(inst, [], [], "pinned", {"lp": 0.0, "rounded": 0.0})
    ded = dedicate(inst, formulation=formulation)
    lows, highs, M = footprints(inst)
    low = np.array([lows[j][ded.chosen[j]] for j in range(inst.n)])
    high = np.array([highs[j][ded.chosen[j]] for j in range(inst.n)])
    info = {"lp": ded.lp.value, "rounded": ded.rounded}
    windows = [inst.windows(j)[ded.chosen[j]] for j in range(inst.n)]
    name = "pinned" if phase2 == "gergov" else f"pinned[{phase2}]"
    listed = None
    if phase2 != "gergov":
        listed = list_schedule(inst, lambda j: (windows[j],), name)
        listed = replace(listed, info={**info, **listed.info, "phase2": "list"})
        if phase2 == "list":
            return listed
    if inst.platform.ring:
        start, cut = cut_and_append(low, high, inst.p, M, shelves=shelves, colour_order=colour_order)
        info.update(cut)
    else:
        g = gergov(low, high, inst.p, M, shelves=shelves, colour_order=colour_order)
        start = g.start
        info.update(height=g.height, colours=g.n_colours)
    if listed is not None and listed.makespan < float((start + inst.p).max()):
        return listed
    return io_schedule(inst, start, windows, name, {**info, "phase2": "gergov"})
