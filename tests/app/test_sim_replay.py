"""The replay timeline (pytest-qt, the real window, real key and mouse events on the slider): the agents drawn at
the slider's value t are the recorded positions at t, back and forth; a recording saved and opened again is the
same; the measurement tools set the area and line whose density and flow are plotted; the density heatmap draws.
The measurement area is a polygon clicked out (or a dragged rectangle), one undoable edit saved with the scene."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from core.export import read_paths, write_paths
from core.export.paths import AgentPath, PathsFile
from core.sim.replay import Replay

from conftest import Driver
from sim_window import WAIT, action, built

DT = 0.1


def agent(aid: str, start: int, xy: np.ndarray, arrived: bool) -> AgentPath:
    t = (start + np.arange(len(xy))) * DT
    seg = np.hypot(*np.diff(xy, axis=0).T).sum() if len(xy) > 1 else 0.0
    return AgentPath(aid, "pedestrian", arrived, float(t[-1]), float(seg), float(seg), {"default": float(seg)},
                     0.5, np.column_stack([t, xy]))


@pytest.fixture
def recording(tmp_path):
    """Three walkers in the 40 x 30 test scene: one arrives early, one starts late."""
    n = 60
    xs = np.linspace(2.0, 30.0, n)
    pf = PathsFile("Test", "miran", "euler", DT, [
        agent("a", 0, np.column_stack([xs, np.full(n, 5.0)]), False),
        agent("b", 0, np.column_stack([xs[:25][::-1], np.full(25, 9.0)]), True),
        agent("c", 10, np.column_stack([np.full(n - 10, 12.0), np.linspace(2.0, 25.0, n - 10)]), False)])
    path = tmp_path / "run.paths.json"
    write_paths(path, pf)
    return path, Replay.from_paths(pf)


def studio(make_studio):
    w = make_studio(new=(40, 30))
    w.sim._start_timer.stop()            # no engine: these tests replay files
    return w


def slider(w) -> QtWidgets.QSlider:
    return w.findChild(QtWidgets.QSlider, "sim.timeline")


def drawn_equals_recorded(w, rep: Replay) -> float:
    s = slider(w)
    t = float(rep.times()[s.value()])
    np.testing.assert_array_equal(w.latest_positions(), rep.positions_at(t))
    return t


def test_slider_keys_move_the_replay_back_and_forth(make_studio, recording, qtbot):
    path, rep = recording
    w = studio(make_studio)
    assert w.sim.replay.open(path)
    s = slider(w)
    assert (s.minimum(), s.maximum()) == (0, len(rep.times()) - 1)
    s.setFocus()
    seen = [drawn_equals_recorded(w, rep)]
    for key in (QtCore.Qt.Key.Key_End, QtCore.Qt.Key.Key_Left, QtCore.Qt.Key.Key_PageDown, QtCore.Qt.Key.Key_Home,
                QtCore.Qt.Key.Key_Right, QtCore.Qt.Key.Key_Right, QtCore.Qt.Key.Key_PageUp):
        QTest.keyClick(s, key)
        seen.append(drawn_equals_recorded(w, rep))
    assert seen[1] == rep.t1 and seen[4] == rep.t0 and seen[6] == pytest.approx(rep.t0 + 2 * DT)
    assert seen[2] < seen[1] and seen[3] < seen[2]                 # back ...
    assert seen[7] > seen[6]                                       # ... and forth
    # The plots follow: arrivals up to the shown time only ("b" arrives at 2.4 s).
    QTest.keyClick(s, QtCore.Qt.Key.Key_Home)
    assert "0 of 3" in w.sim.plots.arrivals.titleLabel.text
    QTest.keyClick(s, QtCore.Qt.Key.Key_End)
    assert "1 of 3" in w.sim.plots.arrivals.titleLabel.text


def test_dragging_the_handle_scrubs(make_studio, recording, qtbot):
    path, rep = recording
    w = studio(make_studio)
    w.sim.replay.open(path)
    s = slider(w)
    opt = QtWidgets.QStyleOptionSlider()
    s.initStyleOption(opt)
    handle = s.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_Slider, opt,
                                      QtWidgets.QStyle.SubControl.SC_SliderHandle, s).center()
    QTest.mousePress(s, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, handle)
    for x in (s.width() * 3 // 4, s.width() // 3):
        QTest.mouseMove(s, QtCore.QPoint(x, handle.y()))
        qtbot.waitUntil(lambda: s.value() > 0)
        drawn_equals_recorded(w, rep)
    QTest.mouseRelease(s, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                       QtCore.QPoint(s.width() // 3, handle.y()))
    assert 0 < s.value() < s.maximum()
    drawn_equals_recorded(w, rep)


def test_save_load_round_trip_equals(make_studio, recording, tmp_path, qtbot):
    path, rep = recording
    w = studio(make_studio)
    w.sim.replay.open(path)
    out = w.sim.replay.save(tmp_path / "again.paths.json")
    assert json.loads(out.read_text()) == json.loads(path.read_text())
    back = Replay.from_paths(read_paths(out))
    np.testing.assert_array_equal(back.xy, rep.xy)
    np.testing.assert_array_equal(back.t, rep.t)


def test_a_bad_recording_is_named_not_raised(make_studio, tmp_path, qtbot):
    w = studio(make_studio)
    bad = tmp_path / "bad.paths.json"
    bad.write_text(json.dumps({"format": "miran-paths", "version": 1, "scene": "x", "method": "miran",
                               "integrator": "euler", "dt": -1, "agents": []}))
    assert not w.sim.replay.open(bad)
    assert any("dt" in e for e in w.sim.errors)
    assert not w.sim.replay.active


def test_measurement_tools_and_density_heatmap(make_studio, recording, qtbot):
    path, rep = recording
    w = studio(make_studio)
    w.sim.replay.open(path)
    QTest.keyClick(slider(w), QtCore.Qt.Key.Key_End)       # measured up to the time shown: the whole run
    d = Driver(w)
    d.tool("measure_area")
    d.drag([(8.0, 2.0), (16.0, 10.0)])
    assert w.doc.scene.measurement.area == [(8.0, 2.0), (16.0, 2.0), (16.0, 10.0), (8.0, 10.0)]
    d.tool("measure_line")
    d.drag([(20.0, 4.0), (20.0, 12.0)])
    assert w.doc.scene.measurement.line == [(20.0, 4.0), (20.0, 12.0)]
    qtbot.waitUntil(lambda: getattr(w.sim.plots, "flow_plot", None) is not None
                    and getattr(w.sim.plots, "density_plot", None) is not None, timeout=WAIT)
    # Agent "a" crosses x = 20 once during the run; the line's N(t) ends at 1.
    qtbot.waitUntil(lambda: any(len(c.yData) and c.yData[-1] == 1 for c in w.sim.plots.flow_plot.curves),
                    timeout=WAIT)
    QTest.keyClick(slider(w), QtCore.Qt.Key.Key_Home)      # t = 0: agents a and b are there, c starts later
    mode = w.findChild(QtWidgets.QComboBox, "sim.density.mode")
    mode.setCurrentIndex(mode.findData("voronoi"))
    qtbot.waitUntil(lambda: w.sim.replay.layer.grid is not None, timeout=WAIT)
    grid = w.sim.replay.layer.grid
    cell = 40.0 / grid.shape[1]
    # Integrated over the scene the Voronoi density counts the agents present (averaged over the window).
    assert np.nansum(grid) * cell * cell == pytest.approx(2.0, rel=1e-6)


def path_points(rep, times: np.ndarray) -> np.ndarray:
    """(n, 2) each agent's recorded path linearly interpolated at its own time ``times[i]``."""
    return np.array([[np.interp(u, rep.t[i:j], rep.xy[i:j, 0]), np.interp(u, rep.t[i:j], rep.xy[i:j, 1])]
                     for u, i, j in zip(times, rep.offsets[:-1], rep.offsets[1:])])


def test_a_clicked_polygon_area_is_plotted_undone_and_saved_with_the_scene(make_studio, recording, tmp_path,
                                                                           qtbot):
    import shapely

    from core.scene.io import load_scene

    path, rep = recording
    w = studio(make_studio)
    w.sim.replay.open(path)
    QTest.keyClick(slider(w), QtCore.Qt.Key.Key_End)
    d = Driver(w)
    d.tool("measure_area")
    ring = [(4.0, 4.0), (14.0, 4.0), (14.0, 8.0), (8.0, 8.0), (8.0, 16.0), (4.0, 16.0)]   # an L, 72 m²
    for x, y in ring:
        d.click(x, y)
    d.click(*ring[0])                                                   # the first vertex closes it
    assert w.doc.scene.measurement.area == ring
    np.testing.assert_array_equal(w.sim.replay.layer.area.getData()[0], [x for x, _ in ring + ring[:1]])
    qtbot.waitUntil(lambda: getattr(w.sim.plots, "density_plot", None) is not None, timeout=WAIT)
    plot = w.sim.plots.density_plot
    qtbot.waitUntil(lambda: any(c.name() == "classic" and len(c.xData) > 10 for c in plot.curves), timeout=WAIT)
    curve = next(c for c in plot.curves if c.name() == "classic")
    # The plotted classic density against shapely: the agents inside the L at each time, over its area.
    poly = shapely.Polygon(ring)
    for t, density in zip(curve.xData, curve.yData):
        xy = rep.positions_at(float(t))
        xy = xy[np.isfinite(xy).all(axis=1)]
        inside = int(np.count_nonzero(shapely.contains_xy(poly, xy[:, 0], xy[:, 1])))
        assert density == pytest.approx(inside / 72.0, abs=1e-12)
    assert max(curve.yData) > 0
    # The specific flow J = rho v beside it: that density times the mean speed of the agents inside, each agent's
    # speed its displacement over [t - 0.5 s, t + 0.5 s] (one-sided at its path's ends, PedPy's single-sided border).
    flow = next(c for c in plot.curves if c.name() == "flow J = ρv")
    np.testing.assert_array_equal(flow.xData, curve.xData)
    first, last = rep.t[rep.offsets[:-1]], rep.t[rep.offsets[1:] - 1]
    for k in range(0, len(curve.xData), 7):
        t = float(curve.xData[k])
        here = (first <= t) & (t <= last)
        t0 = np.where(first <= t - 0.5, t - 0.5, t)
        t1 = np.where(t + 0.5 <= last, t + 0.5, t)
        p0, p1 = path_points(rep, t0), path_points(rep, t1)
        xy = rep.positions_at(t)
        inside = here & shapely.contains_xy(poly, xy[:, 0], xy[:, 1]) & (t1 > t0)
        v = np.hypot(*(p1 - p0).T)[inside] / (t1 - t0)[inside]
        expect = curve.yData[k] * (v.mean() if len(v) else 0.0)
        assert flow.yData[k] == pytest.approx(expect, rel=1e-9, abs=1e-12)
    assert max(flow.yData) > 0

    d.shortcut("Ctrl+Z")                                                # one edit: undo removes the whole area
    assert w.doc.scene.measurement.area is None
    assert w.sim.plots.density_plot is None and len(w.sim.replay.layer.area.getData()[0]) == 0
    d.shortcut("Ctrl+Shift+Z")
    assert w.doc.scene.measurement.area == ring
    out = tmp_path / "measured.json"
    assert w.files._write(out)
    assert json.loads(out.read_text())["measurement"] == {"area": [list(p) for p in ring]}
    assert load_scene(out).measurement.area == ring

    d.tool("measure_area")
    d.key(QtCore.Qt.Key.Key_Delete)                                     # Delete with the tool: removes it
    assert w.doc.scene.measurement.area is None
    d.drag([(10.0, 4.0), (20.0, 12.0)])                                 # a dragged rectangle still works
    assert w.doc.scene.measurement.area == [(10.0, 4.0), (20.0, 4.0), (20.0, 12.0), (10.0, 12.0)]


@pytest.mark.usefixtures("jit_warm")
def test_the_live_run_is_scrubbed_from_its_own_recording(make_studio, qtbot):
    from sim_harness import SCENES

    w = make_studio(SCENES / "mckenna_road.json")
    built(qtbot, w)
    for _ in range(30):
        action(w, "sim.step").trigger()
    qtbot.waitUntil(lambda: w.sim.frame is not None and w.sim.frame.steps >= 30, timeout=WAIT)
    s = slider(w)
    assert s.maximum() == w.sim.frame.steps
    s.setFocus()
    QTest.keyClick(s, QtCore.Qt.Key.Key_Home)                     # a real key: pauses and fetches the recording
    qtbot.waitUntil(lambda: w.sim.replay.store is not None and w.sim.replay._entering is None, timeout=WAIT)
    assert w.sim.replay.active and s.value() == 0
    sim = w.sim.bridge.worker.controller.sim
    for key in (QtCore.Qt.Key.Key_End, QtCore.Qt.Key.Key_PageDown, QtCore.Qt.Key.Key_Left, QtCore.Qt.Key.Key_Home):
        QTest.keyClick(s, key)
        t = float(w.sim.replay.times[s.value()])
        # The engine's own recorded path of every agent walking then holds the drawn position at that time.
        compared = 0
        for i in range(sim.n_agents):
            p = sim.path(i)
            k = min(int(np.searchsorted(p[:, 0], t - 1e-9)), len(p) - 1)
            if abs(p[k, 0] - t) < 1e-9:
                np.testing.assert_array_equal(w.latest_positions()[i], p[k, 1:])
                compared += 1
        assert compared > 0
    action(w, "sim.step").trigger()                                # back to the live run
    qtbot.waitUntil(lambda: not w.sim.replay.active and w.sim.frame.steps >= 31, timeout=WAIT)


def test_the_command_line_refuses_a_bad_recording_with_status_2(tmp_path, capsys):
    from app.main import entry

    bad = tmp_path / "bad.paths.json"
    bad.write_text('{"format": "miran-paths", "version": 1, "scene": "x", "method": "miran", "integrator": "euler", '
                   '"dt": 0.1, "agents": [{"id": "a"}]}')
    assert entry(["--replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "agents[0]" in err and "Traceback" not in err
    assert entry(["--replay", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_choosing_an_agent_in_the_replay_plots_its_speed_up_to_the_time_shown(make_studio, recording, qtbot):
    path, rep = recording
    w = studio(make_studio)
    w.sim.replay.open(path)
    s = slider(w)
    s.setValue(30)
    w.sim._start_timer.stop()
    monkey = []
    w.sim.bridge.send = lambda *a: monkey.append(a)          # no engine: the command is only recorded
    w.sim.bridge.running = True
    try:
        w.sim.select_agent(0)
    finally:
        w.sim.bridge.running = False
    # Agent "a" walks 28 m in 59 steps of 0.1 s along a line: its speed is 28 / 5.9 m/s at every step up to 3.0 s.
    xs, ys = w.sim.plots.speed_curve.getData()
    np.testing.assert_allclose(xs, 0.1 * np.arange(1, 31))
    np.testing.assert_allclose(ys, 28.0 / 5.9)
    assert ("select", 0) in monkey


def test_the_terrain_length_bars_follow_the_slider(make_studio, recording, qtbot):
    from core.scene.model import TerrainPolygon, TerrainType

    path, rep = recording
    w = studio(make_studio)
    scene = w.doc.scene
    w.doc.set_fields({"terrain_types": [*scene.terrain_types, TerrainType("mud", "Mud", "#8b5a2b")],
                      "terrains": [TerrainPolygon("t1", "mud", [(10.0, 0.0), (20.0, 0.0), (20.0, 10.0),
                                                                (10.0, 10.0)])]})
    w.sim.replay.open(path)
    w.sim._start_timer.stop()
    w.sim.bridge.send = lambda *a: None                      # no engine
    w.sim.bridge.running = True
    try:
        w.sim.select_agent(0)
    finally:
        w.sim.bridge.running = False
    s = slider(w)
    s.setFocus()
    # Agent "a" walks y = 5 from x = 2 to 30 in 59 steps; the mud covers 10 <= x <= 20 (the bars: default, mud).
    for key in (QtCore.Qt.Key.Key_Home, QtCore.Qt.Key.Key_PageDown, QtCore.Qt.Key.Key_PageDown,
                QtCore.Qt.Key.Key_End, QtCore.Qt.Key.Key_PageUp, QtCore.Qt.Key.Key_Left):
        QTest.keyClick(s, key)
        k = min(s.value(), 59)
        x = 2.0 + 28.0 * k / 59
        mud = min(max(x, 10.0), 20.0) - 10.0
        heights = np.asarray(w.sim.plots.bars.opts["height"])
        np.testing.assert_allclose(heights, [x - 2.0 - mud, mud], atol=1e-9)
    assert s.value() > 0
