"""The issue's demonstration: build the shipped McKenna + Road scene from an empty scene with the tools alone
(mouse and keyboard on the viewport and panels), save it, reopen it, and undo and redo every step."""

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app import qt_dialogs as dialogs
from core.scene import load_scene

Key = QtCore.Qt.Key
TARGET = Path(__file__).resolve().parents[2] / "scenes" / "mckenna_road.json"


def grid_for(values) -> float:
    """The largest 1-2-5 grid step (<= 1) that every coordinate is a multiple of."""
    for step in (1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01):
        if all(abs(v / step - round(v / step)) < 1e-9 for v in values):
            return step
    pytest.skip("coordinates finer than 1 cm")


class Builder:
    def __init__(self, w, drive, step):
        self.w, self.d, self.step = w, drive(w), step
        vp = w.viewport.viewport()
        self.span = step / 20 * min(vp.width(), vp.height())

    def look_at(self, x, y):
        """Navigate so (x, y) is in view at a zoom where the grid is ``step`` (a user would pan and zoom)."""
        s = self.span
        self.w.viewport.view.setRange(QtCore.QRectF(x - s / 2, y - s / 2, s, s), padding=0)
        QtWidgets.QApplication.processEvents()
        assert math.isclose(self.w.viewport.grid_step(), self.step)

    def click(self, x, y):
        self.look_at(x, y)
        self.d.click(x, y)

    def polygon(self, ring):
        for x, y in ring:
            self.click(x, y)
        self.d.key(Key.Key_Return)

    def edit_cell(self, table, row, col, text):
        """Double-click a cell, type, Enter."""
        item = table.item(row, col)
        rect = table.visualItemRect(item)
        left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
        QTest.mouseClick(table.viewport(), left, none, rect.center())
        QTest.mouseDClick(table.viewport(), left, none, rect.center())
        editors = [e for e in table.findChildren(QtWidgets.QLineEdit) if e.isVisible()]
        assert len(editors) == 1
        editor = editors[0]
        editor.selectAll()
        QTest.keyClicks(editor, text)
        QTest.keyClick(editor, Key.Key_Return)

    def type_number(self, box, value):
        box.lineEdit().selectAll()
        QTest.keyClicks(box, f"{value:g}")
        QTest.keyClick(box, Key.Key_Return)


def test_build_mckenna_road_with_the_tools_alone(make_studio, drive, qtbot, tmp_path, monkeypatch):
    goal = load_scene(TARGET)
    coords = [c for o in goal.obstacles for p in o.polygon for c in p]
    coords += [c for t in goal.terrains for p in t.polygon for c in p]
    coords += [c for r in goal.routes for p in r.points for c in p]
    assert not any(t.holes for t in goal.terrains)
    w = make_studio()
    b = Builder(w, drive, grid_for(coords))

    # File > New asks for the name and size.
    x0, y0, x1, y1 = goal.bounds
    monkeypatch.setattr(dialogs, "ask_new_scene", lambda parent: (goal.name, x1 - x0, y1 - y0))
    b.d.shortcut(QtGui.QKeySequence.StandardKey.New)
    assert w.scene.name == goal.name and w.scene.bounds == (0.0, 0.0, x1 - x0, y1 - y0)
    assert w.central.currentWidget() is w.viewport
    b = Builder(w, drive, b.step)

    # Terrain types: rename the default, add the others with their ids, names and colours.
    table = w.terrain_types.table
    add = next(bt for bt in w.terrain_types.findChildren(QtWidgets.QPushButton) if bt.text() == "Add")
    colour = next(bt for bt in w.terrain_types.findChildren(QtWidgets.QPushButton) if bt.text() == "Colour…")
    for row, t in enumerate(goal.terrain_types):
        if row > 0:
            QTest.mouseClick(add, QtCore.Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda row=row: table.rowCount() == row + 1)
        if t.id != w.scene.terrain_types[row].id:
            b.edit_cell(table, row, 1, t.id)
            qtbot.waitUntil(lambda row=row, t=t: table.item(row, 1).text() == t.id)
        b.edit_cell(table, row, 2, t.name)
        qtbot.waitUntil(lambda row=row, t=t: table.item(row, 2).text() == t.name)
        table.selectRow(row)
        monkeypatch.setattr(dialogs, "ask_color", lambda parent, current, c=t.color: c)
        QTest.mouseClick(colour, QtCore.Qt.MouseButton.LeftButton)
    assert w.scene.default_terrain == goal.default_terrain
    assert [(t.id, t.name, t.color) for t in w.scene.terrain_types] == \
           [(t.id, t.name, t.color) for t in goal.terrain_types]

    # The profile: its weights typed into the Profiles panel.
    (profile,) = goal.profiles
    assert w.scene.profiles[0].id == profile.id
    for t in goal.terrain_types:
        name = f"profiles.weight.{t.id}"
        qtbot.waitUntil(lambda name=name: w.profiles.findChild(QtWidgets.QDoubleSpinBox, name) is not None)
        b.type_number(w.profiles.findChild(QtWidgets.QDoubleSpinBox, name), profile.weight(t.id))
    for name in ("radius", "max_speed", "sigma", "d"):
        b.type_number(w.profiles.findChild(QtWidgets.QDoubleSpinBox, f"profiles.{name}"), getattr(profile, name))

    # Obstacles and terrain polygons, clicked out vertex by vertex.
    b.d.tool("obstacle")
    for o in goal.obstacles:
        b.polygon(o.polygon)
    b.d.tool("terrain")
    for t in goal.terrains:
        combo = w.options.terrain
        combo.setCurrentIndex(combo.findData(t.type))
        b.polygon(t.polygon)
    # The route, and an agent following it.
    b.d.tool("route")
    for r in goal.routes:
        for p in r.points:
            b.click(*p)
        b.d.key(Key.Key_Return)
    b.d.tool("agent")
    w.options.mode.setCurrentIndex(w.options.mode.findData("route"))
    for a in goal.agents:
        r = goal.route(a.route)
        mid = np.add(r.points[0], r.points[1]) / 2
        b.click(*mid)

    built = w.scene
    assert [o.polygon for o in built.obstacles] == [o.polygon for o in goal.obstacles]
    assert [(t.type, t.polygon, t.holes) for t in built.terrains] == \
           [(t.type, t.polygon, t.holes) for t in goal.terrains]
    assert [r.points for r in built.routes] == [r.points for r in goal.routes]
    assert [(a.profile, a.route) for a in built.agents] == [(a.profile, built.routes[0].id) for a in goal.agents]
    assert np.array_equal(built.weight_matrix(), goal.weight_matrix())
    assert [(p.radius, p.max_speed, p.sigma, p.d) for p in built.profiles] == [(p.radius, p.max_speed, p.sigma, p.d)
                                                                              for p in goal.profiles]
    assert (built.name, built.bounds, built.default_terrain, built.simulation) == \
           (goal.name, goal.bounds, goal.default_terrain, goal.simulation)

    # Save, reopen: identical.
    path = tmp_path / "mckenna_road.json"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda parent, suggested: str(path))
    b.d.shortcut(QtGui.QKeySequence.StandardKey.Save)
    again = make_studio(path)
    assert again.scene == built
    again.close()
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)

    # Every step can be undone, back to the empty scene, and redone.
    steps = w.undo_stack.count()
    assert steps >= len(goal.obstacles) + len(goal.terrains) + 2
    for _ in range(steps):
        b.d.shortcut(QtGui.QKeySequence.StandardKey.Undo)
    assert w.scene.obstacles == [] and w.scene.terrains == [] and w.scene.routes == []
    assert [t.id for t in w.scene.terrain_types] == ["default"]
    for _ in range(steps):
        b.d.shortcut(QtGui.QKeySequence.StandardKey.Redo)
    assert w.scene == built
