"""Campaigns of independent tasks for the max-stretch study (Saule, Bozdag and Catalyurek 2014): generated
workloads of the max-stretch and moldable-task families run their online policies; a trace's jobs become
moldable tasks; the instances are those of the commands, the store holds the family's stretch columns."""

from __future__ import annotations

import re

import numpy as np
import pytest

from schedlab.campaign import campaign_results, expand, load_campaign, run_campaign
from schedlab.campaign.runner import moldable_instance
from schedlab.errors import InputError
from schedlab.policies.stretch.evaluation import generate, instance_seed
from schedlab.runner import load_moldable, run
from schedlab.workload.stretch_generators import generate_tasks

GENERATED = """
    [[workloads]]
    name = "u"
    generate = {{ family = "max-stretch tasks", samples = {samples}, grid = {{ dist = "uniform:1,20", n = 60, m = 4, load = 3.5, seed = 7 }} }}

    [[policies]]
    name = "dasedf"

    [[policies]]
    name = "fcfs-stretch"
"""


def test_generated_instances_are_the_generate_commands(make_spec):
    """Sample i of a point with seed s is ``schedlab tasks generate --seed (s + i)``; a run's policy draws from it."""
    runs = expand(load_campaign(make_spec(GENERATED.format(samples=2))))
    assert [(r.window_index, r.policy) for r in runs] == [
        (0, "dasedf"),
        (0, "fcfs-stretch"),
        (1, "dasedf"),
        (1, "fcfs-stretch"),
    ]
    assert runs[2].seed == instance_seed(0, {"seed": 7}, 1) == 8
    instance = generate({"dist": "uniform:1,20", "n": 60, "m": 4, "load": 3.5, "seed": 7}, runs[2].seed)
    expected = generate_tasks("uniform:1,20", 60, 4, load=3.5, rng=np.random.default_rng(8))
    assert instance.jobs.run_time.tobytes() == expected.run_time.tobytes() and instance.platform.n_procs == 4


def test_online_policies_of_a_generated_family_run_and_store_stretch(make_spec):
    campaign = load_campaign(make_spec(GENERATED.format(samples=2)))
    assert not run_campaign(campaign, jobs=1).failed
    table = campaign_results(campaign).to_pandas().set_index(["window_index", "policy"])
    instance = generate({"dist": "uniform:1,20", "n": 60, "m": 4, "load": 3.5, "seed": 7}, 8)
    direct = run(instance, "dasedf", seed=8, stretch=True).metrics
    row = table.loc[(1, "dasedf")]
    assert row["family"] == "max-stretch tasks" and row["max_stretch"] == direct["max_stretch"]
    assert row["fairness_seconds_tasks"] + row["fairness_minutes_tasks"] == 60
    assert row["load"] == pytest.approx(direct["load"]) and row["n_procs"] == 4


def test_moldable_log_workload(make_spec, data_dir, tmp_path):
    """Instance i of ``moldable = {..., seed = s}`` is ``schedlab moldable simulate --seed (s + i)``."""
    (tmp_path / "tiny.swf").write_bytes((data_dir / "tiny.swf").read_bytes())
    spec = make_spec(
        """
        [[workloads]]
        name = "tiny"
        trace = "tiny.swf"
        moldable = { m = 8, first = 5, instances = 2, seed = 4 }

        [[policies]]
        name = "dbos"
        params = { rho = [1.0, 1.5] }
        """
    )
    campaign = load_campaign(spec)
    runs = expand(campaign)
    assert len(runs) == 4 and runs[0].key()["moldable"] == {"first": 5, "m": 8, "seed": 4, "speedup": "downey"}
    direct = load_moldable(tmp_path / "tiny.swf", m=8, first=5, seed=5)
    assert moldable_instance(runs[3]).runtime.times.tobytes() == direct.runtime.times.tobytes()
    assert not run_campaign(campaign, jobs=1).failed
    table = campaign_results(campaign).to_pandas()
    assert (table["state"] == "done").all() and (table["family"] == "moldable tasks").all()
    assert table["mean_stretch"].notna().all()


@pytest.mark.parametrize(
    "workload, message",
    [
        (
            'generate = { family = "max-stretch tasks", grid = { dist = "uniform:1,2", n = 5, m = 2, load = 1 } }\n'
            '[[policies]]\nname = "dbos"',
            "policies[0].name = 'dbos', expected one of dasedf, fcfs-stretch, split",
        ),
        ('moldable = { m = 4 }\n[[policies]]\nname = "dbos"', "workloads[0]: give trace or generate"),
        (
            'trace = "{trace}"\nmoldable = { m = 4, speedup = "linear" }\n[[policies]]\nname = "dbos"',
            "workloads[0].moldable.speedup = 'linear'",
        ),
        (
            'trace = "{trace}"\nmoldable = { m = 4 }\nwindows = { length = "1d", count = 1 }\n[[policies]]\nname = "dbos"',
            "workloads[0].windows",
        ),
    ],
)
def test_spec_errors_name_the_key(make_spec, workload, message):
    path = make_spec(f'[[workloads]]\nname = "w"\n{workload}\n')
    with pytest.raises(InputError, match=re.escape(message)):
        load_campaign(path)


def test_a_generated_instance_is_checked(make_spec):
    """A grid key the family does not know fails the run with a one-line error (the campaign goes on)."""
    spec = make_spec(
        """
        [[workloads]]
        name = "u"
        generate = { family = "max-stretch tasks", grid = { dist = "uniform:1,2", n = 5, m = 2, load = 1, q = 3 } }
        [[policies]]
        name = "dasedf"
        """
    )
    campaign = load_campaign(spec)
    outcome = run_campaign(campaign, jobs=1)
    assert len(outcome.failed) == 1
    error = campaign_results(campaign).to_pandas()["error"].iloc[0]
    assert "generate: grid = q, expected dist, n, m, load or seed" in error
