"""I/O-aware instances: JSON, errors naming the JSON path, the seeded generator."""

from __future__ import annotations

import json

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.platform.io import parse_io_platform
from schedlab.workload.io_jobs import (
    IOInstance,
    generate_io_instance,
    instance_from_json,
    instance_to_json,
    parse_generate,
    read_io_instance,
    write_io_instance,
)

GOOD = {
    "platform": "line:m=12,io=3",
    "jobs": [
        {"id": 7, "p": 3, "q": 2, "io": 1},
        {"id": 8, "p": 5.5, "q": 4, "io": [4]},
        {"id": 9, "p": 1, "q": 3, "io": [0, 4]},
    ],
}


def test_read_and_round_trip(tmp_path):
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(GOOD))
    inst = read_io_instance(path)
    assert inst.n == 3 and inst.ids.tolist() == [7, 8, 9] and inst.p.tolist() == [3.0, 5.5, 1.0]
    assert inst.io == (1, (4,), (0, 4)) and inst.kind == "mixed"
    assert inst.pinned.tolist() == [False, True, True] and inst.io_count.tolist() == [1, 1, 2]
    out = tmp_path / "again.json"
    write_io_instance(inst, out)
    again = read_io_instance(out)
    assert instance_to_json(again) == instance_to_json(inst)
    assert out.read_text() == (
        write_io_instance(again, tmp_path / "third.json") or (tmp_path / "third.json").read_text()
    )


def test_platform_as_an_object_with_a_layout():
    data = {
        "platform": {"topology": "ring", "layout": "ICCICCC", "mode": "exclusive"},
        "jobs": [{"p": 1, "q": 2, "io": [3]}],
    }
    inst = instance_from_json(data)
    assert inst.platform.name == "ring:layout=ICCICCC,mode=exclusive" and inst.ids.tolist() == [0]
    assert instance_from_json(instance_to_json(inst)).platform.name == inst.platform.name


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["jobs"][1].update(io=[4, 7]),
            "inst.json: jobs[1].io[1] = 7, expected an I/O node id of line:m=12,io=3 (0, 4, 8)",
        ),
        (
            lambda d: d["jobs"][0].update(q=10),
            "inst.json: jobs[0].q = 10, expected 1 to 9 (the compute nodes of line:m=12,io=3)",
        ),
        (
            lambda d: d.update(platform="ring:m=2,io=1"),
            "inst.json: platform ring:m=2,io=1: m = 2, expected at least 3 nodes on a ring",
        ),
        (
            lambda d: d.update(platform={"topology": "ring", "layout": "IC"}),
            "inst.json: platform.m = 2, expected at least 3 nodes on a ring",
        ),
        (lambda d: d["jobs"][2].update(p=-1), "inst.json: jobs[2].p = -1.0, expected a finite number > 0"),
        (lambda d: d["jobs"][2].update(p="x"), "inst.json: jobs[2].p = 'x', expected a number > 0"),
        (
            lambda d: d["jobs"][0].update(io=3),
            "inst.json: jobs[0].io = 3, expected 0 to 1, the most I/O nodes next to a convex allocation of q = 2",
        ),
        (lambda d: d["jobs"][1].update(io=[]), "inst.json: jobs[1].io = [], expected at least one I/O node id"),
        (lambda d: d["jobs"][1].update(colour=1), "inst.json: jobs[1].colour, expected only the keys id, p, q, io"),
        (lambda d: d.update(multi_io="maybe"), "inst.json: multi_io = maybe, expected inflate or reject"),
        (lambda d: d["jobs"][2].update(id=7), "inst.json: jobs[2].id = 7, expected an id no other job has"),
        (
            lambda d: d.update(platform={"topology": "line", "m": 10, "io": [0, 12]}),
            "inst.json: platform.io[1] = 12, expected a node id below m = 10",
        ),
    ],
)
def test_errors_name_the_json_path(tmp_path, change, message):
    data = json.loads(json.dumps(GOOD))
    change(data)
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as info:
        read_io_instance(path)
    text = str(info.value).replace(str(tmp_path) + "/", "")
    assert text.startswith(message) and "\n" not in text


def test_reject_refuses_far_apart_pinned_nodes():
    data = {"platform": "line:m=40,io=8", "multi_io": "reject", "jobs": [{"p": 1, "q": 3, "io": [5, 15]}]}
    with pytest.raises(InputError, match=r"jobs\[0\]\.io = \[5, 15\], expected I/O nodes .* reject"):
        instance_from_json(data)
    data["multi_io"] = "inflate"
    assert instance_from_json(data).windows(0)[0].size == 8


def test_not_json_and_missing_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  nope")
    with pytest.raises(InputError, match=r"bad.json:2: invalid JSON"):
        read_io_instance(bad)
    with pytest.raises(InputError, match="cannot read"):
        read_io_instance(tmp_path / "absent.json")


def test_generator_is_deterministic_and_valid():
    plat = parse_io_platform("line:m=32,io=4")
    a = generate_io_instance(plat, 50, rng=np.random.default_rng(3))
    b = generate_io_instance(plat, 50, rng=np.random.default_rng(3))
    assert instance_to_json(a) == instance_to_json(b)
    assert a.q.min() >= 1 and a.q.max() <= 16 and a.p.min() >= 1 and a.p.max() <= 100
    assert np.all(a.p == np.round(a.p)) and a.kind == "pinned"
    assert set(s for r in a.io for s in r) <= {0, 8, 16, 24}
    c = generate_io_instance(plat, 50, rng=np.random.default_rng(3), pinned=False, io_per_job=2)
    assert c.kind == "unpinned" and set(c.io) <= {1, 2}
    d = generate_io_instance(plat, 20, rng=np.random.default_rng(3), io_per_job=2)
    assert all(len(r) == 2 and r[1] - r[0] == 8 for r in d.io)


def test_parse_generate():
    inst, seed = parse_generate("line:m=32,io=4,n=40,seed=1,kind=unpinned,mode=exclusive")
    assert (
        seed == 1 and inst.n == 40 and inst.kind == "unpinned" and inst.platform.name == "line:m=32,io=4,mode=exclusive"
    )
    again, _ = parse_generate("line:m=32,io=4,n=40,seed=1,kind=unpinned,mode=exclusive")
    assert instance_to_json(again) == instance_to_json(inst)
    with pytest.raises(InputError, match="n=NUMBER OF JOBS"):
        parse_generate("line:m=32,io=4,seed=1")
    with pytest.raises(InputError, match="pinned or unpinned"):
        parse_generate("line:m=32,io=4,n=3,kind=both")


def test_from_jobs_matches_json():
    plat = parse_io_platform("line:m=12,io=3")
    inst = IOInstance.from_jobs(plat, [(3, 2, 1), (5.5, 4, (4,)), (1, 3, [0, 4])], ids=[7, 8, 9])
    assert instance_to_json(inst) == instance_to_json(instance_from_json(GOOD))
