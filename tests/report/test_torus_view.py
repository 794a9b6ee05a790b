"""The torus picture: one coloured cube per allocated node, one legend entry per job."""

from __future__ import annotations

import base64
import json
import re

import numpy as np

from schedlab.platform.torus import Box, Torus
from schedlab.report.torus_view import job_colours, torus_html, torus_png

T = Torus((2, 2, 4))


def values(field):
    """A plotly array as written in the page: a list, or base64 typed-array data."""
    if isinstance(field, dict):
        return np.frombuffer(base64.b64decode(field["bdata"]), dtype=field["dtype"])
    return np.asarray(field)


def owners_of(jobs):
    return {v: job for job, box in jobs for v in T.box_nodes(box)}


def test_html_has_one_mesh_per_job_and_free_nodes(tmp_path):
    owners = owners_of([(7, Box((0, 0, 3), (2, 1, 2))), (3, Box((1, 1, 0), (1, 1, 1)))])
    out = tmp_path / "v.html"
    torus_html(T, owners, out, title="t = 5", boxes={7: "2x1x2 at (0, 0, 3)"})
    page = out.read_text()
    assert "<script" in page and "<script src=" not in page  # plotly.js embedded, nothing fetched
    data = json.loads(re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*(\[.*?\]),\s*\{", page, re.S).group(1))
    names = [t["name"] for t in data]
    assert names == ["free", "job 3", "job 7"]
    assert [t["type"] for t in data] == ["mesh3d"] * 3
    job7 = data[2]
    assert len(values(job7["i"])) == 12 * 4  # 4 nodes, 12 triangles each
    assert "2x1x2 at (0, 0, 3)" in job7["hovertext"][0] and "node (0, 0, 0)" in job7["hovertext"][0]
    assert len(values(data[0]["i"])) == 12 * (16 - 5)
    corners = values(job7["x"]).reshape(-1, 8)
    assert sorted(np.floor(corners.min(axis=1)).astype(int).tolist()) == [0, 0, 1, 1]  # x of its 4 nodes


def test_colours_are_stable_per_job():
    assert job_colours([5, 2, 5]) == job_colours([2, 5])
    assert len(set(job_colours(range(20)).values())) == 20


def test_png_is_written(tmp_path):
    out = tmp_path / "v.png"
    torus_png(T, owners_of([(1, Box((0, 0, 0), (2, 2, 4)))]), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
