"""Campaign workloads for the torus reproduction: a span of the log (Krevat 2003 mapping) and a load factor."""

from __future__ import annotations

import pytest

from schedlab.campaign import expand, load_campaign
from schedlab.campaign.runner import execute
from schedlab.errors import InputError


def test_span_and_runtime_scale(make_spec):
    spec = make_spec(
        """
        [[workloads]]
        trace = "{trace}"
        platform = "torus:2x2x4"
        span = { skip = 5, count = 40 }
        runtime_scale = 1.5

        [[policies]]
        name = "torus-bm"
        """
    )
    (config,) = expand(load_campaign(spec))
    assert config.span == (5, 40) and config.runtime_scale == 1.5
    assert config.key()["span"] == [5, 40] and config.key()["runtime_scale"] == 1.5
    row = execute(config)
    assert row["state"] == "done", row["error"]
    assert row["runtime_scale"] == 1.5 and row["n_procs"] == 16
    assert row["w_util"] + row["w_unused"] + row["w_lost"] == pytest.approx(1.0)
    assert row["migration_attempts"] >= row["migration_successes"] >= 0


def test_default_workloads_keep_their_keys(make_spec):
    spec = make_spec(
        """
        [[workloads]]
        trace = "{trace}"

        [[policies]]
        name = "fcfs"
        """
    )
    (config,) = expand(load_campaign(spec))
    assert "span" not in config.key() and "runtime_scale" not in config.key()


@pytest.mark.parametrize(
    "extra", ["status = 1", "window = [0, 100]", 'windows = { sample = "periods", length = "1d" }']
)
def test_a_span_excludes_other_filters(make_spec, extra):
    spec = make_spec(
        f"""
        [[workloads]]
        trace = "{{trace}}"
        span = {{ count = 10 }}
        {extra}

        [[policies]]
        name = "fcfs"
        """
    )
    with pytest.raises(InputError, match="expected nothing with a span"):
        load_campaign(spec)
