"""The same campaign on a real Dask cluster (two worker processes) gives the local runner's rows."""

from __future__ import annotations

import pandas as pd
import pytest

from schedlab.campaign import TIMING_COLUMNS, campaign_results, load_campaign, run_campaign

distributed = pytest.importorskip("distributed")


def comparable(campaign) -> pd.DataFrame:
    return campaign_results(campaign).to_pandas().drop(columns=list(TIMING_COLUMNS)).reset_index(drop=True)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local


def test_dask_cluster_equals_local_runner(small_spec, tmp_path, cluster):
    local = load_campaign(small_spec, store=tmp_path / "local")
    run_campaign(local, jobs=1)
    remote = load_campaign(small_spec, store=tmp_path / "dask")
    seen = []
    outcome = run_campaign(
        remote, scheduler=cluster.scheduler_address, progress=lambda done, total, row: seen.append((done, total))
    )
    assert len(outcome.executed) == 12 and not outcome.failed and not outcome.lost
    assert seen[-1] == (12, 12)
    pd.testing.assert_frame_equal(comparable(remote), comparable(local))
    again = run_campaign(remote, scheduler=cluster.scheduler_address)
    assert (again.skipped, again.executed) == (12, [])


def test_dask_executor_passed_in(small_spec, tmp_path, cluster):
    """A client's executor (as a dask-jobqueue cluster would give) works unchanged; it is not shut down."""
    campaign = load_campaign(small_spec, store=tmp_path / "executor")
    with distributed.Client(cluster) as client:
        outcome = run_campaign(campaign, executor=client.get_executor(), limit=4)
        assert len(outcome.executed) == 4
        assert client.submit(sum, [1, 2]).result() == 3


def test_bad_scheduler_address_is_an_input_error(small_spec, tmp_path):
    from schedlab.errors import InputError

    campaign = load_campaign(small_spec, store=tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"^--scheduler: cannot connect to Dask scheduler 'bogus': "):
        run_campaign(campaign, scheduler="bogus")
