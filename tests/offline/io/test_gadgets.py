"""NP-hardness gadgets of Bleuse (2017): Theorem 5.1 (3-PARTITION) and Theorem 5.6 (N3DM), solved exactly."""

from __future__ import annotations

import math

import pytest

from io_strategies import check
from schedlab.errors import InputError
from schedlab.offline.io.bruteforce import brute_force_opt
from schedlab.offline.io.gadgets import n3dm_instance, three_partition_instance


@pytest.mark.parametrize("mode", ["shared", "exclusive"])
def test_three_partition_yes_reaches_m(mode):
    """{5, 5, 6 | 5, 5, 6}, B = 16: two triples, makespan M = 2 (line I C^8 I C^8 I)."""
    inst, M = three_partition_instance([5, 5, 5, 5, 6, 6], io_mode=mode)
    assert M == 2 and inst.platform.m == 19 and inst.platform.io_nodes.tolist() == [0, 9, 18]
    opt, sched = brute_force_opt(inst, cap=M)
    assert opt == M
    check(inst, sched)


@pytest.mark.parametrize("mode", ["shared", "exclusive"])
def test_three_partition_no_needs_more(mode):
    """{5, 5, 5, 5, 5, 7}, B = 16: triples sum to 15 or 17, never 16: no schedule of makespan 2."""
    inst, M = three_partition_instance([5, 5, 5, 5, 5, 7], io_mode=mode)
    assert brute_force_opt(inst, cap=M) == (math.inf, None)


def test_n3dm_yes_and_no():
    """Theorem 5.6 with Lemma 5.5: W, X, Y matched into triples of sum B reach makespan M."""
    inst, M = n3dm_instance([1, 2], [2, 3], [3, 3])  # B = 7: (1, 3, 3) and (2, 2, 3)
    assert M == 2 and inst.platform.io_nodes.tolist() == [0, 8, 16]
    assert sorted(inst.q.tolist()) == [1, 2, 3, 3, 9, 10]  # X shifted by B = 7 (all above B' / 2 = 7)
    opt, sched = brute_force_opt(inst, cap=M)
    assert opt == M
    check(inst, sched)
    no, M = n3dm_instance([1, 1], [3, 3], [2, 4])  # B = 7: 1 + 3 + 2 = 6, 1 + 3 + 4 = 8
    assert brute_force_opt(no, cap=M) == (math.inf, None)
    assert brute_force_opt(no)[0] == 3.0


def test_gadget_inputs_are_checked():
    with pytest.raises(InputError, match="B/4 < a < B/2"):
        three_partition_instance([1, 2, 3])
    with pytest.raises(InputError, match="three lists of M"):
        n3dm_instance([1], [1, 2], [1])
