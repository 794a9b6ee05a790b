"""Hypothesis strategies: small valid I/O-aware instances on lines and rings."""

from __future__ import annotations

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from schedlab.platform.io import IOPlatform, uniform_layout
from schedlab.workload.io_jobs import IOInstance


@st.composite
def platforms(draw, topology=None, mode=None, min_m=3, max_m=12, uniform=False):
    """A line or ring of ``min_m .. max_m`` nodes with at least one compute and one I/O node."""
    topology = topology or draw(st.sampled_from(["line", "ring"]))
    mode = mode or draw(st.sampled_from(["shared", "exclusive"]))
    if uniform:
        delta = draw(st.integers(2, 5))
        m_io = draw(st.integers(1, max(1, max_m // delta)))
        assume(delta * m_io >= 3 or topology == "line")
        is_io = uniform_layout(delta * m_io, m_io)
    else:
        m = draw(st.integers(min_m, max_m))
        is_io = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)))
        assume(is_io.any() and not is_io.all())
    return IOPlatform(topology, is_io, mode)


@st.composite
def io_instances(draw, kind="pinned", max_jobs=5, max_p=6, max_q=None, unit=False, multi=False, **platform_kw):
    """Up to ``max_jobs`` jobs with integer times on a drawn platform.

    ``kind``: ``pinned`` (one I/O node each, or up to three with ``multi`` on a
    line), ``unpinned`` (any one I/O node) or ``mixed``.
    """
    plat = draw(platforms(**platform_kw))
    n = draw(st.integers(1, max_jobs))
    jobs = []
    top = plat.m_c if max_q is None else min(max_q, plat.m_c)
    for _ in range(n):
        p = 1 if unit else draw(st.integers(1, max_p))
        q = draw(st.integers(1, top))
        pinned = kind == "pinned" or (kind == "mixed" and draw(st.booleans()))
        if pinned:
            size = draw(st.integers(1, min(3, plat.m_io))) if multi and not plat.ring else 1
            io = tuple(
                draw(st.lists(st.sampled_from(plat.io_nodes.tolist()), min_size=size, max_size=size, unique=True))
            )
        else:
            io = 1
        jobs.append((p, q, io))
    try:
        return IOInstance.from_jobs(plat, jobs)
    except Exception:  # a pinned set no convex allocation reaches: draw again
        assume(False)


def check(inst: IOInstance, schedule) -> None:
    """The one validator on the common instance, plus what it cannot see: the I/O nodes each job targets
    (``schedule.info["io"]``) are its pinned ones or ``c_j`` of its choice, inside its allocation, and at any
    time an I/O node serves at most as many jobs as it has compute neighbours (Prop. 4.2)."""
    from schedlab.offline.io import io_instance
    from schedlab.validation import validate

    validate(io_instance(inst), schedule)
    plat = inst.platform
    targets = schedule.info["io"]
    events = []
    for j, request in enumerate(inst.io):
        nodes = {v for lo, hi in schedule.alloc[j] for v in range(lo, hi)}
        assert set(targets[j]) <= nodes
        assert len(targets[j]) == request if isinstance(request, int) else tuple(targets[j]) == request
        for s in targets[j]:
            events += [(schedule.start[j], 1, s), (schedule.end[j], -1, s)]
    level: dict[int, int] = {}
    for _, delta, s in sorted(events, key=lambda e: (e[0], e[1])):
        level[s] = level.get(s, 0) + delta
        assert level[s] <= plat.compute_degree(s)
