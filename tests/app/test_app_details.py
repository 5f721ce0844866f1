"""The smaller things a user meets, through the real window (pytest-qt, offscreen, real events): spin boxes read
scientific notation and say when they clamp; messages name items by id and areas in m²; a refused polygon's marks
go with it; an empty measurement shows no "nan" and no negative time; a drawing tool's click picks no agent;
lengths are rounded; the status bar names terrain types; new terrain types get distinct colours; the planner list
says which planners weigh terrain."""

from __future__ import annotations

import colorsys
import re

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app.layers.qt_base import OBSTACLE_FILL
from app.sim.qt_replay import Measurement
from core.scene import Obstacle, Route
from core.scene.model import TERRAIN_PLANNERS

from app_state import build, spin_type
from conftest import Driver
from sim_harness import SCENES
from sim_window import WAIT

ROAD = SCENES / "mckenna_road.json"


def hint(w) -> str:
    return w.findChild(QtWidgets.QLabel, "status.hint").text()


# ----- spin boxes -----------------------------------------------------------------------------------------------


def test_spin_boxes_read_scientific_notation_and_say_when_they_clamp(make_studio, qtbot):
    w = make_studio(ROAD)
    w.sim._start_timer.stop()
    p = w.sim.parameters
    spin_type(p.dt.spin, "100", qtbot)
    assert p.dt.value() == pytest.approx(1.0)
    msg = p.dt.spin.last_clamp
    assert msg is not None and "100" in msg and "1.000 s" in msg and "above" in msg
    assert msg in w.statusBar().currentMessage()
    sigma = p.profile_fields["sigma"].spin
    spin_type(sigma, "2.5e1", qtbot)                   # the e is read, not dropped (it once became 251)
    assert sigma.value() == pytest.approx(25.0) and sigma.last_clamp is None
    spin_type(sigma, "1e9", qtbot)                     # once 19: now the largest sigma, and said so
    assert sigma.value() == pytest.approx(sigma.maximum())
    assert "1e+09" in sigma.last_clamp and sigma.text() in sigma.last_clamp
    spin_type(sigma, "1E-3", qtbot)
    assert sigma.value() == pytest.approx(sigma.minimum()) and "below" in sigma.last_clamp
    spin_type(p.add_n, "2e3", qtbot)                   # whole numbers too
    assert p.add_n.value() == 2000
    # Not a number: refused keystroke by keystroke, the value stays.
    spin_type(sigma, "12", qtbot)
    sigma.selectAll()
    QTest.keyClicks(sigma, "x")
    QTest.keyClick(sigma, QtCore.Qt.Key.Key_Return)
    assert sigma.value() == pytest.approx(12.0)


# ----- messages ---------------------------------------------------------------------------------------------------


def test_messages_name_items_by_id_and_areas_in_square_metres(make_studio, qtbot):
    w = make_studio(new=(40, 30))
    w.editor.apply({"obstacles": [Obstacle("crate", [(10, 10), (30, 10), (30, 20), (10, 20)])]}, "setup")
    w.doc.select([])
    qtbot.waitUntil(lambda: w.findChild(QtWidgets.QWidget, "inspector.name") is not None, timeout=WAIT)
    boxes = [b for b in w.inspector.findChildren(QtWidgets.QDoubleSpinBox) if b.isVisible()]
    x_max = boxes[2]                                   # x min, y min, x max, y max
    spin_type(x_max, "5", qtbot)
    text = w.statusBar().currentMessage()
    assert "Bounds refused" in text and "obstacle 'crate'" in text and "obstacles[" not in text
    # Too many random agents for the free area: the engine's message, in square metres.
    build(qtbot, w)
    spin_type(w.sim.parameters.add_n, "20000", qtbot)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: bool(w.sim.errors), timeout=WAIT)
    assert "m²" in w.sim.errors[-1] and "units" not in w.sim.errors[-1]
    w.sim._error_box.close()


def test_a_refused_polygon_leaves_no_marks_once_dropped(make_studio, qtbot):
    w = make_studio(new=(40, 30))
    w.sim._start_timer.stop()
    w.editor.apply({"routes": [Route("r", [(5.0, 5.0), (20.0, 15.0), (35.0, 25.0)])]}, "setup")
    d = Driver(w)
    d.tool("obstacle")
    for p in ((15.0, 10.0), (25.0, 10.0), (25.0, 20.0), (15.0, 20.0)):    # covers the route's middle point
        d.click(*p)
    d.key(QtCore.Qt.Key.Key_Return)
    preview = w.layers.preview
    assert len(w.scene.obstacles) == 0 and len(preview.problems.data) > 0
    d.key(QtCore.Qt.Key.Key_Escape)
    assert len(preview.problems.data) == 0 and len(preview.handles.data) == 0 and not preview.label.isVisible()


# ----- measurements and picking ---------------------------------------------------------------------------------


def test_an_empty_measurement_shows_no_nan_and_no_negative_time(make_studio, qtbot):
    w = make_studio(ROAD)
    w.sim._start_timer.stop()
    plots = w.sim.plots
    empty = Measurement(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64), 0.0,
                        [(1, 1), (2, 1), (2, 2)], [(0, 0), (1, 1)], np.zeros(0), np.zeros(0))
    plots.show_measurements(empty)
    nobody = Measurement(np.array([0.0, 1.0]), np.zeros(2), np.zeros(2), np.zeros(2, dtype=np.int64), 0.0,
                         [(1, 1), (2, 1), (2, 2)], None, np.array([np.nan, np.nan]), np.array([np.nan, np.nan]))
    for m in (empty, nobody):
        plots.show_measurements(m)
        QtWidgets.QApplication.processEvents()
        for plot in (plots.density_plot, plots.flow_plot):
            assert "nan" not in plot.titleLabel.text.lower()
            (x0, x1), (y0, y1) = plot.viewRange()
            assert x0 >= 0 and y0 >= 0, (plot.titleLabel.text, plot.viewRange())
            assert "ms" not in plot.getAxis("bottom").labelString()
    assert "nobody" in plots.density_plot.titleLabel.text


def test_an_area_and_a_line_nobody_walks_through_plot_no_nan_in_a_live_run(make_studio, qtbot):
    """The same through a live run: a measurement area and line away from the road's walker, drawn with their
    tools, then Play: the titles say nobody is there (no "nan m/s"), the time axes start at 0, in seconds."""
    from test_app_state import draw_measurements, pause, play_until

    w = make_studio(ROAD)
    draw_measurements(w, ((10.0, 150.0), (40.0, 190.0)), ((20.0, 140.0), (60.0, 140.0)))
    play_until(qtbot, w, 3.0)
    pause(qtbot, w)
    plots = w.sim.plots

    def measured() -> bool:
        p = plots.density_plot
        curves = p.listDataItems() if p is not None else []
        return bool(curves) and curves[0].xData is not None and len(curves[0].xData) > 1

    qtbot.waitUntil(lambda: measured() and plots.flow_plot is not None, timeout=WAIT)
    assert not w.sim.errors, w.sim.errors
    assert plots.density_plot.titleLabel.text == "Area: nobody in it now"
    assert plots.flow_plot.titleLabel.text.startswith("Line")
    for plot in (plots.density_plot, plots.flow_plot):
        assert "nan" not in plot.titleLabel.text.lower()
        (x0, x1), (y0, y1) = plot.viewRange()
        assert x0 >= 0 and y0 >= 0 and x1 > x0, (plot.titleLabel.text, plot.viewRange())
        assert "ms" not in plot.getAxis("bottom").labelString()


def test_a_drawing_tool_click_picks_no_agent(make_studio, qtbot):
    w = make_studio(ROAD)
    build(qtbot, w)
    w.sim.select_agent(-1)
    x, y = w.latest_positions()[0]
    d = Driver(w)
    d.tool("measure_area")
    d.drag([(x, y), (x + 20.0, y + 20.0), (x + 40.0, y + 40.0)])
    assert w.sim.selected == -1 and w.scene.measurement.area is not None
    d.tool("select")
    d.click(x, y)                                      # the Select tool still picks it
    assert w.sim.selected == 0


# ----- wording ----------------------------------------------------------------------------------------------------


def test_lengths_are_rounded_and_terrain_types_named(make_studio, qtbot):
    w = make_studio(ROAD)
    w.sim._start_timer.stop()
    w.doc.select([("route", w.scene.routes[0].id)])
    QtWidgets.QApplication.processEvents()
    texts = [lab.text() for lab in w.inspector.findChildren(QtWidgets.QLabel) if lab.text().endswith(" m")]
    assert texts and all(re.fullmatch(r"\d[\d,]*\.\d m", t) for t in texts), texts
    w.state.set("terrain_type", "mud")
    Driver(w).tool("terrain")
    assert "Mud" in hint(w) and "[mud]" not in hint(w)


def test_new_terrain_types_get_colours_apart_from_each_other_the_greys_and_the_obstacles(make_studio):
    w = make_studio(ROAD)
    w.sim._start_timer.stop()
    for _ in range(6):
        w.terrain_types.add_type()
    colours = [QtGui.QColor(t.color) for t in w.scene.terrain_types]
    new = colours[-6:]
    for c in new:
        h, s, v = colorsys.rgb_to_hsv(c.redF(), c.greenF(), c.blueF())
        assert s > 0.2, f"{c.name()} is a grey"

    def dist(a, b) -> float:
        return float(np.sqrt((a.red() - b.red()) ** 2 + (a.green() - b.green()) ** 2 + (a.blue() - b.blue()) ** 2))

    for i, a in enumerate(new):
        assert dist(a, QtGui.QColor(OBSTACLE_FILL)) > 60
        for b in colours[:len(colours) - 6 + i]:
            assert dist(a, b) > 40, (a.name(), b.name())


def test_the_planner_lists_say_which_planners_weigh_terrain(make_studio, qtbot):
    w = make_studio(ROAD)
    w.sim._start_timer.stop()
    combo = w.findChild(QtWidgets.QComboBox, "options.agent_mode")
    texts = {combo.itemData(k): combo.itemText(k) for k in range(combo.count())}
    for name in ("grid", "cdt", "network"):
        assert "weighs terrain" in texts[name]
    for name in ("ecm", "portal"):
        assert "ignores terrain" in texts[name]
    assert set(TERRAIN_PLANNERS) == {"grid", "cdt", "network"}
    # The test path of a planner that ignores terrain shows no cost equal to its length.
    from app.layers.qt_test_path import probe_text
    from core.routes.probe import RouteProbe

    for planner, word in (("portal", "ignores terrain"), ("cdt", "cost")):
        probe = RouteProbe((0.0, 0.0), (63.2815, 0.0), planner, None, 0.25,
                           np.array([[0.0, 0.0], [63.2815, 0.0]]), 63.2815, 63.2815, 1.0, None, True)
        text = probe_text(probe)
        assert word in text and "63.3 m" in text and "63.2815" not in text
