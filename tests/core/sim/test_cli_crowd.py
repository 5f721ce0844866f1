"""``miran simulate`` with crowds: --agents/--seed, --method irm, --respawn, --slope, and bad options (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

from core.cli.main import main

SCENES = Path(__file__).resolve().parents[3] / "scenes"


def test_random_agents_with_irm(capsys):
    assert main(["simulate", str(SCENES / "mckenna.json"), "--agents", "5", "--seed", "3", "--method", "irm",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "irm" and len(out["agents"]) == 6 and out["all_arrived"]


def test_respawn_runs_the_steps_asked_for(capsys, tmp_path):
    path = tmp_path / "p.json"
    assert main(["simulate", str(SCENES / "mckenna.json"), "--agents", "8", "--respawn", "--steps", "40",
                 "--out", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["steps"] == 40
    assert json.loads(path.read_text())["parameters"]["steps"] == 40


def test_slope_on_the_hills(capsys):
    assert main(["simulate", str(SCENES / "hills.json"), "--slope", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["all_arrived"]


def test_bad_crowd_options_exit_2(capsys):
    assert main(["simulate", str(SCENES / "mckenna.json"), "--agents", "-1", "--planner", "astar"]) == 2
    err = capsys.readouterr().err
    assert "--agents" in err and "unknown planner 'astar'" in err
    assert main(["simulate", str(SCENES / "mckenna.json"), "--slope"]) == 2
    assert "--slope needs a scene with a height field" in capsys.readouterr().err
