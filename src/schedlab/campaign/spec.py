"""Campaign specifications: a TOML file read with tomllib and validated with pydantic.

A specification names the workloads (trace files,
their filters, and how to cut them into windows), the policies with parameter
grids, the metrics to report, the repetitions and the master seed. Every
error names the key (``workloads[0].windows.count``), the value found and what
is allowed, as an :class:`~schedlab.errors.InputError` on the spec file.

Example (the whole format; see ``campaigns/easy-vs-conservative.toml``)::

    name = "easy-vs-conservative"      # default: the file name without .toml
    seed = 2024                        # master seed (windows and per-run seeds)
    repetitions = 1                    # runs of each configuration, seeds differ
    bsld_threshold = 10.0              # bounded-slowdown threshold (s); `tau` is accepted too
    validate = true                    # check every schedule
    timeout = "10m"                    # optional: a run longer than this is stored as failed
    store = "easy-vs-conservative.store"  # result directory, relative to this file
    metrics = ["bsld_mean", "wait_mean", "utilization"]

    [[workloads]]
    name = "kth"                       # default: the trace file name
    trace = "../../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz"  # relative to this file, or pwa:NAME (an archive log)
    status = 1                         # optional filters, as `schedlab simulate`
    windows = { sample = "random", count = 10, length = "7d" }
    # tasks = { conversion = "C", rounding = "round" }   # optional: sequential tasks
    # samples = { count = 512, jobs = 300 }              # instead of windows: job samples released at 0
    # platform = "torus:4x4x8"         # optional: a platform, as `simulate --platform`
    # span = { skip = 0, count = 10000 }  # optional: a span mapped as Krevat (2003), instead of the filters
    # runtime_scale = 1.2              # optional: load factor c on run and requested times

    [[policies]]
    name = "easy"
    params = { order = ["fcfs", "sjf"] }   # a list is a grid axis

A workload may instead be *generated* by a family that registers a generator
(:func:`schedlab.registry.register_family`); its runs are the family's offline
algorithms, listed under ``[[policies]]`` like online ones::

    [[workloads]]
    name = "table-3.1"
    generate = { family = "CPU+GPU tasks", samples = 1, grid = { n = [10, 100], m = [4, 16], k = [1, 4] } }

    [[policies]]
    name = "approx32"

The generated instances of a family run its algorithms: offline ones, or its online policies on the
engine (the max-stretch and moldable-task families of Saule, Bozdag and Catalyurek 2014)::

    [[workloads]]
    name = "seq-d20-l280"
    generate = { family = "max-stretch tasks", samples = 2, grid = { dist = "uniform:1,20", n = 20000, m = 300, load = 280, seed = 7 } }

A trace's jobs may also become moldable tasks (Downey speed-ups; instance i drawn with seed ``seed + i``)::

    [[workloads]]
    name = "SDSC-Par"
    trace = "../../shared/traces/SDSC-Par-1996-3.1-cln.swf.gz"
    moldable = { first = 8000, m = 512, instances = 20, seed = 0 }

A campaign runs policies on traces or a family's algorithms on generated instances, not both.
"""

from __future__ import annotations

import functools
import tomllib
import types
import typing
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from schedlab.durations import parse_duration
from schedlab.errors import InputError
from schedlab.workload import archive

__all__ = [
    "Campaign",
    "CampaignSpec",
    "GenerateSpec",
    "MoldableSpec",
    "PolicySpec",
    "SampleSpec",
    "SpanSpec",
    "TaskSpec",
    "WindowSpec",
    "WorkloadSpec",
    "load_campaign",
    "metric_names",
    "parse_duration",
]

Scalar = bool | int | float | str


@functools.cache
def metric_names() -> tuple[str, ...]:
    """Every key :func:`schedlab.metrics.aggregate` returns (measured on an empty instance), ``tau`` excluded."""
    from schedlab.metrics import aggregate
    from schedlab.platform.homogeneous import Machine
    from schedlab.schedule import Instance, Schedule
    from schedlab.workload.jobs import JobTable

    empty = Instance(JobTable.from_arrays(submit=[], run_time=[], procs=[]), Machine(1))
    return tuple(key for key in aggregate(empty, Schedule.empty(0)) if key != "tau")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WindowSpec(_Model):
    """How a workload is cut into windows; each window is one instance of the campaign.

    ``sample = "random"``: ``count`` windows of ``length`` with uniform random
    starts (:func:`schedlab.workload.windows.random_windows`), drawn with
    ``numpy.random.default_rng(seed)`` (default seed: the campaign's).
    ``sample = "periods"``: consecutive periods of ``length`` from the first
    submit time (:func:`~schedlab.workload.windows.periods`); ``count``, when
    given, keeps the first ``count``.
    ``sample = "period-runs"`` (Mendonca 2017, section 5.7): ``count`` windows,
    each ``periods`` consecutive periods of ``length`` (default 1), their start
    periods drawn uniformly without replacement while possible
    (:func:`~schedlab.workload.windows.period_runs`), with the same generator
    as ``"random"``. ``periods`` belongs to this mode only.
    """

    sample: Literal["random", "periods", "period-runs"] = "random"
    length: float
    count: Annotated[int, Field(ge=1)] | None = None
    seed: Annotated[int, Field(ge=0)] | None = None
    periods: Annotated[int, Field(ge=1)] = 1

    @field_validator("length", mode="before")
    @classmethod
    def _length(cls, value: object) -> float:
        return parse_duration(value)


class SampleSpec(_Model):
    """Job samples instead of time windows (Mendonca 2017, ch. 4 section 4.6): ``count`` instances of
    ``jobs`` jobs each, drawn from the filtered trace, every release set to 0
    (:func:`schedlab.workload.windows.job_sample`). ``seed`` defaults to the campaign's."""

    count: Annotated[int, Field(ge=1)]
    jobs: Annotated[int, Field(ge=1)]
    replacement: bool = False
    block: bool = False
    seed: Annotated[int, Field(ge=0)] | None = None


class GenerateSpec(_Model):
    """Generated instances: ``samples`` per point of ``grid`` (the product of its lists, in the order the keys
    are written), drawn by the generator ``family`` registers."""

    family: str
    samples: Annotated[int, Field(ge=1)] = 1
    grid: dict[str, Scalar | list[Scalar]]

    def points(self) -> list[dict[str, Scalar]]:
        """Every grid point, the first key varying slowest."""
        points: list[dict[str, Scalar]] = [{}]
        for key, value in self.grid.items():
            axis = value if isinstance(value, list) else [value]
            points = [{**point, key: v} for point in points for v in axis]
        return points


class TaskSpec(_Model):
    """Turn the workload's parallel jobs into sequential tasks (Lucarelli, Mendonca and Trystram (2017), section V-A).

    Jobs are filtered as :func:`schedlab.workload.tasks.load_tasks` does (status 1, run time > 0,
    processors > 0: reading LMT-A10 in docs/readings.md); each window is shifted to start at 0 and converted by ``conversion``
    (default C: p = (q/Q) e on m/Q processors, m/Q rounded by ``rounding``: LMT-A7). Random windows that
    hold no job are redrawn (LMT-A9). With ``clamp_dedicated``, a policy's ``dedicated`` (m_d) larger than
    m_inst - 1 is lowered to m_inst - 1 and recorded in ``dedicated_used`` (LMT-A7). ``m_inst`` fixes the
    number of processors of every window instead of the converted m/Q (LMT-A18; e.g.
    Table I's count); task lengths are unchanged, so the load changes.
    """

    conversion: Literal["A", "B", "C"] = "C"
    rounding: Literal["round", "floor", "ceil"] = "round"
    clamp_dedicated: bool = True
    m_inst: Annotated[int, Field(ge=1)] | None = None


class SpanSpec(_Model):
    """``count`` consecutive jobs after the first ``skip``, mapped as in Krevat (2003), section 4.1
    (:func:`schedlab.workload.spans.span_jobs`: sizes from SWF field 5, times shifted to 0) instead of the
    default filters."""

    skip: Annotated[int, Field(ge=0)] = 0
    count: Annotated[int, Field(ge=1)] | None = 10_000


class MoldableSpec(_Model):
    """The trace's jobs as moldable tasks on ``m`` processors (Saule, Bozdag and Catalyurek 2014, section 7).

    An SWF log's first ``first`` usable jobs with Downey speed-ups, instance i drawn with
    ``numpy.random.default_rng(seed + i)`` (as ``schedlab moldable simulate --seed``); a tasks CSV gives
    its own run times (every instance is the same).
    """

    m: Annotated[int, Field(ge=1)] = 512
    first: Annotated[int, Field(ge=1)] = 8000
    speedup: Literal["downey"] = "downey"
    instances: Annotated[int, Field(ge=1)] = 1
    seed: Annotated[int, Field(ge=0)] = 0


class WorkloadSpec(_Model):
    """A trace file, its filters (as ``schedlab simulate``) and optionally its windows (or job samples) and task
    conversion; or generated instances (``generate``, without a trace)."""

    trace: str | None = None
    generate: GenerateSpec | None = None
    samples: SampleSpec | None = None
    name: str | None = None
    procs: Annotated[int, Field(ge=1)] | None = None
    status: int | None = None
    window: tuple[float, float] | None = None
    windows: WindowSpec | None = None
    tasks: TaskSpec | None = None
    platform: str | None = None  # fat tree, as ``simulate --platform`` (e.g. "fat-tree:1,2,8,240")
    penalty: str | None = None  # run-time penalty on that platform, as ``simulate --penalty`` (e.g. "quadratic:2")
    span: SpanSpec | None = None  # a span of the log mapped as Krevat (2003) (instead of the default filters)
    runtime_scale: Annotated[float, Field(gt=0)] = 1.0  # load factor c on run and requested times
    moldable: MoldableSpec | None = None  # the jobs as moldable tasks (Saule, Bozdag and Catalyurek 2014)

    @field_validator("window")
    @classmethod
    def _window(cls, value):
        if value is not None and not value[0] < value[1]:
            raise ValueError("expected [start, end] in seconds with start < end")
        return value

    @property
    def label(self) -> str:
        """The workload's name in results: ``name``, else the trace file name without ``.swf[.gz]``/``.json``."""
        if self.name:
            return self.name
        if self.trace is None:
            return self.generate.family if self.generate is not None else "workload"
        base = Path(self.trace).name
        for suffix in (".gz", ".swf", ".json"):
            base = base.removesuffix(suffix)
        return base


class PolicySpec(_Model):
    """A registered policy and its parameters; a list value is one axis of the grid."""

    name: str
    params: dict[str, Scalar | list[Scalar]] = Field(default_factory=dict)
    label: str | None = None

    def grid(self) -> list[dict[str, Scalar]]:
        """Every combination of the parameter lists, in key order then list order (lexicographic)."""
        keys = sorted(self.params)
        axes = [v if isinstance(v, list) else [v] for v in (self.params[k] for k in keys)]
        points: list[dict[str, Scalar]] = [{}]
        for key, axis in zip(keys, axes):
            points = [{**point, key: value} for point in points for value in axis]
        return points


class CampaignSpec(_Model):
    """The whole specification file (see the module docstring for the format)."""

    name: str | None = None
    seed: Annotated[int, Field(ge=0)] = 0
    repetitions: Annotated[int, Field(ge=1)] = 1
    # `tau` is the older name, still read; the runs keep their ids (stored as `tau`).
    bsld_threshold: Annotated[float, Field(gt=0, validation_alias=AliasChoices("bsld_threshold", "tau"))] = 10.0
    validate_schedules: bool = Field(True, alias="validate")
    store: str | None = None
    metrics: list[str] = Field(default_factory=lambda: ["bsld_mean", "wait_mean", "utilization"])
    timeout: float | None = None
    workloads: Annotated[list[WorkloadSpec], Field(min_length=1)]
    policies: Annotated[list[PolicySpec], Field(min_length=1)]

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @field_validator("timeout", mode="before")
    @classmethod
    def _timeout(cls, value: object) -> float | None:
        """A duration (``"10m"``, ``"2h"``, seconds): the wall-clock limit of one run (not part of run ids)."""
        return None if value is None else parse_duration(value)


class Campaign:
    """A validated specification and where it lives: paths resolve relative to the spec file.

    Attributes
    ----------
    spec : CampaignSpec
    path : Path
        The specification file.
    name : str
        ``spec.name`` or the file's stem.
    store : Path
        The result directory: ``store`` argument, else the spec's ``store``
        key, else ``<spec stem>.store`` next to the spec file.
    """

    def __init__(self, spec: CampaignSpec, path: Path, store: Path | None = None) -> None:
        self.spec = spec
        self.path = path
        self.name = spec.name or path.stem
        if store is None:
            store = self.resolve(spec.store) if spec.store else path.with_name(f"{path.stem}.store")
        self.store = Path(store)

    def resolve(self, relative: str) -> Path:
        """A path of the spec (``~`` expanded), relative to the spec file's directory unless absolute."""
        candidate = Path(relative).expanduser()
        return candidate if candidate.is_absolute() else (self.path.parent / candidate)

    def trace(self, text: str) -> Path:
        """A workload's trace file: a path of the spec (:meth:`resolve`), or ``pwa:NAME``, a log of the
        Parallel Workloads Archive found in ``SCHEDLAB_TRACES`` or the cache, else downloaded and checked
        (:func:`schedlab.workload.archive.resolve`), so that a spec runs unchanged on any machine."""
        if text.startswith(archive.PREFIX):
            return Path(archive.resolve(text))
        return self.resolve(text)


def load_campaign(path, *, store=None) -> Campaign:
    """Read and validate a campaign specification file.

    Beyond the schema, checks that policy names are registered
    (:mod:`schedlab.registry`), that every grid point is accepted by
    the policy (parameter names and types via
    :func:`~schedlab.policies.make_policy`, values by the policy's ``reset``
    on an empty instance), that metric and workload names are valid and unique,
    and that trace files exist.

    Raises
    ------
    InputError
        On the spec file, naming the key, the value and what is allowed.
    """
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(source, message="no such campaign specification") from None
    except OSError as error:
        raise InputError(source, message=f"cannot read: {error.strerror or error}") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(source, message=f"invalid TOML: {error}") from None
    try:
        spec = CampaignSpec.model_validate(raw)
    except ValidationError as error:
        raise _input_error(source, error) from None
    campaign = Campaign(spec, path, None if store is None else Path(store))
    _check(campaign)
    return campaign


def _check(campaign: Campaign) -> None:
    from schedlab import registry

    source, spec = str(campaign.path), campaign.spec
    known = metric_names()
    for i, name in enumerate(spec.metrics):
        if name not in known:
            raise InputError(source, None, f"metrics[{i}]", repr(name), f"one of {', '.join(known)}")
    seen: dict[str, int] = {}
    for i, workload in enumerate(spec.workloads):
        label = workload.label
        if label in seen:
            raise InputError(
                source,
                None,
                f"workloads[{i}].name",
                repr(label),
                f"a name not used by workloads[{seen[label]}] (set name = ...)",
            )
        seen[label] = i
        if workload.generate is not None:
            _check_generated(source, i, workload, spec)
            continue
        if workload.trace is None:
            raise InputError(
                source, None, f"workloads[{i}]", None, None, message=f"workloads[{i}]: give trace or generate"
            )
        if workload.samples is not None and workload.windows is not None:
            raise InputError(source, None, f"workloads[{i}].samples", None, "samples or windows, not both")
        try:
            trace = campaign.trace(workload.trace)
        except InputError as error:  # an unknown pwa: name, a failed download
            raise InputError(source, message=f"workloads[{i}].trace: {error}") from None
        if not trace.is_file():
            raise InputError(
                source,
                None,
                f"workloads[{i}].trace",
                repr(workload.trace),
                "an existing trace file (relative to the spec file) or pwa:NAME",
            )
        _check_topology(source, i, workload)
        if workload.tasks is not None and workload.status not in (None, 1):
            raise InputError(
                source,
                None,
                f"workloads[{i}].status",
                repr(workload.status),
                "1 or nothing for a tasks workload (reading LMT-A10, docs/readings.md)",
            )
        if workload.windows is not None:
            _check_windows(source, i, workload.windows)
        if workload.span is not None:
            for key in ("windows", "window", "tasks", "status", "samples", "generate", "moldable"):
                if getattr(workload, key) is not None:
                    raise InputError(source, None, f"workloads[{i}].{key}", None, "nothing with a span")
        if workload.moldable is not None:
            for key in ("windows", "window", "tasks", "status", "samples", "procs", "platform", "penalty"):
                if getattr(workload, key) is not None:
                    raise InputError(source, None, f"workloads[{i}].{key}", None, "nothing with moldable = {...}")
    # Parameter values are checked against the registry's declarations, without simulating; checks that
    # need the machine (dedicated < P) are made by the runs, which know P.
    labels: dict[str, int] = {}
    generated = spec.workloads[0].generate
    for i, policy in enumerate(spec.policies):
        key = f"policies[{i}]"
        if generated is None:
            allowed = registry.names(kind="online")
        else:
            allowed = registry.names(family=generated.family)
        if policy.name not in allowed:
            raise InputError(source, None, f"{key}.name", repr(policy.name), f"one of {', '.join(sorted(allowed))}")
        for point in policy.grid():
            try:
                registry.get(policy.name).configure(point)
            except InputError as error:
                reason = getattr(error, "expected", None) or str(error).split(": ", 1)[-1]
                raise InputError(source, None, f"{key}.params", _toml(point), reason) from None
        if policy.label is not None:
            if policy.label in labels:
                raise InputError(
                    source,
                    None,
                    f"{key}.label",
                    repr(policy.label),
                    f"a label not used by policies[{labels[policy.label]}]",
                )
            labels[policy.label] = i


def _check_generated(source: str, i: int, workload: WorkloadSpec, spec: CampaignSpec) -> None:
    """A generated workload: a registered family, no trace options, and every workload generated alike."""
    from schedlab import registry

    key = f"workloads[{i}]"
    assert workload.generate is not None
    try:
        registry.family(workload.generate.family)
    except InputError as error:
        raise InputError(
            source, None, f"{key}.generate.family", repr(workload.generate.family), error.expected
        ) from None
    for option in (
        "trace",
        "samples",
        "windows",
        "tasks",
        "platform",
        "penalty",
        "window",
        "status",
        "procs",
        "moldable",
    ):
        if getattr(workload, option) is not None:
            raise InputError(source, None, f"{key}.{option}", None, "nothing: a generated workload has no trace")
    families = {w.generate.family if w.generate is not None else None for w in spec.workloads}
    if len(families) > 1:
        raise InputError(
            source,
            None,
            f"{key}.generate",
            None,
            "generated workloads of one family only (online policies on traces go in another campaign)",
        )


def _check_windows(source: str, i: int, windows: WindowSpec) -> None:
    """``count`` is required by the random modes; ``periods`` belongs to ``sample = 'period-runs'``."""
    if windows.sample in ("random", "period-runs") and windows.count is None:
        raise InputError(
            source, None, f"workloads[{i}].windows.count", None, f"an integer >= 1 for sample = {windows.sample!r}"
        )
    if "periods" in windows.model_fields_set and windows.sample != "period-runs":
        raise InputError(
            source, None, f"workloads[{i}].windows.periods", windows.periods, "no periods unless sample = 'period-runs'"
        )


def _toml(point: dict) -> str:
    return "{" + ", ".join(f"{k} = {v!r}" for k, v in point.items()) + "}"


def _input_error(source: str, error: ValidationError) -> InputError:
    """The first pydantic error as one InputError naming the key, the value and what is allowed."""
    first = error.errors(include_url=False)[0]
    loc = first["loc"]
    key = _dotted(loc)
    kind = first["type"]
    if kind == "extra_forbidden":
        allowed = _allowed_keys(loc[:-1])
        return InputError(
            source, None, key, None, None, message=f"unknown key {key!r}, expected one of {', '.join(allowed)}"
        )
    if kind == "missing":
        return InputError(source, None, None, None, None, message=f"missing key {key!r}")
    value = first.get("input")
    shown = repr(value) if not isinstance(value, dict) else "{...}"
    if any(isinstance(part, str) and part in _UNION_TAGS for part in loc):
        return InputError(source, None, key, shown, "a number, a string, a boolean, or a list of them")
    message = first["msg"].removeprefix("Value error, ").removeprefix("Input should be ").removeprefix("expected ")
    return InputError(source, None, key, shown, message)


_UNION_TAGS = {"bool", "int", "float", "str", "list[union[bool,int,float,str]]"}
"""The labels pydantic puts in an error location for the branches of a parameter value's union."""


def _dotted(loc) -> str:
    """``("workloads", 0, "windows", "count")`` as ``workloads[0].windows.count`` (union branch labels dropped)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _UNION_TAGS:
            break
        else:
            out += f".{part}" if out else str(part)
    return out


def _allowed_keys(loc) -> list[str]:
    """The keys the model at ``loc`` (a pydantic error location) accepts, as written in TOML."""
    model: object = CampaignSpec
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return []
        info = model.model_fields.get(part)
        if info is None:
            return []
        model = _inner_model(info.annotation)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return sorted(info.alias or name for name, info in model.model_fields.items())
    return []


def _inner_model(annotation):
    """The BaseModel inside ``list[M]``, ``M | None`` or ``Annotated[...]``, else the annotation."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (list, Union, types.UnionType, Annotated):
        for arg in typing.get_args(annotation):
            inner = _inner_model(arg)
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                return inner
    return annotation


def _check_topology(source: str, i: int, workload: WorkloadSpec) -> None:
    """``platform`` and ``penalty`` parse as ``simulate``'s options; a penalty needs a platform; no tasks with them."""
    from schedlab.platform.registry import parse_platform
    from schedlab.runtime.penalty import parse_penalty

    if workload.platform is None:
        if workload.penalty not in (None, "none"):
            raise InputError(
                source, None, f"workloads[{i}].penalty", repr(workload.penalty), "a platform (set platform = ...)"
            )
        return
    if workload.tasks is not None:
        raise InputError(
            source, None, f"workloads[{i}].platform", repr(workload.platform), "no platform for a tasks workload"
        )
    try:
        tree = parse_platform(workload.platform)
    except InputError as error:
        raise InputError(
            source, None, f"workloads[{i}].platform", repr(workload.platform), str(error).split(": ", 1)[-1]
        ) from None
    if workload.procs is not None and workload.procs != tree.n_procs:
        raise InputError(source, None, f"workloads[{i}].procs", workload.procs, f"{tree.n_procs}, the platform's size")
    try:
        parse_penalty(workload.penalty, tree)
    except InputError as error:
        raise InputError(
            source, None, f"workloads[{i}].penalty", repr(workload.penalty), str(error).split(": ", 1)[-1]
        ) from None
