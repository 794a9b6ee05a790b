"""IntervalSet against a plain Python set (Hypothesis state machine) and the Batsim notation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from schedlab.platform.intervals import AllocationTable, IntervalSet, format_allocation, normalize, parse_allocation

N = 40


def as_ranges(ids):
    return normalize((i, i + 1) for i in ids)


class IntervalSetMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.real = IntervalSet.full(N)
        self.model = set(range(N))

    @rule(k=st.integers(1, N))
    def pop_first(self, k):
        if k > len(self.model):
            with pytest.raises(ValueError):
                self.real.first(k)
            return
        expected = sorted(self.model)[:k]
        assert self.real.pop_first(k) == as_ranges(expected)
        self.model -= set(expected)

    @rule(ids=st.sets(st.integers(0, N - 1), max_size=8))
    def remove(self, ids):
        alloc = as_ranges(ids)
        if not alloc:
            return
        if ids <= self.model:
            self.real.remove(alloc)
            self.model -= ids
        else:
            before = self.real.ranges()
            with pytest.raises(ValueError):
                self.real.remove(alloc)
            assert self.real.ranges() == before

    @rule(ids=st.sets(st.integers(0, N - 1), max_size=8))
    def add(self, ids):
        alloc = as_ranges(ids)
        if not alloc:
            return
        if not ids & self.model:
            self.real.add(alloc)
            self.model |= ids
        else:
            before = self.real.ranges()
            with pytest.raises(ValueError):
                self.real.add(alloc)
            assert self.real.ranges() == before

    @invariant()
    def same_set(self):
        assert self.real.ranges() == as_ranges(self.model)
        assert len(self.real) == len(self.model)
        los, his = self.real.los, self.real.his
        assert all(his[i] < los[i + 1] for i in range(len(los) - 1)), "ranges touch or overlap"


TestIntervalSet = IntervalSetMachine.TestCase


def test_batsim_notation():
    assert format_allocation(((0, 4), (8, 12), (20, 21))) == "0-3 8-11 20"
    assert parse_allocation("0-3 8-11 20") == ((0, 4), (8, 12), (20, 21))


@given(st.sets(st.integers(0, 200)))
def test_notation_round_trips(ids):
    alloc = as_ranges(ids)
    assert parse_allocation(format_allocation(alloc)) == alloc


# -- AllocationTable: flat ranges read as a list of allocations -----------------------------------

_ALLOCS = st.lists(
    st.one_of(
        st.just(()),
        st.sets(st.integers(0, 40), min_size=1, max_size=12).map(lambda ids: normalize((i, i + 1) for i in ids)),
    ),
    max_size=10,
)


@given(_ALLOCS, st.data())
def test_allocation_table_reads_as_its_list(allocs, data):
    table = AllocationTable.from_allocations(allocs)
    assert len(table) == len(allocs)
    assert list(table) == allocs and table == allocs and table == AllocationTable.from_allocations(allocs)
    assert [table[i] for i in range(-len(allocs), 0)] == allocs
    assert table[1:3] == allocs[1:3]
    assert all(type(v) is int for a in table for r in a for v in r)  # Python ints, as the engine's
    np.testing.assert_array_equal(table.counts, [len(a) for a in allocs])
    rows = data.draw(st.lists(st.integers(0, len(allocs) - 1), max_size=8)) if allocs else []
    assert table.take(np.array(rows, dtype=np.int64)) == [allocs[r] for r in rows]


def test_allocation_table_by_hand():
    table = AllocationTable([0, 2, 2, 3], [0, 8, 5], [4, 9, 7])
    assert list(table) == [((0, 4), (8, 9)), (), ((5, 7),)]
    assert AllocationTable.from_allocations([None, ((1, 3),)]) == [(), ((1, 3),)]  # None reads as ()
    assert table != [((0, 4), (8, 9)), (), ((5, 8),)]
    with pytest.raises(IndexError):
        table[3]
    with pytest.raises(ValueError, match="offsets must rise"):
        AllocationTable([0, 2, 1], [0, 1], [1, 2])
    with pytest.raises(ValueError, match="offsets must rise"):
        AllocationTable([0, 3], [0, 1], [1, 2])
