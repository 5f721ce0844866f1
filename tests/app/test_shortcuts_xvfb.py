"""Shortcuts on a real X server (Xvfb, the ``xcb`` platform), where Qt's key conventions differ from the offscreen
platform's (X11's standard Delete is "Del, Ctrl+D"): no two actions share a key, Qt reports no ambiguous
shortcut, and the keys do what the menus say (Ctrl+D duplicates, Ctrl+Y and Ctrl+Shift+Z redo); and the 1280 x 800
layout check with the platform's own fonts."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]
SCENE = REPO / "scenes" / "mckenna_road.json"

SCRIPT = textwrap.dedent("""
    import json, sys, time
    from PySide6 import QtCore, QtGui, QtWidgets
    from PySide6.QtTest import QTest
    from app.main import create_main_window, ensure_app
    app = ensure_app()
    w = create_main_window(sys.argv[1])
    w.sim._start_timer.stop()  # the engine is not needed here
    w.resize(1280, 800)
    w.show()
    w.show_editor()
    w.activateWindow()
    w.raise_()
    end = time.time() + 0.5
    while time.time() < end:
        app.processEvents()
        time.sleep(0.02)
    keys = {}
    for a in w.findChildren(QtGui.QAction):
        for s in a.shortcuts():
            keys.setdefault(s.toString(), []).append(a.objectName() or a.text())
    target = w.viewport.viewport()
    target.setFocus()
    ctrl = QtCore.Qt.KeyboardModifier.ControlModifier
    shift = QtCore.Qt.KeyboardModifier.ShiftModifier

    def press(key, mods):
        QTest.keyClick(target, key, mods)
        app.processEvents()
        return len(w.scene.obstacles)

    first = w.scene.obstacles[0].id
    w.doc.select([("obstacle", first)])
    counts = [len(w.scene.obstacles)]
    counts.append(press(QtCore.Qt.Key.Key_D, ctrl))           # duplicate
    selected = [list(r) for r in w.doc.selection]
    counts.append(press(QtCore.Qt.Key.Key_Z, ctrl))           # undo
    counts.append(press(QtCore.Qt.Key.Key_Y, ctrl))           # redo (Windows/KDE)
    counts.append(press(QtCore.Qt.Key.Key_Z, ctrl))           # undo
    counts.append(press(QtCore.Qt.Key.Key_Z, ctrl | shift))   # redo (GNOME/macOS)
    sys.path.insert(0, sys.argv[2])
    from test_studio_layout import clipped_widgets
    clipped = []
    for name in ("simulation", "profiles", "terrain_types"):
        w.docks[name].raise_()
        for _ in range(20):
            app.processEvents()
        clipped += clipped_widgets(w)
    print(json.dumps({"platform": QtWidgets.QApplication.platformName(), "keys": keys, "counts": counts,
                      "size": [w.width(), w.height()], "clipped": clipped,
                      "selected": selected, "first": first, "undo_text": w.undo_stack.undoText(),
                      "active": w.isActiveWindow(), "message": w.statusBar().currentMessage()}))
    w.undo_stack.setClean()
    w.sim.shutdown()
""")


@pytest.fixture(scope="module")
def xcb_run(tmp_path_factory):
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (Debian/Ubuntu: apt-get install xvfb xauth)")
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["MIRAN_STUDIO_CONFIG_DIR"] = str(tmp_path_factory.mktemp("config"))
    proc = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, "-c", SCRIPT,
                           str(SCENE), str(Path(__file__).parent)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return out, proc.stderr


def test_no_two_actions_share_a_key_under_xcb(xcb_run):
    out, stderr = xcb_run
    assert out["platform"] == "xcb"
    shared = {k: v for k, v in out["keys"].items() if len(v) > 1}
    assert not shared, shared
    assert out["keys"]["Ctrl+D"] == ["edit.duplicate"]
    assert out["keys"]["Ctrl+Shift+D"] == ["sim.compare"]
    assert out["keys"]["Del"] == ["edit.delete"]
    for menu_action in ("file.save", "sim.play", "sim.reset", "tool.obstacle", "edit.undo", "edit.redo"):
        assert any(menu_action in v for v in out["keys"].values()), menu_action
    assert "Ambiguous shortcut" not in stderr


def test_the_window_fits_1280_by_800_under_xcb_without_clipped_widgets(xcb_run):
    """The layout check of test_studio_layout on the real platform (its fonts and style, not offscreen's)."""
    out, _ = xcb_run
    assert out["size"][0] <= 1280 and out["size"][1] <= 800, out["size"]
    assert not out["clipped"], "\n".join(out["clipped"])


def test_ctrl_d_duplicates_and_both_redo_keys_work_under_xcb(xcb_run):
    out, _ = xcb_run
    n = out["counts"][0]
    # Ctrl+D adds one offset copy and selects it; undo, Ctrl+Y, undo, Ctrl+Shift+Z.
    assert out["counts"] == [n, n + 1, n, n + 1, n, n + 1]
    assert len(out["selected"]) == 1 and out["selected"][0][0] == "obstacle" and out["selected"][0][1] != out["first"]
    assert out["undo_text"] == "Duplicate 1 item"
