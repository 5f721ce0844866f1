"""The viewport: fit, zoom, pan, the grid that follows the zoom, the scale bar and the cursor position."""

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app.layers.qt_items import grid_steps
from core.scene.picking import nice_step


def visible(w):
    (x0, x1), (y0, y1) = w.viewport.view.viewRange()
    return x0, y0, x1, y1


def test_fit_shows_the_whole_scene(make_studio):
    w = make_studio(new=(300, 100))
    x0, y0, x1, y1 = visible(w)
    assert x0 <= 0 and y0 <= 0 and x1 >= 300 and y1 >= 100
    assert (x1 - x0) < 300 * 1.2  # and not much more


def test_zoom_actions_and_wheel_change_the_scale_and_the_grid(make_studio, drive):
    w = make_studio(new=(100, 100))
    px = w.viewport.pixel()
    w.actions["view.zoom_in"].trigger()
    assert w.viewport.pixel() < px * 0.9
    for _ in range(6):
        w.actions["view.zoom_in"].trigger()
    QtWidgets.QApplication.processEvents()
    assert w.viewport.grid_step() < grid_steps(px)[0]
    assert w.editor.grid_step == w.viewport.grid_step()
    w.fit()
    QtWidgets.QApplication.processEvents()
    before = w.viewport.pixel()
    widget = w.viewport.viewport()
    centre = QtCore.QPointF(widget.width() / 2, widget.height() / 2)
    wheel = QtGui.QWheelEvent(centre, QtCore.QPointF(widget.mapToGlobal(centre.toPoint())), QtCore.QPoint(0, 0),
                              QtCore.QPoint(0, 240), QtCore.Qt.MouseButton.NoButton,
                              QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    QtWidgets.QApplication.sendEvent(widget, wheel)
    assert w.viewport.pixel() < before


def test_grid_steps_follow_a_1_2_5_ladder():
    for px in np.geomspace(1e-3, 1e3, 50):
        minor, major = grid_steps(px)
        assert minor == nice_step(14 * px) and minor >= 14 * px * (1 - 1e-9)
        assert major / minor in (2, 5, 10)


def test_middle_drag_and_space_drag_pan_without_editing(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    widget = w.viewport.viewport()
    before = visible(w)
    start = d.px(50, 50)
    QTest.mousePress(widget, QtCore.Qt.MouseButton.MiddleButton, QtCore.Qt.KeyboardModifier.NoModifier, start)
    for k in range(1, 6):
        ev = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, QtCore.QPointF(start + QtCore.QPoint(10 * k, 0)),
                               QtCore.QPointF(widget.mapToGlobal(start + QtCore.QPoint(10 * k, 0))),
                               QtCore.Qt.MouseButton.NoButton, QtCore.Qt.MouseButton.MiddleButton,
                               QtCore.Qt.KeyboardModifier.NoModifier)
        QtWidgets.QApplication.sendEvent(widget, ev)
    QTest.mouseRelease(widget, QtCore.Qt.MouseButton.MiddleButton, QtCore.Qt.KeyboardModifier.NoModifier,
                       start + QtCore.QPoint(50, 0))
    after = visible(w)
    assert after[0] < before[0] - 1  # the scene moved right under the pointer: the view went left
    d.tool("obstacle")
    QTest.keyPress(widget, QtCore.Qt.Key.Key_Space)
    d.click(50, 50)
    QTest.keyRelease(widget, QtCore.Qt.Key.Key_Space)
    assert not w.host.active.busy()  # Space + click navigates, it does not place a vertex


def test_cursor_position_in_the_status_bar(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    QTest.mouseMove(d.widget, d.px(12.5, 40))
    text = w.coords_label.text()
    x = float(text.split()[1])
    y = float(text.split()[4])
    assert abs(x - 12.5) < 2 * w.viewport.pixel() and abs(y - 40) < 2 * w.viewport.pixel()


def test_scale_bar_is_drawn(make_studio):
    w = make_studio(new=(100, 100))
    img = w.viewport.viewport().grab().toImage()
    # Bottom-left corner: a white rounded box with a dark bar and its label.
    h = img.height()
    dark = sum(1 for x in range(10, 200) for y in range(h - 40, h - 5)
               if QtGui.QColor(img.pixel(x, y)).lightness() < 80)
    assert dark > 50


def test_snapping_can_be_switched_off(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    w.actions["view.snap_grid"].setChecked(False)
    w.actions["view.snap_vertices"].setChecked(False)
    d.tool("route")
    d.click(10.3, 10.3)
    d.double_click(50.3, 20.3)
    (p, q) = w.scene.routes[0].points
    assert p != (10.0, 10.0) and abs(p[0] - 10.3) < 2 * w.viewport.pixel()
    w.actions["view.snap_grid"].setChecked(True)
    d.click(10.3, 60.3)
    d.double_click(50.3, 70.3)
    step = w.editor.grid_step
    assert all(abs(c / step - round(c / step)) < 1e-9 for c in w.scene.routes[1].points[0])
