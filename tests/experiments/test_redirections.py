"""Seed 004 through campaigns: tasks workloads, the redirections experiment, Table I and the claims checker.

Spec 004-redirections sections 4 (instances), 5 (Tables I-II, claims), 7 (A7, A9) and 8.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab import run
from schedlab.campaign import campaign_results, expand, load_campaign, run_campaign
from schedlab.experiments.redirections import LABELS, TRACES, check_claims, table_one, tuned_table
from schedlab.metrics import job_metrics
from schedlab.runner import tasks_instance
from schedlab.workload.tasks import load_tasks

DAY = 86400.0


def task_trace(path, *, n_jobs: int = 120, days: float = 5.0, procs: int = 64, seed: int = 3) -> None:
    """An SWF trace with status fields: mostly completed jobs (status 1), a few failed (0) ones."""
    rng = np.random.default_rng(seed)
    submit = np.sort(np.floor(rng.uniform(0, days * DAY, n_jobs)))
    run_time = np.floor(rng.exponential(2 * 3600, n_jobs)) + 1
    size = rng.integers(1, procs // 4 + 1, n_jobs)
    status = np.where(rng.uniform(size=n_jobs) < 0.1, 0, 1)
    lines = [f"; MaxProcs: {procs}"]
    for i in range(n_jobs):
        fields = [
            i + 1,
            int(submit[i]),
            0,
            int(run_time[i]),
            int(size[i]),
            -1,
            -1,
            int(size[i]),
            int(run_time[i]) * 2,
            -1,
            int(status[i]),
            1,
            1,
            -1,
            1,
            -1,
            -1,
            -1,
        ]
        lines.append(" ".join(map(str, fields)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def tasks_trace(tmp_path):
    path = tmp_path / "tasks.swf"
    task_trace(path)
    return path


def write_spec(tmp_path, body: str, name: str = "tasks"):
    path = tmp_path / f"{name}.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


SPEC = """
    seed = 5
    [[workloads]]
    name = "toy"
    trace = "tasks.swf"
    windows = {{ sample = "random", count = 1, length = "2d" }}
    tasks = {{ conversion = "C"{extra} }}

    [[policies]]
    name = "gspt-rd"
    params = {{ dedicated = 1, tau = 2 }}

    [[policies]]
    name = "spt"

    [[policies]]
    name = "gspt-rr"
    params = {{ dedicated = 2, c = 0.5 }}
"""


def test_task_runs_equal_load_tasks_and_run(tmp_path, tasks_trace):
    """Each stored row holds what load_tasks (same window length and seed) + schedlab.run measure (spec 4, A9)."""
    campaign = load_campaign(write_spec(tmp_path, SPEC.format(extra="")), store=tmp_path / "store")
    outcome = run_campaign(campaign, jobs=1)
    assert len(outcome.executed) == 3 and not outcome.failed
    table = campaign_results(campaign).to_pandas().set_index("run_id")
    tasks, _ = load_tasks(tasks_trace, window=2 * DAY, seed=5)
    for config in expand(campaign):
        row = table.loc[config.run_id]
        assert (row["window_start"], row["window_end"]) == tasks.window
        params = dict(config.params)
        if "dedicated" in params:  # as the campaign clamps it (A7)
            params["dedicated"] = min(params["dedicated"], tasks.n_procs - 1)
            assert row["dedicated_used"] == params["dedicated"]
        direct = run(tasks_instance(tasks), config.policy, params, seed=config.seed)
        for name in ("n_jobs", "n_aborted", "response_max", "bsld_unclamped_mean", "makespan"):
            assert row[name] == pytest.approx(direct.metrics[name]), name
        flow = job_metrics(tasks_instance(tasks), direct.schedule)["response"]
        stretch = flow / np.maximum(tasks.jobs.run_time, 10.0)
        assert row["n_procs"] == tasks.n_procs
        assert row["mean_procs"] == pytest.approx(tasks.mean_procs)
        assert row["task_load"] == pytest.approx(tasks.load)
        assert row["flow_sum"] == pytest.approx(flow.sum())
        assert row["flow_max"] == pytest.approx(flow.max())
        assert row["flow_l2"] == pytest.approx(math.sqrt((flow**2).sum()))
        assert row["stretch_sum"] == pytest.approx(stretch.sum())
        assert row["stretch_max"] == pytest.approx(direct.metrics["bsld_unclamped_max"])
        assert row["stretch_l2"] == pytest.approx(direct.metrics["bsld_unclamped_l2"])
        wasted = sum(p.end - p.start for p in direct.schedule.aborted if not p.kept)
        assert row["wasted_work"] == pytest.approx(wasted)
        assert row["n_aborted"] == sum(1 for p in direct.schedule.aborted if not p.kept)


def test_task_key_only_for_task_workloads(tmp_path, tasks_trace):
    """The tasks table enters the run id; other workloads keep the key (and id) they had."""
    with_tasks = expand(load_campaign(write_spec(tmp_path, SPEC.format(extra=""))))
    assert all(
        dict(c.key()["tasks"]) == {"conversion": "C", "rounding": "round", "clamp_dedicated": True} for c in with_tasks
    )
    plain = write_spec(tmp_path, SPEC.format(extra="").replace('    tasks = { conversion = "C" }\n', ""), "plain")
    for config in expand(load_campaign(plain)):
        assert "tasks" not in config.key()
    floor = expand(load_campaign(write_spec(tmp_path, SPEC.format(extra=', rounding = "floor"'), "floor")))
    assert {c.run_id for c in floor}.isdisjoint(c.run_id for c in with_tasks)


def test_dedicated_clamped_to_m_inst_minus_one(tmp_path, tasks_trace):
    """Spec A7: m_d > m_inst - 1 runs with m_inst - 1, recorded in dedicated_used; unclamped it fails."""
    body = SPEC.format(extra="").replace("dedicated = 1, tau = 2", "dedicated = 500, tau = 2")
    campaign = load_campaign(write_spec(tmp_path, body), store=tmp_path / "clamped")
    run_campaign(campaign, jobs=1)
    table = campaign_results(campaign).to_pandas()
    row = table[table["policy"] == "gspt-rd"].iloc[0]
    assert row["state"] == "done" and row["dedicated_used"] == row["n_procs"] - 1
    assert row["param_dedicated"] == "500"
    body = SPEC.format(extra=", clamp_dedicated = false").replace("dedicated = 1, tau = 2", "dedicated = 500, tau = 2")
    campaign = load_campaign(write_spec(tmp_path, body, "strict"), store=tmp_path / "strict")
    run_campaign(campaign, jobs=1)
    table = campaign_results(campaign).to_pandas()
    assert table.loc[table["policy"] == "gspt-rd", "state"].item() == "failed"


def test_tasks_workload_rejects_other_status(tmp_path, tasks_trace):
    from schedlab.errors import InputError

    body = SPEC.format(extra="").replace('    name = "toy"\n', '    name = "toy"\n    status = 0\n')
    with pytest.raises(InputError, match=r"workloads\[0\]\.status"):
        load_campaign(write_spec(tmp_path, body))


def test_table_one_by_hand(tmp_path):
    """Three completed jobs (q = 2, 4, 2; e = 100, 50, 10 s) and a failed one on 8 processors, one 1-day period:
    Q = 8/3, m_inst = round(8 / Q) = 3, p = 75, 75, 7.5, load = 157.5 / (3 x 20 s) = 2.625."""
    trace = tmp_path / "hand.swf"
    rows = [(1, 0, 100, 2, 1), (2, 10, 50, 4, 1), (3, 15, 40, 8, 0), (4, 20, 10, 2, 1)]
    trace.write_text(
        "; MaxProcs: 8\n"
        + "".join(f"{i} {s} 0 {e} {q} -1 -1 {q} {2 * e} -1 {st} 1 1 -1 1 -1 -1 -1\n" for i, s, e, q, st in rows)
    )
    spec = write_spec(
        tmp_path,
        """
        [[workloads]]
        name = "hand"
        trace = "hand.swf"
        windows = { sample = "periods", length = "1d" }
        tasks = {}

        [[policies]]
        name = "gspt"
        label = "GSPT"
    """,
    )
    campaign = load_campaign(spec, store=tmp_path / "store")
    run_campaign(campaign, jobs=1)
    results = campaign_results(campaign).to_pandas()
    assert results["flow_sum"].item() == pytest.approx(75 + 75 + 7.5)  # GSPT on 3 processors: no waiting, F = p
    one = table_one(results, {"hand": {"n_jobs": 3, "procs": 8, "days": 20 / DAY}}).iloc[0]
    assert one["tasks_inst"] == 3 and one["procs_inst"] == 3 and one["windows"] == 1
    assert one["mean_Q"] == pytest.approx(8 / 3)
    assert one["load"] == pytest.approx(2.625)
    assert one["days_inst"] == pytest.approx(1.0)
    assert one["span_days_inst"] == pytest.approx(20 / DAY)
    assert one["tasks_trace"] == 3 and one["procs_trace"] == 8
    assert math.isnan(one["paper_tasks_inst"])


def test_fixed_m_inst(tmp_path):
    """Spec A18 ``fixed:<k>``: the same tasks on m_inst = 5 processors, load 157.5 / (5 x 20 s) = 1.575."""
    trace = tmp_path / "hand.swf"
    trace.write_text(
        "; MaxProcs: 8\n0 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n"
        "1 10 0 50 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n2 20 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    spec = write_spec(
        tmp_path,
        """
        [[workloads]]
        trace = "hand.swf"
        tasks = { m_inst = 5 }

        [[policies]]
        name = "spt"
    """,
    )
    campaign = load_campaign(spec, store=tmp_path / "store")
    assert dict(expand(campaign)[0].tasks)["m_inst"] == 5
    run_campaign(campaign, jobs=1)
    row = campaign_results(campaign).to_pandas().iloc[0]
    assert (
        row["n_procs"] == 5 and row["task_load"] == pytest.approx(1.575) and row["mean_procs"] == pytest.approx(8 / 3)
    )


# ---------------------------------------------------------------- claims on a synthetic table

STRETCH = {  # per label: Curie, HPC2N total stretch on window 0 (window w multiplies by 1 + w)
    "FCFS": (1000, 110),
    "GSPT": (250, 100),
    "SPT": (300, 100),
    "SRPT": (100, 40),
    "GSRPT": (120, 45),
    "GSPT-RD": (100, 50),
    "SPT-RD": (400, 60),
    "GSPT-RR": (150, 80),
    "SPT-RR": (200, 120),
}
FLOW = {"SPT": (1100, 1000), "SRPT": (1000, 900), "GSRPT": (1000, 900)}  # others: 1000 for bases, 1500 for variants


def synthetic_results(windows: int = 4) -> pd.DataFrame:
    rows = []
    for t, workload in enumerate(("Curie", "HPC2N")):
        for w in range(windows):
            for label in LABELS:
                s = STRETCH[label][t] * (1 + w)
                f = FLOW.get(label, (1500, 1500) if "-R" in label else (1000, 1000))[t] * (1 + w)
                rows.append(
                    {
                        "workload": workload,
                        "window_index": w,
                        "repetition": 0,
                        "label": label,
                        "state": "done",
                        "policy": label.lower(),
                        "stretch_max": s,
                        "stretch_sum": s,
                        "stretch_l2": s,
                        "flow_max": f,
                        "flow_sum": f,
                        "flow_l2": f,
                    }
                )
    return pd.DataFrame(rows)


def synthetic_tuning() -> pd.DataFrame:
    """SPT-RD grids: Curie stretch = 10 m_d, flow = 100 - m_d; LLNL-Thunder stretch = tau, flow = 10 - tau."""
    rows = []
    for workload in ("Curie", "LLNL-Thunder"):
        for d in range(1, 9):
            for tau in (1, 2, 3):
                s, f = (10.0 * d, 100.0 - d) if workload == "Curie" else (float(tau), 10.0 - tau)
                rows.append(
                    {
                        "workload": workload,
                        "window_index": 0,
                        "state": "done",
                        "policy": "spt-rd",
                        "param_dedicated": str(d),
                        "param_tau": str(tau),
                        "stretch_sum": s,
                        "flow_sum": f,
                    }
                )
    return pd.DataFrame(rows)


def test_claims_on_known_table():
    claims = {c.number: c for c in check_claims(synthetic_results(), synthetic_tuning())}
    assert claims[1].verdict == "holds"
    assert "rises on 12/12" in claims[1].evidence[0] and "falls on 12/12" in claims[1].evidence[0]
    assert claims[2].verdict == "holds"  # SPT / SRPT: stretch 3.0, flow 1.1
    assert "stretch_sum 3.000" in claims[2].evidence[0] and "flow_sum 1.100" in claims[2].evidence[0]
    assert claims[3].verdict == "holds"
    assert any(
        "GSPT-RD vs GSPT: max: lower on 4/4 windows, median change -60.0%" in line for line in claims[3].evidence
    )
    assert claims[4].verdict == "holds" and "3/4 (trace, variant) pairs" in claims[4].evidence[-1]
    assert claims[5].verdict == "partly" and "1/2 traces" in claims[5].evidence[-1]  # Curie 4x, HPC2N 1.1x
    assert claims[6].verdict == "holds"
    assert "on 6/8 (trace, variant) pairs; RD below RR on 3/4" in claims[6].evidence[-1]


def test_claims_not_measurable_without_data():
    hpc2n = synthetic_results()
    hpc2n = hpc2n[hpc2n["workload"] == "HPC2N"]
    claims = {c.number: c.verdict for c in check_claims(hpc2n)}
    assert claims[1] == claims[2] == claims[3] == "not measurable"
    assert claims[4] == "holds"
    assert claims[5] == "fails"


def test_table_ii_parameters_in_campaigns(tmp_path):
    """The written campaigns carry Table II's parameters (spec section 5) and the preemptive references when registered."""
    from schedlab.experiments.redirections import Plan, write_campaigns
    from schedlab.registry import ALGORITHMS

    plan = Plan(("KTH-SP2",), 2, {"KTH-SP2": 15.0}, True, 0, tmp_path, skipped=())
    main, tuning = write_campaigns(tmp_path / "out", plan)
    text = main[0].read_text()
    assert 'label = "SPT-RD"\nparams = { dedicated = 8, tau = 1 }' in text
    assert 'label = "GSPT-RR"\nparams = { dedicated = 3, b = 0.02, c = 0.8 }' in text
    assert "tau = [1, 2, 3, 4, 5]" in tuning[0].read_text()
    assert TRACES["Curie"].tau_max == 10
    if "gsrpt" in ALGORITHMS:
        assert 'label = "GSRPT"' in text
    assert "m_inst" not in text and "count_if_idle" not in text
    variant = Plan(
        ("KTH-SP2",), 2, {"KTH-SP2": 15.0}, False, 0, tmp_path, skipped=(), m_mode="table1", count_if_idle=True
    )
    text = write_campaigns(tmp_path / "variant", variant)[0][0].read_text()
    assert "m_inst = 12 }" in text  # Table I: KTH-SP2 instances on 12 processors
    assert 'label = "GSPT-RD"\nparams = { dedicated = 7, tau = 1, count_if_idle = true }' in text


def test_quick_cli_writes_its_files(tmp_path):
    """``schedlab reproduce redirections --quick`` on two small synthetic traces named as the paper's."""
    from schedlab.cli import app

    traces = tmp_path / "traces"
    traces.mkdir()
    for name, seed in (("KTH-SP2", 1), ("HPC2N", 2)):
        task_trace(traces / TRACES[name].file.removesuffix(".gz"), n_jobs=60, days=40, seed=seed)
        import gzip

        raw = (traces / TRACES[name].file.removesuffix(".gz")).read_bytes()
        (traces / TRACES[name].file).write_bytes(gzip.compress(raw, mtime=0))
    out = tmp_path / "report"
    result = CliRunner().invoke(
        app,
        [
            "reproduce",
            "redirections",
            "--out",
            str(out),
            "--quick",
            "--windows",
            "2",
            "--traces",
            str(traces),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    for name in (
        "table1.csv",
        "metrics.csv",
        "runs.csv",
        "claims.md",
        "summary.md",
        "summary.html",
        "experiment.json",
        "fig-KTH-SP2.png",
        "fig-HPC2N.png",
        "campaigns/KTH-SP2.toml",
    ):
        assert (out / name).is_file(), name
    metrics = pd.read_csv(out / "metrics.csv")
    assert set(metrics["workload"]) == {"KTH-SP2", "HPC2N"}
    assert {"GSPT", "SPT", "GSPT-RD", "SPT-RD", "GSPT-RR", "SPT-RR", "FCFS"} <= set(metrics["label"])
    assert (metrics["n"] <= 2).all()
    assert (out / "claims.md").read_text().count("**Verdict:") == 6
    again = CliRunner().invoke(
        app, ["reproduce", "redirections", "--out", str(out), "--quick", "--traces", str(traces)]
    )
    assert again.exit_code == 1 and "not empty" in again.output


def _image(data: bytes):
    import io

    import matplotlib.image

    return matplotlib.image.imread(io.BytesIO(data), format="png")


def test_tuning_figure_and_bars_draw_both_panels():
    """Fig. 3 style lines over m_d (one per tau: two panels, stretch and flow) and Figs 4-10 style bars; a
    policy without a tuning grid gives no figure."""
    from schedlab.experiments.redirections import bar_figure, tuning_figures

    lines = _image(tuning_figures(synthetic_tuning(), "Curie", "spt-rd"))
    assert lines.shape[:2] == (380, 1000)
    left, right = lines[:, :500], lines[:, 500:]
    assert left.std() > 0.05 and right.std() > 0.05  # both panels are drawn
    assert tuning_figures(synthetic_tuning(), "Curie", "gspt-rd") is None
    bars = _image(bar_figure(synthetic_results(), "HPC2N"))
    assert bars.shape[0] > 300 and bars.std() > 0.05
    assert bar_figure(synthetic_results(), "HPC2N") == bar_figure(synthetic_results(), "HPC2N")  # same bytes


def test_tuned_table_picks_the_best_grid_point_and_the_papers():
    """Curie SPT-RD: total stretch (d - 3)^2 + tau on window 0, 2 more on window 1: best m_d 3, tau 1 (mean 2);
    the paper's (10, 10) gets 49 + 10 + 1 = 60 here. GSPT-RR: 10 c - m_d: best m_d 10, c 0.2 (mean -8); the
    paper's (10, 0.8) gets -2. Constant metrics tie: the first grid point wins."""
    rows = []
    for window in (0, 1):
        for d in range(1, 11):
            for tau in range(1, 11):
                rows.append(
                    {
                        "workload": "Curie",
                        "window_index": window,
                        "state": "done",
                        "policy": "spt-rd",
                        "param_dedicated": d,
                        "param_tau": tau,
                        "param_c": math.nan,
                        "stretch_sum": (d - 3) ** 2 + tau + 2 * window,
                        "stretch_max": 1.0,
                        "flow_sum": 1.0,
                    }
                )
            for c in (0.2, 0.8):
                rows.append(
                    {
                        "workload": "Curie",
                        "window_index": window,
                        "state": "done",
                        "policy": "gspt-rr",
                        "param_dedicated": d,
                        "param_tau": math.nan,
                        "param_c": c,
                        "stretch_sum": 10 * c - d,
                        "stretch_max": 1.0,
                        "flow_sum": 1.0,
                    }
                )
    rows.append({**rows[0], "state": "failed", "stretch_sum": -1e9})  # not done: ignored
    frame = pd.DataFrame(rows)
    for column in ("param_dedicated", "param_tau", "param_c"):  # as the store gives them: text
        frame[column] = frame[column].map(lambda v: "" if v != v else str(v)).replace("", None)
    table = tuned_table(frame).set_index(["label", "metric"])
    rd = table.loc[("SPT-RD", "stretch_sum")]
    assert (rd["parameter"], rd["dedicated"], rd["value"], rd["mean"]) == ("tau", 3, 1.0, 2.0)
    assert (rd["paper_dedicated"], rd["paper_value"], rd["mean_at_paper"]) == (10, 10, 60.0)
    rr = table.loc[("GSPT-RR", "stretch_sum")]
    assert (rr["parameter"], rr["dedicated"], rr["value"], rr["mean"]) == ("c", 10, 0.2, -8.0)
    assert rr["mean_at_paper"] == pytest.approx(-2.0)
    tie = table.loc[("SPT-RD", "flow_sum")]
    assert (tie["dedicated"], tie["value"]) == (1, 1.0)
    assert list(table.index.get_level_values("label").unique()) == ["SPT-RD", "GSPT-RR"]  # the paper's variant order


TABLE_ONE_M = {
    "Curie": 80640,
    "HPC2N": 240,
    "KTH-SP2": 100,
    "LLNL-Thunder": 4096,
    "Metacentrum": 806,
    "RICC": 8192,
    "SDSC-Blue-4.1": 1152,
}
"""Lucarelli, Mendonca and Trystram (2017), Table I: the machine size m of each trace."""


def test_every_trace_is_read_on_table_one_machine_size(tmp_path):
    """Each trace's workload carries Table I's m as its ``procs`` (not the log header's: Curie's says 93,312,
    LLNL-Thunder's 4,008), so conversion C runs on round(m/Q) of Table I's m."""
    import tomllib

    from schedlab.experiments.redirections import Plan, write_campaigns

    assert {name: info.table1[0] for name, info in TRACES.items()} == TABLE_ONE_M  # all 7 of the paper
    names = tuple(TABLE_ONE_M)
    plan = Plan(names, 2, {n: TRACES[n].days for n in names}, False, 0, tmp_path, skipped=())
    main, _ = write_campaigns(tmp_path / "out", plan)
    for name, path in zip(names, main):
        [workload] = tomllib.loads(path.read_text())["workloads"]
        assert workload["procs"] == TABLE_ONE_M[name], name


def test_table_one_machine_size_drives_conversion(tmp_path, tasks_trace):
    """A tasks workload read with ``procs`` (Table I's m) converts on round(procs / Q), not on the header's."""
    from schedlab.campaign.expand import task_jobs

    header, _ = task_jobs(str(tasks_trace))
    wider, report = task_jobs(str(tasks_trace), procs=640)
    assert header.platform.n_procs == 64 and wider.platform.n_procs == report.machine_procs == 640
    assert len(wider.jobs) == len(header.jobs)


@pytest.mark.parametrize(("name", "kept"), [("Metacentrum", 86586), ("SDSC-Blue-4.1", 195587), ("LLNL-Thunder", 97875)])
def test_table_one_task_counts_on_the_real_traces(traces_dir, name, kept):
    """Status 1, run time > 0, 0 < q <= Table I's m keeps exactly Table I's #tasks of the whole trace
    (Metacentrum has no header: 806 processors from Table I)."""
    from schedlab.campaign.expand import task_jobs

    info = TRACES[name]
    instance, report = task_jobs(str(traces_dir / info.file), procs=info.table1[0])
    assert len(instance.jobs) == info.table1[1] == kept and report.machine_procs == info.table1[0]
