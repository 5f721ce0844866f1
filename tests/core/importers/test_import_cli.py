"""``miran import`` as a user runs it: the written scene validates, the report, and exit 2 with located messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.scene.io import load_scene

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
