"""``miran simulate``: writes a valid miran-paths file, stops when everyone has arrived, bad input exits 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from core.cli.main import main
from core.export import read_paths
from core.scene.io import save_scene

from simgen import SCENES_DIR, random_scene

pytestmark = pytest.mark.subprocess

SCHEMA = json.loads((SCENES_DIR.parent / "resources" / "schemas" / "miran-paths.schema.json").read_text())
ROAD = str(SCENES_DIR / "mckenna_road.json")


def test_simulate_writes_the_paths_file(tmp_path, capsys):
    out = tmp_path / "paths.json"
    assert main(["simulate", ROAD, "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["all_arrived"] and summary["method"] == "miran" and summary["integrator"] == "euler"
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    pf = read_paths(out)
    (agent,) = pf.agents
    assert agent.id == "pedestrian-1" and agent.reached_goal
    assert agent.terrain_lengths["mud"] == 0.0
    # stopped early: the last step is the arrival
    assert summary["steps"] == round(agent.time / 0.1) and agent.points[-1, 0] == pytest.approx(agent.time)


def test_simulate_options_and_text_summary(tmp_path, capsys):
    assert main(["simulate", ROAD, "--method", "disc-miran", "--integrator", "verlet", "--dt", "0.2",
                 "--steps", "25"]) == 0
    text = capsys.readouterr().out
    assert "disc-miran, verlet, dt 0.2 s: 25 steps" in text and "did not arrive" in text


def test_threads_change_the_summary_but_not_the_paths_file(tmp_path, capsys):
    outs = []
    for threads in ("1", "2"):
        out = tmp_path / f"paths{threads}.json"
        assert main(["simulate", ROAD, "--agents", "6", "--seed", "2", "--steps", "150", "--threads", threads,
                     "--out", str(out), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["threads"] == int(threads)
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


@pytest.mark.parametrize("args,words", [
    (["--method", "walk"], "--method: unknown method 'walk' (valid: miran, disc-miran"),
    (["--integrator", "rk4"], "--integrator: unknown integrator 'rk4'"),
    (["--dt", "0"], "--dt: must be between 0.0001 and 10 s, got 0"),
    (["--dt", "1e-5"], "--dt: must be between 0.0001 and 10 s, got 1e-05"),
    (["--dt", "nan"], "--dt: expected a positive number"),
    (["--steps", "-3"], "--steps: expected a whole number >= 0"),
    (["--threads", "0"], "--threads: expected a whole number >= 1, got '0'"),
    (["--threads", "two"], "--threads: expected a whole number >= 1, got 'two'"),
])
def test_bad_options_exit_2_with_the_option_named(args, words, capsys):
    assert main(["simulate", ROAD] + args) == 2
    assert words in capsys.readouterr().err


def test_bad_scenes_exit_2(tmp_path, capsys):
    assert main(["simulate", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "miran-scene", "version": 1, "bounds": [0, 0, 10]}')
    assert main(["simulate", str(bad)]) == 2
    assert "bounds" in capsys.readouterr().err
    empty = tmp_path / "empty.json"
    save_scene(random_scene(1), empty)
    assert main(["simulate", str(empty)]) == 2
    assert "the scene has no agents to simulate" in capsys.readouterr().err


def test_the_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "core.cli", "simulate", "--help"], capture_output=True, text=True,
                       cwd=Path(__file__).resolve().parents[3])
    assert r.returncode == 0 and "--integrator" in r.stdout


def _narrow_door(tmp_path) -> str:
    """Two rooms joined by a 0.4 m door and one walker (radius 0.25) sketched through it."""
    from core.scene.model import Agent, Obstacle, Route, Scene

    scene = Scene.empty(40, 20)
    scene.simulation.method = "disc-miran"
    scene.obstacles = [Obstacle("wall-a", [(19, 0), (21, 0), (21, 9.8), (19, 9.8)]),
                       Obstacle("wall-b", [(19, 10.2), (21, 10.2), (21, 20), (19, 20)])]
    scene.routes = [Route("door", [(5.0, 10.0), (35.0, 10.0)])]
    scene.agents = [Agent("walker", "pedestrian", route="door")]
    path = tmp_path / "door.json"
    save_scene(scene, path)
    return str(path)


def test_a_character_that_cannot_arrive_is_named_with_its_reason(tmp_path, capsys):
    """A disc that cannot pass a door narrower than itself: no detour keeps its radius, so the run is refused
    before it starts; told to keep no clearance it walks up to the door and is lost there, and the summary, the
    paths file and the exit status say so."""
    door = _narrow_door(tmp_path)
    assert main(["simulate", door]) == 2
    err = capsys.readouterr().err
    assert "agents[0]" in err and "no detour around it keeps a clearance of 0.25" in err and "Traceback" not in err
    out = tmp_path / "paths.json"
    assert main(["simulate", door, "--clearance", "0", "--no-replan", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "walker" in text and "lost: its route is blocked" in text and "1 of 1 did not arrive" in text
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    (a,) = read_paths(out).agents
    assert a.status == "lost" and a.lost_reason == "its route is blocked" and not a.reached_goal
    assert main(["simulate", door, "--clearance", "0", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    (a,) = summary["agents"]
    assert a["status"] == "lost" and a["lost_reason"] == "no progress" and summary["lost"] == 1
    assert summary["replanned"] == 25 and summary["time"] < 200.0


def _gap_scene(tmp_path, gap: float):
    """Walls with three gaps of ``gap`` m (tests/core/routes/test_grid_narrow.py) and grid-planned characters of
    radius 0.25 and 0.3 crossing all of them, in both directions."""
    import dataclasses

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "routes"))
    from test_grid_narrow import walls_scene

    from core.scene.model import Agent, Profile

    scene = walls_scene(gap)
    profiles = [Profile("slim", radius=0.25), Profile("broad", radius=0.3)]
    agents = [Agent(f"{p.id}-{k}", p.id, start=s, goal=g, planner="grid") for p in profiles
              for k, (s, g) in enumerate((((3.5, 3.5), (76.5, 76.5)), ((76.5, 3.5), (3.5, 76.5)),
                                          ((40.0, 76.5), (60.0, 3.5))))]
    path = tmp_path / "gaps.json"
    save_scene(dataclasses.replace(scene, profiles=profiles, agents=agents), path)
    return str(path)


@pytest.mark.crowd  # whole scenes run to the end
@pytest.mark.parametrize("method", ["miran", "disc-miran", "irm"])
def test_grid_characters_pass_gaps_of_three_quarters_of_a_metre(tmp_path, capsys, method):
    """0.75 m gaps, grid-planned characters of radius 0.25 and 0.3: the scene runs and every character arrives
    (the grid refines itself at the gaps), with the recovery counter in the summary."""
    assert main(["simulate", _gap_scene(tmp_path, 0.75), "--method", method, "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["all_arrived"] and s["arrived"] == 6 and not s["unrouted"], s["agents"]
    assert s["recovery"]["agent_steps"] > 0 and s["recovery"]["share"] <= 0.01


@pytest.mark.crowd  # a whole scene run to the end
def test_a_character_without_a_route_is_lost_and_the_others_arrive(tmp_path, capsys):
    """0.5 m gaps pass no disc of 0.25: the characters crossing a wall get no route, are reported lost ("no route
    keeps its clearance") and the scene still runs; the text summary names them."""
    import dataclasses

    from core.scene.io import load_scene
    from core.scene.model import Agent

    path = _gap_scene(tmp_path, 0.5)
    scene = load_scene(path)
    scene = dataclasses.replace(scene, agents=scene.agents + [Agent("local", "slim", start=(5.0, 5.0),
                                                                    goal=(70.0, 15.0), planner="grid")])
    save_scene(scene, path)
    assert main(["simulate", path]) == 0
    out = capsys.readouterr().out
    assert "slim-0: no grid route" in out and "it is lost where it starts, the others walk" in out
    assert "lost: no route keeps its clearance" in out
    assert main(["simulate", path, "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    states = {a["id"]: a["status"] for a in s["agents"]}
    assert states["local"] == "arrived" and sum(v == "lost" for v in states.values()) == 6
