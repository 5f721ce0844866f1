"""The designer's tutorial (docs/tutorial/designer.md), followed on the real window from a new scene: the steps of
docs/scripts/tutorial_designer.py, the script that also takes the tutorial's pictures, each leave the state the
tutorial describes; the exported paths validate against the paths schema and read back, PedPy loads the
trajectories, and the saved scene is the one the researcher's tutorial writes from Python."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pedpy
import pytest
from PySide6 import QtWidgets

from core.export import read_paths
from core.scene import load_scene

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.soak  # the whole designer tutorial, scripted through the window


def tutorial_script():
    scripts = str(REPO / "docs" / "scripts")
    if scripts not in sys.path:                   # its helper module beside it, as when it runs as a script
        sys.path.append(scripts)
    spec = importlib.util.spec_from_file_location("tutorial_designer", REPO / "docs/scripts/tutorial_designer.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module               # its dataclasses look their module up while they are made
    spec.loader.exec_module(module)
    return module


def researcher_scene(folder: Path):
    """The scene the researcher's tutorial writes: its first Python block, run in ``folder``."""
    page = (REPO / "docs" / "tutorial" / "researcher.md").read_text()
    block = re.findall(r"```python\n(.*?)```", page, re.S)[0]
    block = block.replace('"tutorial.json"', repr(str(folder / "researcher.json")))
    exec(compile(block, "researcher.md", "exec"), {})
    return load_scene(folder / "researcher.json")


def points(polygon):
    return [tuple(float(v) for v in p) for p in polygon]


def test_following_the_tutorial_reproduces_every_step(make_studio, tmp_path, jit_warm):
    td = tutorial_script()
    w = make_studio()
    seen = []

    def check(step, t) -> None:
        s = w.scene
        seen.append(step.run.__name__)
        match step.run.__name__:
            case "new_scene":
                assert (s.name, s.bounds) == (td.SCENE_NAME, (0.0, 0.0, td.WIDTH, td.HEIGHT))
                assert s.obstacles == [] and s.terrains == [] and [p.id for p in s.profiles] == ["pedestrian"]
            case "buildings_and_road":
                assert [o.polygon for o in s.obstacles] == [points(b) for b in td.BUILDINGS]
                assert [(x.type, x.polygon) for x in s.terrains] == [("road", points(td.ROAD))]
                assert [t.id for t in s.terrain_types] == ["default", "road"]
            case "mud":
                assert [(x.type, x.polygon) for x in s.terrains][1] == ("mud", points(td.MUD))
            case "route":
                assert [r.points for r in s.routes] == [points(td.ROUTE)]
            case "characters":
                prof = {p.id: p for p in s.profiles}
                for pid, want in (("pedestrian", td.PEDESTRIAN), ("child", td.CHILD)):
                    assert (prof[pid].sigma, prof[pid].d, prof[pid].weights) == (want["sigma"], want["d"],
                                                                                 want["weights"])
                assert [(a.id, a.profile, a.route) for a in s.agents] == [("a1", "pedestrian", "r1"),
                                                                          ("a2", "child", "r1")]
            case "play":
                f = w.sim.frame
                assert td.TUNE_AT_S <= f.time < td.TUNE_AT_S + 5 and f.walking == 2 and not f.playing
                assert w.sim.selected == 1                                   # the child is followed
                child = w.sim.latest_positions()[1]
                assert child[1] < 25.0                                       # heading across the mud, not round
            case "tune":
                f = w.sim.frame
                assert f.walking == 0 and f.arrived == 2 and f.time > td.TUNE_AT_S
                live = w.sim.parameters.params["profiles"]["child"]
                assert live["sigma"] == td.TUNED_SIGMA and live["weights"]["mud"] == td.TUNED_MUD
                assert {p.id: p.sigma for p in s.profiles}["child"] == td.CHILD["sigma"]  # the scene keeps its own
            case "side_by_side":
                f = w.sim.frame
                assert f.compare_positions is not None and f.walking == 0
                assert not (f.compare_status == 0).any()
            case "export":
                assert set(t.exported) == {"scene", "paths", "pedpy"}
                assert w.sim.replay.active

    t = td.run(None, tmp_path, window=w, app=QtWidgets.QApplication.instance(), on_step=check)
    assert seen == [s.run.__name__ for s in td.STEPS]

    # The exported paths: valid against the schema, read back by the engine, both characters arrived, and the
    # tutorial's promises hold: the pedestrian kept out of the mud, and the tuned values are the run's.
    doc = json.loads(t.exported["paths"].read_text())
    schema = json.loads((REPO / "resources" / "schemas" / "miran-paths.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    pf = read_paths(t.exported["paths"])
    agents = {a.id: a for a in pf.agents}
    assert set(agents) == {"a1", "a2"} and all(a.reached_goal for a in agents.values())
    assert agents["a1"].terrain_lengths.get("mud", 0.0) == 0.0
    assert (pf.method, pf.dt) == ("miran", 0.1)
    child = doc["parameters"]["profiles"]["child"]
    assert child["sigma"] == td.TUNED_SIGMA and child["weights"]["mud"] == td.TUNED_MUD

    traj = pedpy.load_trajectory(trajectory_file=t.exported["pedpy"])
    assert sorted(traj.data["id"].unique()) == [1, 2]
    assert traj.frame_rate == pytest.approx(10.0)
    last = traj.data.sort_values("frame").groupby("id").last()
    goal = np.array(td.ROUTE[-1], dtype=float)
    assert np.allclose(last[["x", "y"]].to_numpy(), goal, atol=1e-3)

    # The scene saved by the tutorial is the one the researcher's tutorial writes from Python, field for field.
    saved = load_scene(t.exported["scene"])
    assert saved == researcher_scene(tmp_path)


def test_the_tutorial_page_quotes_the_script_numbers():
    """What the reader types is what the script does: every coordinate and value of the script is on the page."""
    td = tutorial_script()
    page = " ".join((REPO / "docs" / "tutorial" / "designer.md").read_text().split())   # lines joined
    for polygon in (*td.BUILDINGS, td.ROAD, td.MUD, td.ROUTE):
        text = ", ".join(f"({x:g}, {y:g})" for x, y in polygon)
        assert text in page, text
    assert f"{td.WIDTH:g} m wide" in page and f"{td.HEIGHT:g} m high" in page
    for pid, p in (("pedestrian", td.PEDESTRIAN), ("child", td.CHILD)):
        row = f"| {pid} | {p['sigma']:g} | {p['d']:g} m | {p['weights']['road']:g} | {p['weights']['mud']:g} |"
        assert row in page, row
    assert f"t = {td.TUNE_AT_S:g} s" in page
    assert f"*σ (sigma)* to {td.TUNED_SIGMA:g}" in page and f"*Mud* weight to {td.TUNED_MUD:g}" in page
    for step in td.STEPS:
        assert f"../images/tutorial/{step.shot}" in page, step.shot
        assert (REPO / "docs" / "images" / "tutorial" / step.shot).is_file(), step.shot
