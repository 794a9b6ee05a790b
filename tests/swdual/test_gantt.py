"""The predicted-vs-measured Gantt chart is drawn from a report, one row per worker in each panel."""

from __future__ import annotations

import matplotlib.image

from schedlab.swdual.gantt import plot_search_gantt


def _report(workers: int) -> dict:
    names = [f"cpu{i}" for i in range(workers)]
    tasks = [
        {
            "query": f"q{j}",
            "planned_worker": names[j % workers],
            "worker": names[(j + 1) % workers],
            "predicted_start": float(j // workers),
            "predicted_end": float(j // workers + 1),
            "start": 0.1 + j // workers,
            "end": 1.2 + j // workers,
        }
        for j in range(6)
    ]
    return {
        "scheduler": "dual2",
        "workers": [{"name": n} for n in names],
        "tasks": tasks,
        "cells": 1e9,
        "gcups": 1.0,
        "idle_fraction": 0.05,
        "makespan": max(t["end"] for t in tasks),
        "predicted_makespan": max(t["predicted_end"] for t in tasks),
    }


def test_height_grows_with_workers(tmp_path):
    """figsize height 1.6 + 0.5 x 2 x workers inches at 120 dpi: 432 px for 2 workers, 672 px for 4."""
    heights = []
    for workers in (2, 4):
        path = tmp_path / f"g{workers}.png"
        plot_search_gantt(_report(workers), path)
        heights.append(matplotlib.image.imread(path).shape[0])
    assert heights == [432, 672]


def test_plan_only_has_one_panel(tmp_path):
    """Without measured times only the predicted panel: 1.6 + 0.5 x 2 inches at 120 dpi = 312 px."""
    report = _report(2)
    report["tasks"] = [{k: v for k, v in t.items() if k not in ("start", "end", "worker")} for t in report["tasks"]]
    plot_search_gantt(report, tmp_path / "plan.png")
    assert matplotlib.image.imread(tmp_path / "plan.png").shape[0] == 312
