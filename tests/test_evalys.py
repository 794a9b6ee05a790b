"""evalys (Batsim's analysis library) reads our jobs.csv and draws its detailed Gantt chart of it.

evalys is in the test extra; the test skips only where it cannot be imported.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.output import read_jobs_csv

jobset = pytest.importorskip("evalys.jobset")


def test_evalys_reads_and_plots_our_jobs_csv_with_details(tmp_path, data_dir):
    out = tmp_path / "run"
    args = ["simulate", str(data_dir / "quirks.swf"), "--policy", "easy", "--out", str(out), "-q"]
    assert CliRunner().invoke(app, args).exit_code == 0
    js = jobset.JobSet.from_csv(str(out / "jobs.csv"))
    ours = read_jobs_csv(out / "jobs.csv")
    assert len(js.df) == len(ours) == 4
    assert set(js.df["workload_name"]) == {"quirks"}
    assert js.df["waiting_time"].tolist() == ours["waiting_time"].tolist()
    widest = max(int(text.split()[-1].split("-")[-1]) for text in ours["allocated_resources"])
    assert js.MaxProcs == widest + 1  # evalys's machine size: the largest allocated id + 1
    js.plot(with_details=True)  # labels jobs by workload_name and job id: failed before that column
    figure = plt.gcf()
    assert len(figure.axes) >= 2  # the Gantt chart and the details (queue, utilization)
    plt.close("all")
