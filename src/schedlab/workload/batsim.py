"""Batsim JSON workloads: read them into a JobTable, write a JobTable as one.

A Batsim workload is ``{"nb_res": N, "jobs": [...], "profiles": {...}}``; each
job has ``id``, ``subtime``, ``res`` (processors), ``profile`` and optionally
``walltime``. Only ``delay`` profiles (a fixed run time) describe a rigid job
completely, so they are the only ones read.

References
----------
.. [1] P.-F. Dutot, M. Mercier, M. Poquet, O. Richard, "Batsim: a realistic
   language-independent resources and jobs management systems simulator",
   JSSPP 2015. doi:10.1007/978-3-319-61756-5_10
"""

from __future__ import annotations

import json
import math
import os
import re
from numbers import Integral, Real
from typing import TypeGuard

import numpy as np

from schedlab.errors import InputError
from schedlab.platform.base import MAX_PROCS
from schedlab.workload.jobs import JobTable

__all__ = ["read_batsim", "write_batsim"]

_NUMERIC_ID = re.compile(r"(?:.*!)?([+-]?\d+)")


def read_batsim(path: str | os.PathLike) -> tuple[JobTable, int]:
    """Read a Batsim JSON workload.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    jobs : JobTable
        In file order. ``run_time`` is the job's ``delay`` profile;
        ``requested_time`` its ``walltime`` when present and > 0, else the run
        time. ``id`` is the number N of ids ``"workload!N"`` (or integer ids)
        when every id has one and they are unique; otherwise jobs are numbered
        1..n and the original ids kept in ``extra["batsim_id"]`` (object array).
        ``line`` is 0 (JSON has no useful line numbers).
    nb_res : int
        The platform size the workload declares.

    Raises
    ------
    InputError
        Missing file or invalid JSON; a missing or ill-typed member, named by
        its JSON path (``w.json: jobs[3].res = 0, expected an integer >= 1``);
        a job whose profile is unknown or not of type ``delay``.
    """
    source = os.fspath(path)
    try:
        with open(source, "rb") as stream:
            document = json.load(stream)
    except FileNotFoundError:
        raise InputError(source, message="no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(source, message=f"not valid JSON ({error})") from None
    if not isinstance(document, dict):
        raise InputError(source, None, "(top level)", type(document).__name__, "a JSON object")
    nb_res = document.get("nb_res")
    if not _is_int(nb_res) or not 1 <= nb_res <= MAX_PROCS:
        raise InputError(source, None, "nb_res", nb_res, f"an integer from 1 to {MAX_PROCS:,}")
    jobs = document.get("jobs")
    if not isinstance(jobs, list):
        raise InputError(source, None, "jobs", _short(jobs), "a list of jobs")
    profiles = document.get("profiles", {})
    if not isinstance(profiles, dict):
        raise InputError(source, None, "profiles", _short(profiles), "an object of profiles")

    delays: dict[str, float] = {}
    for name, profile in profiles.items():
        if isinstance(profile, dict) and profile.get("type") == "delay":
            delay = profile.get("delay")
            if not _is_number(delay) or not delay > 0:
                raise InputError(source, None, f"profiles[{name!r}].delay", delay, "a number > 0")
            delays[name] = float(delay)

    n = len(jobs)
    raw_ids: list[str | int] = []
    submit = np.empty(n, dtype=np.float64)
    run_time = np.empty(n, dtype=np.float64)
    requested = np.empty(n, dtype=np.float64)
    res = np.empty(n, dtype=np.int64)
    for i, job in enumerate(jobs):
        where = f"jobs[{i}]"
        if not isinstance(job, dict):
            raise InputError(source, None, where, _short(job), "a job object")
        job_id = job.get("id")
        if not (isinstance(job_id, str) or _is_int(job_id)):
            raise InputError(source, None, f"{where}.id", job_id, "a string or an integer")
        raw_ids.append(job_id)
        subtime = job.get("subtime")
        if not _is_number(subtime) or not subtime >= 0:
            raise InputError(source, None, f"{where}.subtime", subtime, "a number >= 0")
        width = job.get("res")
        if not _is_int(width) or not 1 <= width < 2**63:
            raise InputError(source, None, f"{where}.res", width, "an integer from 1 to 2^63 - 1")
        name = job.get("profile")
        if name not in delays:
            if name not in profiles:
                raise InputError(source, None, f"{where}.profile", name, "the name of a profile in profiles")
            kind = profiles[name].get("type") if isinstance(profiles[name], dict) else None
            raise InputError(
                source,
                None,
                f"{where}.profile",
                name,
                f'a "delay" profile (job {job_id}: profile {name!r} has type {kind!r})',
            )
        walltime = job.get("walltime", -1)
        if walltime is None:
            walltime = -1
        if not _is_number(walltime):
            raise InputError(source, None, f"{where}.walltime", walltime, "a number (> 0, or -1 for none)")
        submit[i] = subtime
        res[i] = width
        run_time[i] = delays[name]
        requested[i] = walltime if walltime > 0 else delays[name]

    ids, extra = _job_ids(raw_ids)
    table = JobTable(
        id=ids,
        submit=submit,
        run_time=run_time,
        requested_time=requested,
        procs=res,
        line=np.zeros(n, dtype=np.int64),
        extra=extra,
        source=source,
    )
    table.check()
    return table, int(nb_res)


def write_batsim(path: str | os.PathLike, jobs: JobTable, nb_res: int) -> None:
    """Write ``jobs`` as a Batsim JSON workload on ``nb_res`` resources.

    One ``delay`` profile per distinct run time, named ``delay_<run time>``
    (``delay_3600``, ``delay_12.5``); jobs in table order with integer ids,
    ``subtime``, ``walltime`` (the requested time) and ``res``. Keys sorted,
    2-space indent: equal tables give byte-identical files, and
    :func:`read_batsim` gives the table back.

    Raises
    ------
    InputError
        ``nb_res`` < 1, or a job wider than ``nb_res`` (Batsim would reject it).
    """
    target = os.fspath(path)
    if not _is_int(nb_res) or nb_res < 1:
        raise InputError(target, None, "nb_res", nb_res, "an integer >= 1")
    too_wide = np.flatnonzero(jobs.procs > nb_res)
    if too_wide.size:
        i = int(too_wide[0])
        line = int(jobs.line[i]) or None
        raise InputError(
            jobs.source, line, f"job {int(jobs.id[i])} processors", int(jobs.procs[i]), f"<= nb_res ({nb_res})"
        )
    profiles: dict[str, dict[str, object]] = {}
    names = []
    for delay in jobs.run_time.tolist():
        name = f"delay_{_number_text(delay)}"
        profiles.setdefault(name, {"type": "delay", "delay": _json_number(delay)})
        names.append(name)
    document = {
        "nb_res": int(nb_res),
        "jobs": [
            {"id": job_id, "subtime": _json_number(sub), "walltime": _json_number(wall), "res": width, "profile": name}
            for job_id, sub, wall, width, name in zip(
                jobs.id.tolist(), jobs.submit.tolist(), jobs.requested_time.tolist(), jobs.procs.tolist(), names
            )
        ],
        "profiles": profiles,
    }
    try:
        with open(target, "w", encoding="utf-8") as stream:
            json.dump(document, stream, sort_keys=True, indent=2)
            stream.write("\n")
    except FileNotFoundError:
        raise InputError(target, message="no such directory") from None


def _job_ids(raw_ids: list[str | int]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    numbers = []
    for job_id in raw_ids:
        if isinstance(job_id, str):
            match = _NUMERIC_ID.fullmatch(job_id)
            if match is None:
                break
            numbers.append(int(match.group(1)))
        else:
            numbers.append(int(job_id))
    if len(numbers) == len(raw_ids) and len(set(numbers)) == len(numbers) and all(abs(v) < 2**63 for v in numbers):
        return np.array(numbers, dtype=np.int64), {}
    original = np.empty(len(raw_ids), dtype=object)
    original[:] = raw_ids
    return np.arange(1, len(raw_ids) + 1, dtype=np.int64), {"batsim_id": original}


def _is_int(value: object) -> TypeGuard[int]:
    # JSON gives int; a caller's numpy integer passes too (both are Integral).
    return isinstance(value, Integral) and not isinstance(value, bool)


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _json_number(value: float) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _short(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."
