"""The Schedule panel: scenes/city_traffic.json's roadworks and car as bars over the run's time, the roadworks'
appearance dragged earlier with real mouse events (one undoable edit), a click selecting the car, and the mark of
the simulated time the window shows."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

import sim_window
from app.panels.qt_schedule import AXIS_H, ROW_H

TRAFFIC = Path(__file__).resolve().parents[2] / "scenes" / "city_traffic.json"


def _at(panel, t: float, row: int) -> QtCore.QPoint:
    return QtCore.QPoint(round(panel.x_of(t)), AXIS_H + row * ROW_H + ROW_H // 2)


def test_the_schedule_shows_drags_and_selects(make_studio, qtbot):
    w = make_studio(TRAFFIC)
    sim_window.built(qtbot, w)
    panel = w.schedule
    assert w.docks["schedule"].isVisible() and panel.isVisible()      # raised for a scene with a schedule
    assert [o.id for o in panel.rows()] == ["roadworks", "car"]
    # Drag the roadworks' left end from 60 s to 30 s: it appears at 30 s, one undoable edit.
    start, end = _at(panel, 60.0, 0), _at(panel, 30.0, 0)
    QTest.mousePress(panel, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, start)
    for k in range(1, 6):
        p = QtCore.QPoint(start.x() + (end.x() - start.x()) * k // 5, start.y())
        ev = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, QtCore.QPointF(p), QtCore.QPointF(panel.mapToGlobal(p)),
                               QtCore.Qt.MouseButton.NoButton, QtCore.Qt.MouseButton.LeftButton,
                               QtCore.Qt.KeyboardModifier.NoModifier)
        QtWidgets.QApplication.sendEvent(panel, ev)
    QTest.mouseRelease(panel, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, end)
    roadworks = next(o for o in w.scene.obstacles if o.id == "roadworks")
    assert abs(roadworks.appears - 30.0) <= 1.0 and roadworks.vanishes is None
    assert list(w.doc.selection) == [("obstacle", "roadworks")]
    w.undo_stack.undo()
    assert next(o for o in w.scene.obstacles if o.id == "roadworks").appears == 60.0
    # A click on the car's row selects it, and changes nothing.
    before = w.scene
    QTest.mouseClick(panel, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                     _at(panel, 5.0, 1))
    assert list(w.doc.selection) == [("obstacle", "car")] and w.scene is before
    # The simulated time the window shows is marked.
    w.sim.show_clock(12.5)
    assert panel.time == 12.5
