"""``miran route``: summaries, the miran-route file (against its JSON Schema), batch queries, exit status 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from core.cli.main import main
from core.routes.io import load_routes

from routegen import SCENES_DIR

SCHEMA = json.loads((Path(__file__).resolve().parents[3] / "resources/schemas/miran-route.schema.json").read_text())
ROAD = str(SCENES_DIR / "mckenna_road.json")


def run(argv, capsys):
    code = main(["route", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_single_query_summary_and_json(capsys, tmp_path):
    code, out, err = run([ROAD, "--from", "4,100", "--to", "155,6", "--planner", "cdt"], capsys)
    assert code == 0 and "cdt route" in out and "keeps the clearance 0.25" in out and err == ""
    path = tmp_path / "route.json"
    code, out, _ = run([ROAD, "--from", "4,100", "--to", "155,6", "--planner", "grid", "--profile", "pedestrian",
                        "--clearance", "0.5", "--out", str(path), "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMA)
    assert doc == json.loads(path.read_text())
    assert doc["planner"] == "grid" and doc["profile"] == "pedestrian" and doc["clearance"] == 0.5
    (r,) = doc["routes"]
    assert r["from"] == [4.0, 100.0] and r["to"] == [155.0, 6.0] and r["points"][0] == r["from"]
    assert load_routes(path)[0].length == pytest.approx(r["length"])


def test_batch_queries_write_every_route(capsys, tmp_path):
    q = tmp_path / "q.json"
    q.write_text(json.dumps([[4, 100, 155, 6], [20, 20, 190, 190], [30, 170, 170, 30]]))
    out_path = tmp_path / "routes.json"
    code, out, _ = run([ROAD, "--queries", str(q), "--planner", "portal", "--out", str(out_path)], capsys)
    assert code == 0 and "wrote 3 route(s)" in out
    doc = json.loads(out_path.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert [r["from"] + r["to"] for r in doc["routes"]] == [[4, 100, 155, 6], [20, 20, 190, 190], [30, 170, 170, 30]]


@pytest.mark.parametrize("args, message", [
    (["--from", "4;100", "--to", "155,6"], "--from: expected X,Y"),
    (["--from", "4,100"], "--to: missing"),
    (["--from", "4,100", "--to", "155,6", "--planner", "astar"], "unknown planner 'astar'"),
    (["--from", "4,100", "--to", "155,6", "--profile", "ghost"], "unknown profile 'ghost'"),
    (["--from", "4,100", "--to", "155,6", "--clearance", "-2"], "--clearance: expected a number >= 0"),
    (["--from", "4,100", "--to", "155,6", "--cell-size", "0"], "--cell-size: expected a number > 0"),
    # Found by the fuzzing: the grid's refinement then put cell centres at 1e199 m, and a traceback followed.
    (["--from", "4,100", "--to", "155,6", "--planner", "grid", "--cell-size", "1E200"],
     "--cell-size: a cell size of 1e+200 is larger than the scene"),
    (["--from", "4,100", "--to", "255,6"], "goal: (255, 6) is outside the bounds"),
    (["--from", "4,100", "--to", "155,6", "--planner", "network"], "no indicative network"),
])
def test_bad_input_exits_2_with_a_clear_message(capsys, args, message):
    code, out, err = run([ROAD, *args], capsys)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_bad_batch_names_the_query_and_writes_nothing(capsys, tmp_path):
    scene = json.loads(Path(ROAD).read_text())
    b = scene["obstacles"][0]["polygon"]
    inside = [sum(p[0] for p in b) / len(b), sum(p[1] for p in b) / len(b)]
    q = tmp_path / "q.json"
    q.write_text(json.dumps([[4, 100, 155, 6], [4, 100, *inside]]))
    out_path = tmp_path / "routes.json"
    code, _, err = run([ROAD, "--queries", str(q), "--out", str(out_path)], capsys)
    assert code == 2 and "queries[1].goal" in err and "inside an obstacle" in err
    assert not out_path.exists()
    q.write_text(json.dumps([[4, 100, 155], "x"]))
    code, _, err = run([ROAD, "--queries", str(q)], capsys)
    assert code == 2 and "[0]: expected [x0, y0, x1, y1]" in err and "[1]:" in err
    q.write_text("[[4, 100, 155, 6]")
    code, _, err = run([ROAD, "--queries", str(q)], capsys)
    assert code == 2 and "malformed JSON" in err


def test_unreachable_goal_exits_2(capsys, tmp_path):
    scene = json.loads(Path(ROAD).read_text())
    scene["obstacles"].append({"id": "wall", "polygon": [[0, 50], [200, 50], [200, 52], [0, 52]]})
    path = tmp_path / "walled.json"
    path.write_text(json.dumps(scene))
    code, _, err = run([str(path), "--from", "100,20", "--to", "4,100", "--planner", "cdt"], capsys)
    assert code == 2 and "different connected parts of the free space" in err


def _door_file(tmp_path) -> str:
    """A scene of two rooms joined by a 0.4 m door, narrower than the pedestrian (radius 0.25)."""
    from core.scene.io import save_scene
    from core.scene.model import Obstacle, Scene

    scene = Scene.empty(40, 20)
    scene.obstacles = [Obstacle("wall-a", [(19, 0), (21, 0), (21, 9.8), (19, 9.8)]),
                       Obstacle("wall-b", [(19, 10.2), (21, 10.2), (21, 20), (19, 20)])]
    path = tmp_path / "door.json"
    save_scene(scene, path)
    return str(path)


def test_a_route_narrower_than_the_character_is_refused_naming_the_spot(capsys, tmp_path):
    door = _door_file(tmp_path)
    code, out, err = run([door, "--from", "5,10", "--to", "35,10"], capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert re.search(r"keeps a clearance of 0\.25: the best route comes within 0\.19\d* of an obstacle at \(18\.9", err)
    code, out, err = run([door, "--from", "5,10", "--to", "35,10", "--min-clearance", "0"], capsys)
    assert code == 0 and re.search(r"narrowest 0\.1\d\d m at \(", out) and "does NOT keep the clearance 0.25" in out
    code, out, err = run([door, "--from", "5,10", "--to", "35,10", "--clearance", "0.1"], capsys)
    assert code == 0 and "keeps the clearance 0.1" in out


def test_clearance_of_points_too_far_for_a_distance_is_zero():
    """A point so far from the scene that its distance overflows has no nearest obstacle: it lies outside the free
    space, clearance 0, beside ordinary points (shapely's distance for those)."""
    import numpy as np
    import shapely

    from core.routes import PlannerContext
    from core.scene.io import load_scene

    free = PlannerContext(load_scene(ROAD)).free(0.0)
    pts = np.array([[1.25e199, 1.25e199], [4.0, 100.0], [-3e200, 7.0]])
    got = free.point_clearance(pts)
    assert got[0] == 0.0 and got[2] == 0.0
    assert got[1] == pytest.approx(shapely.distance(free.free.boundary, shapely.Point(4.0, 100.0)))
