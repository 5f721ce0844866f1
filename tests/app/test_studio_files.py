"""Files: save / reopen round trip, bad files shown in a dialog, the unsaved-changes prompt, recent files,
autosave and recovery after the process is killed."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app import qt_dialogs as dialogs
from core.scene import InputError, load_scene

Key = QtCore.Qt.Key
REPO = Path(__file__).resolve().parents[2]


def draw_sample(w, d):
    """An obstacle, a terrain polygon in a new type and a route, drawn with the mouse."""
    d.tool("obstacle")
    for p in [(10, 10), (40, 10), (40, 30), (10, 30)]:
        d.click(*p)
    d.key(Key.Key_Return)
    w.terrain_types.add_type()
    d.tool("terrain")
    for p in [(0, 50), (100, 50), (100, 60), (0, 60)]:
        d.click(*p)
    d.key(Key.Key_Return)
    d.tool("route")
    d.click(5, 90)
    d.click(50, 70)
    d.double_click(95, 90)
    assert len(w.scene.obstacles) == len(w.scene.terrains) == len(w.scene.routes) == 1


def problem_dialogs():
    return [tw for tw in QtWidgets.QApplication.topLevelWidgets()
            if tw.objectName() == "problems_dialog" and tw.isVisible()]


def test_save_and_reopen_gives_the_identical_scene(make_studio, drive, tmp_path, monkeypatch):
    w = make_studio(new=(100, 100))
    d = drive(w)
    draw_sample(w, d)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "drawn.json"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda parent, suggested: str(target))
    d.shortcut(QtGui.QKeySequence.StandardKey.Save)  # no file yet: Save asks where (Save As)
    assert target.exists() and not w.isWindowModified()
    assert [p.name for p in target.parent.iterdir()] == ["drawn.json"]  # atomic write: no temporary left behind
    assert load_scene(target) == w.scene
    again = make_studio(target)
    assert again.scene == w.scene
    assert again.doc.path == target
    assert str(target.resolve()) in again.files.recent_files()
    assert any(a.text() == str(target.resolve()) for a in again.recent_menu.actions())


def test_standard_actions_use_platform_key_sequences(make_studio):
    w = make_studio(new=(50, 50))
    SK = QtGui.QKeySequence.StandardKey
    for name, key in (("file.save", SK.Save), ("file.open", SK.Open), ("file.new", SK.New), ("edit.undo", SK.Undo),
                      ("edit.copy", SK.Copy), ("edit.paste", SK.Paste),
                      ("edit.cut", SK.Cut), ("file.save_as", SK.SaveAs)):
        assert w.actions[name].shortcuts() == QtGui.QKeySequence.keyBindings(key), name
        assert w.findChild(QtGui.QAction, name) is w.actions[name]
    # Redo on both conventions; Delete on Del only (X11's standard "Del, Ctrl+D" would take Duplicate's key).
    keys = {name: [s.toString() for s in w.actions[name].shortcuts()] for name in w.actions}
    assert keys["edit.redo"] == ["Ctrl+Shift+Z", "Ctrl+Y"]
    assert keys["edit.delete"] == ["Del"] and keys["edit.duplicate"] == ["Ctrl+D"]
    for tool in ("select", "vertex", "obstacle", "terrain", "route", "network", "agent"):
        assert w.findChild(QtGui.QAction, f"tool.{tool}") is not None
    assert w.findChild(QtWidgets.QWidget, "viewport") is w.viewport


def test_opening_a_bad_file_shows_the_validator_messages(make_studio, drive, tmp_path, monkeypatch):
    w = make_studio(new=(100, 100))
    d = drive(w)
    before = w.scene
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({
        "format": "miran-scene", "version": 1, "bounds": [0, 0, 10, 10],
        "terrain_types": [{"id": "default"}], "default_terrain": "default",
        "obstacles": [{"id": "b1", "polygon": [[0, 0], [4, 4], [4, 0], [0, 4]]}],
        "terrains": [{"id": "t1", "type": "lava", "polygon": [[1, 1], [2, 1], [2, 2]]}],
    }))
    with pytest.raises(InputError) as info:
        load_scene(bad)
    expected = [str(p) for p in info.value.problems]
    assert len(expected) >= 2
    monkeypatch.setattr(dialogs, "ask_open_path", lambda parent, folder: str(bad))
    d.shortcut(QtGui.QKeySequence.StandardKey.Open)
    shown = problem_dialogs()
    assert len(shown) == 1
    lst = shown[0].findChild(QtWidgets.QListWidget, "problems_list")
    assert [lst.item(i).text() for i in range(lst.count())] == expected
    assert "self-intersecting at (2, 2)" in " ".join(expected)
    assert w.scene is before and w.isVisible()  # nothing changed, the app lives on
    shown[0].close()
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "miran-scene", "version": 1,,}')
    assert not w.files.open_path(broken, prompt=False)
    lst = problem_dialogs()[0].findChild(QtWidgets.QListWidget, "problems_list")
    assert "malformed JSON at line 1, column" in lst.item(0).text()
    for dlg in problem_dialogs():
        dlg.close()


def test_starting_with_a_bad_file_shows_the_dialog_and_the_welcome_page(make_studio, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    w = make_studio(bad)
    assert w.central.currentWidget() is w.welcome
    assert problem_dialogs()
    for dlg in problem_dialogs():
        dlg.close()


@pytest.mark.parametrize("answer", ["cancel", "discard", "save"])
def test_unsaved_changes_prompt(make_studio, drive, tmp_path, monkeypatch, answer):
    other = REPO / "scenes" / "mckenna.json"
    w = make_studio(new=(100, 100))
    d = drive(w)
    draw_sample(w, d)
    drawn = w.scene
    asked = []
    monkeypatch.setattr(dialogs, "ask_unsaved", lambda parent, name: asked.append(name) or answer)
    monkeypatch.setattr(dialogs, "ask_save_path", lambda parent, s: str(tmp_path / "kept.json"))
    monkeypatch.setattr(dialogs, "ask_open_path", lambda parent, folder: str(other))
    w.actions["file.open"].trigger()
    assert asked == ["Test"]
    if answer == "cancel":
        assert w.scene is drawn
    else:
        assert w.scene == load_scene(other)
    assert (tmp_path / "kept.json").exists() == (answer == "save")
    if answer == "save":
        assert load_scene(tmp_path / "kept.json") == drawn


def test_close_prompts_and_can_be_cancelled(make_studio, drive, monkeypatch):
    w = make_studio(new=(100, 100))
    drive(w).tool("obstacle")
    draw_sample(w, drive(w))
    monkeypatch.setattr(dialogs, "ask_unsaved", lambda parent, name: "cancel")
    w.close()
    assert w.isVisible()


def test_autosave_writes_a_recovery_file_that_a_clean_close_removes(make_studio, drive, isolated_config,
                                                                    monkeypatch):
    w = make_studio(new=(100, 100))
    draw_sample(w, drive(w))
    assert w.files.autosave()
    w.files.wait_autosave()
    files = list((isolated_config / "recovery").glob("session-*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert data["format"] == "miran-studio-recovery" and data["pid"] == os.getpid()
    assert len(data["scene"]["obstacles"]) == 1
    assert w.files.recovery.orphans() == []  # this process is alive: not offered
    assert not w.files.autosave()  # nothing new since
    monkeypatch.setattr(dialogs, "ask_unsaved", lambda parent, name: "discard")
    w.close()
    assert not files[0].exists()


CRASHING_EDITOR = textwrap.dedent("""
    import os, signal, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6 import QtCore, QtWidgets
    from PySide6.QtTest import QTest
    from app.main import create_main_window
    w = create_main_window()
    w.resize(1280, 860)
    w.show()
    w.files.new_scene("Unsaved work", 100, 100, prompt=False)
    w.show_editor()
    QtWidgets.QApplication.processEvents()
    w.fit()
    QtWidgets.QApplication.processEvents()
    w.actions["tool.obstacle"].trigger()
    vp = w.viewport.viewport()
    for x, y in [(10, 10), (40, 10), (40, 30), (10, 30)]:
        QTest.mouseClick(vp, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                         w.viewport.world_to_pixel(x, y))
    QTest.keyClick(vp, QtCore.Qt.Key.Key_Return)
    assert len(w.scene.obstacles) == 1
    folder = w.files.recovery.folder
    deadline = time.time() + 20
    while not list(folder.glob("session-*.json")) and time.time() < deadline:
        QtWidgets.QApplication.processEvents()
        time.sleep(0.01)
    w.files.wait_autosave()
    print("autosaved", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.mark.subprocess
def test_recovery_is_offered_after_the_process_is_killed(make_studio, isolated_config, monkeypatch):
    env = dict(os.environ, MIRAN_STUDIO_CONFIG_DIR=str(isolated_config), MIRAN_STUDIO_AUTOSAVE_MS="300",
               QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", CRASHING_EDITOR], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr[-2000:]
    assert "autosaved" in proc.stdout
    assert len(list((isolated_config / "recovery").glob("session-*.json"))) == 1
    offered = []
    monkeypatch.setattr(dialogs, "ask_recover", lambda parent, rf: offered.append(rf) or True)
    w = make_studio()
    assert [rf.name for rf in offered] == ["Unsaved work"]
    assert w.scene.name == "Unsaved work"
    assert [o.polygon for o in w.scene.obstacles] == [[(10, 10), (40, 10), (40, 30), (10, 30)]]
    assert w.isWindowModified() and w.central.currentWidget() is w.viewport
    remaining = list((isolated_config / "recovery").glob("session-*.json"))
    assert [p.name for p in remaining] == [f"session-{os.getpid()}.json"]  # the crashed one is taken over
    # A later start offers nothing: the work now belongs to this session.
    monkeypatch.setattr(dialogs, "ask_recover", lambda parent, rf: pytest.fail("offered twice"))
    make_studio()


@pytest.mark.subprocess
def test_declined_recovery_is_discarded(make_studio, isolated_config, monkeypatch):
    folder = isolated_config / "recovery"
    folder.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    (folder / f"session-{dead}.json").write_text(json.dumps({
        "format": "miran-studio-recovery", "version": 1, "pid": int(dead), "source": None, "saved_at": 0,
        "scene": {"format": "miran-scene", "version": 1, "bounds": [0, 0, 5, 5],
                  "terrain_types": [{"id": "default"}], "default_terrain": "default", "name": "Old"}}))
    monkeypatch.setattr(dialogs, "ask_recover", lambda parent, rf: False)
    w = make_studio()
    assert w.scene.name != "Old" and not list(folder.glob("session-*.json"))


@pytest.mark.subprocess
def test_entry_point_opens_the_scene_and_returns_the_exit_status(qtbot, isolated_config):
    """The app's entry point, run as a user starts it: it opens the scene, starts the helper process of the
    engine threads' triangulations (core.triangulate) and returns the exit status."""
    from app import main
    from core import triangulate

    scene = REPO / "scenes" / "mckenna.json"
    opened = []

    def check_and_quit():
        for tw in QtWidgets.QApplication.topLevelWidgets():
            if tw.objectName() == "main_window" and tw.isVisible():
                opened.append(tw)
        QtWidgets.QApplication.instance().exit(0)

    QtCore.QTimer.singleShot(200, check_and_quit)
    try:
        assert main.entry([str(scene), "--config-dir", str(isolated_config / "other")]) == 0
        assert triangulate._STATE["on"] and triangulate._STATE["pool"] is not None
    finally:
        triangulate.offload(False)  # the next tests of this process triangulate in it, as before
    (w,) = opened
    assert w.scene == load_scene(scene) and w.config == isolated_config / "other"
    w.close()
    w.deleteLater()
