"""Fat-tree platform: structure, contiguity, clusters used and platform levels.

Source: spec 000-ch4-5 sections 2.1 and 2.3, hand-checkable test 2 of section 8.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.platform.intervals import normalize
from schedlab.platform.registry import parse_platform
from schedlab.platform.tree import FatTree


def ids(*values):
    return normalize((v, v + 1) for v in values)


def test_levels_1_2_4_8_structure_and_levels():
    """Spec 8.2: clusters {0,1}, {2,3}, {4,5}, {6,7}; L({0,1}) = 1, L({1,2}) = 2, L({0,4}) = 3;
    L_min = 1 for s <= 2, 2 for s = 3..4, 3 for s >= 5."""
    tree = FatTree((1, 2, 4, 8))
    assert (tree.n_procs, tree.depth, tree.cluster_size, tree.n_clusters) == (8, 3, 2, 4)
    assert [tree.cluster_range(c) for c in range(4)] == [(0, 2), (2, 4), (4, 6), (6, 8)]
    assert tree.name == "fat-tree:1,2,4,8"
    assert tree.level(ids(0, 1)) == 1
    assert tree.level(ids(1, 2)) == 2
    assert tree.level(ids(0, 4)) == 3
    assert [tree.min_level(s) for s in range(1, 9)] == [1, 1, 2, 2, 3, 3, 3, 3]


def test_blocks_clusters_and_locality():
    """Spec 2.3: clusters of 2, {1,2,4} (1-based ids, {0,1,3} here) is local (K = K* = 2) but not
    contiguous (b = 2); a contiguous job may use K* + 1 clusters: {1,2} uses 2 > K* = 1."""
    tree = FatTree.clusters(8, 2)
    a = ids(0, 1, 3)
    assert tree.blocks(a) == 2
    assert tree.clusters_used(a) == 2 and tree.min_clusters(3) == 2 and tree.is_local(a, 3)
    assert tree.clusters_used(ids(1, 2)) == 2 and not tree.is_local(ids(1, 2), 2)
    assert tree.clusters_used(((0, 8),)) == 4


def test_smaller_last_cluster():
    """Spec ambiguity 18: m = 1000, l = 16 gives 62 clusters of 16 and one of 8; K* = ceil(s / 16)."""
    tree = FatTree.clusters(1000, 16)
    assert tree.levels == (1, 63, 1000)
    assert tree.cluster_range(62) == (992, 1000)
    assert tree.min_clusters(17) == 2
    assert tree.clusters_used(((990, 1000),)) == 2


def test_flat_tree_is_one_cluster_at_level_1():
    tree = FatTree.flat(5)
    assert tree.n_clusters == 1 and tree.level(ids(0, 4)) == 1 and tree.min_level(5) == 1


def test_parse_platform():
    assert parse_platform("fat-tree:1,2,8,240").levels == (1, 2, 8, 240)
    assert parse_platform("clusters:512,16").levels == (1, 32, 512)


@pytest.mark.parametrize(
    "text, message",
    [
        ("fat-tree:1,3,8,240", "3 does not divide 8"),
        ("fat-tree:2,4,8", "N_0 = 1"),
        ("fat-tree:1,6,10", "non-empty clusters"),
        ("fat-tree:1,a", "expected integers 1,N_1,...,m"),
        ("mesh:4", "expected fat-tree:... (e.g. fat-tree:1,2,8,240) or clusters:..."),
        ("torus:4", "expected DXxDYxDZ with integers >= 1"),
    ],
)
def test_bad_platform_names_the_option(text, message):
    with pytest.raises(InputError, match="--platform") as info:
        parse_platform(text)
    assert message in str(info.value)


@st.composite
def trees_and_allocations(draw):
    levels = [1]
    for f in draw(st.lists(st.integers(1, 3), min_size=0, max_size=3)):
        levels.append(levels[-1] * f)
    k = levels[-1]  # clusters
    ell = draw(st.integers(1, 4))
    m = draw(st.integers((k - 1) * ell + 1, k * ell))
    tree = FatTree(tuple(levels + [m]))
    chosen = draw(st.sets(st.integers(0, m - 1), min_size=1))
    return tree, sorted(chosen)


@given(trees_and_allocations())
def test_measures_match_a_processor_by_processor_oracle(case):
    """Clusters used and level computed range by range equal those computed id by id."""
    tree, chosen = case
    alloc = ids(*chosen)
    ell = tree.cluster_size
    assert tree.clusters_used(alloc) == len({p // ell for p in chosen})
    deepest = max(d for d in range(tree.depth) if len({p // tree.node_size[d] for p in chosen}) == 1)
    assert tree.level(alloc) == tree.depth - deepest
    size = len(chosen)
    fits = [d for d in range(tree.depth) if tree.node_size[d] >= size]
    assert tree.min_level(size) == tree.depth - max(fits)
    assert 1 <= tree.min_level(size) <= tree.level(alloc) <= tree.depth
