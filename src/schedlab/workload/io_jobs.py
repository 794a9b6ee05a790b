"""Rigid jobs that request I/O nodes, on a line or a ring of compute and I/O nodes.

Source: Bleuse (2017), PhD thesis, section 4.1 (rigid jobs, ``size_j^C``;
I/O nodes requested by count, ``size_j^{I/O}``, *unpinned*, or by name,
``fix_j^{I/O}``, *pinned*) and section 5.1. All jobs are available at time 0
and run ``p_j`` whatever their allocation (the thesis has no release dates and
no interference model: shapes are constrained instead; ambiguity A17).

JSON (read by :func:`read_io_instance`, written by :func:`write_io_instance`)::

    {"platform": "line:m=12,io=3",            # or {"topology": "line", "layout": "ICCCICCCICCC",
                                               #     "mode": "shared", "routing": "arc"}
     "multi_io": "inflate",                    # or "reject" (several pinned I/O nodes far apart)
     "jobs": [{"id": 0, "p": 3, "q": 2, "io": 1},        # unpinned: any 1 I/O node
              {"id": 1, "p": 5, "q": 4, "io": [4]},      # pinned to I/O node 4
              {"id": 2, "p": 1, "q": 3, "io": [0, 4]}]}  # pinned to I/O nodes 0 and 4

Every error names the file and the JSON path, e.g.
``inst.json: jobs[3].io[1] = 7, expected an I/O node id (0, 4, 8)``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.io import IO_MODES, RING_ROUTINGS, TOPOLOGIES, IOPlatform, parse_io_platform, uniform_layout
from schedlab.platform.io_windows import Window, max_local_io, pinned_windows
from schedlab.workload.json_file import load_json

__all__ = [
    "IOInstance",
    "generate_io_instance",
    "instance_from_json",
    "instance_to_json",
    "io_instance_from_trace",
    "parse_generate",
    "read_io_instance",
    "write_io_instance",
]


@dataclass(frozen=True, eq=False)
class IOInstance:
    """A platform and ``n`` rigid jobs, as columns.

    Attributes
    ----------
    platform : IOPlatform
    p : float array (n,)
        Processing times, > 0.
    q : int array (n,)
        Compute nodes, ``1 <= q <= m_c``.
    io : tuple, one entry per job
        An int ``c`` (unpinned: any ``c`` local I/O nodes) or a sorted tuple of
        I/O node ids (pinned).
    ids : int array (n,)
        Job ids, unique, named in messages and outputs.
    inflate : bool
        Several pinned I/O nodes with more compute nodes between them than
        ``q``: give the job all of them (True, the thesis's rule) or reject the
        instance (ambiguity A10).
    source : str
        Named in error messages.

    Raises
    ------
    InputError
        Naming the JSON path of the first bad value (see :func:`instance_from_json`).
    """

    platform: IOPlatform
    p: np.ndarray
    q: np.ndarray
    io: tuple
    ids: np.ndarray
    inflate: bool = True
    source: str = "instance"
    _windows: dict = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", np.asarray(self.p, dtype=float))
        object.__setattr__(self, "q", np.asarray(self.q, dtype=np.int64))
        object.__setattr__(self, "ids", np.asarray(self.ids, dtype=np.int64))
        object.__setattr__(self, "io", tuple(v if isinstance(v, int) else tuple(sorted(v)) for v in self.io))
        for array in (self.p, self.q, self.ids):
            array.setflags(write=False)
        object.__setattr__(self, "_windows", {})
        _check(self)

    # -- columns ----------------------------------------------------------------------
    @property
    def n(self) -> int:
        return int(self.p.shape[0])

    @property
    def pinned(self) -> np.ndarray:
        """Bool per job: requests named I/O nodes."""
        return np.array([not isinstance(v, int) for v in self.io], dtype=bool)

    @property
    def io_count(self) -> np.ndarray:
        """I/O nodes each job uses."""
        return np.array([v if isinstance(v, int) else len(v) for v in self.io], dtype=np.int64)

    @property
    def kind(self) -> str:
        """``pinned``, ``unpinned`` or ``mixed``."""
        pinned = self.pinned
        if pinned.all() and self.n:
            return "pinned"
        return "unpinned" if not pinned.any() else "mixed"

    def windows(self, j: int) -> list[Window]:
        """The convex and local allocations of pinned job ``j`` (cached), sorted by start rank."""
        if j not in self._windows:
            self._windows[j] = pinned_windows(self.platform, int(self.q[j]), self.io[j], inflate=self.inflate)
        return self._windows[j]

    def with_platform(self, platform: IOPlatform) -> IOInstance:
        """The same jobs on another platform (e.g. the other I/O mode)."""
        return IOInstance(platform, self.p, self.q, self.io, self.ids, self.inflate, self.source)

    def describe(self) -> str:
        return f"{self.n} {self.kind} jobs on {self.platform.name}"

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_jobs(
        cls, platform: IOPlatform, jobs, *, ids=None, inflate: bool = True, source: str = "instance"
    ) -> IOInstance:
        """Build from ``(p, q, io)`` triples, ``io`` an int (unpinned count) or a sequence of I/O node ids."""
        p = [float(j[0]) for j in jobs]
        q = [int(j[1]) for j in jobs]
        io = tuple(int(j[2]) if isinstance(j[2], (int, np.integer)) else tuple(int(s) for s in j[2]) for j in jobs)
        id_array = np.arange(len(p)) if ids is None else np.asarray(ids)
        return cls(platform, np.array(p, dtype=float), np.array(q, dtype=np.int64), io, id_array, inflate, source)


def _check(inst: IOInstance) -> None:
    src, plat = inst.source, inst.platform
    n = inst.n
    if inst.q.shape != (n,) or inst.ids.shape != (n,) or len(inst.io) != n:
        raise InputError(
            src,
            field="jobs",
            message=f"columns of lengths {n}, {inst.q.shape}, {inst.ids.shape}, {len(inst.io)} differ",
        )
    if len(np.unique(inst.ids)) != n:
        seen: set[int] = set()
        for j, value in enumerate(inst.ids.tolist()):
            if value in seen:
                raise InputError(src, field=f"jobs[{j}].id", value=value, expected="an id no other job has")
            seen.add(value)
    bad = ~(np.isfinite(inst.p) & (inst.p > 0))
    if bad.any():
        j = int(np.argmax(bad))
        raise InputError(src, field=f"jobs[{j}].p", value=inst.p[j], expected="a finite number > 0")
    bad = (inst.q < 1) | (inst.q > plat.m_c)
    if bad.any():
        j = int(np.argmax(bad))
        raise InputError(
            src,
            field=f"jobs[{j}].q",
            value=int(inst.q[j]),
            expected=f"1 to {plat.m_c} (the compute nodes of {plat.name})",
        )
    io_ids = set(plat.io_nodes.tolist())
    shown = ", ".join(map(str, plat.io_nodes[:8].tolist())) + (", ..." if plat.m_io > 8 else "")
    for j, request in enumerate(inst.io):
        if isinstance(request, int):
            if request < 0 or request > max_local_io(plat, int(inst.q[j])):
                most = max_local_io(plat, int(inst.q[j]))
                raise InputError(
                    src,
                    field=f"jobs[{j}].io",
                    value=request,
                    expected=f"0 to {most}, the most I/O nodes next to a convex allocation of "
                    f"q = {int(inst.q[j])} compute nodes on {plat.name}",
                )
            continue
        if not request:
            raise InputError(src, field=f"jobs[{j}].io", value="[]", expected="at least one I/O node id, or a count")
        for k, s in enumerate(request):
            if s not in io_ids:
                raise InputError(
                    src,
                    field=f"jobs[{j}].io[{k}]",
                    value=s,
                    expected=f"an I/O node id of {plat.name} ({shown})"
                    if io_ids
                    else f"no pinned I/O node: {plat.name} has none",
                )
        if plat.ring and len(request) > 1:
            raise InputError(
                src, field=f"jobs[{j}].io", value=list(request), expected="one pinned I/O node per job on a ring"
            )
        if not inst.windows(j):
            raise InputError(
                src,
                field=f"jobs[{j}].io",
                value=list(request),
                expected=f"I/O nodes that a convex allocation of q = {int(inst.q[j])} compute nodes can "
                "all touch" + ("" if inst.inflate else " (multi_io = reject refuses over-allocation)"),
            )


# -- JSON -----------------------------------------------------------------------------------
def read_io_instance(path: str | Path) -> IOInstance:
    """Read an instance from JSON (format in the module docstring).

    Raises
    ------
    InputError
        Naming the file and the JSON path, e.g. ``inst.json: jobs[2].q = 40, expected 1 to 28 ...``.
    """
    source = str(path)
    data = load_json(path)
    return instance_from_json(data, source=source)


def _platform_from_json(value, source: str) -> IOPlatform:
    if isinstance(value, str):
        try:
            return parse_io_platform(value, source=source)
        except InputError as error:
            raise InputError(source, message=f"platform {value}: {str(error).split(': ', 1)[-1]}") from None
    if not isinstance(value, dict):
        raise InputError(
            source, field="platform", value=type(value).__name__, expected="a text like line:m=32,io=4 or an object"
        )
    allowed = {"topology", "m", "io", "layout", "mode", "routing"}
    for key in value:
        if key not in allowed:
            raise InputError(source, field=f"platform.{key}", expected=f"one of {', '.join(sorted(allowed))}")
    topology = value.get("topology")
    if topology not in TOPOLOGIES:
        raise InputError(source, field="platform.topology", value=topology, expected=" or ".join(TOPOLOGIES))
    mode = value.get("mode", "shared")
    if mode not in IO_MODES:
        raise InputError(source, field="platform.mode", value=mode, expected=" or ".join(IO_MODES))
    routing = value.get("routing", "arc")
    if routing not in RING_ROUTINGS:
        raise InputError(source, field="platform.routing", value=routing, expected=" or ".join(RING_ROUTINGS))
    if "layout" in value:
        layout = value["layout"]
        if not isinstance(layout, str) or not layout or set(layout.upper()) - {"I", "C"}:
            raise InputError(source, field="platform.layout", value=layout, expected="letters I (I/O) and C (compute)")
        is_io = np.array([c == "I" for c in layout.upper()], dtype=bool)
    else:
        m = _json_int(value.get("m"), source, "platform.m", 1)
        io = value.get("io")
        if isinstance(io, list):
            is_io = np.zeros(m, dtype=bool)
            for k, s in enumerate(io):
                s = _json_int(s, source, f"platform.io[{k}]", 0)
                if s >= m:
                    raise InputError(source, field=f"platform.io[{k}]", value=s, expected=f"a node id below m = {m}")
                is_io[s] = True
        else:
            m_io = _json_int(io, source, "platform.io", 0)
            if m_io >= m or (m_io and m % m_io):
                raise InputError(
                    source,
                    field="platform.io",
                    value=m_io,
                    expected=f"a divisor of m = {m} below it, or a list of I/O node ids",
                )
            is_io = uniform_layout(m, m_io)
    if topology == "ring" and is_io.size < 3:
        raise InputError(source, field="platform.m", value=int(is_io.size), expected="at least 3 nodes on a ring")
    try:
        return IOPlatform(topology, is_io, mode, routing, source=source)
    except InputError as error:
        raise InputError(source, field="platform", message=str(error).split(": ", 1)[-1]) from None


def _json_int(value, source: str, path: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InputError(source, field=path, value=value, expected=f"an integer >= {low}")
    return value


def _json_number(value, source: str, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(source, field=path, value=repr(value), expected="a number > 0")
    value = float(value)
    if not (value > 0 and math.isfinite(value)):
        raise InputError(source, field=path, value=value, expected="a finite number > 0")
    return value


def instance_from_json(data, *, source: str = "instance") -> IOInstance:
    """Build an instance from parsed JSON (see :func:`read_io_instance`)."""
    if not isinstance(data, dict):
        raise InputError(source, field="$", value=type(data).__name__, expected="an object with platform and jobs")
    for key in data:
        if key not in ("platform", "jobs", "multi_io"):
            raise InputError(source, field=key, expected="only the keys platform, jobs, multi_io")
    if "platform" not in data:
        raise InputError(source, field="platform", expected='a platform (e.g. "line:m=32,io=4")')
    platform = _platform_from_json(data["platform"], source)
    multi = data.get("multi_io", "inflate")
    if multi not in ("inflate", "reject"):
        raise InputError(source, field="multi_io", value=multi, expected="inflate or reject")
    jobs = data.get("jobs")
    if not isinstance(jobs, list):
        raise InputError(source, field="jobs", value=type(jobs).__name__, expected="a list of jobs")
    p: list[float] = []
    q: list[int] = []
    ids: list[int] = []
    io: list[int | tuple[int, ...]] = []
    for j, job in enumerate(jobs):
        path = f"jobs[{j}]"
        if not isinstance(job, dict):
            raise InputError(source, field=path, value=type(job).__name__, expected="an object with p, q, io")
        for key in job:
            if key not in ("id", "p", "q", "io"):
                raise InputError(source, field=f"{path}.{key}", expected="only the keys id, p, q, io")
        p.append(_json_number(job.get("p"), source, f"{path}.p"))
        q.append(_json_int(job.get("q"), source, f"{path}.q", 1))
        ids.append(_json_int(job.get("id", j), source, f"{path}.id", 0))
        request = job.get("io", 1)
        if isinstance(request, list):
            io.append(tuple(_json_int(s, source, f"{path}.io[{k}]", 0) for k, s in enumerate(request)))
        else:
            io.append(_json_int(request, source, f"{path}.io", 0))
    return IOInstance(
        platform,
        np.array(p, dtype=float),
        np.array(q, dtype=np.int64),
        tuple(io),
        np.array(ids, dtype=np.int64),
        multi == "inflate",
        source,
    )


def instance_to_json(inst: IOInstance) -> dict:
    """The JSON object :func:`instance_from_json` reads back to the same instance."""
    plat = inst.platform
    if plat.delta is not None or plat.m_io == 0:
        platform = {"topology": plat.topology, "m": plat.m, "io": plat.m_io}
    else:
        platform = {"topology": plat.topology, "layout": "".join("I" if v else "C" for v in plat.is_io)}
    platform["mode"] = plat.io_mode
    if plat.ring:
        platform["routing"] = plat.routing
    jobs = []
    for j in range(inst.n):
        p = float(inst.p[j])
        request = inst.io[j]
        jobs.append(
            {
                "id": int(inst.ids[j]),
                "p": int(p) if p.is_integer() else p,
                "q": int(inst.q[j]),
                "io": request if isinstance(request, int) else list(request),
            }
        )
    return {"platform": platform, "multi_io": "inflate" if inst.inflate else "reject", "jobs": jobs}


def write_io_instance(inst: IOInstance, path: str | Path) -> None:
    """Write ``inst`` as JSON (one job per line, stable key order)."""
    data = instance_to_json(inst)
    lines = ",\n  ".join(json.dumps(job) for job in data["jobs"])
    head = {k: v for k, v in data.items() if k != "jobs"}
    text = json.dumps(head)[:-1] + ',\n "jobs": [\n  ' + lines + "\n ]}\n"
    Path(path).write_text(text)


# -- generator --------------------------------------------------------------------------------
def generate_io_instance(
    platform: IOPlatform,
    n: int,
    *,
    rng: np.random.Generator,
    pinned: bool = True,
    q_min: int = 1,
    q_max: int | None = None,
    p_max: int = 100,
    p_dist: str = "loguniform",
    io_per_job: int = 1,
) -> IOInstance:
    """``n`` random rigid jobs on ``platform``, each with ``io_per_job`` I/O nodes.

    Source: the evaluation plan of chapter 6 ("implement the proposed
    algorithms and study their performances through simulation"); no
    distribution is given there. ``q`` is uniform on ``q_min .. q_max``
    (default ``min(m_c, 2 delta)`` so that small and big jobs of the unpinned
    meta-algorithm both occur), ``p`` an integer, log-uniform
    (``loguniform``) or uniform on ``1 .. p_max``. A pinned job targets
    ``io_per_job`` consecutive I/O nodes from a uniform first one (one on a ring).

    Guarantee: deterministic given ``rng``; every job has a valid allocation
    (pinned jobs whose I/O nodes are more than ``q`` compute nodes apart are
    over-allocated, the thesis's rule).
    """
    m_c, m_io = platform.m_c, platform.m_io
    if q_max is None:
        q_max = min(m_c, 2 * (platform.delta or max(m_c // max(m_io, 1), 1)))
    if not 1 <= q_min <= q_max <= m_c:
        raise InputError("generator", field="q", value=f"{q_min}..{q_max}", expected=f"1 <= q_min <= q_max <= {m_c}")
    if p_dist not in ("loguniform", "uniform") or p_max < 1:
        raise InputError(
            "generator", field="p", value=f"{p_dist} up to {p_max}", expected="loguniform or uniform, p_max >= 1"
        )
    if m_io < io_per_job or io_per_job < 1 or (platform.ring and pinned and io_per_job > 1):
        raise InputError(
            "generator",
            field="io_per_job",
            value=io_per_job,
            expected=f"1 to {m_io} I/O nodes per job (1 for pinned jobs on a ring)",
        )
    q = rng.integers(q_min, q_max + 1, size=n)
    if p_dist == "uniform":
        p = rng.integers(1, p_max + 1, size=n).astype(float)
    else:
        p = np.floor(np.exp(rng.uniform(0.0, math.log(p_max + 1), size=n))).clip(1, p_max)
    io: tuple[int | tuple[int, ...], ...]
    if pinned:
        first = rng.integers(0, m_io - io_per_job + 1, size=n)
        io = tuple(tuple(platform.io_nodes[f : f + io_per_job].tolist()) for f in first.tolist())
    else:
        limits = [max_local_io(platform, int(v)) for v in q]
        io = tuple(min(io_per_job, lim) for lim in limits)
    return IOInstance(platform, p, q, io, np.arange(n), True, f"generated {platform.name} n={n}")


_GEN_KEYS = {"n": int, "seed": int, "kind": str, "qmin": int, "qmax": int, "pmax": int, "p": str, "iopj": int}


def parse_generate(text: str) -> tuple[IOInstance, int]:
    """``line:m=32,io=4,n=40,seed=1[,kind=pinned|unpinned][,qmin=,qmax=,pmax=,p=loguniform|uniform,iopj=]``:
    the platform keys of :func:`~schedlab.platform.io.parse_io_platform` plus the generator's.

    Returns the instance and the seed (``numpy.random.default_rng(seed)`` drew it).
    """
    head, _, rest = text.partition(":")
    platform_items, gen = [], {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, _, value = item.partition("=")
        if key in _GEN_KEYS:
            try:
                gen[key] = _GEN_KEYS[key](value)
            except ValueError:
                raise InputError("--generate", field=f"{text}: {key}", value=value, expected="an integer") from None
        else:
            platform_items.append(item)
    platform = parse_io_platform(f"{head}:" + ",".join(platform_items), source="--generate")
    if "n" not in gen or gen["n"] < 0:
        raise InputError("--generate", field=f"{text}: n", expected="n=NUMBER OF JOBS (>= 0)")
    kind = gen.get("kind", "pinned")
    if kind not in ("pinned", "unpinned"):
        raise InputError("--generate", field=f"{text}: kind", value=kind, expected="pinned or unpinned")
    seed = gen.get("seed", 0)
    inst = generate_io_instance(
        platform,
        gen["n"],
        rng=np.random.default_rng(seed),
        pinned=kind == "pinned",
        q_min=gen.get("qmin", 1),
        q_max=gen.get("qmax"),
        p_max=gen.get("pmax", 100),
        p_dist=gen.get("p", "loguniform"),
        io_per_job=gen.get("iopj", 1),
    )
    return inst, seed


def io_instance_from_trace(
    jobs, machine_procs: int, platform: IOPlatform, n: int, *, rng: np.random.Generator, pinned: bool = True
) -> IOInstance:
    """``n`` consecutive rigid jobs of a trace (from a uniform random start) with synthesised I/O requests.

    Source: the evaluation plan for Bleuse (2017), chapter 6: rigid traces of
    the Parallel Workloads Archive give ``(p, q)``; I/O pinning is synthesised.
    ``q`` is rescaled from the trace machine to the platform's compute nodes,
    ``ceil(procs * m_c / machine_procs)`` (at least 1, at most ``m_c``); ``p``
    is the run time (seconds). A pinned job targets one uniform I/O node; an
    unpinned one asks for any one. Job ids are the trace's.

    Parameters
    ----------
    jobs : JobTable
        The trace's jobs (e.g. from :func:`~schedlab.workload.filters.to_jobs`), run times > 0.
    machine_procs : int
        The trace machine's size.

    Raises
    ------
    InputError
        Fewer than ``n`` jobs.
    """
    total = len(jobs.run_time)
    if n > total or n < 0:
        raise InputError(jobs.source, field="jobs", value=total, expected=f"at least n = {n} jobs to sample")
    first = int(rng.integers(0, total - n + 1))
    rows = np.arange(first, first + n)
    procs = jobs.procs[rows].astype(np.int64)
    q = np.clip(-(-procs * platform.m_c // machine_procs), 1, platform.m_c)
    p = jobs.run_time[rows].astype(float)
    io: tuple[int | tuple[int, ...], ...]
    if pinned:
        io = tuple((int(s),) for s in platform.io_nodes[rng.integers(0, platform.m_io, size=n)])
    else:
        io = (1,) * n
    return IOInstance(platform, p, q, io, jobs.id[rows], True, f"{jobs.source} rows {first}..{first + n - 1}")
