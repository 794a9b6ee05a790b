"""``schedlab campaign``: run, follow, query and report experiment campaigns (a typer sub-app).

Commands parse, call :mod:`schedlab.campaign`, and print; errors are one line
and exit status 1, as everywhere in the CLI (:mod:`schedlab.cli`).
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from schedlab.cli.common import err, one_line_errors, out, progress_bar

campaign_app = typer.Typer(
    help="Run, follow, query and report experiment campaigns (TOML specifications).", no_args_is_help=True
)


SpecArg = Annotated[Path, typer.Argument(help="Campaign specification (TOML).")]
StoreOpt = Annotated[
    Path | None,
    typer.Option("--store", help="Result directory (default: the spec's `store`, else SPEC.store next to it)."),
]


@campaign_app.command("run")
def campaign_run(
    spec: SpecArg,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", min=1, help="Local worker processes (default: all cores; 1 runs in this process)."
        ),
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Dask scheduler address (tcp://host:8786): run on that cluster.")
    ] = None,
    store: StoreOpt = None,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Run again the runs stored as failed.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=0, help="Run at most N pending runs, then stop.")] = None,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No progress (a bar on a terminal, else a line per tenth), no summary."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
) -> None:
    """Run every run of SPEC not yet in its store; each result is stored as soon as it finishes."""
    from schedlab.campaign import load_campaign, run_campaign

    with one_line_errors(), campaign_warnings():
        campaign = load_campaign(spec, store=store)
        bar = not quiet and not as_json and err.is_terminal
        try:
            with progress_bar(enabled=bar, what="runs") as progress:
                if not quiet and not bar:
                    progress = ProgressLog(campaign.name)
                outcome = run_campaign(
                    campaign, jobs=jobs, scheduler=scheduler, retry_failed=retry_failed, limit=limit, progress=progress
                )
        except KeyboardInterrupt:
            err.print("interrupted: finished runs are stored; run the same command again to resume", markup=False)
            raise typer.Exit(130) from None
    summary = {
        "campaign": campaign.name,
        "store": str(campaign.store),
        "runs": outcome.total,
        "already_stored": outcome.skipped,
        "executed": len(outcome.executed),
        "failed": len(outcome.failed),
        "lost": [{"run_id": run_id, "error": error} for run_id, error in outcome.lost],
    }
    if as_json:
        print(json.dumps(summary, indent=2, sort_keys=True))
    elif not quiet:
        out.print(
            f"{campaign.name}: {outcome.total} runs, {outcome.skipped} already stored, "
            f"{len(outcome.executed)} run now ({len(outcome.failed)} failed); results in {campaign.store}",
            markup=False,
        )
        if outcome.failed:
            out.print(f"see the errors with: schedlab campaign status {spec} --failed", markup=False)
    if outcome.lost:
        err.print(
            f"error: {len(outcome.lost)} runs lost (worker died), e.g. {outcome.lost[0][1]}; run again to retry them",
            markup=False,
        )
        raise typer.Exit(1)


class ProgressLog:
    """Progress of ``campaign run`` as plain lines on stderr when it is not a terminal (a log file, a batch
    job): ``name: 120/2,000 runs stored (3 failed), 1m20s, about 20m left``, at each tenth of the runs and
    at least every ``every`` seconds, so a log shows a campaign is alive without drowning in lines."""

    def __init__(self, name: str, every: float = 60.0) -> None:
        self.name = name
        self.every = every
        self.began = self.last = time.monotonic()
        self.tenth = 0
        self.failed = 0

    def __call__(self, done: int, total: int, row: dict) -> None:
        now = time.monotonic()
        self.failed += row.get("state") == "failed"
        tenth = 10 * done // max(total, 1)
        if tenth == self.tenth and now - self.last < self.every and done != total:
            return
        self.tenth, self.last = tenth, now
        elapsed = now - self.began
        left = f", about {_clock(elapsed / done * (total - done))} left" if done < total else ""
        err.print(
            f"{self.name}: {done:,}/{total:,} runs stored ({self.failed:,} failed), {_clock(elapsed)}{left}",
            markup=False,
            soft_wrap=True,
        )


def _clock(seconds: float) -> str:
    """``42s``, ``3m05s``, ``2h07m``."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


@contextmanager
def campaign_warnings() -> Iterator[None]:
    """Print each :class:`~schedlab.campaign.expand.CampaignWarning` raised in the block as one line on stderr
    (``warning: ...``), once."""
    from schedlab.campaign.expand import CampaignWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CampaignWarning)
        try:
            yield
        finally:
            for message in dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, CampaignWarning)):
                err.print(f"warning: {message}", markup=False, soft_wrap=True)


@campaign_app.command("status")
def campaign_status(
    spec: SpecArg,
    store: StoreOpt = None,
    failed: Annotated[bool, typer.Option("--failed", help="List the failed runs and their errors.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Count the runs of SPEC that are done, failed and pending, per workload and policy."""
    from schedlab.campaign import Store, campaign_results, expand, load_campaign

    with one_line_errors(), campaign_warnings():
        campaign = load_campaign(spec, store=store)
        runs = expand(campaign)
        stored = Store(campaign.store)
        states = stored.states()
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for config in runs:
        state = states.get(config.run_id, "pending")
        bucket = counts.setdefault((config.workload, config.label), {"done": 0, "failed": 0, "pending": 0})
        bucket[state] += 1
    totals = {key: sum(bucket[key] for bucket in counts.values()) for key in ("done", "failed", "pending")}
    errors = []
    if failed and totals["failed"]:
        failed_runs = [config for config in runs if states.get(config.run_id) == "failed"]
        table = campaign_results(campaign, failed_runs)
        errors = table.select(["run_id", "workload", "label", "window_index", "error"]).to_pylist()
    if as_json:
        result = {
            "campaign": campaign.name,
            "store": str(campaign.store),
            "runs": len(runs),
            **totals,
            "groups": [{"workload": w, "label": lab, **bucket} for (w, lab), bucket in counts.items()],
        }
        if failed:
            result["failed_runs"] = errors
        print(json.dumps(result, indent=2, sort_keys=True))
        return
    table = Table("workload", "policy", "done", "failed", "pending", title=f"{campaign.name} ({campaign.store})")
    for (workload, label), bucket in counts.items():
        table.add_row(workload, label, *(str(bucket[key]) for key in ("done", "failed", "pending")))
    table.add_section()
    table.add_row("all", "", *(str(totals[key]) for key in ("done", "failed", "pending")))
    out.print(table)
    for record in errors:
        out.print(
            f"{record['run_id']} {record['workload']} {record['label']} window {record['window_index']}: {record['error']}",
            markup=False,
        )


@campaign_app.command("query")
def campaign_query(
    spec: SpecArg,
    sql: Annotated[
        str,
        typer.Argument(help="DuckDB SQL over the table `runs` (one row per stored run of SPEC); read-only, no files."),
    ],
    store: StoreOpt = None,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON records instead of a table.")] = False,
) -> None:
    """Query the stored results of SPEC with DuckDB SQL; the table is named `runs`. Read-only: a query
    cannot read or write files (COPY ... TO, EXPORT, ATTACH are refused); print --csv or --json instead."""
    from schedlab.campaign import campaign_results, load_campaign, query

    with one_line_errors(), campaign_warnings():
        campaign = load_campaign(spec, store=store)
        result = query(campaign_results(campaign), sql)
    if as_csv:
        result.to_csv(sys.stdout, index=False)
    elif as_json:
        print(result.to_json(orient="records", indent=2))
    else:
        table = Table(*map(str, result.columns))
        for row in result.itertuples(index=False):
            table.add_row(*(_cell(value) for value in row))
        out.print(table)


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


@campaign_app.command("report")
def campaign_report(
    spec: SpecArg,
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Directory for summary.csv, runs.parquet, PNG plots and index.html.")
    ],
    store: StoreOpt = None,
    force: Annotated[bool, typer.Option(help="Write into a non-empty --out directory.")] = False,
    metric: Annotated[
        list[str], typer.Option("--metric", "-m", help="Metric to report, repeatable (default: the spec's `metrics`).")
    ] = [],
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline", "-b", help="Policy label to normalise to: metric / baseline's, per window and repetition."
        ),
    ] = None,
) -> None:
    """Write tables (mean, median, 95% CI), box plots per policy and one self-contained HTML page.

    With --baseline, also the ratios to that policy; with a numeric parameter grid, line plots over it.
    """
    from schedlab.campaign import load_campaign, metric_names
    from schedlab.campaign.report import write_report
    from schedlab.errors import InputError

    with one_line_errors(), campaign_warnings():
        campaign = load_campaign(spec, store=store)
        for name in metric:
            if name not in metric_names():
                raise InputError(
                    "--metric", field="--metric", value=name, expected=f"one of {', '.join(metric_names())}"
                )
        written = write_report(campaign, out_dir, force=force, metrics=metric or None, baseline=baseline)
    err.print(f"wrote {len(written)} files to {out_dir} (open {out_dir / 'index.html'})", markup=False)
