"""``miran import`` as a user runs it: the written scene validates, the report, and exit 2 with located messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.scene.io import load_scene

from import_samples import write_local_metres_geojson

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[3]
SVG = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
 width="100" height="50" viewBox="0 0 100 50">
 <g inkscape:groupmode="layer" inkscape:label="Blocks"><rect id="a" x="10" y="10" width="20" height="10"/></g>
 <g inkscape:groupmode="layer" inkscape:label="Mud"><circle id="c" cx="70" cy="25" r="10"/></g>
 <g inkscape:groupmode="layer" inkscape:label="Walk"><path id="w" d="M 5 45 L 95 45"/></g>
</svg>"""


def _miran(*args: str) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("miran")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "core.cli"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.fixture()
def svg(tmp_path):
    path = tmp_path / "level.svg"
    path.write_text(SVG)
    return path


def test_import_writes_a_valid_scene_and_reports(svg, tmp_path):
    out = tmp_path / "level.json"
    r = _miran("import", str(svg), "--out", str(out), "--map", "Blocks=obstacle", "--map", "Walk=route")
    assert r.returncode == 0, r.stderr
    assert "1 obstacles, 1 terrain polygons, 1 routes" in r.stdout and "1 user unit = 1 m" in r.stdout
    s = load_scene(out)
    assert s.bounds == (0.0, 0.0, 100.0, 50.0) and s.routes[0].points == [(5.0, 5.0), (95.0, 5.0)]
    assert _miran("validate", str(out)).returncode == 0
    r = _miran("import", str(svg), "--out", str(out), "--map", "Walk=route", "--json")
    rep = json.loads(r.stdout)
    assert rep["roles"] == {"route": 1, "terrain:blocks": 1, "terrain:mud": 1}
    assert rep["sources"]["r1"] == ["layer 'Walk', path 'w'"]


@pytest.mark.parametrize("args, words", [
    (["--map", "Walk"], "--map 'Walk': expected LAYER=ROLE"),
    (["--tolerance", "-1"], "--tolerance: expected a positive number"),
    (["--projection", "mercator"], "unknown projection 'mercator'"),
    (["--map", "Blocks=obstacle", "--map", "Mud=obstacle", "--map", "Walk=route", "--scale", "nan"], "--scale"),
])
def test_bad_options_exit_2(svg, tmp_path, args, words):
    out = tmp_path / "level.json"
    r = _miran("import", str(svg), "--out", str(out), *args)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_a_route_inside_an_obstacle_exits_2_naming_it(tmp_path):
    path = tmp_path / "bad.svg"
    path.write_text(SVG.replace('d="M 5 45 L 95 45"', 'd="M 5 45 L 20 15 L 95 45"'))
    out = tmp_path / "bad.json"
    r = _miran("import", str(path), "--out", str(out), "--map", "Blocks=obstacle", "--map", "Walk=route")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "layer 'Walk', path 'w' (routes[0].points[1])" in r.stderr and "inside obstacle" in r.stderr
    assert not out.exists()
    r = _miran("import", str(tmp_path / "missing.dxf"), "--out", str(out))
    assert r.returncode == 2 and "no such file" in r.stderr


NO_LAYER_SVG = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
 width="100" height="100" viewBox="0 0 100 100">
 <g inkscape:groupmode="layer" inkscape:label="Walls"><rect id="box" x="40" y="40" width="20" height="20"/></g>
 <g id="plain"><path id="walk" d="M 5 90 L 95 90" stroke="black" stroke-width="0.5" fill="none"/></g>
</svg>"""


def test_map_with_an_empty_layer_name_gives_elements_outside_any_layer_a_role(tmp_path):
    """``--map "=route"`` (as ``--map "(no layer)=route"``) makes the line in a plain group a route; without it
    the line is a thin obstacle, as the preview shows by default."""
    path = tmp_path / "walk.svg"
    path.write_text(NO_LAYER_SVG)
    for spelling in ("=route", "(no layer)=route"):
        out = tmp_path / "walk.json"
        r = _miran("import", str(path), "--out", str(out), "--map", "Walls=obstacle", "--map", spelling)
        assert r.returncode == 0, r.stderr
        s = load_scene(out)
        assert [rt.points for rt in s.routes] == [[(5.0, 10.0), (95.0, 10.0)]], spelling
        assert len(s.obstacles) == 1, spelling
        out.unlink()
    r = _miran("import", str(path), "--out", str(out), "--map", "Walls=obstacle")
    assert r.returncode == 0, r.stderr
    assert load_scene(out).routes == [] and len(load_scene(out).obstacles) == 2


def test_crs_metres_reads_a_geojson_in_local_metres(tmp_path):
    """A GeoJSON drawn in local metres reads as degrees by default (the standard's CRS, thousands of kilometres
    wide); ``--crs metres`` keeps its numbers as metres; a CRS no one knows is refused naming ``--crs``."""
    path = write_local_metres_geojson(tmp_path / "site.geojson")
    out = tmp_path / "site.json"
    maps = ("--map", "blocks=obstacle", "--map", "walk=route")
    r = _miran("import", str(path), "--out", str(out), *maps)
    assert r.returncode == 0, r.stderr
    x0, y0, x1, y1 = load_scene(out).bounds
    assert x1 - x0 > 1e6
    r = _miran("import", str(path), "--out", str(out), *maps, "--crs", "metres")
    assert r.returncode == 0, r.stderr
    s = load_scene(out)
    assert s.bounds == (0.0, 5.0, 40.0, 20.0) and len(s.obstacles) == 1 and len(s.routes) == 1
    out.unlink()
    r = _miran("import", str(path), "--out", str(out), *maps, "--crs", "EPSG:nonsense")
    assert r.returncode == 2 and "--crs" in r.stderr and "Traceback" not in r.stderr and not out.exists()
