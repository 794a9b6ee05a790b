"""One registry of every algorithm schedlab runs: online policies, allocators' hosts and offline algorithms.

Each entry (:class:`Algorithm`) says what the algorithm is (name, family,
online or offline, the command that runs it), where it comes from (the paper
and section), what it guarantees, and which parameters it takes, read from its
code: the keyword-only arguments of the policy's ``__init__`` or of the
offline function give each parameter's type and default, and the
:class:`~schedlab.parameters.Param` declarations next to them give its meaning
and allowed values. So the CLI (``schedlab algorithms``), the campaigns (which
check a whole grid of parameters before running anything) and the contract
tests all read the same list, and adding an algorithm is its module plus one
:func:`register` line here.

Entries name their code by dotted path (``"schedlab.policies.rigid.fcfs:EASY"``), imported on first use
(:attr:`Algorithm.target`: parameters, summaries, building), so that reading the registry (names,
families, commands, sources) imports no algorithm: ``schedlab simulate -p easy`` loads the EASY module
and not the forty others. ``tests/test_registry.py`` holds the facts written here (names, kinds,
families, ratios) equal to the imported code's.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property, partial
from typing import TYPE_CHECKING, Any

from schedlab._lazy import resolve
from schedlab.errors import InputError
from schedlab.parameters import Param, convert

if TYPE_CHECKING:
    from schedlab.schedule import Instance, Schedule

__all__ = [
    "ALGORITHMS",
    "FAMILIES",
    "IO",
    "Algorithm",
    "Family",
    "Parameter",
    "family",
    "for_command",
    "get",
    "lazy",
    "make_policy",
    "names",
    "register",
    "register_family",
    "resolve",
]

_SCALARS = (bool, int, float, str)


@dataclass(frozen=True, slots=True)
class Parameter:
    """A parameter as users see it: name, type, default, meaning and allowed values."""

    name: str
    type: str
    default: object
    doc: str
    allowed: str


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm.

    Attributes
    ----------
    name : str
        The name commands and campaigns use (``easy``, ``gspt-rd``, ``approx32``).
    family : str
        What it schedules: ``rigid jobs``, ``independent tasks``, ``CPU+GPU tasks``...
    kind : {"online", "offline"}
        An online policy runs on the event engine; an offline algorithm maps a whole instance to a schedule.
    command : str
        The command that runs it (``simulate``, ``tasks simulate``, ``solve hybrid``), or ``""`` for the
        Python API only (test oracles).
    path : str
        Where the code is, ``"module:attribute"``: the policy class, or the offline function
        (:attr:`target`, imported on first use).
    source : str
        The paper and section it comes from (see ``docs/references.md``).
    guarantee : str
        The proven bound, or what is tested when none is proven.
    ratio : float, optional
        The proven makespan ratio to the optimum (offline), checked by the contract tests.
    bound : mapping
        Keyword arguments fixed by this entry (a variant of a shared function).
    traits : mapping
        Family-specific facts the checks read (CPU+GPU: ``contiguous``, ``moldable``; rigid jobs:
        ``walltime_ignore``, the policy copes with jobs outliving their requested time, ``--walltime ignore``).
    """

    name: str
    family: str
    kind: str
    command: str
    path: str
    source: str
    guarantee: str
    ratio: float | None = None
    bound: Mapping[str, object] = field(default_factory=dict)
    traits: Mapping[str, object] = field(default_factory=dict)

    @cached_property
    def target(self) -> Callable[..., Any]:
        """The policy class, or the offline function, imported from :attr:`path` on first use."""
        return resolve(self.path)

    @property
    def summary(self) -> str:
        """What the algorithm does, for people: the first paragraph of its docstring, whole, on one line and
        without reStructuredText markup, followed by the settings that make this entry a variant of a shared
        function (``backfill=True``)."""
        text = " ".join((inspect.getdoc(self.target) or "").split("\n\n")[0].split())
        text = _plain(text)
        if self.bound:
            text += " Variant: " + ", ".join(f"{key}={value}" for key, value in self.bound.items()) + "."
        return text

    def _signature(self) -> dict[str, inspect.Parameter]:
        function = self.target.__init__ if inspect.isclass(self.target) else self.target
        return {
            p.name: p
            for p in inspect.signature(function).parameters.values()
            if p.kind is p.KEYWORD_ONLY and p.name not in self.bound and isinstance(p.default, _SCALARS)
        }

    def declarations(self) -> dict[str, Param]:
        """The :class:`~schedlab.parameters.Param` declarations of the parameters users may set."""
        accepted = self._signature()
        return {k: v for k, v in getattr(self.target, "parameters", {}).items() if k in accepted}

    def parameters(self) -> tuple[Parameter, ...]:
        """Every parameter users may set, in signature order (undeclared ones have no meaning listed)."""
        declared = self.declarations()
        out = []
        for name, p in self._signature().items():
            param = declared.get(name, Param(""))
            out.append(Parameter(name, type(p.default).__name__, p.default, _plain(param.doc), param.allowed()))
        return tuple(out)

    def configure(self, params: Mapping[str, object] | None = None) -> dict[str, object]:
        """``params`` converted to each parameter's type and checked against its declaration.

        Strings (``--param key=value``, TOML) are converted; an unknown name, a wrong type or a value out
        of range raises InputError naming the algorithm and the parameter. Checks that need the platform
        (a dedicated pool smaller than the machine) are made when a run starts.
        """
        accepted = self._signature()
        declared = self.declarations()
        out: dict[str, object] = {}
        for key, value in (params or {}).items():
            if key not in accepted:
                raise InputError(
                    "params",
                    field=f"{self.name} parameter",
                    value=key,
                    expected=f"one of {', '.join(sorted(accepted)) or '(none)'}",
                )
            field_name = f"{self.name} {key}"
            value = convert(field_name, value, accepted[key].default)
            if key in declared:
                declared[key].validate(field_name, value)
            out[key] = value
        return out

    def build(self, params: Mapping[str, object] | None = None):
        """The configured algorithm: a policy object (online) or a function ``instance -> Schedule`` (offline)."""
        kwargs = {**self.bound, **self.configure(params)}
        if self.kind == "online":
            return self.target(**kwargs)
        return partial(self.target, **kwargs) if kwargs else self.target


_ROLE = re.compile(r":[a-z]+:`~?([^`]*?)`")


def _plain(text: str) -> str:
    """reStructuredText markup as plain text: ``code`` as code, :class:`~a.b.C` as C, :mod:`a.b` as a.b."""
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if "~" in m.group(0) else m.group(1), text)
    return text.replace("``", "")


def lazy(path: str, **fixed: object) -> Callable[..., Any]:
    """The function at ``path`` with ``fixed`` keyword arguments, imported on its first call: a trait's callable
    (``ratio_of``) that does not import its algorithm's module when the registry loads."""
    return partial(_call, path, **fixed)


def _call(path: str, *args: Any, **kwargs: Any) -> Any:
    return resolve(path)(*args, **kwargs)


ALGORITHMS: dict[str, Algorithm] = {}


def register(
    name: str, family: str, kind: str, command: str, path: str, source: str, guarantee: str, **options
) -> None:
    """Add an algorithm to the registry, its code named by ``path``, ``"module:attribute"`` (``options``:
    ``ratio``, ``bound``, ``traits``)."""
    if name in ALGORITHMS:
        raise ValueError(f"algorithm {name!r} registered twice")
    if ":" not in path:
        raise ValueError(f"algorithm {name!r}: {path!r} is not a 'module:attribute' path")
    ALGORITHMS[name] = Algorithm(name, family, kind, command, path, source, guarantee, **options)


def get(name: str, *, kind: str | None = None, family: str | None = None) -> Algorithm:
    """The algorithm registered as ``name``; InputError listing the names of that kind/family otherwise."""
    algorithm = ALGORITHMS.get(name)
    if algorithm is None or (kind and algorithm.kind != kind) or (family and algorithm.family != family):
        option, field = ("--policy", "policy") if kind == "online" else ("--algo", "--algo")
        allowed = ", ".join(sorted(names(kind=kind, family=family)))
        raise InputError(option, field=field, value=name, expected=f"one of {allowed}")
    return algorithm


def for_command(name: str, command: str, *also: str) -> Algorithm:
    """The algorithm ``name`` if ``schedlab COMMAND`` (or one of ``also``, commands whose algorithms it runs
    too) runs it; otherwise InputError saying which command does (``simulate -p gspt``: use ``schedlab tasks
    simulate``), or listing the command's algorithms."""
    algorithm = ALGORITHMS.get(name)
    if algorithm is not None and algorithm.command not in (command, *also):
        how = f"use `schedlab {algorithm.command}`" if algorithm.command else "it is for the Python API only"
        raise InputError(
            "--policy" if algorithm.kind == "online" else "--algo",
            message=f"{name} schedules {algorithm.family}, not with `schedlab {command}`: {how}",
        )
    if algorithm is None:
        option, field_name = ("--policy", "policy") if command.endswith("simulate") else ("--algo", "--algo")
        allowed = ", ".join(sorted(a.name for a in ALGORITHMS.values() if a.command in (command, *also)))
        raise InputError(option, field=field_name, value=name, expected=f"one of {allowed}")
    return algorithm


def names(*, kind: str | None = None, family: str | None = None) -> list[str]:
    """Registered names, in registration order, of one kind and family when given."""
    return [a.name for a in ALGORITHMS.values() if (not kind or a.kind == kind) and (not family or a.family == family)]


def make_policy(name: str, params: Mapping[str, object] | None = None):
    """The online policy registered as ``name``, built with checked ``params`` (strings are converted)."""
    return get(name, kind="online").build(params)


@dataclass(frozen=True)
class Family:
    """How a campaign runs a family's offline algorithms on generated instances.

    Attributes
    ----------
    name : str
        The family (as in :attr:`Algorithm.family`).
    generate : callable
        ``generate(point, seed)``: the family's instance for one grid point (``{"n": 100, ...}``).
    instance_seed : callable
        ``instance_seed(master, point, sample)``: the seed of one generated instance.
    common : callable
        ``common(instance)``: the :class:`~schedlab.schedule.Instance` the validator checks schedules against.
    measure : callable
        ``measure(instance, schedule)``: the family's own values of a run (lower bounds, search steps...).
    columns : tuple of (name, Arrow type name)
        The keys :attr:`measure` returns and how the store types them.
    """

    name: str
    generate: Callable[[Mapping, int], Any]
    instance_seed: Callable[[int, Mapping, int], int]
    common: Callable[[Any], Instance]
    measure: Callable[[Any, Schedule], dict]
    columns: tuple[tuple[str, str], ...]


FAMILIES: dict[str, dict[str, str]] = {}
"""Each family's record as dotted paths, ``"module:attribute"`` per field of :class:`Family`."""


def register_family(name: str, *, generate: str, instance_seed: str, common: str, measure: str, columns: str) -> None:
    """Let campaigns generate instances of family ``name`` and run its offline algorithms on them: each field of
    its :class:`Family` record named by its dotted path, imported when :func:`family` is first asked."""
    FAMILIES[name] = {
        "generate": generate,
        "instance_seed": instance_seed,
        "common": common,
        "measure": measure,
        "columns": columns,
    }


def family(name: str) -> Family:
    """The family record ``name``; InputError listing the families campaigns can generate."""
    if name not in FAMILIES:
        raise InputError("generate", field="family", value=name, expected=f"one of {', '.join(sorted(FAMILIES))}")
    return _family_record(name)


@cache
def _family_record(name: str) -> Family:
    return Family(name, **{key: resolve(path) for key, path in FAMILIES[name].items()})


# -- the registry ----------------------------------------------------------------------------------------
MENDONCA = "Mendonca (2017)"
LUCARELLI = "Lucarelli, Mendonca and Trystram (2017)"
BLEUSE = "Bleuse (2017)"
KREVAT = "Krevat (2003)"
SAULE = "Saule, Bozdag and Catalyurek (2014)"
RIGID, TASKS, HYBRID, IO = "rigid jobs", "independent tasks", "CPU+GPU tasks", "I/O-aware rigid jobs"
PARTITIONS = "jobs on torus partitions"
STRETCH, MOLDABLE = "max-stretch tasks", "moldable tasks"

register(
    "fcfs",
    RIGID,
    "online",
    "simulate",
    "schedlab.policies.rigid.fcfs:FCFS",
    "First come, first served (the classic baseline)",
    "none; never starts a job before an earlier-queued one (tested)",
    traits={"walltime_ignore": True},
)
register(
    "easy",
    RIGID,
    "online",
    "simulate",
    "schedlab.policies.rigid.fcfs:EASY",
    "Lifka (1995); Mu'alem and Feitelson (2001)",
    "the head of the queue is never delayed by a backfilled job (tested)",
    traits={"walltime_ignore": True},  # the head's reservation then holds only while estimates do
)
register(
    "conservative",
    RIGID,
    "online",
    "simulate",
    "schedlab.policies.rigid.conservative:Conservative",
    f"Mu'alem and Feitelson (2001); {MENDONCA}, ch. 4 Algorithm 1",
    "no job is ever delayed by a later one: reservations only move earlier (tested)",
)
register(
    "nfdh-local",
    RIGID,
    "offline",
    "",
    "schedlab.offline.nfdh:nfdh_local",
    f"{MENDONCA}, ch. 4 section 4.4, Theorem 4",
    "makespan <= 2A/m + p_max <= 3 OPT, every job contiguous and local (jobs released at 0)",
    ratio=3.0,
)

for _name, _path, _section in (
    ("gspt", "common_queue:GSPT", "IV-A"),
    ("gspt-rd", "common_queue:GSPTRD", "IV-B"),
    ("gspt-rr", "common_queue:GSPTRR", "IV-C"),
    ("spt", "dispatch:SPT", "IV-A"),
    ("spt-rd", "dispatch:SPTRD", "IV-B"),
    ("spt-rr", "dispatch:SPTRR", "IV-C"),
    ("gsrpt", "preemptive:GSRPT", "IV-A"),
    ("srpt", "preemptive:SRPT", "IV-A"),
):
    register(
        _name,
        TASKS,
        "online",
        "tasks simulate",
        f"schedlab.policies.tasks.{_path}",
        f"{LUCARELLI}, section {_section}",
        "none proven; reductions to the base policy tested (tau > n, c = 0)",
    )

for _name, _bound, _section, _guarantee in (
    ("torus-fcfs", {}, "ch. 2 (Scheduler 1)", "none; schedules jobs in arrival order (tested)"),
    (
        "torus-backfill",
        {"backfill": True},
        "ch. 2 (Scheduler 2)",
        "the head is never scheduled after its first reservation, with exact estimates (tested)",
    ),
    (
        "torus-migration",
        {"migration": True},
        "ch. 2 (Scheduler 3)",
        "arrival order kept; an applied migration strictly enlarges the largest free partition (tested)",
    ),
    (
        "torus-bm",
        {"backfill": True, "migration": True},
        "ch. 2 (Scheduler 4, B+M)",
        "an applied migration strictly enlarges the largest free partition (tested)",
    ),
    ("flat-fcfs", {"flat": True}, "section 5.2 (flat machine)", "none; schedules jobs in arrival order (tested)"),
    (
        "flat-backfill",
        {"flat": True, "backfill": True, "reservation": "flexible"},
        "section 5.2 (flat machine)",
        "EASY backfilling: equals the easy policy without start delay (tested)",
    ),
):
    register(
        _name,
        PARTITIONS,
        "online",
        "simulate",
        "schedlab.policies.torus.policy:TorusPolicy",
        f"{KREVAT}, {_section}",
        _guarantee,
        bound={"backfill": False, "migration": False, "flat": False, **_bound},
        traits={"runtime": "partition"},
    )

register(
    "fcfs-stretch",
    STRETCH,
    "online",
    "tasks simulate",
    "schedlab.policies.stretch.sequential:StretchFCFS",
    f"{SAULE}, section 3.1; reservation (X, T) of section 4.1",
    "max stretch <= (Delta + (1 - 1/m)(Delta + 1)) OPT (Theorem 3.1, tested against brute force)",
)
register(
    "dasedf",
    STRETCH,
    "online",
    "tasks simulate",
    "schedlab.policies.stretch.sequential:DASEDF",
    f"{SAULE}, section 3.2; reservation (X, T) of section 4.1",
    "per re-plan, max stretch < S + 1 - 1/m or no schedule of max stretch S exists (Theorem 3.3, tested); "
    "no online ratio below Delta",
)
register(
    "split",
    STRETCH,
    "online",
    "tasks simulate",
    "schedlab.policies.stretch.sequential:Split",
    f"{SAULE}, section 3.3, Algorithm 1",
    "an f(Delta)-approximation on m' processors gives f(Delta^(1/rho)) on rho m' (Theorem 3.6); "
    "equals independent runs of the base policy per group (tested)",
)
for _name, _class, _source, _guarantee in (
    (
        "dbos",
        "DBOS",
        "section 6, Algorithm 2",
        "none proven; every plan meets the deadlines of its target stretch (tested)",
    ),
    (
        "iterative",
        "Iterative",
        "section 5.4 (Sabin et al. 2006)",
        "none; mean flow never worse than one processor each (tested)",
    ),
    ("improved-iterative", "ImprovedIterative", "section 5.4", "none; equals Iterative on convex speed-ups (tested)"),
    ("scojo-like", "ScojoLike", "section 5.5: an APPROXIMATION of SCOJO-P (Barsanti and Sodan 2006)", "none"),
    (
        "fcfs-sequential",
        "MoldableFCFS",
        "section 7.2 (FCFS-sequential)",
        "Theorem 3.1's bound on the one-processor times",
    ),
):
    register(
        _name,
        MOLDABLE,
        "online",
        "moldable simulate",
        f"schedlab.policies.stretch.moldable:{_class}",
        f"{SAULE}, {_source}",
        _guarantee,
    )
_STRETCH_EVALUATION = "schedlab.policies.stretch.evaluation"
for _family in (STRETCH, MOLDABLE):
    register_family(
        _family,
        generate=f"{_STRETCH_EVALUATION}:generate",
        instance_seed=f"{_STRETCH_EVALUATION}:instance_seed",
        common=f"{_STRETCH_EVALUATION}:common",
        measure=f"{_STRETCH_EVALUATION}:measure",
        columns=f"{_STRETCH_EVALUATION}:COLUMNS",
    )

register(
    "approx32",
    HYBRID,
    "offline",
    "solve hybrid",
    "schedlab.offline.hybrid:approx32",
    f"{BLEUSE}, ch. 3 sections 3.3-3.4",
    "makespan <= 3/2 cutoff OPT, CPU sets contiguous",
    ratio=1.5,
    traits={"contiguous": True, "moldable": True},
)
register(
    "approx32-mk",
    HYBRID,
    "offline",
    "solve hybrid",
    "schedlab.offline.hybrid:approx32",
    f"{BLEUSE}, ch. 3 section 3.4",
    "makespan <= 3/2 cutoff OPT; the ILP minimises the longest task above lambda, then list re-packing",
    ratio=1.5,
    bound={"objective": "makespan", "repack": True},
    traits={"contiguous": True, "moldable": True},
)
register(
    "approx2",
    HYBRID,
    "offline",
    "solve hybrid",
    "schedlab.offline.hybrid:approx2",
    f"{BLEUSE}, ch. 3 section 3.5",
    "makespan <= 2 cutoff OPT (non-contiguous CPU sets)",
    ratio=2.0,
    traits={"contiguous": False, "moldable": True},
)
register(
    "da2",
    HYBRID,
    "offline",
    "solve hybrid",
    "schedlab.offline.hybrid:da2",
    f"{BLEUSE}, ch. 2 section 2.4.2",
    "makespan <= 2 cutoff OPT for sequential tasks",
    ratio=2.0,
    traits={"contiguous": True, "moldable": False},
)
register(
    "dual2",
    HYBRID,
    "offline",
    "solve hybrid",
    "schedlab.offline.hybrid:dual2",
    f"{MENDONCA}, ch. 2 section 2.3, Algorithm 1",
    "makespan <= 2 cutoff OPT for sequential tasks",
    ratio=2.0,
    traits={"contiguous": True, "moldable": False},
)
register(
    "dada",
    HYBRID,
    "offline",
    "solve hybrid",
    "schedlab.offline.hybrid:dada",
    f"{BLEUSE}, ch. 2 section 2.4.3, Algorithm 2",
    "makespan <= (2 + alpha) cutoff OPT without affinity data",
    ratio=2.5,
    traits={"contiguous": True, "moldable": False},
)
register(
    "heft",
    HYBRID,
    "offline",
    "solve hybrid",
    "schedlab.offline.hybrid:heft",
    f"Topcuoglu et al. (2002); {BLEUSE}, ch. 2",
    "none; at least m/2 OPT in the worst case",
    traits={"contiguous": True, "moldable": False},
)
for _alloc in ("seq", "par"):
    for _priority in ("lpt", "spt", "ratio"):
        register(
            f"{_priority}-{_alloc}",
            HYBRID,
            "offline",
            "solve hybrid",
            "schedlab.offline.hybrid:heft_like",
            f"{BLEUSE}, ch. 3 section 3.6.2 (Table 3.2)",
            "none",
            bound={"priority": _priority, "alloc": _alloc},
            traits={"contiguous": True, "moldable": False},
        )
for _function, _what in (
    ("eft", "earliest finish time, longest task first"),
    ("equal", "as many tasks on each worker"),
    ("proportional", "tasks in proportion to worker speed"),
    ("self_scheduling", "an idle worker takes the next task"),
    ("cpu_only", "CPUs only"),
    ("gpu_only", "GPUs only"),
):
    register(
        _function.replace("_", "-"),
        HYBRID,
        "offline",
        "solve hybrid",
        f"schedlab.offline.hybrid:{_function}",
        f"{MENDONCA}, ch. 2 section 2.1 (baselines: {_what})",
        "none",
        traits={"contiguous": True, "moldable": False},
    )

register_family(
    HYBRID,
    generate="schedlab.offline.hybrid.evaluation:generate",
    instance_seed="schedlab.offline.hybrid.evaluation:instance_seed",
    common="schedlab.offline.hybrid:hybrid_instance",
    measure="schedlab.offline.hybrid.evaluation:measure",
    columns="schedlab.offline.hybrid.evaluation:COLUMNS",
)

# I/O-aware rigid jobs on a line or a ring (Bleuse 2017, ch. 4-5). traits: "requires" names what the algorithm
# needs of an instance (schedlab.offline.io.REQUIREMENTS); "ratio_of" gives its proven ratio on one platform,
# ``ratio`` the largest over lines and rings, shared and exclusive I/O.
register(
    "pinned",
    IO,
    "offline",
    "solve io",
    "schedlab.offline.io:pinned_two_phase",
    f"{BLEUSE}, ch. 5 section 5.3.2 (Theorem 5.9, Algorithm 3 after Gergov 1999)",
    "makespan <= 3 Lambda_round <= 6 Lambda_LP <= 6 OPT on a line; <= 8 OPT on a ring (cut and append)",
    ratio=8.0,
    traits={"requires": "pinned", "ratio_of": lazy("schedlab.offline.io:pinned_ratio")},
)
register(
    "pinned-best",
    IO,
    "offline",
    "solve io",
    "schedlab.offline.io:pinned_two_phase",
    f"{BLEUSE}, ch. 5 section 5.3.2; the dedicated windows also list-scheduled, the shorter schedule kept",
    "the guarantee of pinned (6 OPT on a line, 8 OPT on a ring): never longer than it",
    ratio=8.0,
    bound={"phase2": "best"},
    traits={"requires": "pinned", "ratio_of": lazy("schedlab.offline.io:pinned_ratio")},
)
_STRIP_RATIOS = {"nfdh": 3.0, "ffdh": 2.7}  # the strip packers' rho' (schedlab.offline.io.strip.STRIP_RATIOS)
for _strip in ("nfdh", "ffdh"):
    register(
        "unpinned" if _strip == "nfdh" else f"unpinned-{_strip}",
        IO,
        "offline",
        "solve io",
        "schedlab.offline.io:unpinned_meta",
        f"{BLEUSE}, ch. 5 section 5.2.2 (Theorem 5.4); Coffman et al. (1980) for {_strip.upper()}",
        "makespan <= (rho + rho') OPT on a line with exclusive I/O (LPT rho = 4/3 - 1/(3 m_IO), "
        f"{_strip.upper()} rho' = {_STRIP_RATIOS[_strip]:g}); 2 rho + rho' shared; "
        "one more rho' on a ring",
        ratio=2 * 4 / 3 + 2 * _STRIP_RATIOS[_strip],
        bound={"strip": _strip},
        traits={"requires": "unpinned", "ratio_of": lazy("schedlab.offline.io:unpinned_ratio", strip=_strip)},
    )
register(
    "unit-pinned",
    IO,
    "offline",
    "solve io",
    "schedlab.offline.io:unit_pinned",
    f"{BLEUSE}, ch. 5 Table 5.1 (unit jobs, pinned I/O: a 2-approximation)",
    "makespan = Lambda_round <= 2 Lambda_LP <= 2 OPT (equal processing times, a line)",
    ratio=2.0,
    traits={"requires": "unit-pinned", "ratio_of": lambda platform: 2.0},
)
register(
    "per-io-node",
    IO,
    "offline",
    "solve io",
    "schedlab.offline.io:per_io_node",
    f"{BLEUSE}, ch. 5 section 5.2.1 (one exclusive I/O node: 1||Cmax; I/O nodes farther apart than the widest job)",
    "optimal with exclusive I/O; <= 2 OPT with shared I/O (Prop. 4.2)",
    ratio=2.0,
    traits={"requires": "per-io-node", "ratio_of": lambda platform: 1.0 if platform.exclusive else 2.0},
)
register(
    "greedy",
    IO,
    "offline",
    "solve io",
    "schedlab.offline.io:greedy",
    "List scheduling over convex and local allocations (a baseline; no algorithm of the thesis)",
    "none; every schedule valid (tested)",
    traits={"requires": "any"},
)
register(
    "sequential",
    IO,
    "offline",
    "solve io",
    "schedlab.offline.io:sequential",
    f"{BLEUSE}, ch. 5 section 5.2.1 (one exclusive I/O node: 1||Cmax, jobs one after another)",
    "makespan = sum p_j: optimal when every job needs the one exclusive I/O node",
    traits={"requires": "any"},
)
register_family(
    IO,
    generate="schedlab.offline.io.evaluation:generate",
    instance_seed="schedlab.offline.io.evaluation:instance_seed",
    common="schedlab.offline.io:io_instance",
    measure="schedlab.offline.io.evaluation:measure",
    columns="schedlab.offline.io.evaluation:COLUMNS",
)
