"""``miran validate`` beyond the format: warnings for sketched routes a character cannot walk as drawn, errors for
disc agents that do not fit where they start or end (core.routes.advice)."""

from __future__ import annotations

import json

from core.cli.main import main
from core.scene.io import save_scene
from core.scene.model import Agent, Obstacle, Route, Scene


def _box_scene(tmp_path, method: str = "miran", route=((10.0, 50.0), (90.0, 50.0)), goal=None) -> str:
    scene = Scene.empty(100, 100)
    scene.simulation.method = method
    scene.obstacles = [Obstacle("box", [(40, 40), (60, 40), (60, 60), (40, 60)])]
    scene.routes = [Route("r", [tuple(p) for p in route])]
    scene.agents = [Agent("a", "pedestrian", route="r")]
    if goal is not None:
        scene.agents.append(Agent("b", "pedestrian", start=(20.0, 20.0), goal=goal, planner="cdt"))
    path = tmp_path / "scene.json"
    save_scene(scene, path)
    return str(path)


def test_a_route_through_an_obstacle_is_valid_with_a_warning(tmp_path, capsys):
    path = _box_scene(tmp_path)
    assert main(["validate", path]) == 0
    out = capsys.readouterr()
    assert "valid (1 warning)" in out.out
    assert "warning: routes[0].points: the route crosses an obstacle between (39.7" in out.err
    assert "(followed by a)" in out.err
    assert main(["validate", path, "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert report["valid"] and [w["path"] for w in report["warnings"]] == ["routes[0].points"]


def test_a_route_along_a_wall_closer_than_the_radius_is_warned_about(tmp_path, capsys):
    path = _box_scene(tmp_path, route=((10.0, 39.9), (90.0, 39.9)))
    assert main(["validate", path]) == 0
    err = capsys.readouterr().err
    assert "passes 0.1 from an obstacle between (" in err and "closer than the clearance 0.25" in err


def test_a_clean_scene_has_no_warning(tmp_path, capsys):
    path = _box_scene(tmp_path, route=((10.0, 20.0), (90.0, 20.0)))
    assert main(["validate", path]) == 0
    out = capsys.readouterr()
    assert out.out.strip().endswith(": valid") and out.err == ""


def test_a_disc_scene_whose_agent_cannot_stand_at_its_goal_is_invalid(tmp_path, capsys):
    path = _box_scene(tmp_path, method="irm", route=((10.0, 20.0), (90.0, 20.0)), goal=(40.0, 60.0))
    assert main(["validate", path]) == 2
    err = capsys.readouterr().err
    assert "agents[1].goal: (40, 60) is 0 from an obstacle or the bounds: a disc of radius 0.25 cannot reach it" in err
    # The same scene walked by point characters is valid.
    assert main(["validate", _box_scene(tmp_path, route=((10.0, 20.0), (90.0, 20.0)), goal=(40.0, 60.0))]) == 0
