"""Helpers for the tests that drive the studio window's live simulation (pytest-qt)."""

from __future__ import annotations

from PySide6 import QtGui

WAIT = 120_000
BUILD_WAIT = 900_000  # the first build may compile the engine (numba), minutes on a busy machine


def action(w, name: str) -> QtGui.QAction:
    """The window's QAction with this objectName (``sim.play``, ``sim.step``, ...)."""
    return w.findChild(QtGui.QAction, name)


def built(qtbot, w) -> None:
    """Start the window's simulation and wait until it exists (frames arrive)."""
    w.sim.start()
    w.sim.bridge.send("reset")
    qtbot.waitUntil(lambda: w.sim.frame is not None or bool(w.sim.errors), timeout=BUILD_WAIT)
    assert not w.sim.errors
