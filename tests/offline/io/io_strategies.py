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
            io = tuple(draw(st.lists(st.sampled_from(plat.io_nodes.tolist()), min_size=size, max_size=size,
                                     unique=True)))
        else:
            io = 1
        jobs.append((p, q, io))
    try:
        return IOInstance.from_jobs(plat, jobs)
    except Exception:  # a pinned set no convex allocation reaches: draw again
        assume(False)
