"""Campaign workloads on a fat tree (issue 4 reproductions): platform and penalty per workload, topology columns."""

from __future__ import annotations

import pandas as pd
import pytest

from schedlab import load_instance, run
from schedlab.campaign import campaign_results, expand, load_campaign, run_campaign
from schedlab.errors import InputError

TREE = """
    seed = 5

    [[workloads]]
    trace = "{trace}"
    platform = "fat-tree:1,2,4,16"
    penalty = "quadratic:2"
    windows = { sample = "random", count = 2, length = "1d" }

    [[policies]]
    name = "conservative"
    params = { allocator = ["basic", "beplat"] }
"""


def test_tree_runs_equal_direct_runs(make_spec, tmp_path, trace):
    campaign = load_campaign(make_spec(TREE), store=tmp_path / "s")
    outcome = run_campaign(campaign, jobs=1)
    assert len(outcome.executed) == 4 and not outcome.failed
    table = campaign_results(campaign).to_pandas().set_index("run_id")
    for config in expand(campaign):
        instance, report = load_instance(trace, window=config.window, platform="fat-tree:1,2,4,16")
        direct = run(
            instance, config.policy, dict(config.params), seed=config.seed, penalty="quadratic:2", report=report
        )
        stored = table.loc[config.run_id]
        assert stored["platform"] == "fat-tree:1,2,4,16" and stored["penalty"] == "quadratic:2"
        for name in ("bsld_mean", "platform_level_factor", "success_rate", "sum_flow", "n_local"):
            assert stored[name] == pytest.approx(direct.metrics[name]), name


def test_homogeneous_run_ids_do_not_change(make_spec, tmp_path):
    plain = load_campaign(
        make_spec(
            TREE.replace('platform = "fat-tree:1,2,4,16"\n', "").replace('penalty = "quadratic:2"\n', ""), name="plain"
        ),
        store=tmp_path / "p",
    )
    assert all("platform" not in config.key() for config in expand(plain))
    tree = load_campaign(make_spec(TREE, name="tree"), store=tmp_path / "t")
    assert {c.run_id for c in expand(plain)}.isdisjoint({c.run_id for c in expand(tree)})


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (('platform = "fat-tree:1,2,4,16"', 'platform = "torus:3"'), "workloads[0].platform"),
        (('penalty = "quadratic:2"', 'penalty = "cubic:2"'), "workloads[0].penalty"),
        (('platform = "fat-tree:1,2,4,16"\n', ""), "workloads[0].penalty"),
    ],
)
def test_bad_topology_keys_name_the_key(make_spec, tmp_path, edit, field):
    with pytest.raises(InputError, match=field.replace("[", r"\[").replace("]", r"\]")):
        load_campaign(make_spec(TREE.replace(*edit)), store=tmp_path / "x")


def test_mixed_workloads_share_one_table(make_spec, tmp_path):
    body = (
        TREE
        + """
    [[workloads]]
    name = "flat"
    trace = "{trace}"
    windows = { sample = "random", count = 1, length = "1d" }
    """
    )
    campaign = load_campaign(make_spec(body), store=tmp_path / "m")
    assert not run_campaign(campaign, jobs=1).failed
    table = campaign_results(campaign).to_pandas()
    flat = table[table["workload"] == "flat"]
    assert len(flat) == 2 and flat["platform"].isna().all() and pd.isna(flat["locality_factor"]).all()
