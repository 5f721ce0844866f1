"""The researcher's tutorial (docs/tutorial/researcher.md), run as written: its Python blocks, then every command of
its shell blocks through ``miran``'s own entry point, in a fresh folder. Slow: it simulates, sweeps nine runs and
reruns one of the papers' figures."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from core.cli.main import main
from core.export import read_paths
from core.scene import load_scene

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "tutorial" / "researcher.md"
pytestmark = pytest.mark.experiment  # the tutorial ends by rerunning a paper figure


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(), re.S)


def commands() -> list[list[str]]:
    """Every ``miran ...`` line of the page's shell blocks, as argument lists (without ``miran``)."""
    out = []
    for block in blocks("sh"):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words:
                assert words[0] == "miran", line
                out.append(words[1:])
    return out


def test_the_researcher_tutorial_runs_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    scene_block, walk_block = blocks("python")
    exec(compile(scene_block, "researcher.md", "exec"), {})
    assert load_scene("tutorial.json").name == "Tutorial"
    exec(compile(walk_block, "researcher.md", "exec"), {})
    out = capsys.readouterr().out
    assert "a1 True" in out and "a2 True" in out
    pf = read_paths("tutorial.paths.json")
    assert all(a.reached_goal for a in pf.agents)
    # The tuned child turned back from the mud: far less of it than the untuned child walks (below, from the CLI).
    tuned_mud = {a.id: a.terrain_lengths["mud"] for a in pf.agents}["a2"]

    [spec] = blocks("json")
    Path("tutorial.sweep.json").write_text(spec)
    json.loads(spec)
    for args in commands():
        assert main(args) == 0, args
    untuned = {a.id: a for a in read_paths("tutorial.paths.json").agents}
    assert untuned["a2"].terrain_lengths["mud"] > tuned_mud + 10.0
    assert untuned["a1"].terrain_lengths["mud"] == 0.0
    assert Path("tutorial.traj.txt").is_file() and Path("mud.png").is_file()
    assert Path("tutorial.irm.paths.json").is_file()
    assert Path("figures/miran_fig8.png").is_file() and "miran_fig8" in Path("figures/report.md").read_text()
