"""The test path (RecastDemo's test tool) with real mouse events: placing an agent and dragging its goal draw the
route the simulation would plan, with its cost and narrowest clearance, planned off the UI thread (newest request
wins); the free space shrunk by the profile's radius; Edit > Duplicate."""

import threading

import numpy as np
import shapely
from PySide6 import QtCore, QtGui
from PySide6.QtTest import QTest
from shapely.geometry import LineString, Polygon, box

from app import probe_planner as probe_planner_module
from app.probe_planner import ProbePlanner
from app.tools.base import ProbeRequest
from core.routes import PlannerContext, plan_route
from core.scene import Agent, Obstacle

BLOCK = [(40, 10), (60, 10), (60, 90), (40, 90)]


def setup(w):
    w.editor.apply({"obstacles": [Obstacle("b1", BLOCK)]}, "setup")
    w.undo_stack.clear()


def reference(scene, start, goal, planner="cdt", profile="pedestrian"):
    radius = scene.profile(profile).radius
    return plan_route(scene, start, goal, planner, profile=profile, clearance=radius, context=PlannerContext(scene))


def test_placing_an_agent_previews_its_route_live(make_studio, drive, qtbot):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("agent")
    w.state.set("agent_mode", "cdt")
    d.click(20, 50)
    QTest.mouseMove(d.widget, d.px(80, 50))  # hovering for the goal
    layer = w.test_path.layer
    qtbot.waitUntil(lambda: layer.probe is not None and layer.probe.goal == (80.0, 50.0), timeout=60000)
    ref = reference(w.scene, (20, 50), (80, 50))
    probe = layer.probe
    assert probe.error is None and np.allclose(probe.points, ref.route.points)
    assert probe.cost == ref.cost and probe.narrowest == ref.narrowest
    # Around the block, not through it: the route keeps the radius from the obstacle (shapely as the reference).
    line = LineString(probe.points)
    assert line.distance(Polygon(BLOCK)) >= w.scene.profile("pedestrian").radius - 1e-6
    assert line.length > 60.0
    text = layer.label.textItem.toPlainText()
    assert f"{probe.length:,.1f} m" in text and f"narrowest {probe.narrowest:.2f} m" in text
    assert layer.label.isVisible() and layer.route._groups
    # Esc cancels the placement: the preview goes.
    d.key(QtCore.Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: layer.probe is None and not layer.label.isVisible(), timeout=5000)
    assert w.scene.agents == []


def test_dragging_an_agents_goal_replans_and_a_refused_goal_says_why(make_studio, drive, qtbot):
    w = make_studio(new=(100, 100))
    setup(w)
    w.editor.apply({"agents": [Agent("a1", "pedestrian", start=(20, 50), goal=(80, 50), planner="cdt")]}, "agent")
    w.doc.select([("agent", "a1")])
    layer = w.test_path.layer
    # A selected planned agent shows its route.
    qtbot.waitUntil(lambda: layer.probe is not None and layer.probe.goal == (80.0, 50.0), timeout=60000)
    d = drive(w)
    d.tool("vertex")
    QTest.mousePress(d.widget, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                     d.px(80, 50))
    d.move_held(d.px(80, 95))
    qtbot.waitUntil(lambda: layer.probe is not None and abs(layer.probe.goal[1] - 95) < 1.0, timeout=60000)
    goal = layer.probe.goal
    ref = reference(w.scene, (20, 50), goal)
    assert np.allclose(layer.probe.points, ref.route.points)
    d.move_held(d.px(50, 50))  # into the block: no route, and the label says why
    qtbot.waitUntil(lambda: layer.probe is not None and layer.probe.error is not None, timeout=60000)
    assert "goal" in layer.label.textItem.toPlainText() and "obstacle" in layer.label.textItem.toPlainText()
    QTest.mouseRelease(d.widget, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                       d.px(50, 50))
    assert w.scene.agents[0].goal == (80, 50)  # the refused drag changed nothing


def test_shrunk_free_space_toggle_draws_the_eroded_outline(make_studio, qtbot):
    w = make_studio(new=(100, 100))
    setup(w)
    w.actions["view.shrunk_free"].setChecked(True)
    layer = w.test_path.layer
    qtbot.waitUntil(lambda: layer.rings is not None, timeout=60000)
    r = w.scene.profile(w.state.profile).radius
    expected = box(0, 0, 100, 100).difference(Polygon(BLOCK)).buffer(-r)
    outline = shapely.MultiLineString([LineString(x) for x in layer.rings])
    assert outline.hausdorff_distance(expected.boundary) < 0.05
    assert layer.free._groups
    w.actions["view.shrunk_free"].setChecked(False)
    assert layer.rings is None and not layer.free._groups


def test_stale_requests_are_dropped_and_planning_runs_off_the_ui_thread(monkeypatch, make_studio):
    """The first plan blocks; nineteen newer requests replace each other while it runs; only the newest is
    delivered, and the planning ran in the planner's own thread."""
    w = make_studio(new=(100, 100))
    setup(w)
    gate, threads, delivered = threading.Event(), [], []
    real = probe_planner_module.probe_route

    def slow(*args):
        threads.append(threading.current_thread().name)
        gate.wait(30)
        return real(*args)

    monkeypatch.setattr(probe_planner_module, "probe_route", slow)
    done = threading.Event()
    planner = ProbePlanner(lambda r: (delivered.append(r), done.set()))
    try:
        reqs = [ProbeRequest((20.0, 50.0), (80.0, 20.0 + k), "pedestrian", "cdt") for k in range(20)]
        planner.submit(w.scene, reqs[0], None)
        while not threads:
            threading.Event().wait(0.01)
        for req in reqs[1:]:
            planner.submit(w.scene, req, None)
        gate.set()
        assert done.wait(60)
        while planner.planned + planner.dropped < 20:
            threading.Event().wait(0.01)
        assert [r.serial for r in delivered] == [20] and delivered[0].request == reqs[-1]
        assert planner.planned == 1 and planner.dropped == 19
        assert set(threads) == {"test-path"}
    finally:
        gate.set()
        planner.stop()


def test_ctrl_d_duplicates_the_selection_as_one_undoable_edit(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    w.doc.select([("obstacle", "b1")])
    d.shortcut("Ctrl+D")
    assert len(w.scene.obstacles) == 2
    copy = w.scene.obstacles[1]
    step = w.editor.grid_step
    assert np.allclose(np.array(copy.polygon), np.array(BLOCK) + [step, -step])
    assert w.doc.selection == (("obstacle", copy.id),) and w.undo_stack.undoText() == "Duplicate 1 item"
    w.undo_stack.undo()
    assert len(w.scene.obstacles) == 1
    d.shortcut(QtGui.QKeySequence("Ctrl+Y"))
    assert len(w.scene.obstacles) == 2
