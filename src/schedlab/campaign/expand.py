"""From a campaign specification to its list of runs, each with a stable id.

Expansion is deterministic: workloads in spec order,
then their windows (in the order drawn), then policies in spec order, then
their grid points (keys sorted, values in list order), then repetitions.

A run's id is the first 16 hex digits of the SHA-256 of its canonical
configuration (:meth:`RunConfig.key` as JSON with sorted keys): the workload's
name, its trace as written in the spec and its filters, the window, the policy
and its parameters, the repetition and seed, tau and whether schedules are
validated. Renaming the campaign or a policy label, moving the store,
reordering the spec or adding policies keeps the ids of the runs that did not
change, so a re-run skips them; names and labels in results always come from
the current spec (see :func:`schedlab.campaign.store.campaign_results`).

A workload with a ``tasks`` table (sequential tasks, Lucarelli, Mendonca and Trystram 2017) adds its
conversion settings to the key; the keys, hence the ids, of other workloads
are unchanged. Its jobs are those of :func:`task_jobs`, and a random window
that holds no job is redrawn from the same generator (reading LMT-A9, docs/readings.md).

A workload whose jobs become moldable tasks (``moldable``, Saule, Bozdag and
Catalyurek 2014) adds its settings to the key under ``moldable``; its
instances take the place of windows (``window_index`` is the instance, drawn
with seed ``seed + index``; their number is not in the key, so adding
instances keeps the ids of the first ones).

Windows enter the key as their bounds only, never the way they were sampled,
so a sampling mode (``sample = "period-runs"``, Mendonca 2017, section 5.7)
adds no key and the ids of the other modes are unchanged.
"""

from __future__ import annotations

import functools
import hashlib
import json
import warnings
from dataclasses import dataclass, field

import numpy as np

from schedlab.campaign.spec import Campaign
from schedlab.errors import InputError

__all__ = ["CampaignWarning", "RunConfig", "expand", "run_seed"]


class CampaignWarning(UserWarning):
    """Something in a campaign the user should know before trusting it (printed by the CLI as one line)."""


@dataclass(frozen=True, slots=True)
class RunConfig:
    """Everything one run needs, picklable for worker processes.

    ``trace_path`` is the resolved file to read; ``trace`` the path as the spec
    wrote it (what the id hashes). ``window`` is the submit-time window applied
    (the workload's ``window`` filter intersected with the sampled window), or
    None for the whole trace. ``window_jobs`` and ``window_load`` describe the
    sampled window (see :func:`schedlab.workload.windows.describe_windows`);
    they are derived data, not part of the id.
    """

    campaign: str
    workload: str
    trace: str | None
    trace_path: str | None
    procs: int | None
    status: int | None
    window_index: int | None
    window: tuple[float, float] | None
    policy: str
    params: tuple[tuple[str, object], ...]
    label: str
    repetition: int
    seed: int
    tau: float
    validate: bool
    window_jobs: int | None = field(default=None, compare=False)
    window_load: float | None = field(default=None, compare=False)
    tasks: tuple[tuple[str, object], ...] | None = None
    platform: str | None = None
    penalty: str | None = None
    span: tuple[int, int | None] | None = None
    runtime_scale: float = 1.0
    sample: tuple[tuple[str, object], ...] | None = None  # job samples: jobs, replacement, block, seed
    generate: tuple[tuple[str, object], ...] | None = None  # generated instance: grid point and sample index
    family: str | None = None  # the family that generates it
    moldable: tuple[tuple[str, object], ...] | None = None  # the jobs as moldable tasks: m, first, speedup, seed
    timeout: float | None = field(default=None, compare=False)  # the campaign's per-run limit (s): not in the id
    _run_id: str = field(default="", init=False, repr=False, compare=False)

    def key(self) -> dict:
        """The canonical configuration the id hashes (JSON-able, no derived or local data)."""
        if self.generate is not None:
            return {
                "workload": self.workload,
                "family": self.family,
                "generate": dict(self.generate),
                "policy": self.policy,
                "params": {k: v for k, v in self.params},
                "repetition": self.repetition,
                "seed": self.seed,
                "validate": self.validate,
            }
        key: dict[str, object] = {
            "workload": self.workload,
            "trace": self.trace,
            "procs": self.procs,
            "status": self.status,
            "window_index": self.window_index,
            "window": list(self.window) if self.window is not None else None,
            "policy": self.policy,
            "params": {k: v for k, v in self.params},
            "repetition": self.repetition,
            "seed": self.seed,
            "tau": self.tau,
            "validate": self.validate,
        }
        if self.tasks is not None:
            key["tasks"] = dict(self.tasks)
        if self.platform is not None:  # only then, so that ids of homogeneous runs never change
            key["platform"] = self.platform
            key["penalty"] = self.penalty
        if self.span is not None:  # likewise: only then
            key["span"] = [self.span[0], self.span[1]]
        if self.runtime_scale != 1.0:
            key["runtime_scale"] = self.runtime_scale
        if self.sample is not None:
            key["sample"] = dict(self.sample)
        if self.moldable is not None:  # likewise: only then
            key["moldable"] = dict(self.moldable)
        return key

    def __post_init__(self) -> None:
        text = _CANONICAL.encode(self.key())
        object.__setattr__(self, "_run_id", hashlib.sha256(text.encode("utf-8")).hexdigest()[:16])

    @property
    def run_id(self) -> str:
        """The first 16 hex digits of the SHA-256 of :meth:`key` as canonical JSON (computed once, at creation)."""
        return self._run_id


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
"""``json.dumps(key, sort_keys=True, separators=(",", ":"))``, without building an encoder for every run."""


@functools.lru_cache(maxsize=256)
def run_seed(master: int, repetition: int) -> int:
    """The seed of a run: ``SeedSequence([master, repetition])``'s first 32-bit word.

    Every policy and window of one repetition gets the same seed (common
    random numbers: policies are compared on the same draws).
    """
    return int(np.random.SeedSequence([master, repetition]).generate_state(1, dtype=np.uint32)[0])


def expand(campaign: Campaign) -> list[RunConfig]:
    """The runs of ``campaign``, in the deterministic order described in the module docstring.

    Reads each trace once (in this process) to draw its windows and measure
    their offered load.

    Raises
    ------
    InputError
        A trace that cannot be read, or two runs with the same configuration
        (the same policy and parameters listed twice).
    """
    from schedlab.runner import load_instance
    from schedlab.workload.windows import describe_windows, period_runs, periods, random_windows

    spec = campaign.spec
    runs: list[RunConfig] = []
    where: dict[str, object] = {}  # run id -> where the spec makes it (see _text)
    settings = []  # (index, policy, parameters, label) of every grid point of every policy
    for p_index, policy in enumerate(spec.policies):
        grid = policy.grid()
        for point in grid:
            params = tuple(sorted(point.items()))
            settings.append((p_index, policy, params, _label(policy.label, policy.name, params, len(grid) > 1)))
    for w_index, workload in enumerate(spec.workloads):
        if workload.generate is not None:
            runs += _generated_runs(campaign, w_index, workload, where)
            continue
        assert workload.trace is not None  # checked by load_campaign: a workload has a trace or a generator
        trace_path = str(campaign.trace(workload.trace).resolve())
        windows: list[tuple[int | None, tuple[float, float] | None, int | None, float | None]]
        sample = None
        if workload.samples is not None:
            samples = workload.samples
            sample = (
                ("block", samples.block),
                ("jobs", samples.jobs),
                ("replacement", samples.replacement),
                ("seed", spec.seed if samples.seed is None else samples.seed),
            )
            windows = [(i, workload.window, samples.jobs, None) for i in range(samples.count)]
        elif workload.moldable is not None:
            windows = [(i, None, None, None) for i in range(workload.moldable.instances)]
        elif workload.windows is None:
            windows = [(None, workload.window, None, None)]
        else:
            sampler = workload.windows
            if workload.tasks is None:
                instance, _ = load_instance(
                    trace_path, procs=workload.procs, status=workload.status, window=workload.window
                )
            else:
                instance, _ = task_jobs(trace_path, procs=workload.procs, window=workload.window)
            if len(instance.jobs) == 0:
                raise InputError(
                    str(campaign.path),
                    None,
                    f"workloads[{w_index}]",
                    workload.label,
                    "a workload with jobs left after its filters",
                )
            if sampler.sample == "random":
                assert sampler.count is not None  # required for random windows (checked by load_campaign)
                _check_window_length(instance.jobs, sampler.length, f"workloads[{w_index}]", str(campaign.path))
                rng = np.random.default_rng(spec.seed if sampler.seed is None else sampler.seed)
                drawn = random_windows(instance.jobs, sampler.length, sampler.count, rng=rng)
                if workload.tasks is not None:
                    drawn = _redraw_empty(
                        instance.jobs, drawn, sampler.length, rng, f"workloads[{w_index}]", str(campaign.path)
                    )
            elif sampler.sample == "period-runs":
                assert sampler.count is not None  # required for period runs (checked by load_campaign)
                rng = np.random.default_rng(spec.seed if sampler.seed is None else sampler.seed)
                drawn = period_runs(instance.jobs, sampler.length, sampler.periods, sampler.count, rng=rng)
            else:
                drawn = periods(instance.jobs, sampler.length)
                if sampler.count is not None:
                    drawn = drawn[: sampler.count]
            described = describe_windows(instance.jobs, instance.platform.n_procs, drawn)
            windows = [
                (i, _intersect(window, workload.window), info.n_jobs, info.load)
                for i, (window, info) in enumerate(zip(drawn, described))
            ]
            _warn_coinciding([w for _, w, _, _ in windows], f"{campaign.path}: workloads[{w_index}] ({workload.label})")
        tasks = None if workload.tasks is None else tuple(sorted(workload.tasks.model_dump(exclude_none=True).items()))
        moldable = (
            None
            if workload.moldable is None
            else tuple(sorted(workload.moldable.model_dump(exclude={"instances"}).items()))
        )
        for window_index, window, n_jobs, load in windows:
            for p_index, policy, params, label in settings:
                for repetition in range(spec.repetitions):
                    config = RunConfig(
                        campaign=campaign.name,
                        workload=workload.label,
                        trace=workload.trace,
                        trace_path=trace_path,
                        procs=workload.procs,
                        status=workload.status,
                        window_index=window_index,
                        window=window,
                        policy=policy.name,
                        params=params,
                        label=label,
                        repetition=repetition,
                        seed=run_seed(spec.seed, repetition),
                        tau=float(spec.bsld_threshold),
                        validate=spec.validate_schedules,
                        timeout=spec.timeout,
                        window_jobs=n_jobs,
                        window_load=load,
                        tasks=tasks,
                        platform=workload.platform,
                        penalty=workload.penalty,
                        span=None if workload.span is None else (workload.span.skip, workload.span.count),
                        runtime_scale=workload.runtime_scale,
                        sample=sample,
                        moldable=moldable,
                    )
                    run_id = config.run_id
                    if run_id in where:
                        here = _place(w_index, p_index, params)
                        raise InputError(
                            str(campaign.path), message=f"{here} repeats the run of {_text(where[run_id])}"
                        )
                    where[run_id] = (w_index, p_index, params)  # formatted only for an error
                    runs.append(config)
    return runs


def _generated_runs(campaign: Campaign, w_index: int, workload, where: dict[str, object]) -> list[RunConfig]:
    """The runs of a generated workload: every grid point and sample, with every policy of the family
    (offline algorithms, or online policies).

    Instances are numbered in grid order (``window_index``); each run's seed is the instance's, from the
    family's ``instance_seed(campaign seed, point, sample)``.
    """
    from schedlab.registry import family as family_record

    spec = campaign.spec
    generate = workload.generate
    record = family_record(generate.family)
    runs = []
    index = 0
    for point in generate.points():
        for sample in range(generate.samples):
            seed = record.instance_seed(spec.seed, point, sample)
            instance = (*point.items(), ("sample", sample))
            for p_index, policy in enumerate(spec.policies):
                for params_point in policy.grid():
                    params = tuple(sorted(params_point.items()))
                    label = _label(policy.label, policy.name, params, len(policy.grid()) > 1)
                    for repetition in range(spec.repetitions):
                        config = RunConfig(
                            campaign=campaign.name,
                            workload=workload.label,
                            trace=None,
                            trace_path=None,
                            procs=None,
                            status=None,
                            window_index=index,
                            window=None,
                            policy=policy.name,
                            params=params,
                            label=label,
                            repetition=repetition,
                            seed=seed,
                            tau=float(spec.bsld_threshold),
                            validate=spec.validate_schedules,
                            timeout=spec.timeout,
                            generate=instance,
                            family=generate.family,
                        )
                        here = f"workloads[{w_index}] instance {dict(instance)} x policies[{p_index}] {dict(params)}"
                        if config.run_id in where:
                            raise InputError(
                                str(campaign.path), message=f"{here} repeats the run of {_text(where[config.run_id])}"
                            )
                        where[config.run_id] = here
                        runs.append(config)
            index += 1
    return runs


def task_jobs(path: str, *, procs: int | None = None, window: tuple[float, float] | None = None):
    """The jobs a tasks workload converts, as an Instance (parallel jobs, the trace's machine) and its report.

    The filters of :func:`schedlab.workload.tasks.load_tasks` (status 1, run time > 0, processors > 0,
    reading LMT-A10), the workload's ``window`` filter, and the allocated processors kept for conversion (LMT-A8).
    """
    from schedlab.platform.homogeneous import Machine
    from schedlab.schedule import Instance
    from schedlab.workload.filters import to_jobs
    from schedlab.workload.swf import read_swf

    jobs, report = to_jobs(read_swf(path), procs=procs, status=1, window=window, keep=("allocated_procs",))
    return Instance(jobs, Machine(report.machine_procs)), report


def _redraw_empty(
    jobs, drawn: list[tuple[float, float]], length: float, rng, where: str, source: str
) -> list[tuple[float, float]]:
    """``drawn`` with every window holding no job replaced by further draws of ``rng`` (in order; reading LMT-A9)."""
    from schedlab.workload.windows import cut, random_windows

    out = []
    for window in drawn:
        for _ in range(1000):
            if len(cut(jobs, window)):
                break
            window = random_windows(jobs, length, 1, rng=rng)[0]
        else:
            raise InputError(
                source, None, where, None, f"a trace with jobs in random windows of {length:g} s (1000 empty draws)"
            )
        out.append(window)
    return out


def _place(w_index: int, p_index: int, params: tuple) -> str:
    return f"workloads[{w_index}] x policies[{p_index}] {dict(params)}"


def _text(place: object) -> str:
    """Where a run comes from in the spec: a text, or the (workload, policy, parameters) of :func:`_place`."""
    return _place(*place) if isinstance(place, tuple) else str(place)


def _check_window_length(jobs, length: float, where: str, source: str) -> None:
    """Refuse random windows longer than the trace's submit span: every one would be the whole trace."""
    span = float(jobs.submit.max() - jobs.submit.min())
    if length > span:
        raise InputError(
            source,
            None,
            f"{where}.windows.length",
            f"{length:g} s ({length / 86400:.3g} d)",
            f"at most the trace's submit span after filters, {span:g} s ({span / 86400:.3g} d): a longer window "
            "is the whole trace every time (leave out `windows` to run the whole trace once)",
        )


def _warn_coinciding(windows: list, where: str) -> None:
    """A :class:`CampaignWarning` when some windows have the same bounds as an earlier one (their runs would
    repeat the same instance), with the count."""
    repeated = len(windows) - len(set(windows))
    if repeated:
        warnings.warn(
            CampaignWarning(
                f"{where}: {repeated} of {len(windows)} windows coincide with an earlier one (same bounds), "
                "so their runs repeat the same instance"
            ),
            stacklevel=3,
        )


def _intersect(window: tuple[float, float], limit: tuple[float, float] | None) -> tuple[float, float]:
    if limit is None:
        return window
    return (max(window[0], limit[0]), min(window[1], limit[1]))


def _label(label: str | None, name: str, params: tuple, many: bool) -> str:
    """``label`` from the spec (with the grid values appended when it has several points), else ``name k=v ...``."""
    text = " ".join(f"{k}={v}" for k, v in params)
    if label is not None:
        return f"{label} {text}" if many and text else label
    return f"{name} {text}" if text else name
