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


@pytest.mark.parametrize("args,words", [
    (["--method", "walk"], "--method: unknown method 'walk' (valid: miran, disc-miran"),
    (["--integrator", "rk4"], "--integrator: unknown integrator 'rk4'"),
    (["--dt", "0"], "--dt: must be between 0.0001 and 10 s, got 0"),
    (["--dt", "1e-5"], "--dt: must be between 0.0001 and 10 s, got 1e-05"),
    (["--dt", "nan"], "--dt: expected a positive number"),
    (["--steps", "-3"], "--steps: expected a whole number >= 0"),
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
