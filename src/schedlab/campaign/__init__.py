"""Experiment campaigns: many (workload window, policy, parameters, seed) runs, stored and reported.

A TOML specification (:mod:`~schedlab.campaign.spec`) expands into runs with
stable ids (:mod:`~schedlab.campaign.expand`); :func:`run_campaign` executes
the pending ones on a local process pool or a Dask cluster and stores each
as one Parquet row (:mod:`~schedlab.campaign.store`), queried with DuckDB;
:func:`write_report` summarises them (:mod:`~schedlab.campaign.report`).
"""

from schedlab.campaign.expand import RunConfig, expand, run_seed
from schedlab.campaign.runner import CampaignOutcome, execute, pending_runs, run_campaign
from schedlab.campaign.spec import Campaign, CampaignSpec, load_campaign, metric_names, parse_duration
from schedlab.campaign.store import CONFIG_COLUMNS, TIMING_COLUMNS, Store, campaign_results, query

__all__ = [
    "CONFIG_COLUMNS",
    "TIMING_COLUMNS",
    "Campaign",
    "CampaignOutcome",
    "CampaignSpec",
    "RunConfig",
    "Store",
    "campaign_results",
    "execute",
    "expand",
    "load_campaign",
    "metric_names",
    "parse_duration",
    "pending_runs",
    "query",
    "run_campaign",
    "run_seed",
]
