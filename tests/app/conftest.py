"""Fixtures for the app's tests: offscreen Qt, an isolated config folder, and ``make_studio`` building windows and
tearing them down; helpers that drive the viewport with real mouse and key events."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6 import QtCore, QtWidgets  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from app import qt_dialogs as dialogs  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_config(tmp_path, monkeypatch):
    """Keep every test out of the user's settings and recovery files; no dialog may block a test; no window starts
    worker processes."""
    cfg = tmp_path / "config"
    monkeypatch.setenv("MIRAN_STUDIO_CONFIG_DIR", str(cfg))
    # A window compiles what the cache lacks in its own process, not in a pool of worker processes: the pool has
    # its own tests (test_sim_warmup_workers.py), and a pool per window would put processes into every test.
    monkeypatch.setenv("MIRAN_JIT_WORKERS", "0")

    def fail(*args, **kwargs):
        raise AssertionError(f"a blocking dialog was opened: {args[1:] if len(args) > 1 else kwargs}")

    for name in ("ask_unsaved", "ask_open_path", "ask_save_path", "ask_recover", "ask_new_scene", "ask_choice",
                 "ask_text", "ask_color", "ask_import_path"):
        monkeypatch.setattr(dialogs, name, fail)
    return cfg


@pytest.fixture
def make_studio(qtbot):
    """Build a shown main window (``make_studio(scene_path=None, new=(w, h))``); closes them all afterwards
    without prompting."""
    from app.main import create_main_window

    windows = []

    def make(scene_path=None, new=None, size=(1280, 860)):
        w = create_main_window(scene_path)
        w.resize(*size)
        w.show()
        qtbot.waitExposed(w)
        if new is not None:
            assert w.files.new_scene("Test", *new, prompt=False)
            w.show_editor()
        QtWidgets.QApplication.processEvents()
        w.fit()
        QtWidgets.QApplication.processEvents()
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.undo_stack.setClean()
        w.close()
        w.deleteLater()
    # Data left on the offscreen clipboard makes the interpreter segfault at exit (after every test passed).
    QtWidgets.QApplication.clipboard().clear()
    QtWidgets.QApplication.processEvents()


class Driver:
    """Real mouse and key events on a window's viewport, in scene coordinates."""

    def __init__(self, window):
        self.w = window
        self.vp = window.viewport
        self.widget = window.viewport.viewport()

    def px(self, x: float, y: float) -> QtCore.QPoint:
        return self.vp.world_to_pixel(x, y)

    def tool(self, name: str) -> None:
        self.w.findChild(QtWidgets.QWidget, "main_window")
        action = next(a for a in self.w.actions.values() if a.objectName() == f"tool.{name}")
        action.trigger()

    def click(self, x: float, y: float, modifier=QtCore.Qt.KeyboardModifier.NoModifier) -> None:
        p = self.px(x, y)
        QTest.mouseMove(self.widget, p)
        QTest.mouseClick(self.widget, QtCore.Qt.MouseButton.LeftButton, modifier, p)

    def double_click(self, x: float, y: float) -> None:
        """What a platform delivers for a double-click: press, release, double-click, release."""
        p = self.px(x, y)
        self.click(x, y)
        QTest.mouseDClick(self.widget, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, p)
        QTest.mouseRelease(self.widget, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, p)

    def drag(self, points, modifier=QtCore.Qt.KeyboardModifier.NoModifier) -> None:
        """Press at the first point, move through the others with the button held, release at the last."""
        first = self.px(*points[0])
        QTest.mousePress(self.widget, QtCore.Qt.MouseButton.LeftButton, modifier, first)
        for x, y in points[1:]:
            self.move_held(self.px(x, y))
        QTest.mouseRelease(self.widget, QtCore.Qt.MouseButton.LeftButton, modifier, self.px(*points[-1]))

    def move_held(self, p: QtCore.QPoint) -> None:
        # QTest.mouseMove carries no buttons; send a real move event with the left button held.
        from PySide6 import QtGui

        ev = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, QtCore.QPointF(p), QtCore.QPointF(
            self.widget.mapToGlobal(p)), QtCore.Qt.MouseButton.NoButton, QtCore.Qt.MouseButton.LeftButton,
            QtCore.Qt.KeyboardModifier.NoModifier)
        QtWidgets.QApplication.sendEvent(self.widget, ev)

    def key(self, key, modifier=QtCore.Qt.KeyboardModifier.NoModifier) -> None:
        QTest.keyClick(self.widget, key, modifier)

    def shortcut(self, seq) -> None:
        """Press a key sequence on the window so its shortcut fires (as a user's keystroke would)."""
        from PySide6 import QtGui

        ks = QtGui.QKeySequence(seq)
        combo = ks[0]
        self.w.activateWindow()
        self.vp.setFocus()
        QTest.keyClick(self.vp, combo.key(), combo.keyboardModifiers())


@pytest.fixture
def drive():
    return Driver


@pytest.fixture(scope="session")
def jit_warm():
    """Compile (or load from numba's cache) every simulation kernel once, so waits on streamed frames measure the
    engine's stepping and not a first-start compilation that takes minutes on a busy 2-core machine."""
    from app.sim.warmup import warm_up

    warm_up()
