"""APPROX-3/2: dual 3/2-approximation for ``(Pm,Pk)|mold|Cmax`` by seven task sets and an ILP.

Source: Bleuse (2017), ch. 3 sections 3.3-3.4 (IEEE TPDS 28(9) 2017).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from functools import partial
from time import perf_counter

import numpy as np

from schedlab.errors import ArgumentError
from schedlab.offline.hybrid.bisection import CUTOFF, dual_search
from schedlab.offline.hybrid.lists import left_compact
from schedlab.offline.hybrid.schedule import hybrid_schedule, task_kinds, task_resources
from schedlab.offline.quiet import quiet_solver
from schedlab.parameters import Param, declare
from schedlab.schedule import Schedule
from schedlab.workload.hybrid import HybridInstance

__all__ = ["Approx32Step", "approx32", "approx32_detail", "approx32_step", "eligible_sets"]

_TOL = 1e-9  # relative slack on the solver's C1/C4 feasibility tolerance
_OBJECTIVES = ("work", "makespan")


@dataclass(frozen=True, eq=False)
class Approx32Step:
    """Everything one APPROX-3/2 step computed (for statistics and the section 7.3 invariants)."""

    lam: float
    eligible: np.ndarray  # (n, 7) bool: task j may go to set i (Eq. 3.1)
    allot: np.ndarray  # (n, 7) int: CPUs a task uses in set i (1 for sets 0, 1; g for 2, 3, 4; 0 for GPU sets)
    chosen: np.ndarray | None  # (n,) set chosen by the ILP, None when rejected
    left: int = 0
    right: int = 0
    work: float = float("nan")  # ILP objective W
    status: str = ""
    ilp_seconds: float = 0.0
    latest: Schedule | None = None  # construction before left compaction
    schedule: Schedule | None = None  # after left compaction
    info: dict = field(default_factory=dict)


def eligible_sets(instance: HybridInstance, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seven sets of Eq. 3.1: ``(eligible (n,7) bool, allot (n,7) int, cpu time (n,7))``.

    Thresholds lam/2, 3lam/4 and 3lam/2 are computed once and compared exactly
    (reading BH-8, docs/readings.md).
    """
    n = instance.n
    h2, h34, h32 = lam / 2, 3 * lam / 4, 3 * lam / 2
    p1 = instance.seq_time
    g_h, g1, g32 = instance.gamma(h2), instance.gamma(lam), instance.gamma(h32)
    t_h, t1, t32 = instance.cpu_time(g_h), instance.cpu_time(g1), instance.cpu_time(g32)
    p = instance.usable_gpu_time
    s0 = p1 <= h2
    s1 = (h2 < p1) & (p1 <= h34)
    s2 = (lam < t32) & (t32 <= h32)
    s3 = (h2 < t1) & (t1 <= lam) & ~s1
    s4 = (t_h <= h2) & (g_h > 1)
    s5 = (h2 < p) & (p <= lam)
    s6 = p <= h2
    eligible = np.stack([s0, s1, s2, s3, s4, s5, s6], axis=1)
    one = np.ones(n, dtype=np.int64)
    zero = np.zeros(n, dtype=np.int64)
    allot = np.stack([one, one, g32, g1, g_h, zero, zero], axis=1)
    times = np.stack([p1, p1, t32, t1, t_h, p, p], axis=1)
    return eligible, allot, times


def approx32_detail(
    instance: HybridInstance,
    lam: float,
    *,
    time_limit: float = 30.0,
    mip_rel_gap: float = 1e-4,
    objective: str = "work",
    repack: bool = False,
) -> Approx32Step:
    """One APPROX-3/2 step with all its intermediate results (see :func:`approx32_step`)."""
    check_objective(objective)
    n, m, k = instance.n, instance.m, instance.k
    eligible, allot, times = eligible_sets(instance, lam)
    step = partial(Approx32Step, lam=lam, eligible=eligible, allot=allot)
    if n == 0:
        empty = hybrid_schedule(instance, [], [], [], [], "approx32")
        return step(chosen=np.zeros(0, dtype=np.int64), work=0.0, status="empty", latest=empty, schedule=empty)
    if not eligible.any(axis=1).all():
        return step(chosen=None, status="no eligible set")
    # -- Step C: the ILP. Columns: one binary per eligible (task, set), then left, right.
    rows_j, sets_i = np.nonzero(eligible)
    nv = len(rows_j) + 2
    L, R = nv - 2, nv - 1
    var = np.arange(len(rows_j))
    work = np.where(sets_i <= 4, allot[rows_j, sets_i] * np.where(sets_i <= 4, times[rows_j, sets_i], 0), 0.0)
    gpu_time = np.where(sets_i >= 5, times[rows_j, sets_i], 0.0)
    r, c, v = [], [], []
    lb: list[float] = []
    ub: list[float] = []

    def add(row_vars, row_vals, low, high):
        row = len(lb)
        r.extend([row] * len(row_vars))
        c.extend(row_vars)
        v.extend(row_vals)
        lb.append(low)
        ub.append(high)

    cpu = sets_i <= 4
    add(var[cpu], work[cpu], -np.inf, m * lam)  # C1
    s2, s3, s4, s5, s6 = (sets_i == i for i in (2, 3, 4, 5, 6))
    add(list(var[s2 | s3]) + [L], list(allot[rows_j, sets_i][s2 | s3]) + [1], -np.inf, m)  # C2
    add(list(var[s4 | s2]) + [R], list(allot[rows_j, sets_i][s4 | s2]) + [1], -np.inf, m)  # C3
    add(var[s5 | s6], gpu_time[s5 | s6], -np.inf, k * lam)  # C4
    add(var[s5], np.ones(int(s5.sum())), -np.inf, k)  # C5
    s1 = sets_i == 1
    add(list(var[s1]) + [L, R], [1] * int(s1.sum()) + [-1, -1], 0, 0)  # C7
    add([L, R], [1, -1], 0, 1)  # C8
    first = len(lb)
    r.extend(first + rows_j)  # C6: one set per task
    c.extend(var)
    v.extend(np.ones(len(var)))
    lb.extend([1] * n)
    ub.extend([1] * n)
    cost = np.concatenate([work, [0.0, 0.0]])
    upper = np.concatenate([np.ones(len(var)), [m, m]])
    integrality = np.ones(nv)
    if objective == "makespan":
        # one more column z >= p̄ x for every set-(2) variable (the only CPU tasks longer than lam):
        # minimise z, then W with a weight that keeps W's whole range (<= m lam) below 1e-3 lam
        Z = nv
        for q in np.nonzero(s2)[0]:
            add([q, Z], [times[rows_j[q], 2], -1.0], -np.inf, 0.0)
        cost = np.concatenate([1e-3 * cost / max(m, 1), [1.0]])
        upper = np.concatenate([upper, [1.5 * lam]])
        integrality = np.concatenate([integrality, [0]])
        nv += 1
    from scipy.optimize import Bounds, LinearConstraint, milp  # imported here: scipy costs every command's start
    from scipy.sparse import coo_array

    A = coo_array((np.asarray(v, dtype=float), (np.asarray(r), np.asarray(c))), shape=(len(lb), nv)).tocsr()
    t0 = perf_counter()
    with quiet_solver():  # HiGHS's own messages never reach the terminal
        res = milp(
            cost,
            constraints=LinearConstraint(A, lb, ub),
            integrality=integrality,
            bounds=Bounds(np.zeros(nv), upper),
            options={"time_limit": time_limit, "mip_rel_gap": mip_rel_gap, "disp": False},
        )
    seconds = perf_counter() - t0
    status = {0: "optimal", 1: "limit", 2: "infeasible", 3: "unbounded"}.get(res.status, f"status {res.status}")
    if res.x is None:
        return step(chosen=None, status=status, ilp_seconds=seconds)
    x = np.round(res.x).astype(np.int64)
    chosen = np.full(n, -1, dtype=np.int64)
    picked = x[:L] == 1
    chosen[rows_j[picked]] = sets_i[picked]
    left, right = int(x[L]), int(x[R])
    latest = _build(instance, lam, chosen, allot, times, left, right, pair_ones=objective == "makespan")
    duration = latest.end - latest.start
    on_gpu, resources = task_kinds(instance, latest), task_resources(instance, latest)
    start = left_compact(latest.start, duration, on_gpu, resources)
    schedule = hybrid_schedule(instance, start, start + duration, on_gpu, resources, "approx32")
    if repack:
        schedule = _repack(instance, schedule, on_gpu, duration, allot[np.arange(n), chosen])
    return step(
        chosen=chosen,
        left=left,
        right=right,
        work=float(work @ x[:L]),
        status=status,
        ilp_seconds=seconds,
        latest=latest,
        schedule=schedule,
    )


def _build(
    instance: HybridInstance,
    lam: float,
    chosen: np.ndarray,
    allot: np.ndarray,
    times: np.ndarray,
    left: int,
    right: int,
    *,
    pair_ones: bool = False,
) -> Schedule:
    """Step D: contiguous shelves in [0, 3lam/2] (section 3.4; readings BH-9, BH-10), tasks by row within a block.

    ``pair_ones``: set (1) by non-increasing time, the ``left`` longest at the
    bottom and the others stacked longest-on-shortest (any pairing of two
    tasks <= 3lam/4 fits, Prop. 3.3); otherwise by row.
    """
    n, m, k = instance.n, instance.m, instance.k
    H = 3 * lam / 2
    rows = np.arange(n)
    t = times[rows, np.maximum(chosen, 0)]
    g = allot[rows, np.maximum(chosen, 0)]
    start = np.zeros(n)
    on_gpu = chosen >= 5
    resources: list[tuple[int, ...]] = [()] * n
    bottom = np.zeros(m)  # end of the bottom-shelf task on each CPU
    top = np.full(m, H)  # start of the top-shelf tasks on each CPU
    load = np.zeros(m)

    def put(j: int, first: int, top_shelf: bool) -> None:
        cpus = range(first, first + int(g[j]))
        s = H - t[j] if top_shelf else 0.0
        start[j], resources[j] = s, tuple(cpus)
        for c in cpus:
            load[c] += t[j]
            if top_shelf:
                top[c] = min(top[c], s)
            else:
                bottom[c] = max(bottom[c], t[j])

    cpu = 0
    for j in np.nonzero(chosen == 2)[0].tolist():
        put(j, cpu, False)
        cpu += int(g[j])
    mu2 = cpu
    ones = np.nonzero(chosen == 1)[0]
    if pair_ones:
        ones = ones[np.lexsort((ones, -t[ones]))]
        ones = np.concatenate([ones[:left], ones[left:][::-1]])
    for i, j in enumerate(ones[:left].tolist()):
        put(j, mu2 + i, False)
    cpu = mu2 + left
    for j in np.nonzero(chosen == 3)[0].tolist():
        put(j, cpu, False)
        cpu += int(g[j])
    for i, j in enumerate(ones[left:].tolist()):
        put(j, mu2 + i, True)
    cpu = mu2 + right
    for j in np.nonzero(chosen == 4)[0].tolist():
        put(j, cpu, True)
        cpu += int(g[j])
    slack = _TOL * max(1.0, lam)
    zeros = np.nonzero(chosen == 0)[0]
    heap = [(load[c], c) for c in range(m)]
    heapq.heapify(heap)
    for j in zeros[np.lexsort((zeros, -t[zeros]))].tolist():
        _, c = heapq.heappop(heap)
        if load[c] > lam + slack or top[c] - t[j] < bottom[c] - slack:
            raise AssertionError(f"APPROX-3/2 set (0): CPU {c} has load {load[c]} > lam = {lam}")
        top[c] -= t[j]
        start[j], resources[j] = top[c], (c,)
        load[c] += t[j]
        heapq.heappush(heap, (load[c], c))
    gload = np.zeros(k)
    gtop = np.full(k, H)
    for i, j in enumerate(np.nonzero(chosen == 5)[0].tolist()):
        start[j], resources[j] = 0.0, (i,)
        gload[i] = t[j]
    sixes = np.nonzero(chosen == 6)[0]
    heap = [(gload[q], q) for q in range(k)]
    heapq.heapify(heap)
    for j in sixes[np.lexsort((sixes, -t[sixes]))].tolist():
        _, q = heapq.heappop(heap)
        if gload[q] > lam + slack:
            raise AssertionError(f"APPROX-3/2 set (6): GPU {q} has load {gload[q]} > lam = {lam}")
        gtop[q] -= t[j]
        start[j], resources[j] = gtop[q], (q,)
        gload[q] += t[j]
        heapq.heappush(heap, (gload[q], q))
    return hybrid_schedule(instance, start, start + t, on_gpu, resources, "approx32")


def _repack(
    instance: HybridInstance, schedule: Schedule, on_gpu: np.ndarray, duration: np.ndarray, procs: np.ndarray
) -> Schedule:
    """Post-ILP improvement: the same CPU/GPU split and allotments, list-scheduled; keep the shorter side.

    CPU tasks by non-increasing time (ties by row), each on the contiguous
    block of ``procs[j]`` CPUs free earliest (ties: lowest first CPU), appended;
    GPU tasks likewise on the least loaded GPU. Each side (CPUs, GPUs) keeps
    the shelf schedule unless the list schedule ends strictly earlier there,
    so the result is contiguous and never longer than the shelf schedule.
    Cost: O(n (log n + m max_j procs[j])).
    """
    from numpy.lib.stride_tricks import sliding_window_view

    m, k = instance.m, instance.k
    start = schedule.start.copy()
    resources = list(task_resources(instance, schedule))
    cpu_rows, gpu_rows = np.nonzero(~on_gpu)[0], np.nonzero(on_gpu)[0]
    for rows, machines in ((cpu_rows, m), (gpu_rows, k)):
        if len(rows) == 0:
            continue
        avail = np.zeros(machines)
        new_start, new_res = {}, {}
        for j in rows[np.lexsort((rows, -duration[rows]))]:
            g = int(procs[j]) if machines == m and not on_gpu[j] else 1
            ready = sliding_window_view(avail, g).max(axis=1)
            first = int(np.argmin(ready))
            new_start[j], new_res[j] = float(ready[first]), tuple(range(first, first + g))
            avail[first : first + g] = ready[first] + duration[j]
        if avail.max() < (start[rows] + duration[rows]).max():
            for j in rows:
                start[j], resources[j] = new_start[j], new_res[j]
    return hybrid_schedule(instance, start, start + duration, on_gpu, resources, schedule.policy)


def check_objective(objective: str) -> None:
    """The ILP objectives: ``work`` (the thesis's W) or ``makespan`` (longest set-(2) task, then W)."""
    if objective not in _OBJECTIVES:
        raise ArgumentError(f"objective = {objective!r}, expected one of {', '.join(map(repr, _OBJECTIVES))}")


def approx32_step(
    instance: HybridInstance,
    lam: float,
    *,
    time_limit: float = 30.0,
    mip_rel_gap: float = 1e-4,
    objective: str = "work",
    repack: bool = False,
) -> tuple[Schedule | None, dict]:
    """One APPROX-3/2 step: a contiguous schedule of makespan <= 3 lam / 2, or None.

    Source: Bleuse (2017), ch. 3 sections 3.3-3.4, Eq. 3.1, Lemmas 3.1-3.6, Thm 3.7.
    Guarantee: a feasible ILP solution yields a schedule <= 3 lam/2 (Thm 3.4);
    if a lam-schedule exists the ILP is feasible (Thm 3.7), so a rejection
    proves OPT > lam.
    Cost: one MILP (HiGHS via :func:`scipy.optimize.milp`) with at most 4
    binaries per task, plus O(n log n + n m) construction.

    Notes
    -----
    Choices (readings BH-8 to BH-10, docs/readings.md): the ILP minimises
    W (the thesis's objective); set (1) tasks by row, the first ``left`` at the
    bottom; set (0) by non-increasing time onto the least loaded CPU, set (6)
    likewise on GPUs, both from the top of the gap; then left compaction.
    A solver time-out with an incumbent is used (Lemmas 3.1-3.3 need only
    C1-C8); a time-out without one counts as a rejection and is flagged
    ``"unproven": True`` in the step's info (the bound is then heuristic).

    Options (defaults reproduce the thesis): ``objective="makespan"`` keeps
    C1-C8 but minimises ``z >= p̄_{j,g3/2} x_j^(2)`` (the longest set-(2) task,
    the only CPU tasks longer than lam), then W with weight 1e-3/m, and pairs
    set (1) longest-on-shortest. Acceptance depends on feasibility alone, so
    the accepted guesses and the 3/2 guarantee are unchanged (section
    3.4: any feasible ILP solution builds a <= 3lam/2 schedule; minimising
    W only serves Thm 3.7's existence proof). Minimising W packs every task it
    can into set (2) (one CPU, time in (lam, 3lam/2]), so every accepted step
    ends near 3lam/2 (ratio 1.50 to the best lower bound at n = 1000, m = 512,
    k = 16). ``repack=True`` also list-schedules the ILP's allotment
    (contiguous, longest first) and keeps, per side, the shorter of the two.
    """
    d = approx32_detail(
        instance, lam, time_limit=time_limit, mip_rel_gap=mip_rel_gap, objective=objective, repack=repack
    )
    info = {
        "ilp_status": d.status,
        "ilp_seconds": d.ilp_seconds,
        "mean_sets": float(d.eligible.sum(axis=1).mean()) if instance.n else 0.0,
    }
    if d.schedule is None:
        if d.status not in ("infeasible", "no eligible set"):
            info["unproven"] = True
        return None, info
    info["work"] = d.work
    return d.schedule, info


@declare(
    cutoff=CUTOFF,
    time_limit=Param("seconds the ILP solver may spend per bisection step", low=0, open_low=True),
    mip_rel_gap=Param("relative optimality gap at which the ILP solver stops", low=0),
    objective=Param(
        "ILP objective: total CPU work (the thesis's W) or the longest task above lambda, then W",
        choices=("work", "makespan"),
    ),
    repack=Param("list-schedule each side again after the ILP and keep it when shorter"),
)
def approx32(
    instance: HybridInstance,
    *,
    cutoff: float = 1.01,
    time_limit: float = 30.0,
    mip_rel_gap: float = 1e-4,
    objective: str = "work",
    repack: bool = False,
) -> Schedule:
    """APPROX-3/2: dual 3/2-approximation for moldable-on-CPU tasks (seven sets, ILP, contiguous shelves).

    Source: Bleuse (2017), ch. 3 sections 3.3-3.4; reading BH-7.
    Guarantee: makespan <= 3/2 cutoff OPT; CPU sets contiguous. The ILP is
    not polynomial (Thm 3.7 needs its exact feasibility).
    Cost: one MILP per bisection step; 10-17 steps with cutoff 1.01.

    Parameters
    ----------
    cutoff : float, default 1.01
        Bisection stops when ``upper <= cutoff * lower`` (section 3.6.3).
    time_limit : float, default 30.0
        Seconds per MILP.
    mip_rel_gap : float, default 1e-4
        HiGHS relative gap on W; any feasible solution keeps the 3/2 bound.
    objective : {"work", "makespan"}, default "work"
        ILP objective: the thesis's total CPU work W, or the longest set-(2)
        task then W (see :func:`approx32_step`); same accepted guesses.
    repack : bool, default False
        Also list-schedule the ILP's allotment and keep the shorter schedule
        per side (CPUs, GPUs); contiguous, never longer.

    References
    ----------
    R. Bleuse, S. Kedad-Sidhoum, F. Monna, G. Mounié, D. Trystram. Scheduling
    independent moldable tasks on multi-cores with GPUs. IEEE TPDS 28(9), 2017.
    DOI 10.1109/TPDS.2017.2675891.
    """

    def step(inst: HybridInstance, lam: float):
        return approx32_step(
            inst, lam, time_limit=time_limit, mip_rel_gap=mip_rel_gap, objective=objective, repack=repack
        )

    check_objective(objective)
    return dual_search(instance, step, cutoff=cutoff, name="approx32")
