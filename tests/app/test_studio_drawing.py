"""Drawing with real mouse and key events: obstacles, terrain polygons and routes; undo and redo; and invalid
geometry refused at once with the offending spot marked."""

import numpy as np
import pytest
from PySide6 import QtCore, QtGui
from shapely.geometry import LineString, Point

from core.scene import Obstacle, Route

Key = QtCore.Qt.Key


def problem_spots(w) -> list[tuple[float, float]]:
    x, y = w.layers.preview.problems.getData()
    return sorted(zip(np.round(x, 6).tolist(), np.round(y, 6).tolist()))


def test_draw_obstacle_then_undo_and_redo(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    d.tool("obstacle")
    for p in [(10, 10), (40, 10), (40, 30), (10, 30)]:
        d.click(*p)
    assert w.scene.obstacles == []  # still open
    d.key(Key.Key_Return)
    assert w.scene.obstacles == [Obstacle("o1", [(10, 10), (40, 10), (40, 30), (10, 30)])]
    assert w.doc.selection == (("obstacle", "o1"),)
    d.shortcut(QtGui.QKeySequence.StandardKey.Undo)
    assert w.scene.obstacles == []
    d.shortcut(QtGui.QKeySequence.StandardKey.Redo)
    assert [o.polygon for o in w.scene.obstacles] == [[(10, 10), (40, 10), (40, 30), (10, 30)]]
    assert w.isWindowModified()


def test_polygon_closes_on_double_click_or_first_vertex(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    d.tool("obstacle")
    d.click(10, 10)
    d.click(30, 10)
    d.double_click(30, 30)
    # The double-click's own press adds its vertex once, then closes the polygon.
    assert [o.polygon for o in w.scene.obstacles] == [[(10, 10), (30, 10), (30, 30)]]
    for p in [(50, 50), (70, 50), (70, 70), (50, 50)]:
        d.click(*p)
    assert w.scene.obstacles[-1].polygon == [(50, 50), (70, 50), (70, 70)]


def test_escape_cancels_and_backspace_removes_last_vertex(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    d.tool("obstacle")
    d.click(10, 10)
    d.click(20, 10)
    d.key(Key.Key_Escape)
    assert not w.host.active.busy()
    for p in [(10, 10), (20, 10), (90, 90), (20, 20)]:
        d.click(*p)
    d.key(Key.Key_Backspace)
    d.key(Key.Key_Backspace)
    d.click(20, 20)
    d.key(Key.Key_Enter)
    assert w.scene.obstacles[0].polygon == [(10, 10), (20, 10), (20, 20)]
    assert w.undo_stack.count() == 1


def test_draw_terrain_in_the_current_type(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    mud = w.terrain_types.add_type()
    assert w.state.terrain_type == mud
    d.tool("terrain")
    for p in [(0, 40), (100, 40), (100, 60), (0, 60)]:
        d.click(*p)
    d.key(Key.Key_Return)
    assert len(w.scene.terrains) == 1
    t = w.scene.terrains[0]
    assert t.type == mud and t.polygon == [(0, 40), (100, 40), (100, 60), (0, 60)]
    w.undo_stack.undo()
    assert w.scene.terrains == []
    w.undo_stack.undo()
    assert [t.id for t in w.scene.terrain_types] == ["default"]
    w.undo_stack.redo()
    w.undo_stack.redo()
    assert w.scene.terrains[0].type == mud


def test_sketch_route_by_clicking(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    d.tool("route")
    d.click(10, 10)
    d.click(50, 20)
    d.double_click(90, 90)
    assert [r.points for r in w.scene.routes] == [[(10, 10), (50, 20), (90, 90)]]
    assert not w.host.active.busy()  # the release after the double-click starts nothing
    w.undo_stack.undo()
    assert w.scene.routes == []
    w.undo_stack.redo()
    assert len(w.scene.routes) == 1


def test_sketch_route_freehand_is_simplified(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    d.tool("route")
    t = np.linspace(0, np.pi, 120)
    stroke = [(10 + 80 * s / np.pi, 50 + 30 * np.sin(s)) for s in t]
    d.drag(stroke)
    assert len(w.scene.routes) == 1
    pts = w.scene.routes[0].points
    assert 4 <= len(pts) < 60
    # Within a few pixels of the stroke everywhere, and ends where the stroke ends.
    line = LineString(pts)
    px = w.viewport.pixel()
    assert max(line.distance(Point(p)) for p in stroke) < 4 * px
    assert np.hypot(pts[-1][0] - 90, pts[-1][1] - 50) < 3 * px


def test_self_intersecting_polygon_is_refused_and_marked(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    d.tool("obstacle")
    for p in [(20, 20), (60, 60), (60, 20), (20, 60)]:
        d.click(*p)
    # Marked while drawing, before anything is closed.
    assert problem_spots(w) == [(40.0, 40.0)]
    d.key(Key.Key_Return)
    assert w.scene.obstacles == []
    assert w.host.active.busy()  # kept open so it can be fixed
    assert problem_spots(w) == [(40.0, 40.0)]
    assert "self-intersecting at (40, 40)" in w.layers.preview.label.textItem.toPlainText()
    assert "self-intersecting" in w.statusBar().currentMessage()
    d.key(Key.Key_Backspace)
    d.click(60, 20)
    d.key(Key.Key_Return)
    assert w.scene.obstacles[0].polygon == [(20, 20), (60, 60), (60, 20)]
    assert problem_spots(w) == []


def test_terrain_inside_an_obstacle_is_refused(make_studio, drive):
    w = make_studio(new=(100, 100))
    w.editor.apply({"obstacles": [Obstacle("b1", [(10, 10), (60, 10), (60, 60), (10, 60)])]}, "setup")
    d = drive(w)
    w.actions["view.snap_vertices"].setChecked(False)
    d.tool("terrain")
    for p in [(20, 20), (40, 20), (40, 40)]:
        d.click(*p)
    d.key(Key.Key_Return)
    assert w.scene.terrains == []
    assert "inside obstacle 'b1'" in w.statusBar().currentMessage()
    assert len(problem_spots(w)) == 1


def test_route_point_inside_an_obstacle_is_refused(make_studio, drive):
    w = make_studio(new=(100, 100))
    w.editor.apply({"obstacles": [Obstacle("b1", [(10, 10), (60, 10), (60, 60), (10, 60)])]}, "setup")
    d = drive(w)
    w.actions["view.snap_vertices"].setChecked(False)
    d.tool("route")
    d.click(80, 80)
    d.click(30, 30)  # inside b1: refused, marked
    assert problem_spots(w) == [(30.0, 30.0)]
    assert "inside obstacle 'b1'" in w.statusBar().currentMessage()
    d.double_click(80, 20)
    assert [r.points for r in w.scene.routes] == [[(80, 80), (80, 20)]]


def test_obstacle_over_a_route_point_is_refused(make_studio, drive):
    w = make_studio(new=(100, 100))
    w.editor.apply({"routes": [Route("r1", [(10, 10), (50, 50), (90, 10)])]}, "setup")
    d = drive(w)
    w.actions["view.snap_vertices"].setChecked(False)
    d.tool("obstacle")
    for p in [(40, 40), (60, 40), (60, 60), (40, 60)]:
        d.click(*p)
    d.key(Key.Key_Return)
    assert w.scene.obstacles == []
    assert problem_spots(w) == [(50.0, 50.0)]


@pytest.mark.parametrize("locked", [True, False])
def test_locked_or_hidden_layer_is_not_drawn_on(make_studio, drive, locked):
    w = make_studio(new=(100, 100))
    d = drive(w)
    w.doc.set_layer("obstacle", locked=True) if locked else w.doc.set_layer("obstacle", visible=False)
    d.tool("obstacle")
    d.click(10, 10)
    assert not w.host.active.busy()
    assert ("locked" if locked else "hidden") in w.statusBar().currentMessage()
