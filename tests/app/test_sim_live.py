"""The live simulation in the window (pytest-qt, offscreen): play, live sigma and weights, pause/step/reset,
export, engine errors, side by side, random agents, and a responsive event loop while 5,000 agents walk."""

import json
import time

import jsonschema
import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from core.export import read_paths
from core.scene.io import load_scene, save_scene
from core.scene.model import Obstacle, Profile, Scene, SimulationSettings, TerrainType

from sim_harness import SCENES
from sim_window import BUILD_WAIT, WAIT, action, built

SCHEMA = SCENES.parent / "resources" / "schemas" / "miran-paths.schema.json"
ROAD = SCENES / "mckenna_road.json"
# Compile (or load) the engine once per session, outside the timed waits (tests/app/conftest.py).
pytestmark = pytest.mark.usefixtures("jit_warm")


def trace_of(w):
    return w.sim.trace.last.trace if w.sim.trace.last is not None else None


def test_play_streams_positions_then_pause_step_reset(make_studio, qtbot):
    w = make_studio(ROAD)
    start = np.array(load_scene(ROAD).routes[0].points[0])
    action(w, "sim.play").trigger()
    qtbot.waitUntil(lambda: w.sim.frame is not None and w.sim.frame.time > 3.0, timeout=WAIT)
    seen = [w.latest_positions()]
    qtbot.waitUntil(lambda: not np.array_equal(w.latest_positions(), seen[-1]), timeout=WAIT)
    pos = w.latest_positions()
    assert pos.shape == (1, 2) and np.hypot(*(pos[0] - start)) > 1.0
    action(w, "sim.pause").trigger()
    qtbot.waitUntil(lambda: not w.sim.frame.playing, timeout=WAIT)
    steps = w.sim.frame.steps
    qtbot.wait(300)
    assert w.sim.frame.steps == steps
    action(w, "sim.step").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps == steps + 1, timeout=WAIT)
    assert w.sim.clock.text().startswith("t = ")
    action(w, "sim.reset").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps == 0, timeout=WAIT)
    qtbot.waitUntil(lambda: np.allclose(w.latest_positions()[0], start), timeout=WAIT)  # drawn at the next paint
    assert not w.sim.errors
    # The JIT warm-up ran in the worker and reported its time (shown in the status bar).
    qtbot.waitUntil(lambda: w.sim.warmup_seconds is not None, timeout=BUILD_WAIT)


def drag_left_until(slider_field, below: float) -> float:
    """Press Left on the slider, as a user dragging it, until its value is under ``below``; the value reached."""
    slider_field.slider.setFocus()
    for _ in range(500):
        if slider_field.value() < below:
            break
        QTest.keyClick(slider_field.slider, QtCore.Qt.Key.Key_Left)
    assert slider_field.value() < below
    return slider_field.value()


def test_sigma_slider_moves_the_attraction_point_live(make_studio, qtbot):
    w = make_studio(ROAD)
    built(qtbot, w)
    assert w.sim.selected == 0  # a small scene traces its first agent at once
    for _ in range(25):
        action(w, "sim.step").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps == 25 and trace_of(w) is not None, timeout=WAIT)
    sigma = w.findChild(QtWidgets.QWidget, "sim.sigma")

    def next_step_within(s: float) -> bool:
        """The overlay shows the paused agent's next step (from the current time), chosen with sigma s."""
        t = trace_of(w)
        return abs(t.time - w.sim.frame.time) < 1e-9 and t.window_end_s - t.reference_s <= s + 1e-6

    first = drag_left_until(sigma, 0.8 * 40.0)
    qtbot.waitUntil(lambda: next_step_within(first), timeout=WAIT)
    before = trace_of(w)
    ahead = before.attraction_s - before.reference_s
    assert ahead > 1.0
    second = drag_left_until(sigma, 0.5 * ahead)  # now sigma no longer reaches the point chosen before
    qtbot.waitUntil(lambda: next_step_within(second), timeout=WAIT)
    after = trace_of(w)
    assert w.sim.frame.steps == 25  # paused: the overlay shows the next step's choice without moving anyone
    assert after.time == before.time and after.reference_s == before.reference_s
    assert after.attraction_s <= after.reference_s + second + 1e-6 < before.attraction_s
    assert not np.allclose(after.attraction, before.attraction)
    # The candidates drawn are the trace's, coloured by omega.
    assert len(w.sim.trace.candidates.data) == len(after.candidates)


def test_mud_weight_reshapes_the_ghost_preview(make_studio, qtbot):
    w = make_studio(ROAD)
    built(qtbot, w)
    action(w, "sim.preview").setChecked(True)
    ghost = w.sim.ghost.curves[0]
    qtbot.waitUntil(lambda: len(ghost.getData()[0] if ghost.getData()[0] is not None else []) > 10, timeout=WAIT)
    first = np.column_stack(ghost.getData())
    w.findChild(QtWidgets.QWidget, "sim.weight.sidewalk").spin.setValue(60.0)
    w.findChild(QtWidgets.QWidget, "sim.weight.mud").spin.setValue(0.1)

    def changed():
        x, y = ghost.getData()
        return x is not None and (len(x) != len(first) or not np.allclose(np.column_stack([x, y]), first,
                                                                           equal_nan=True))
    qtbot.waitUntil(changed, timeout=WAIT)


def test_export_paths_json_csv_png(make_studio, qtbot, tmp_path):
    w = make_studio(ROAD)
    built(qtbot, w)
    w.sim.set_speed_index(w.sim.parameters.speed.count() - 1)
    action(w, "sim.play").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.arrived == 1, timeout=WAIT)
    out = w.export_paths(tmp_path / "road.paths.json")
    data = json.loads(out.read_text())
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    pf = read_paths(out)
    assert pf.scene == "McKenna + Road" and pf.agents[0].reached_goal
    assert pf.agents[0].terrain_lengths["mud"] == 0.0
    csv = w.export_paths(tmp_path / "road.csv")
    assert csv.read_text().splitlines()[0] == "agent,profile,t,x,y"
    assert w.sim.export_png(tmp_path / "view.png")
    img = QtGui.QImage(str(tmp_path / "view.png"))
    assert img.width() > 100 and img.height() > 100


def test_engine_errors_show_and_the_worker_stays_alive(make_studio, qtbot):
    w = make_studio(ROAD)
    built(qtbot, w)
    w.sim.bridge.send("param", "dt", -0.5)
    qtbot.waitUntil(lambda: bool(w.sim.errors), timeout=WAIT)
    assert "dt" in w.sim.errors[0]
    box = w.findChild(QtWidgets.QMessageBox, "sim.error")
    assert box is not None and box.isVisible() and not box.isModal()
    action(w, "sim.step").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps == 1, timeout=WAIT)


def test_side_by_side_and_random_agents(make_studio, qtbot):
    w = make_studio(ROAD)
    built(qtbot, w)
    w.sim.parameters.add_n.setValue(4)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: len(w.latest_positions()) == 5, timeout=WAIT)
    action(w, "sim.compare").setChecked(True)
    qtbot.waitUntil(lambda: len(w.sim.agents.compare.data) == 5, timeout=WAIT)
    assert np.array_equal(w.sim.frame.compare_positions, w.sim.frame.positions)  # the same routes, time 0
    action(w, "sim.compare").setChecked(False)
    qtbot.waitUntil(lambda: w.sim.frame.compare_positions is None, timeout=WAIT)


def test_side_by_side_joins_at_the_current_time_and_keeps_playing(make_studio, qtbot):
    """Side by Side during a run: the second run starts where the first one is; neither is reset nor paused."""
    w = make_studio(ROAD)
    built(qtbot, w)
    action(w, "sim.step").trigger()
    qtbot.waitUntil(lambda: w.sim.frame is not None and w.sim.frame.steps == 1, timeout=WAIT)
    w.sim.bridge.send("step", 40)
    qtbot.waitUntil(lambda: w.sim.frame.steps == 41, timeout=WAIT)
    t0, where = w.sim.frame.time, w.sim.frame.positions.copy()
    action(w, "sim.compare").setChecked(True)
    qtbot.waitUntil(lambda: w.sim.frame.compare_positions is not None, timeout=WAIT)
    f = w.sim.frame
    assert f.steps == 41 and f.time == t0 and not f.playing  # not reset to t = 0
    assert np.array_equal(f.compare_positions, where)  # starts where the first run stands
    assert "from t = " in w.statusBar().currentMessage()
    action(w, "sim.play").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.playing and w.sim.frame.time > t0 + 1.0, timeout=WAIT)
    action(w, "sim.compare").setChecked(False)  # switching it off while playing: the run goes on
    qtbot.waitUntil(lambda: w.sim.frame.compare_positions is None, timeout=WAIT)
    t1 = w.sim.frame.time
    assert w.sim.frame.playing and t1 > t0
    qtbot.waitUntil(lambda: w.sim.frame.time > t1, timeout=WAIT)
    action(w, "sim.compare").setChecked(True)
    qtbot.waitUntil(lambda: w.sim.frame.compare_positions is not None, timeout=WAIT)
    assert w.sim.frame.playing and w.sim.frame.time > t1
    assert not w.sim.errors


def test_plots_start_afresh_after_reset(make_studio, qtbot):
    """Reset rebuilds the run: the plots lose the last run's curves and its axes' ranges."""
    w = make_studio(ROAD)
    built(qtbot, w)
    w.sim.select_agent(0)
    w.sim.bridge.send("step", 200)
    plots = w.sim.plots
    qtbot.waitUntil(lambda: plots.last is not None and len(plots.last.speed_t) > 50, timeout=WAIT)
    qtbot.waitUntil(lambda: plots.speed.viewRange()[0][1] > 5.0, timeout=WAIT)
    action(w, "sim.reset").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps == 0, timeout=WAIT)
    qtbot.waitUntil(lambda: plots.speed.viewRange()[0][1] <= 1.0 + 1e-9, timeout=WAIT)
    assert len(plots.speed_curve.getData()[0] if plots.speed_curve.getData()[0] is not None else []) <= 1
    for plot in plots.plot_items():
        assert plot.viewRange()[1][0] >= 0.0
        assert "x0.0" not in plot.getAxis("left").labelString()


def test_click_on_an_agent_traces_it(make_studio, qtbot, drive):
    w = make_studio(ROAD)
    built(qtbot, w)
    w.sim.select_agent(-1)
    x, y = w.latest_positions()[0]
    drive(w).click(x, y)
    assert w.sim.selected == 0
    qtbot.waitUntil(lambda: trace_of(w) is not None, timeout=WAIT)


def open_square() -> Scene:
    """An open 1000 x 500 m square with a few buildings and a walking profile, no agents yet."""
    obstacles = [Obstacle(f"o{k}", [(200 + 250 * k, 200.0), (260 + 250 * k, 200.0), (260 + 250 * k, 290.0),
                                    (200 + 250 * k, 290.0)]) for k in range(3)]
    return Scene(bounds=(0.0, 0.0, 1000.0, 500.0), terrain_types=[TerrainType("default")],
                 default_terrain="default", name="open square", obstacles=obstacles,
                 profiles=[Profile("walker", {}, radius=0.25, max_speed=1.4, sigma=20.0, d=5.0)],
                 simulation=SimulationSettings("miran", "euler", 0.1))


def timer_gaps(qtbot, seconds: float) -> np.ndarray:
    """The gaps (s) between the firings of a 10 ms timer over ``seconds`` of the running event loop."""
    stamps: list[float] = []
    timer = QtCore.QTimer()
    timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
    timer.timeout.connect(lambda: stamps.append(time.perf_counter()))
    timer.start(10)
    qtbot.wait(int(1000 * seconds))
    timer.stop()
    return np.diff(stamps)


@pytest.mark.perf
def test_event_loop_stays_responsive_with_5000_agents(make_studio, qtbot, tmp_path):
    """A 10 ms timer keeps firing while 5,000 agents walk and are drawn: compared with the same window paused, in
    the same run (no figure of this machine's speed), it fires at least a fifth as often (the pacer leaves the UI
    thread at least half its time) and its longest wait is under 200 of its paused gaps (no freeze)."""
    path = tmp_path / "square.json"
    save_scene(open_square(), path)
    w = make_studio(path)
    built(qtbot, w)
    w.sim.parameters.add_n.setValue(5000)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: len(w.latest_positions()) == 5000, timeout=4 * WAIT)
    idle = timer_gaps(qtbot, 2.0)
    w.sim.set_speed_index(w.sim.parameters.speed.count() - 1)
    action(w, "sim.play").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps >= 2, timeout=WAIT)
    steps0 = w.sim.frame.steps
    playing = timer_gaps(qtbot, 4.0)
    action(w, "sim.pause").trigger()
    assert w.sim.frame.steps > steps0  # the engine walked on and frames were drawn
    rate_idle, rate_playing = 1.0 / np.median(idle), 1.0 / np.median(playing)
    assert rate_playing >= 0.2 * rate_idle, (np.median(idle), np.percentile(playing, [50, 90, 99, 100]))
    assert playing.max() < 200 * np.median(idle), (np.median(idle), np.percentile(playing, [50, 90, 99, 100]))
    assert not w.sim.errors


def test_scene_edits_apply_live_or_at_reset(make_studio, qtbot):
    from core.scene.edits import remove_items

    w = make_studio(ROAD)
    built(qtbot, w)
    for _ in range(20):
        action(w, "sim.step").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps == 20 and trace_of(w) is not None, timeout=WAIT)
    # A profile edited in the editor's Profiles panel applies on the next step, and the Simulation panel shows it.
    w.findChild(QtWidgets.QDoubleSpinBox, "profiles.sigma").setValue(6.0)
    qtbot.waitUntil(lambda: trace_of(w).window_end_s - trace_of(w).reference_s <= 6.0 + 1e-6, timeout=WAIT)
    assert w.findChild(QtWidgets.QWidget, "sim.sigma").value() == 6.0
    # Deleting an obstacle applies to the running simulation at once (core.sim.world): the same run goes on, and
    # keeps its trails.
    qtbot.waitUntil(lambda: w.sim.trails.curves[0].xData is not None and len(w.sim.trails.curves[0].xData) > 0,
                    timeout=WAIT)
    obstacles = len(w.scene.obstacles)
    gen = w.sim.generation
    changes, _ = remove_items(w.scene, [("obstacle", w.scene.obstacles[0].id)])
    w.editor.apply(changes, "Remove an obstacle")
    assert len(w.scene.obstacles) == obstacles - 1
    qtbot.waitUntil(lambda: "changed while the simulation runs" in w.statusBar().currentMessage(), timeout=WAIT)
    assert w.sim.generation == gen and w.sim.frame.steps == 20
    qtbot.wait(300)
    assert len(w.sim.trails.curves[0].xData) > 0
    # Another geometry edit (a terrain polygon) waits for Reset (the running simulation keeps its navigation mesh),
    # then rebuilds.
    changes, _ = remove_items(w.scene, [("terrain", w.scene.terrains[0].id)])
    w.editor.apply(changes, "Remove a terrain polygon")
    qtbot.waitUntil(lambda: "Reset" in w.statusBar().currentMessage(), timeout=WAIT)
    action(w, "sim.reset").trigger()
    qtbot.waitUntil(lambda: w.sim.generation > gen and w.sim.frame.steps == 0, timeout=WAIT)
    assert len(w.sim.info.mesh_edges) != 0 and not w.sim.errors


def test_overlays_triangulation_and_ecm(make_studio, qtbot):
    w = make_studio(ROAD)
    built(qtbot, w)
    w.sim.overlay_actions["triangulation"].setChecked(True)
    w.sim.overlay_actions["ecm"].setChecked(True)  # the GVD is rendered with OpenGL in the worker thread
    qtbot.waitUntil(lambda: len(w.sim.ecm.axis._groups) > 0 or bool(w.sim.errors), timeout=BUILD_WAIT)
    if w.sim.errors and "OpenGL context" in w.sim.errors[0]:
        pytest.skip(w.sim.errors[0])
    assert not w.sim.errors
    lo, hi = w.sim.ecm.range
    assert 0 <= lo < hi
    # The legend stays in the viewport's corner while the overlay shows, with the CLI PNG's colours and bins.
    from core.ecm.colours import CLEARANCE_COLOURS, legend_entries

    legend = w.viewport.findChild(QtWidgets.QWidget, "legend.clearance")
    qtbot.waitUntil(lambda: legend.isVisible(), timeout=WAIT)
    assert legend.entries == legend_entries(hi) and [c for c, _ in legend.entries] == list(CLEARANCE_COLOURS)
    vp = w.viewport.viewport().geometry()
    assert vp.contains(legend.geometry()) and legend.geometry().right() > vp.center().x()
    shot = legend.grab().toImage()
    pixels = {shot.pixelColor(x, y).name() for x in range(shot.width()) for y in range(shot.height())}
    assert set(CLEARANCE_COLOURS) <= pixels
    pens = {pen.color().name() for _, pen, _ in w.sim.ecm.axis._groups}
    assert pens <= set(CLEARANCE_COLOURS)
    w.statusBar().clearMessage()  # the status bar's note goes; the legend stays
    QtWidgets.QApplication.processEvents()
    assert legend.isVisible()
    w.sim.overlay_actions["ecm"].setChecked(False)
    assert not legend.isVisible()
    w.sim.overlay_actions["ecm"].setChecked(True)
    assert legend.isVisible()
    assert len(w.sim.mesh.item._groups) == 3 and w.sim.mesh.items[0].isVisible()
    w.sim.overlay_actions["triangulation"].setChecked(False)
    assert not w.sim.mesh.items[0].isVisible()


def test_the_ecm_overlay_follows_a_live_edit_by_a_local_update(make_studio, qtbot):
    """With the ECM overlay on, an obstacle deleted while the simulation runs redraws the overlay from the map
    updated around it, not built afresh (the status bar says which), and what it draws is the edited scene's map."""
    from core.ecm import build_ecm, medial_axis_segments
    from core.scene.edits import remove_items

    w = make_studio(ROAD)
    built(qtbot, w)
    shown = []
    show = w.sim.ecm.show
    w.sim.ecm.show = lambda view: (shown.append(view), show(view))
    w.sim.overlay_actions["ecm"].setChecked(True)
    qtbot.waitUntil(lambda: bool(shown) or bool(w.sim.errors), timeout=BUILD_WAIT)
    if w.sim.errors and "OpenGL context" in w.sim.errors[0]:
        pytest.skip(w.sim.errors[0])
    assert not shown[0].updated and "ECM built in" in w.statusBar().currentMessage()
    for _ in range(5):
        action(w, "sim.step").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps == 5, timeout=WAIT)
    changes, _ = remove_items(w.scene, [("obstacle", w.scene.obstacles[0].id)])
    w.editor.apply(changes, "Remove an obstacle")
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=WAIT)
    assert shown[1].updated and w.sim.frame.steps == 5
    assert "ECM updated around the edited obstacles" in w.statusBar().currentMessage()
    seg, _ = medial_axis_segments(build_ecm(w.scene, backend="exact"))

    def length(s):
        return float(np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]).sum())
    assert length(shown[1].segments) == pytest.approx(length(seg), rel=1e-3)
    assert length(shown[1].segments) != pytest.approx(length(shown[0].segments), rel=1e-3)


def test_moving_and_scheduled_obstacles_are_drawn_where_they_stand(make_studio, qtbot, tmp_path):
    """The scene draws an obstacle that comes later or moves dashed and faint where it stands first, with the
    moving one's path; the live run draws each where it stands at the frame's time, and the replay at its own."""
    import dataclasses

    scene = load_scene(ROAD)
    car = Obstacle("car", [(3.0, 2.0), (7.0, 2.0), (7.0, 4.0), (3.0, 4.0)], path=[(5.0, 3.0), (60.0, 3.0)],
                   speed=5.0, loop=True)
    stall = Obstacle("stall", [(20.0, 20.0), (22.0, 20.0), (22.0, 22.0), (20.0, 22.0)], appears=1.0)
    p = tmp_path / "moving.json"
    save_scene(dataclasses.replace(scene, obstacles=[*scene.obstacles, stall, car]), p)
    w = make_studio(str(p))
    layer = w.layers.layers["obstacle"]
    (solid, _, _), (faint, _, _), (route, _, _) = layer.item._groups
    assert faint.contains(QtCore.QPointF(5.0, 3.0)) and faint.contains(QtCore.QPointF(21.0, 21.0))
    assert not solid.contains(QtCore.QPointF(5.0, 3.0)) and not solid.contains(QtCore.QPointF(21.0, 21.0))
    assert route.boundingRect().width() == pytest.approx(55.0)
    built(qtbot, w)
    action(w, "sim.play").trigger()
    qtbot.waitUntil(lambda: w.sim.frame is not None and w.sim.frame.time > 2.0, timeout=WAIT)
    action(w, "sim.pause").trigger()
    qtbot.waitUntil(lambda: not w.sim.frame.playing, timeout=WAIT)
    qtbot.waitUntil(lambda: len(w.sim.world._shown) == 2, timeout=WAIT)
    f = w.sim.frame
    shown = dict(zip(("stall", "car"), w.sim.world._shown))
    assert np.allclose(shown["car"], car.polygon_at(f.time)) and np.allclose(shown["stall"], stall.polygon)
    (path, _, _), = w.sim.world.item._groups
    assert path.boundingRect().contains(QtCore.QRectF(*car.polygon_at(f.time)[0], 4.0, 2.0))
    # The replay draws them at the time it shows: at its start, the car where it started and no stall yet.
    slider = w.sim.replay.timeline.slider
    qtbot.waitUntil(lambda: slider.maximum() > 0, timeout=WAIT)
    slider.setValue(1)
    qtbot.waitUntil(lambda: w.sim.replay.store is not None or bool(w.sim.errors), timeout=WAIT)
    slider.setValue(0)
    t0 = w.sim.replay.time()
    assert t0 < 1.0
    assert len(w.sim.world._shown) == 1 and np.allclose(w.sim.world._shown[0], car.polygon_at(t0))
