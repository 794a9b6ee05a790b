"""The independent validator: a hand-built valid schedule, one mutation per rule, and properties.

Rules: the docstring of :func:`schedlab.validation.validate` (rules 1-9).
"""

from __future__ import annotations

import copy
import re
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from schedlab.engine import simulate
from schedlab.errors import InputError, ValidationError
from schedlab.platform import Machine
from schedlab.registry import make_policy
from schedlab.schedule import Instance, JobStatus, Piece, Schedule
from schedlab.validation import validate
from schedlab.workload.jobs import JobTable
from strategies import rigid_instances

C, K, R, N = JobStatus.COMPLETED, JobStatus.KILLED, JobStatus.REJECTED, JobStatus.NOT_STARTED


def base():
    """4 processors, jobs with ids 11..14 (rows 0..3), checked by hand:

    - 11: submit 0, run 5, req 10, 2 procs: [0, 5) on 0-1, COMPLETED;
    - 12: submit 1, run 20, req 4, 2 procs: [1, 5) on 2-3, KILLED at its walltime;
    - 13: submit 2, run 3, req 3, 3 procs: [5, 8) on 0-2, COMPLETED (starts when 11 and 12 end);
    - 14: submit 0, run 2, req 2, 1 proc: aborted piece [0, 1) on 3 (ends when 12 takes 3),
      then [5, 7) on 3, COMPLETED.
    """
    jobs = JobTable.from_arrays(
        submit=[0, 1, 2, 0],
        run_time=[5, 20, 3, 2],
        requested_time=[10, 4, 3, 2],
        procs=[2, 2, 3, 1],
        id=[11, 12, 13, 14],
    )
    schedule = Schedule(
        start=np.array([0.0, 1.0, 5.0, 5.0]),
        end=np.array([5.0, 5.0, 8.0, 7.0]),
        status=np.array([C, K, C, C], dtype=np.int8),
        alloc=[((0, 2),), ((2, 4),), ((0, 3),), ((3, 4),)],
        aborted=[Piece(job=3, start=0.0, end=1.0, alloc=((3, 4),))],
    )
    return Instance(jobs, Machine(4)), schedule


def test_hand_built_schedule_is_valid():
    """Half-open intervals: 14's piece ends at 1 where 12 starts on processor 3; 11 and 12 end at 5 where 13 starts."""
    instance, schedule = base()
    validate(instance, schedule)  # raises on failure


def test_numpy_integer_bounds_and_empty_alloc_for_rejected_are_accepted():
    instance, schedule = base()
    schedule.alloc = [tuple((np.int64(a), np.int64(b)) for a, b in r) for r in schedule.alloc]
    validate(instance, schedule)
    schedule.status[2] = R
    schedule.start[2] = schedule.end[2] = np.nan
    schedule.alloc[2] = ()
    validate(instance, schedule, allow_rejected=True)


def test_tuple_subclass_ranges_are_accepted():
    """Ranges that are tuples (a named tuple) pass the exact check; the fast path must not crash on them
    (it raised StopIteration before the fix)."""
    Range = namedtuple("Range", "lo hi")
    instance, schedule = base()
    schedule.alloc[0] = (Range(0, 2),)
    validate(instance, schedule)
    schedule.alloc[3] = (Range(2, 3),)  # and a clash among them is still found
    with pytest.raises(ValidationError, match=r"^processor 2 is used by job 13 .* and by job 14 "):
        validate(instance, schedule)


def test_zero_length_piece_occupies_nothing():
    """A piece aborted the instant it started may sit on a busy processor (DESIGN: occupies no processor)."""
    instance, schedule = base()
    schedule.aborted.append(Piece(job=2, start=2.0, end=2.0, alloc=((0, 3),)))  # 0-1 held by job 11 then
    validate(instance, schedule)


def test_length_within_rtol_passes_and_beyond_fails():
    instance, schedule = base()
    schedule.end[2] = 8.0 + 5e-9  # rtol 1e-9 * max(1, 8) = 8e-9
    validate(instance, schedule)
    schedule.end[2] = 8.0 + 1e-8
    with pytest.raises(ValidationError, match=r"^job 13: runs from"):
        validate(instance, schedule)


def test_tolerance_never_hides_a_job_whose_end_rounded_onto_its_start():
    """At t = 1e23 a float64 step is 1.7e7 s: a 30 s job ends where it starts. rtol * |end| would allow 1e14 s;
    the tolerance is capped at half the job's length, so the zero-length run is refused."""
    with pytest.raises(InputError, match=r"job 1 submit = 1e\+23, expected a time >= 0 and <= 2\^53"):
        JobTable.from_arrays(submit=[1e23], run_time=[30.0], procs=[1])  # readers refuse it; the validator too:
    one = np.array([1], dtype=np.int64)
    jobs = JobTable(
        id=one,
        submit=np.array([1e23]),
        run_time=np.array([30.0]),
        requested_time=np.array([30.0]),
        procs=one,
        line=one * 0,
    )
    schedule = Schedule(
        start=np.array([1e23]), end=np.array([1e23 + 30.0]), status=np.array([C], dtype=np.int8), alloc=[((0, 1),)]
    )
    assert schedule.end[0] == schedule.start[0]  # the rounding this test is about
    with pytest.raises(
        ValidationError,
        match=r"^job 1: runs from 1e\+23 to 1e\+23 \(0.0 s\), expected min\(run time, requested time\) = 30.0 s",
    ):
        validate(Instance(jobs, Machine(1)), schedule)
    late = Schedule(start=np.array([1e8]), end=np.array([1e8 + 30.05]), status=schedule.status, alloc=schedule.alloc)
    validate(Instance(JobTable.from_arrays(submit=[0], run_time=[30.0], procs=[1], id=[1]), Machine(1)), late)


# -- one mutation per rule ---------------------------------------------------------


def _set(row, **fields):
    def mutate(s):
        for name, value in fields.items():
            getattr(s, name)[row] = value

    return mutate


def _reject(row):
    return _set(row, status=R, start=np.nan, end=np.nan, alloc=None)


def _piece(*pieces):
    def mutate(s):
        s.aborted = list(pieces)

    return mutate


def _shorten(name):
    def mutate(s):
        setattr(s, name, getattr(s, name)[:3])

    return mutate


MUTATIONS = [
    # (id, mutation, allow_rejected, regex the message must match)
    ("1 start too short", _shorten("start"), False, r"^schedule\.start has 3 entries, the job table 4"),
    ("1 alloc too short", _shorten("alloc"), False, r"^schedule\.alloc has 3 entries"),
    (
        "2 NOT_STARTED left",
        _set(2, status=N, start=np.nan, end=np.nan, alloc=None),
        True,
        r"^job 13: status NOT_STARTED",
    ),
    ("2 rejected not allowed", _reject(2), False, r"^job 13: status REJECTED .*allow_rejected=False"),
    ("2 unknown status code", _set(1, status=7), True, r"^job 12: status code 7"),
    ("3 started with NaN start", _set(2, start=np.nan), False, r"^job 13: started \(COMPLETED\) but start = nan"),
    ("3 started with inf end", _set(1, end=np.inf), False, r"^job 12: started \(KILLED\) but .*end = inf"),
    (
        "3 rejected with times",
        _set(2, status=R, alloc=None),
        True,
        r"^job 13: never started \(REJECTED\) but start = 5\.0",
    ),
    (
        "3 rejected with allocation",
        _set(2, status=R, start=np.nan, end=np.nan),
        True,
        r"^job 13: never started \(REJECTED\) but has allocation \(\(0, 3\),\)",
    ),
    (
        "3 started without allocation",
        _set(0, alloc=None),
        False,
        r"^job 11: started \(COMPLETED\) but has no allocation",
    ),
    (
        "4 start before submit",
        _set(2, start=1.0, end=4.0),
        False,
        r"^job 13: starts at 1\.0, before its submit time 2\.0",
    ),
    ("5 killed job marked COMPLETED", _set(1, status=C), False, r"^job 12: status COMPLETED .* make it KILLED"),
    ("5 completed job marked KILLED", _set(0, status=K), False, r"^job 11: status KILLED .* make it COMPLETED"),
    ("6 end != start + run", _set(0, end=6.0), False, r"^job 11: runs from 0\.0 to 6\.0 .* = 5\.0 s"),
    ("6 killed job runs its full run time", _set(1, end=21.0), False, r"^job 12: runs from 1\.0 to 21\.0 .* = 4\.0 s"),
    (
        "7 allocation size != procs",
        _set(2, alloc=((0, 2),)),
        False,
        r"^job 13: allocation: 0-1 holds 2 processors, the job needs 3",
    ),
    (
        "7 empty allocation for started job",
        _set(3, alloc=()),
        False,
        r"^job 14: allocation: \(empty\) holds 0 processors",
    ),
    (
        "7 processor id out of range",
        _set(3, alloc=((4, 5),)),
        False,
        r"^job 14: allocation: range \(4, 5\) is outside processors 0\.\.3",
    ),
    ("7 negative processor id", _set(3, alloc=((-1, 0),)), False, r"^job 14: allocation: range \(-1, 0\) is outside"),
    ("7 reversed range", _set(3, alloc=((3, 2),)), False, r"^job 14: allocation: range \(3, 2\) is empty or reversed"),
    ("7 unsorted ranges", _set(2, alloc=((2, 3), (0, 2))), False, r"^job 13: allocation: ranges are not sorted"),
    (
        "7 adjacent ranges",
        _set(2, alloc=((0, 2), (2, 3))),
        False,
        r"^job 13: allocation: ranges are not sorted, disjoint and non-adjacent",
    ),
    ("7 list instead of tuple", _set(0, alloc=[(0, 2)]), False, r"^job 11: allocation: .* is a list, expected a tuple"),
    (
        "7 float bounds",
        _set(0, alloc=((0.0, 2.0),)),
        False,
        r"^job 11: allocation: range \(0\.0, 2\.0\) is not a pair of integers",
    ),
    (
        "7 bool bounds",
        _set(3, alloc=((False, True),)),
        False,
        r"^job 14: allocation: range \(False, True\) is not a pair of integers",
    ),
    (
        "8 piece row out of range",
        _piece(Piece(job=4, start=0.0, end=1.0, alloc=((3, 4),))),
        False,
        r"^aborted piece 0: job row 4 is not a row of the job table \(0\.\.3\)",
    ),
    (
        "8 piece with NaN time",
        _piece(Piece(job=3, start=np.nan, end=1.0, alloc=((3, 4),))),
        False,
        r"^job 14: aborted piece 0 has start = nan",
    ),
    (
        "8 piece before submit",
        _piece(Piece(job=2, start=1.0, end=2.0, alloc=((0, 3),))),
        False,
        r"^job 13: aborted piece 0 starts at 1\.0, before its submit time 2\.0",
    ),
    (
        "8 piece ends before it starts",
        _piece(Piece(job=3, start=1.0, end=0.5, alloc=((3, 4),))),
        False,
        r"^job 14: aborted piece 0 ends at 0\.5, before it starts at 1\.0",
    ),
    (
        "8 piece ends after final start",
        _piece(Piece(job=3, start=0.0, end=6.0, alloc=((3, 4),))),
        False,
        r"^job 14: aborted piece 0 ends at 6\.0, after the job's final start 5\.0",
    ),
    (
        "8 piece allocation size",
        _piece(Piece(job=3, start=0.0, end=1.0, alloc=((2, 4),))),
        False,
        r"^job 14: aborted piece 0 allocation: 2-3 holds 2 processors, the job needs 1",
    ),
    (
        "8 aborted pieces overlap",
        _piece(
            Piece(job=3, start=0.0, end=1.0, alloc=((3, 4),)),
            Piece(job=0, start=0.0, end=0.0, alloc=((0, 2),)),
            Piece(job=3, start=0.5, end=0.75, alloc=((3, 4),)),
        ),
        False,
        r"^job 14: aborted pieces 0 \(0\.0 to 1\.0\) and 2 \(0\.5 to 0\.75\) overlap in time",
    ),
    (
        "9 double-booked processor",
        _set(3, alloc=((2, 3),)),
        False,
        r"^processor 2 is used by job 13 from 5\.0 to 8\.0 and by job 14 from 5\.0 to 7\.0 at time 5\.0",
    ),
    (
        "9 piece double-booked",
        _piece(Piece(job=3, start=0.0, end=2.0, alloc=((2, 3),))),
        False,
        r"^processor 2 is used by job 14 \(aborted piece 0\) from 0\.0 to 2\.0 and by job 12 from 1\.0 to 5\.0 at time 1\.0",
    ),
    (
        "9 overlap in the middle",
        _set(2, start=4.0, end=7.0),
        False,
        r"^processor 0 is used by job 11 from 0\.0 to 5\.0 and by job 13 from 4\.0 to 7\.0 at time 4\.0",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "allow_rejected", "message"), [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS]
)
def test_each_broken_rule_is_reported_naming_the_job(mutate, allow_rejected, message):
    instance, schedule = base()
    validate(instance, schedule, allow_rejected=allow_rejected)  # the base passes under the same flag
    mutate(schedule)
    with pytest.raises(ValidationError, match=message):
        validate(instance, schedule, allow_rejected=allow_rejected)


def test_rejected_is_legal_when_allowed_even_after_an_aborted_piece():
    """Notes: a policy may abort a job and then refuse it."""
    instance, schedule = base()
    _reject(3)(schedule)
    validate(instance, schedule, allow_rejected=True)
    assert len(schedule.aborted) == 1


def test_first_offending_row_is_reported():
    """Within a rule the lowest row is reported: rows 1 and 2 both break rule 6, row 1 (job 12) is named."""
    instance, schedule = base()
    schedule.end[2] = 9.0
    schedule.end[1] = 4.5
    with pytest.raises(ValidationError, match=r"^job 12: "):
        validate(instance, schedule)


# -- properties over engine schedules ---------------------------------------------

POLICY_NAMES = ["fcfs", "easy", "conservative"]


@settings(max_examples=40)
@given(instance=rigid_instances(), name=st.sampled_from(POLICY_NAMES))
def test_engine_schedules_validate(instance, name):
    schedule = simulate(instance, make_policy(name, {}))
    validate(instance, schedule)
    assert np.all(np.isin(schedule.status, [C, K]))


@settings(max_examples=40)
@given(instance=rigid_instances(), name=st.sampled_from(POLICY_NAMES), data=st.data())
def test_start_moved_before_submit_is_detected(instance, name, data):
    """Shift one job (start and end together, so only rule 4 breaks first) to before its submit."""
    jobs = instance.jobs
    assume(np.any(jobs.submit > 0))
    schedule = simulate(instance, make_policy(name, {}))
    row = data.draw(st.sampled_from(np.flatnonzero(jobs.submit > 0).tolist()))
    shift = schedule.start[row] - jobs.submit[row] + data.draw(st.sampled_from([0.5, 1.0, float(jobs.submit[row])]))
    schedule.start[row] -= shift
    schedule.end[row] -= shift
    with pytest.raises(ValidationError, match=rf"job {jobs.id[row]}: starts at .* before its submit time"):
        validate(instance, schedule)


@settings(max_examples=40)
@given(instance=rigid_instances(max_procs=6), name=st.sampled_from(POLICY_NAMES), data=st.data())
def test_two_overlapping_jobs_on_the_same_processor_are_detected(instance, name, data):
    """Move job b onto the lowest processors of a job a that overlaps it in time (b's size kept)."""
    schedule = simulate(instance, make_policy(name, {}))
    procs = instance.jobs.procs
    s, e = schedule.start, schedule.end
    pairs = [
        (a, b)
        for a in range(len(s))
        for b in range(len(s))
        if a != b and s[a] < e[b] and s[b] < e[a] and procs[b] <= procs[a]
    ]
    assume(pairs)
    a, b = data.draw(st.sampled_from(pairs))
    taken, need = [], int(procs[b])
    for lo, hi in schedule.alloc[a]:
        take = min(need, hi - lo)
        taken.append((lo, lo + take))
        need -= take
        if need == 0:
            break
    broken = copy.copy(schedule)
    broken.alloc = list(schedule.alloc)
    broken.alloc[b] = tuple(taken)
    ids = instance.jobs.id
    with pytest.raises(ValidationError) as info:
        validate(instance, broken)
    found = re.match(r"processor \d+ is used by job (\d+) .* and by job (\d+) ", str(info.value))
    assert found, str(info.value)
    named = {int(x) for x in found.groups()}  # the clash named is between b and some job running beside it
    assert int(ids[b]) in named and len(named) == 2


def test_a_flat_allocation_table_is_checked_like_its_list():
    """The compiled core's schedules hold an AllocationTable: every rule 7 and 9 error reads the same."""
    from schedlab.platform.intervals import AllocationTable

    jobs = JobTable.from_arrays(submit=[0.0, 0.0, 0.0], run_time=[5.0, 5.0, 5.0], procs=[2, 1, 2])
    instance = Instance(jobs, Machine(4))
    cases = [
        [((0, 2),), ((2, 3),), ((3, 4), (5, 6))],  # outside the machine
        [((0, 2),), ((2, 3),), ((3, 4),)],  # too few processors
        [((0, 2),), ((1, 2),), ((2, 4),)],  # double booking
        [((0, 1), (1, 2)), ((2, 3),), ((0, 1), (3, 4))],  # adjacent ranges
        [((0, 2),), ((2, 3),), ((3, 4), (0, 1))],  # unsorted
    ]
    for allocs in cases:
        as_list = Schedule(np.zeros(3), np.full(3, 5.0), np.ones(3, dtype=np.int8), allocs)
        as_table = Schedule(
            np.zeros(3), np.full(3, 5.0), np.ones(3, dtype=np.int8), AllocationTable.from_allocations(allocs)
        )
        with pytest.raises(ValidationError) as expected:
            validate(instance, as_list)
        with pytest.raises(ValidationError, match=re.escape(str(expected.value))):
            validate(instance, as_table)
    later = Schedule(
        np.array([0.0, 0.0, 5.0]),
        np.array([5.0, 5.0, 10.0]),
        np.ones(3, dtype=np.int8),
        AllocationTable.from_allocations([((0, 2),), ((2, 3),), ((0, 1), (3, 4))]),
    )
    validate(instance, later)  # the same processor 0 reused once released: valid
