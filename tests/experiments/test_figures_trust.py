"""No bar chart on a log axis: the redirection study's figure draws dots with intervals (issue 17, point 5)."""

from __future__ import annotations

from matplotlib.patches import Rectangle

from experiments.test_redirections import synthetic_results
from schedlab.campaign.report import summarize
from schedlab.experiments import redirections


def test_bar_figure_draws_means_as_dots_never_bars_on_a_log_axis(monkeypatch):
    monkeypatch.setattr(redirections, "png", lambda figure: figure)
    results = synthetic_results()
    figure = redirections.bar_figure(results, "HPC2N")
    done = redirections.finished_runs(results)
    here = done[done["workload"] == "HPC2N"]
    labels = [label for label in redirections.LABELS if (here["label"] == label).any()]
    stats = summarize(here, list(redirections.METRICS), order=labels)
    for ax, metric in zip(figure.axes, redirections.METRICS):
        bars = [p for p in ax.patches if isinstance(p, Rectangle)]
        assert not (ax.get_yscale() == "log" and bars)
        dots = [line for line in ax.get_lines() if line.get_marker() == "o"]
        drawn = [float(line.get_ydata()[0]) for line in dots]
        assert drawn == stats[stats["metric"] == metric]["mean"].tolist()
