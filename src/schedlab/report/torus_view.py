"""A picture of a torus at one instant: which job holds which node, as 3-D voxels.

Source: Krevat (2003), chapter 1 (partitions of the BlueGene/L torus as
boxes of supernodes); the drawing is ours. The HTML page (plotly) draws each
node as a cube, one colour and one legend entry per job, the job id, its
node's coordinates and its box in the hover text, free nodes as faint grey
cubes; it embeds plotly.js, so it opens offline. The PNG (matplotlib's
``voxels``) is the same view from one angle, for reports.

Cost: O(N) cubes for N nodes (12 triangles each in the HTML).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from schedlab.errors import InputError
from schedlab.output import read_jobs_csv
from schedlab.platform.intervals import parse_allocation
from schedlab.platform.torus import Torus, parse_torus
from schedlab.report.figures import pyplot

__all__ = ["job_colours", "run_occupancy", "torus_html", "torus_png"]

_GAP = 0.15  # space between neighbouring cubes, in node units

# the 12 triangles of a unit cube over its 8 corners (corner bits: x, y, z)
_CORNERS = np.array([[(c >> 0) & 1, (c >> 1) & 1, (c >> 2) & 1] for c in range(8)], dtype=float)
_TRIANGLES = np.array(
    [
        (0, 1, 3),
        (0, 3, 2),
        (4, 6, 7),
        (4, 7, 5),  # z = 0, z = 1
        (0, 4, 5),
        (0, 5, 1),
        (2, 3, 7),
        (2, 7, 6),  # y = 0, y = 1
        (0, 2, 6),
        (0, 6, 4),
        (1, 5, 7),
        (1, 7, 3),  # x = 0, x = 1
    ]
)


def run_occupancy(run_dir: str | os.PathLike, at: float) -> tuple[Torus, dict[int, int], dict[int, str]]:
    """Which job holds which node of a run's torus at time ``at``: ``(torus, owners, boxes)``.

    Reads the run directory ``schedlab simulate --out`` wrote: ``metrics.json``
    (its platform, which must be a torus), ``jobs.csv`` (each job's final
    allocation, from its start or its last move to its end) and, when jobs
    were migrated, ``moves.csv`` (the placements they left). A job holds its
    nodes over ``[from, to)``; the second before a job's start, when the
    scheduler already holds its partition, is not drawn.

    Returns
    -------
    torus : Torus
    owners : dict of node id to job id
    boxes : dict of job id to its box, as text (``2x2x4 at (0, 1, 4)``)

    Raises
    ------
    InputError
        A missing file, or a run whose platform is not a torus.
    """
    run_dir = Path(run_dir)
    metrics_path, jobs_path, moves_path = run_dir / "metrics.json", run_dir / "jobs.csv", run_dir / "moves.csv"
    for path in (metrics_path, jobs_path):
        if not path.is_file():
            raise InputError(str(path), message="no such file (a run directory written by schedlab simulate --out)")
    spec = json.loads(metrics_path.read_text(encoding="utf-8")).get("run", {}).get("platform") or ""
    if not spec.startswith("torus:"):
        raise InputError(
            str(metrics_path), field="run.platform", value=spec or None, expected="a torus (torus:DXxDYxDZ)"
        )
    torus = parse_torus(spec, source=str(metrics_path))
    jobs = read_jobs_csv(jobs_path)
    spans: list[tuple[int, float, float, str]] = []
    placed: dict[int, float] = {}
    if moves_path.is_file():
        moves = pd.read_csv(moves_path, dtype={"allocated_resources": str}, keep_default_na=False)
        for row in moves.itertuples(index=False):
            job = int(row.job_id)
            spans.append((job, float(row.starting_time), float(row.finish_time), row.allocated_resources))
            placed[job] = max(placed.get(job, -np.inf), float(row.finish_time))
    for row in jobs.itertuples(index=False):
        if row.allocated_resources:
            job = int(row.job_id)
            spans.append(
                (job, placed.get(job, float(row.starting_time)), float(row.finish_time), row.allocated_resources)
            )
    owners: dict[int, int] = {}
    boxes: dict[int, str] = {}
    for job, begin, end, text in spans:
        if begin <= at < end:
            alloc = parse_allocation(text)
            for lo, hi in alloc:
                for node in range(lo, hi):
                    owners[node] = job
            box = torus.box_of_allocation(alloc)
            boxes[job] = str(box) if box is not None else text
    return torus, owners, boxes


def job_colours(job_ids) -> dict[int, str]:
    """One colour per job (tab20 cycled, in ascending job-id order): the same job, the same colour."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps["tab20"]
    return {job: to_hex(cmap(i % cmap.N)) for i, job in enumerate(sorted(set(job_ids)))}


def _cubes(torus: Torus, nodes: list[int]):
    """Vertices and triangles of one cube per node, for a plotly Mesh3d."""
    coords = np.array([torus.coords(v) for v in nodes], dtype=float).reshape(-1, 3)
    size = 1.0 - _GAP
    verts = (coords[:, None, :] + _GAP / 2 + _CORNERS[None, :, :] * size).reshape(-1, 3)
    tris = (_TRIANGLES[None, :, :] + 8 * np.arange(len(nodes))[:, None, None]).reshape(-1, 3)
    return verts, tris


def torus_html(
    torus: Torus,
    owners: dict[int, int],
    out_html: str | os.PathLike,
    *,
    title: str = "",
    boxes: dict[int, str] | None = None,
) -> None:
    """Write a self-contained HTML page drawing ``torus`` with each node coloured by the job holding it.

    Parameters
    ----------
    torus : Torus
    owners : dict of node id to job id
        The allocated nodes; the others are drawn as free.
    out_html : path
    title : str
        Page and figure title (e.g. the run and the time).
    boxes : dict of job id to str, optional
        A description of each job's partition for the hover text (e.g. ``"2x2x4 at (0, 1, 4)"``).
    """
    import plotly.graph_objects as go

    colours = job_colours(owners.values())
    by_job: dict[int, list[int]] = {}
    for node in sorted(owners):
        by_job.setdefault(owners[node], []).append(node)
    free = [v for v in range(torus.n_procs) if v not in owners]
    traces = []
    if free:
        verts, tris = _cubes(torus, free)
        traces.append(_mesh(go, verts, tris, "free", "#bbbbbb", 0.12, [torus.coords(v) for v in free], "free"))
    for job in sorted(by_job):
        nodes = by_job[job]
        verts, tris = _cubes(torus, nodes)
        label = f"job {job}" + (f"<br>{boxes[job]}" if boxes and job in boxes else "")
        traces.append(_mesh(go, verts, tris, f"job {job}", colours[job], 1.0, [torus.coords(v) for v in nodes], label))
    dx, dy, dz = torus.dims
    fig = go.Figure(traces)
    fig.update_layout(
        title=title or torus.name,
        scene={
            "xaxis": {"title": "x", "range": [0, dx], "dtick": 1},
            "yaxis": {"title": "y", "range": [0, dy], "dtick": 1},
            "zaxis": {"title": "z", "range": [0, dz], "dtick": 1},
            "aspectmode": "data",
            "camera": {"eye": {"x": 1.7, "y": 1.7, "z": 1.0}},
        },
        height=850,
        legend={"itemsizing": "constant"},
        margin={"l": 0, "r": 0, "t": 40, "b": 0},
    )
    fig.write_html(os.fspath(out_html), include_plotlyjs=True, full_html=True, div_id="torus")


def _mesh(go, verts, tris, name, colour, opacity, coords, label):
    """One Mesh3d of cubes; hovering a corner shows the label and the node's coordinates."""
    text = [f"{label}<br>node ({x}, {y}, {z})" for x, y, z in coords for _ in range(8)]
    return go.Mesh3d(
        x=verts[:, 0],
        y=verts[:, 1],
        z=verts[:, 2],
        i=tris[:, 0],
        j=tris[:, 1],
        k=tris[:, 2],
        name=name,
        color=colour,
        opacity=opacity,
        flatshading=True,
        showlegend=True,
        hovertext=text,
        hoverinfo="text",
    )


def torus_png(torus: Torus, owners: dict[int, int], out_png: str | os.PathLike, *, title: str = "") -> None:
    """The same view as :func:`torus_html` as a PNG (matplotlib voxels; free nodes are not drawn)."""
    plt = pyplot()

    colours = job_colours(owners.values())
    filled = np.zeros(torus.dims, dtype=bool)
    faces = np.empty(torus.dims, dtype=object)
    for node, job in owners.items():
        x, y, z = torus.coords(node)
        filled[x, y, z] = True
        faces[x, y, z] = colours[job]
    fig = plt.figure(figsize=(6, 6))
    ax = fig.add_subplot(projection="3d")
    ax.voxels(filled, facecolors=faces, edgecolor="#333333", linewidth=0.3)
    ax.set(xlabel="x", ylabel="y", zlabel="z", title=title or torus.name)
    ax.set_xticks(range(torus.dims[0] + 1))
    ax.set_yticks(range(torus.dims[1] + 1))
    ax.set_zticks(range(torus.dims[2] + 1))
    ax.set_box_aspect(torus.dims)
    fig.savefig(os.fspath(out_png), dpi=110, bbox_inches="tight")
    plt.close(fig)
