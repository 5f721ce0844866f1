"""The scene's optional measurement area and line: read and written back, absent from files without them (old
files load unchanged), schema-valid, and every broken one refused with its JSON path, by the reader and by
``miran validate`` (exit status 2)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from core.cli.main import main
from core.scene.io import load_scene, save_scene, scene_to_dict
from core.scene.model import Measurement
from core.scene.parse import check_scene

SCENES = Path(__file__).resolve().parents[3] / "scenes"
SCHEMA = Path(__file__).resolve().parents[3] / "resources" / "schemas" / "miran-scene.schema.json"
L_SHAPE = [[2, 2], [12, 2], [12, 6], [6, 6], [6, 14], [2, 14]]


def _doc(measurement) -> dict:
    doc = json.loads((SCENES / "mckenna.json").read_text())
    doc["measurement"] = measurement
    return doc


def test_old_files_load_without_it_and_are_written_back_unchanged(tmp_path):
    for name in ("mckenna.json", "city.json", "hills.json"):
        scene = load_scene(SCENES / name)
        assert scene.measurement == Measurement() and scene.measurement.is_empty()
        assert "measurement" not in scene_to_dict(scene)
        save_scene(scene, tmp_path / name)
        assert (tmp_path / name).read_bytes() == (SCENES / name).read_bytes()


def test_a_polygon_area_and_a_line_round_trip(tmp_path):
    scene, problems = check_scene(_doc({"area": L_SHAPE, "line": [[20, 1.5], [20, 9.25]]}))
    assert problems == []
    assert scene.measurement.area == [(float(x), float(y)) for x, y in L_SHAPE]
    assert scene.measurement.line == [(20.0, 1.5), (20.0, 9.25)]
    save_scene(scene, tmp_path / "m.json")
    written = json.loads((tmp_path / "m.json").read_text())
    assert written["measurement"] == {"area": L_SHAPE, "line": [[20, 1.5], [20, 9.25]]}
    assert load_scene(tmp_path / "m.json") == scene
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    assert list(validator.iter_errors(written)) == []


def test_either_part_alone():
    scene, _ = check_scene(_doc({"line": [[1, 1], [3, 4]]}))
    assert scene.measurement == Measurement(None, [(1.0, 1.0), (3.0, 4.0)])
    assert scene_to_dict(scene)["measurement"] == {"line": [[1, 1], [3, 4]]}
    scene, _ = check_scene(_doc({}))
    assert scene.measurement.is_empty() and "measurement" not in scene_to_dict(scene)


@pytest.mark.parametrize("measurement, path, words", [
    ([], "measurement", "expected an object"),
    ({"area": L_SHAPE, "box": 1}, "measurement.box", "unknown field (allowed: area, line)"),
    ({"area": [[0, 0], [4, 4], [4, 0], [0, 4]]}, "measurement.area", "self-intersect"),
    ({"area": [[0, 0], [1, 1], [2, 2]]}, "measurement.area", "zero area"),
    ({"area": [[0, 0], [1, 0]]}, "measurement.area", "at least 3 points"),
    ({"area": [[-5, 0], [4, 0], [4, 4]]}, "measurement.area", "vertex 0 (-5, 0) is outside the bounds"),
    ({"area": [[0, 0], [4, 0], [4, "x"]]}, "measurement.area[2]", ""),
    ({"line": [[0, 0], [1, 1], [2, 2]]}, "measurement.line", "expected 2 points"),
    ({"line": [[3, 3], [3, 3]]}, "measurement.line", "the same point (3, 3)"),
    ({"line": [[3, 3], [3, 999]]}, "measurement.line", "end 1 (3, 999) is outside the bounds"),
])
def test_broken_ones_are_named_by_json_path(measurement, path, words):
    scene, problems = check_scene(_doc(measurement))
    assert scene is None
    assert [p.path for p in problems] == [path], problems
    assert words in problems[0].message


def test_miran_validate_accepts_it_and_refuses_a_broken_one_with_status_2(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_doc({"area": L_SHAPE})))
    assert main(["validate", str(good)]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_doc({"area": [[0, 0], [4, 4], [4, 0], [0, 4]]})))
    capsys.readouterr()
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "measurement.area" in err and "Traceback" not in err
