"""Campaigns of independent tasks for the max-stretch study (Saule, Bozdag and Catalyurek 2014): generated and
moldable workloads in specs, their expansion (instances in place of windows, stable ids) and their runs (the
same instances as the commands, stretch columns in the store)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from schedlab.campaign import campaign_results, expand, load_campaign, run_campaign
from schedlab.campaign.runner import stretch_instance
from schedlab.errors import InputError
from schedlab.runner import load_moldable, run
from schedlab.workload.stretch_generators import generate_tasks

GENERATED = """
    [[workloads]]
    name = "u"
    generate = {{ dist = "uniform:1,20", n = 60, m = 4, load = 3.5, instances = {instances}, seed = 7 }}

    [[policies]]
    name = "dasedf"

    [[policies]]
    name = "fcfs-stretch"
"""


def test_instances_take_the_place_of_windows_and_keep_their_ids(make_spec):
    two = expand(load_campaign(make_spec(GENERATED.format(instances=2))))
    three = expand(load_campaign(make_spec(GENERATED.format(instances=3), name="three")))
    assert [(r.window_index, r.policy) for r in two] == [
        (0, "dasedf"),
        (0, "fcfs-stretch"),
        (1, "dasedf"),
        (1, "fcfs-stretch"),
    ]
    assert [r.run_id for r in two] == [r.run_id for r in three[:4]]  # more instances: same first ids
    assert two[0].key()["stretch"] == {
        "source": "generate",
        "dist": "uniform:1,20",
        "load": 3.5,
        "m": 4,
        "n": 60,
        "seed": 7,
    }
    assert two[0].trace is None and two[0].window is None


def test_a_run_draws_the_instance_of_the_generate_command(make_spec, tmp_path):
    """Instance i is ``schedlab tasks generate --seed (seed + i)``; the store holds the stretch metrics."""
    campaign = load_campaign(make_spec(GENERATED.format(instances=2)))
    runs = expand(campaign)
    jobs = stretch_instance(runs[2]).jobs
    expected = generate_tasks("uniform:1,20", 60, 4, load=3.5, rng=np.random.default_rng(8))
    assert jobs.run_time.tobytes() == expected.run_time.tobytes() and jobs.submit.tobytes() == expected.submit.tobytes()
    outcome = run_campaign(campaign, jobs=1)
    assert not outcome.failed
    table = campaign_results(campaign).to_pandas().set_index(["window_index", "policy"])
    direct = run(stretch_instance(runs[2]), "dasedf", stretch=True).metrics
    row = table.loc[(1, "dasedf")]
    assert row["stretch_seed"] == 8 and row["max_stretch"] == direct["max_stretch"]
    assert row["fairness_seconds_tasks"] + row["fairness_minutes_tasks"] == 60
    assert row["load"] == pytest.approx(direct["load"]) and row["n_procs"] == 4


def test_moldable_log_workload(make_spec, data_dir, tmp_path):
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
    assert len(runs) == 4 and runs[0].key()["stretch"]["source"] == "moldable"
    instance = stretch_instance(runs[3])
    direct = load_moldable(tmp_path / "tiny.swf", m=8, first=5, seed=5)
    assert instance.runtime.times.tobytes() == direct.runtime.times.tobytes()
    assert not run_campaign(campaign, jobs=1).failed
    table = campaign_results(campaign).to_pandas()
    assert (table["state"] == "done").all() and table["mean_stretch"].notna().all()


@pytest.mark.parametrize(
    "workload, message",
    [
        (
            'generate = { dist = "normal:1", n = 5, m = 2, load = 1 }',
            "workloads[0].generate.dist = 'normal:1', expected uniform:A,B",
        ),
        ('generate = { dist = "uniform:1,2", n = 0, m = 2, load = 1 }', "workloads[0].generate.n = 0"),
        ('generate = { dist = "uniform:1,2", n = 5, m = 2, load = 1 }\ntrace = "{trace}"', "no trace with generate"),
        ('generate = { dist = "uniform:1,2", n = 5, m = 2, load = 1 }\nprocs = 3', "workloads[0].procs"),
        ("moldable = { m = 4 }", "an SWF log or a tasks CSV with moldable"),
        ('trace = "{trace}"\nmoldable = { m = 4, speedup = "linear" }', "workloads[0].moldable.speedup = 'linear'"),
        ('trace = "{trace}"\nmoldable = { m = 4 }\nwindows = { length = "1d", count = 1 }', "workloads[0].windows"),
    ],
)
def test_spec_errors_name_the_key(make_spec, workload, message):
    path = make_spec(f'[[workloads]]\nname = "w"\n{workload}\n[[policies]]\nname = "dasedf"\n')
    with pytest.raises(InputError, match=re.escape(message)):
        load_campaign(path)
