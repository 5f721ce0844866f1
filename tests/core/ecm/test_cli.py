"""``miran ecm``: the JSON file, the PNG, the timings; bad input exits 2 with a message."""

import json
import struct
import zlib

import numpy as np
import pytest

from core.cli.main import main
from core.scene import save_scene

from ecmgen import random_scene


@pytest.fixture
def scene_file(tmp_path):
    path = tmp_path / "scene.json"
    save_scene(random_scene(300), path)
    return path


def _png(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos = 8
    chunks = {}
    idat = b""
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        chunks[kind] = body
        if kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 1 + 3 * w)
    assert depth == 8 and colour == 2 and np.all(raw[:, 0] == 0)
    return raw[:, 1:].reshape(h, w, 3)


def test_out_png_and_json(scene_file, tmp_path, capsys):
    out = tmp_path / "ecm.json"
    png = tmp_path / "ecm.png"
    assert main(["ecm", str(scene_file), "--resolution", "200", "--out", str(out), "--png", str(png), "--json",
                 "--backend", "gpu"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["resolution"] == 200
    for phase in ("render", "readback", "tracing", "annotation", "total"):
        assert summary["seconds"][phase] >= 0
    doc = json.loads(out.read_text())
    assert doc["format"] == "miran-ecm" and doc["version"] == 1
    assert len(doc["vertices"]) == summary["counts"]["vertices"] == doc["counts"]["vertices"]
    assert len(doc["edges"]) == summary["counts"]["edges"]
    assert sum(len(e["events"]) for e in doc["edges"]) == summary["counts"]["events"]
    for e in doc["edges"]:
        first, last = e["events"][0], e["events"][-1]
        assert first["B"] == doc["vertices"][e["from"]][:2] and last["B"] == doc["vertices"][e["to"]][:2]
        for ev in e["events"]:
            for cp in (ev["l"], ev["r"]):
                assert abs(np.hypot(ev["B"][0] - cp[0], ev["B"][1] - cp[1]) - ev["R"]) <= 1e-6 * 200
    img = _png(png)
    scene_h = summary["image"][1]
    assert img.shape[1] == 200 and img.shape[0] > scene_h  # the scene, then the legend strip
    # Obstacles drawn dark, the free space light, the medial axis in colour.
    colours = {tuple(c) for c in img.reshape(-1, 3)[::7]}
    assert (90, 90, 96) in colours and (250, 250, 246) in colours and len(colours) > 5
    # The one clearance colour map (core.ecm.colours, the app's overlay uses it too): the axis uses only its
    # colours, and the legend under the scene shows every one of them, with the ranges the summary lists.
    from core.ecm.colours import CLEARANCE_COLOURS, CLEARANCE_RGB

    ramp = {tuple(int(v) for v in c) for c in CLEARANCE_RGB}
    others = {(90, 90, 96), (250, 250, 246), (200, 200, 210), (31, 41, 55)}
    scene_part, legend = img[:scene_h], img[scene_h:]
    drawn = {tuple(int(v) for v in c) for c in scene_part.reshape(-1, 3)}
    assert drawn - others <= ramp and len(drawn & ramp) >= 2
    assert {tuple(int(v) for v in c) for c in legend.reshape(-1, 3)} >= ramp
    assert [e["colour"] for e in summary["png_legend"]] == list(CLEARANCE_COLOURS)
    assert summary["png_legend"][0]["clearance"].startswith("< ")


def test_text_summary(scene_file, capsys):
    assert main(["ecm", str(scene_file), "--resolution", "128", "--backend", "gpu"]) == 0
    text = capsys.readouterr().out
    assert "vertices" in text and "edges" in text and "event points" in text and "render" in text
    # The default reads the map off the exact diagram, and says so.
    assert main(["ecm", str(scene_file)]) == 0
    text = capsys.readouterr().out
    assert "(backend exact, the default: the exact diagram on the CPU)" in text and "voronoi" in text


@pytest.mark.parametrize("value", ["abc", "4", "100000", "12.5"])
def test_bad_resolution_exits_2(scene_file, value, capsys):
    assert main(["ecm", str(scene_file), "--resolution", value]) == 2
    err = capsys.readouterr().err
    assert "error: resolution:" in err and "Traceback" not in err


def test_bad_scene_and_unwritable_output_exit_2(scene_file, tmp_path, capsys):
    assert main(["ecm", str(tmp_path / "missing.json")]) == 2
    assert "error:" in capsys.readouterr().err
    assert main(["ecm", str(scene_file), "--resolution", "64", "--out", str(tmp_path / "no" / "dir" / "e.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --out: the folder") and "does not exist" in err  # refused before the build


def test_progress_and_cancel():
    from core.ecm import build_ecm
    from core.navmesh import BuildCancelled

    for backend, late_stage in (("gpu", "tracing"), ("exact", "annotation")):
        seen: list[tuple[float, str]] = []
        build_ecm(random_scene(301), 64, progress=lambda f, stage, seen=seen: seen.append((f, stage)), backend=backend)
        assert seen[0] == (0.0, "sites") and seen[-1] == (1.0, "done")
        assert late_stage in [stage for _, stage in seen]
        assert [f for f, _ in seen] == sorted(f for f, _ in seen)
        with pytest.raises(BuildCancelled):
            build_ecm(random_scene(301), 64, progress=lambda f, stage, late=late_stage: stage != late, backend=backend)
