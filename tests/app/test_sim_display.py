"""How the live simulation is drawn (pytest-qt, offscreen, the real window): the agents are one item whatever their
number, trails one curve, and the layers that do not move are painted from a cached image that equals what Qt
draws item by item and is drawn again only when something in it changes. No wall-clock time is asserted."""

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtGui, QtWidgets

from app.layers.qt_raster_cache import NO_CONTENTS, RasterCache
from app.sim.pacing import GLIDE_SLACK, FramePacer

from sim_harness import SCENES
from sim_window import WAIT, action, built

CITY = SCENES / "city.json"
pytestmark = pytest.mark.usefixtures("jit_warm")


def add_agents(qtbot, w, n: int) -> None:
    before = len(w.latest_positions())
    w.sim.parameters.add_n.setValue(n)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: len(w.latest_positions()) == before + n, timeout=4 * WAIT)


def untraced(qtbot, w) -> None:
    """Follow no agent (a small scene follows its first one): the traced agent's overlay draws more or fewer
    items with its candidates."""
    w.sim.select_agent(-1)
    qtbot.wait(300)


def painted_one_by_one(w) -> list:
    """The items Qt paints itself at every repaint of the viewport (visible, with contents)."""
    return [it for it in w.viewport.scene().items() if it.isVisible() and not it.flags() & NO_CONTENTS]


def pixels(w) -> np.ndarray:
    """The viewport as drawn now, (h, w) uint32 RGB."""
    img = w.viewport.viewport().grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    return np.array(img.constBits(), dtype=np.uint8).view(np.uint32).reshape(img.height(), -1)[:, : img.width()]


def direct_pixels(w) -> np.ndarray:
    """The viewport with every cache's members painted by Qt one by one (the reference for the cached pictures)."""
    caches = [(c, list(c.members)) for c in w.viewport.scene().items() if isinstance(c, RasterCache)]
    assert len(caches) >= 4  # the static layers, trails and ghost, the traced agent below and above the agents
    for cache, members in caches:
        cache.release(*members)
    try:
        return pixels(w)
    finally:
        for cache, members in caches:
            cache.adopt(*members)


def assert_same_picture(a: np.ndarray, b: np.ndarray, tolerance: float = 0.001) -> None:
    """At most ``tolerance`` of the pixels differ by more than 2 levels in a channel."""
    assert a.shape == b.shape
    diff = np.abs(a.view(np.uint8).astype(np.int16) - b.view(np.uint8).astype(np.int16)).reshape(*a.shape, 4)
    assert np.mean(diff.max(axis=2) > 2) < tolerance, "the cached picture differs from Qt's own painting"


def test_2000_agents_take_as_many_items_as_20_and_trails_are_one_curve(make_studio, qtbot):
    w = make_studio(CITY)
    built(qtbot, w)
    add_agents(qtbot, w, 20)
    untraced(qtbot, w)
    items_20 = len(w.viewport.scene().items())
    painted_20 = len(painted_one_by_one(w))
    add_agents(qtbot, w, 1980)
    untraced(qtbot, w)
    n = len(w.latest_positions())
    assert n == 7 + 2000
    assert len(w.sim.agents.main.data) == n  # one scatter item holds every agent
    assert len(w.viewport.scene().items()) == items_20
    assert len(painted_one_by_one(w)) == painted_20

    w.sim.set_speed_index(w.sim.parameters.speed.count() - 1)
    action(w, "sim.play").trigger()
    curve = w.sim.trails.curves[0]
    qtbot.waitUntil(lambda: curve.xData is not None and len(curve.xData) > 0, timeout=WAIT)
    action(w, "sim.pause").trigger()
    assert int(np.isnan(curve.xData).sum()) == n  # one NaN-separated polyline per agent, all in one curve
    assert len(w.viewport.scene().items()) == items_20
    assert all(c.raster_cache is w.sim.curve_cache for c in w.sim.trails.curves)


def test_static_layers_are_drawn_once_while_agents_walk(make_studio, qtbot):
    w = make_studio(CITY)
    built(qtbot, w)
    add_agents(qtbot, w, 200)
    static = w.viewport.static
    scene_items = [it for layer in w.layers.layers.values() for it in layer.items]
    assert all(it in static.members and it.flags() & NO_CONTENTS for it in scene_items)
    assert w.viewport.grid in static.members and w.layers.frame in static.members
    w.viewport.viewport().repaint()  # whatever the build changed is drawn now
    qtbot.wait(100)
    assert static.renders > 0
    renders = static.renders
    drawn = []
    w.viewport.painted.connect(lambda s: drawn.append(w.latest_positions()))
    action(w, "sim.play").trigger()
    qtbot.waitUntil(lambda: len(drawn) >= 10 and not np.array_equal(drawn[-1], drawn[0]), timeout=WAIT)
    action(w, "sim.pause").trigger()
    assert static.renders == renders  # ten frames of walking agents, the terrain and obstacles drawn no more


def test_cached_picture_equals_direct_painting_and_follows_edits(make_studio, qtbot):
    w = make_studio(CITY)
    built(qtbot, w)
    action(w, "overlay.triangulation").setChecked(True)
    action(w, "overlay.forces").setChecked(True)
    for _ in range(5):
        action(w, "sim.step").trigger()
    qtbot.waitUntil(lambda: w.sim.frame.steps == 5 and w.sim.trace.last is not None
                    and w.sim.trails.curves[0].xData is not None, timeout=WAIT)
    qtbot.wait(200)
    assert w.sim.selected == 0 and len(w.sim.trace.candidates.data) > 0
    static = w.viewport.static
    assert_same_picture(pixels(w), direct_pixels(w))

    before = pixels(w)
    renders = static.renders
    scene = w.doc.scene
    w.doc.set_fields({"obstacles": scene.obstacles[: len(scene.obstacles) // 2]})  # an edit
    after = pixels(w)
    assert static.renders == renders + 1
    assert not np.array_equal(after, before)
    assert_same_picture(after, direct_pixels(w))

    w.doc.set_layer("terrain", visible=False)  # a layer hidden
    hidden = pixels(w)
    assert not np.array_equal(hidden, after)
    assert_same_picture(hidden, direct_pixels(w))

    w.viewport.zoom(2.0)  # a zoom
    assert_same_picture(pixels(w), direct_pixels(w))

    pixels(w)
    px, py = w.viewport.view.viewPixelSize()
    for dx, dy in ((7, -5), (-30, 0), (0, 12)):  # pans by whole pixels move the image, draw only the new strips
        scrolls = static.scrolls
        w.viewport.view.translateBy(x=dx * px, y=dy * py)
        panned = pixels(w)
        assert static.scrolls == scrolls + 1
        # Qt clips a long one-pixel line to the viewport before rasterizing it, so the same line drawn in another
        # viewport position can step a pixel elsewhere (the start-goal lines of agents: ~0.3 % of the pixels);
        # a strip left undrawn would be 1 % and more.
        assert_same_picture(panned, direct_pixels(w), tolerance=0.005)
        pixels(w)


def test_pacer_counts_the_gap_from_the_start_of_a_drawing():
    p = FramePacer(duty=0.5, display_hz=60.0)
    p.drew(10.0)
    p.painted(10.004, 0.004)
    assert p.wait(10.004) == pytest.approx(1 / 60 - 0.004)  # 60 frames a second when a paint takes 4 ms
    for k in range(30):
        p.drew(11.0 + k)
        p.painted(11.0 + k + 0.03, 0.03)
    assert p.gap == pytest.approx(0.06, rel=1e-3)  # a 30 ms paint: at most half of the UI thread's time
    assert not p.due(40.0 + 0.05) and p.due(40.0 + 0.061)


def test_pacer_sets_its_timer_early_by_the_timer_s_usual_lateness():
    p = FramePacer(duty=0.5, display_hz=60.0)
    now, starts = 0.0, []
    p.drew(now)
    for _ in range(60):  # a timer that always fires 3 ms after it was asked to
        p.painted(now + 0.004, 0.004)
        now = now + 0.004 + p.wait(now + 0.004) + 0.003
        starts.append(now)
        p.drew(now)
    intervals = np.diff(starts[-20:])
    assert np.allclose(intervals, 1 / 60, atol=2e-4)  # 60 frames a second, not 50
    assert p.late_s == pytest.approx(0.003, abs=2e-4)
    p.drew(now + 5.0)  # a drawing after an idle spell teaches nothing about the timer
    assert p.late_s == pytest.approx(0.003, abs=2e-4)


def test_an_edit_of_a_few_items_draws_the_cached_picture_again_only_around_them(make_studio, qtbot):
    """Obstacles moved, reshaped, added and removed, a route point and an agent's goal moved, a terrain polygon
    shifted: each edit repairs the cached picture inside the items' old and new bounds only (no full drawing), and
    the picture equals Qt's own painting of every item after each."""
    import dataclasses

    from core.scene import Obstacle

    w = make_studio(CITY)
    built(qtbot, w)
    static = w.viewport.static
    rng = np.random.default_rng(20261130)

    def moved(points, dx, dy):
        return [(x + dx, y + dy) for x, y in points]

    def edits(scene):
        k = int(rng.integers(len(scene.obstacles)))
        o = scene.obstacles[k]
        dx, dy = rng.uniform(-15, 15, 2)
        yield {"obstacles": [*scene.obstacles[:k], dataclasses.replace(o, polygon=moved(o.polygon, dx, dy)),
                             *scene.obstacles[k + 1:]]}
        yield {"obstacles": scene.obstacles[:k] + scene.obstacles[k + 1:]}
        yield {"obstacles": [*scene.obstacles, Obstacle("stall", [(240, 240), (252, 240), (252, 247), (240, 247)])]}
        r = scene.routes[0]
        pts = list(r.points)
        pts[2] = (pts[2][0] + 6.0, pts[2][1] - 4.0)
        yield {"routes": [dataclasses.replace(r, points=pts), *scene.routes[1:]]}
        a = next(a for a in scene.agents if a.goal is not None)
        yield {"agents": [dataclasses.replace(x, goal=(x.goal[0] - 20.0, x.goal[1] + 10.0)) if x is a else x
                          for x in scene.agents]}
        t = scene.terrains[int(rng.integers(len(scene.terrains)))]
        yield {"terrains": [dataclasses.replace(x, polygon=moved(x.polygon, 3.0, -2.0)) if x is t else x
                            for x in scene.terrains]}

    for change in edits(w.doc.scene):
        before = pixels(w)                 # the picture drawn in full for the scene as it is
        renders, repairs = static.renders, static.repairs
        w.doc.set_fields(change)
        after = pixels(w)
        assert (static.renders, static.repairs) == (renders, repairs + 1), f"{sorted(change)}: not repaired"
        assert not np.array_equal(after, before)
        static.invalidate()
        # A line crossing a repaired rectangle is rasterized from its clipped piece there and can step a pixel
        # aside (as in a pan's strips): a handful of pixels; a marker or an edge left undrawn is hundreds.
        assert_same_picture(after, pixels(w), tolerance=1e-4)
        assert_same_picture(after, direct_pixels(w))

    renders = static.renders
    w.doc.set_fields({"obstacles": w.doc.scene.obstacles[::2]})   # many items: drawn again in full
    pixels(w)
    assert static.renders == renders + 1


def _frame(t, x, playing=True):
    from types import SimpleNamespace
    return SimpleNamespace(generation=0, playing=playing, time=t, positions=np.array([[x, 0.0]]))


def test_pacer_glides_on_through_a_frame_without_a_step():
    """A frame at the same simulated time with the same positions (the engine answered a command or applied a
    live edit) leaves the glide to the newest step as it was: the agents keep walking. (Restarted, the glide
    lasted the few milliseconds since the last frame and the agents stood still until the next step.)"""
    p = FramePacer(duty=0.5, display_hz=60.0)
    p.push(_frame(0.0, 0.0), 10.0)
    p.push(_frame(0.1, 0.1), 10.1)         # a step: glide from 0.0 to 0.1 over GLIDE_SLACK x 0.1 s
    glide = GLIDE_SLACK * 0.1
    p.push(_frame(0.1, 0.1), 10.11)        # no step
    assert not p.settled(10.15)
    assert p.positions(10.15)[0, 0] == pytest.approx(0.1 * 0.05 / glide)
    shown = p.positions(10.16)[0, 0]
    p.push(_frame(0.1, 0.12), 10.16)       # an edit moved the agent without a step: shown from there
    assert p.positions(10.16)[0, 0] == pytest.approx(shown)
    assert p.interval() == pytest.approx(glide)  # an edit's frame is no step: the engine's interval stays


def test_pacer_keeps_the_agents_walking_through_a_late_frame_and_at_their_speed():
    """Frames every 100 ms at 1 m/s, one of them 40 ms late (the engine shared the CPU with a live edit being
    prepared): drawn at 60 Hz, the agent moves at every drawing, never backwards, and in steady state at its true
    speed, GLIDE_SLACK engine frames behind the newest."""
    p = FramePacer(duty=0.5, display_hz=60.0)
    arrivals = [0.1 * k + (0.04 if k >= 20 else 0.0) for k in range(40)]
    shown, pushed = [], 0
    for now in np.arange(0.0, arrivals[-1], 1 / 60):
        while pushed < len(arrivals) and arrivals[pushed] <= now:
            p.push(_frame(0.1 * pushed, 0.1 * pushed), arrivals[pushed])
            pushed += 1
        shown.append((now, p.positions(now)[0, 0]))
    t, x = np.array(shown).T
    moving = t > 0.3
    assert (np.diff(x[moving]) > 1e-6).all()                 # no drawing shows the agent standing still
    steady = (t > 1.0) & (t < 1.9)
    assert np.polyfit(t[steady], x[steady], 1)[0] == pytest.approx(1.0, rel=0.02)
    assert np.median(t[steady] - x[steady]) == pytest.approx(GLIDE_SLACK * 0.1, abs=0.02)


def test_pacer_learns_the_interval_afresh_when_the_run_resumes():
    p = FramePacer(duty=0.5, display_hz=60.0)
    for k in range(10):
        p.push(_frame(0.1 * k, 0.1 * k), 0.1 * k)           # 100 ms between frames
    p.push(_frame(0.9, 0.9, playing=False), 1.0)            # paused
    p.push(_frame(1.0, 1.0), 5.0)                           # resumed, frames every 20 ms now
    p.push(_frame(1.1, 1.1), 5.02)
    assert p.interval() == pytest.approx(GLIDE_SLACK * 0.02)


def test_a_hidden_overlay_leaves_the_cached_image_alone(qtbot):
    """A hidden overlay's new data does not redraw the scene's cached image; shown, it is drawn."""
    from app.layers.qt_overlays import MeshOverlay

    widget = pg.GraphicsView()
    view = pg.ViewBox()
    widget.setCentralItem(view)
    qtbot.addWidget(widget)
    cache = RasterCache("#ffffff")
    view.addItem(cache)
    calls = []
    cache.invalidate = lambda: calls.append(1)
    mesh = MeshOverlay(view)
    mesh.cache_in(cache)
    seg = np.array([[[0.0, 0.0], [1.0, 1.0]]])
    mesh.set_visible(False)
    calls.clear()
    mesh.show(seg, np.zeros(1, dtype=np.int8))
    assert calls == []
    mesh.set_visible(True)
    mesh.show(seg, np.zeros(1, dtype=np.int8))
    assert calls


@pytest.mark.perf
def test_the_engine_threads_yield_the_cpu_to_the_ui_thread(make_studio, qtbot):
    """On a busy machine the UI thread must win the CPU: the simulation and preview threads run niced."""
    import os
    import sys
    from pathlib import Path

    tasks = Path("/proc/self/task")
    if not sys.platform.startswith("linux") or not tasks.exists():
        pytest.skip("threads have nice values of their own on Linux only")

    def nice_of(name: str) -> list[int]:
        out = []
        for t in tasks.iterdir():
            try:
                if (t / "comm").read_text().strip() == name:
                    out.append(int((t / "stat").read_text().rsplit(")", 1)[1].split()[16]))
            except OSError:
                pass
        return out

    w = make_studio(SCENES / "mckenna_road.json")
    built(qtbot, w)
    ui = os.getpriority(os.PRIO_PROCESS, 0)
    assert nice_of("sim.worker") and all(n > ui for n in nice_of("sim.worker"))
    assert nice_of("sim.preview") and all(n > ui for n in nice_of("sim.preview"))
