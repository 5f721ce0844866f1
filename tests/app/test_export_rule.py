"""The app's exports follow the output rule: never over the scene that is open (its path, a link to it or a hard
link), with an error that says why; other paths are written as before."""

from __future__ import annotations

import os
import shutil

import pytest

from sim_harness import SCENES
from sim_window import built


@pytest.mark.parametrize("spelling", ["same", "link", "hard"])
def test_an_export_never_replaces_the_open_scene(make_studio, qtbot, tmp_path, spelling):
    scene = tmp_path / "road.json"
    shutil.copy(SCENES / "mckenna_road.json", scene)
    target = {"same": scene, "link": tmp_path / "link.json", "hard": tmp_path / "hard.json"}[spelling]
    if spelling == "link":
        target.symlink_to(scene)
    elif spelling == "hard":
        os.link(scene, target)
    before = scene.read_bytes()
    w = make_studio(scene)
    built(qtbot, w)
    with pytest.raises(RuntimeError, match="is the input the open scene"):
        w.sim.export_paths(target)
    shown = []
    w.sim.show_error = lambda title, text: shown.append((title, text))
    assert w.sim._output_refused("Export Paths as CSV", target)
    assert shown and "an output never replaces an input" in shown[0][1]
    assert scene.read_bytes() == before
    assert w.sim.export_paths(tmp_path / "other.paths.json").exists()
