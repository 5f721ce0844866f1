"""The app keeps its state straight, driven through the real window (pytest-qt, offscreen, real events):

- Reset after an edit that leaves the geometry alone (a new name, a measurement) rebuilds the run;
- live tuning belongs to the document: File > Open drops it, and after an import the Simulation and Profiles
  panels agree;
- the measurement plots keep up with a live run even when a measurement takes longer than the recording's
  refresh;
- New and Open show nothing of the last run (heatmap, clock, terrain labels);
- the ghost preview stays when the side-by-side run starts;
- the state rule: after Open, New, Import, Recover and Reset the panels, plots, overlays and the engine are what a
  fresh start on the new document shows.
"""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app import qt_dialogs as dialogs
from app import qt_import
from app.sim import qt_replay
from core.scene.io import load_scene, save_scene, scene_to_dict

from app_state import (assert_same, build, built_state, engine_state, panel_state, profiles_panel, settle,
                       spin_type, window_state, write_osm)
from conftest import Driver
from sim_harness import SCENES
from sim_window import BUILD_WAIT, WAIT, action

pytestmark = pytest.mark.usefixtures("jit_warm")

ROAD = SCENES / "mckenna_road.json"
CITY = SCENES / "city.json"
HILLS = SCENES / "hills.json"
FOREST = SCENES / "forest.json"                       # its agents plan their routes (grid planner)


def open_file(w, path, monkeypatch) -> None:
    """File > Open, the file chosen in the dialog, unsaved changes discarded."""
    monkeypatch.setattr(dialogs, "ask_open_path", lambda parent, folder: str(path))
    monkeypatch.setattr(dialogs, "ask_unsaved", lambda parent, name: "discard")
    w.actions["file.open"].trigger()
    assert w.doc.path is not None and w.doc.path.name == path.name


def play_until(qtbot, w, t: float) -> None:
    action(w, "sim.play").trigger()
    qtbot.waitUntil(lambda: (w.sim.frame is not None and w.sim.frame.time >= t) or bool(w.sim.errors),
                    timeout=BUILD_WAIT)
    assert not w.sim.errors, w.sim.errors


def pause(qtbot, w) -> None:
    action(w, "sim.pause").trigger()
    qtbot.waitUntil(lambda: w.sim.frame is not None and not w.sim.frame.playing, timeout=WAIT)


def draw_measurements(w, area, line) -> None:
    """Drag a measurement area (a rectangle) and a measurement line with their tools."""
    d = Driver(w)
    d.tool("measure_area")
    d.drag([area[0], ((area[0][0] + area[1][0]) / 2, (area[0][1] + area[1][1]) / 2), area[1]])
    d.tool("measure_line")
    d.drag([line[0], ((line[0][0] + line[1][0]) / 2, (line[0][1] + line[1][1]) / 2), line[1]])
    d.tool("select")
    m = w.scene.measurement
    assert m.area is not None and m.line is not None


def tune(w, qtbot) -> None:
    """Tune the road scene live, as a user would in the Simulation panel: sigma, a weight, a force, the method."""
    p = w.sim.parameters
    spin_type(p.profile_fields["sigma"].spin, "7.5", qtbot)
    spin_type(p.weight_fields["mud"].spin, "0.2", qtbot)
    w.findChild(QtWidgets.QGroupBox, "sim.forces").setChecked(True)
    spin_type(p.force_fields["c_s"].spin, "9", qtbot)
    p.method.setCurrentIndex(p.method.findData("irm"))
    p.method.activated.emit(p.method.currentIndex())
    assert p.profile_fields["sigma"].value() == pytest.approx(7.5)


# ----- finding 1: Reset after an edit that keeps the geometry --------------------------------------------------


def test_reset_after_renaming_the_scene_or_drawing_a_measurement_rebuilds_the_run(make_studio, qtbot):
    w = make_studio(FOREST)
    play_until(qtbot, w, 1.0)
    pause(qtbot, w)
    name = w.findChild(QtWidgets.QLineEdit, "inspector.name")
    name.setFocus()
    name.selectAll()
    QTest.keyClicks(name, "Renamed forest")
    QTest.keyClick(name, QtCore.Qt.Key.Key_Return)
    assert w.scene.name == "Renamed forest"
    gen = w.sim.generation
    action(w, "sim.reset").trigger()
    qtbot.waitUntil(lambda: w.sim.generation != gen or bool(w.sim.errors), timeout=WAIT)
    assert not w.sim.errors, w.sim.errors
    qtbot.waitUntil(lambda: w.sim.frame.generation == w.sim.generation, timeout=WAIT)
    assert w.sim.info.scene_name == "Renamed forest" and w.sim.frame.steps == 0
    # The same after a measurement line is drawn while the run is under way.
    play_until(qtbot, w, 1.0)
    pause(qtbot, w)
    draw_measurements(w, ((60.0, 60.0), (120.0, 120.0)), ((20.0, 100.0), (180.0, 100.0)))
    assert not w.sim.errors, w.sim.errors
    gen = w.sim.generation
    action(w, "sim.reset").trigger()
    qtbot.waitUntil(lambda: w.sim.generation != gen or bool(w.sim.errors), timeout=WAIT)
    assert not w.sim.errors, w.sim.errors
    play_until(qtbot, w, 0.5)
    assert not w.sim.errors


# ----- finding 2: live tuning belongs to the document ----------------------------------------------------------


def test_live_tuning_does_not_survive_opening_the_file_again(make_studio, qtbot, monkeypatch):
    w = make_studio(CITY)
    build(qtbot, w)
    p = w.sim.parameters
    p.profile.setCurrentIndex(p.profile.findText("pedestrian"))
    spin_type(p.weight_fields["road"].spin, "0.2", qtbot)        # not saved to the scene
    settle(qtbot, w)
    assert engine_state(w)["overrides"]
    open_file(w, CITY, monkeypatch)
    assert p.weight_fields["road"].value() == pytest.approx(4.0)
    play_until(qtbot, w, 0.5)
    pause(qtbot, w)
    p.profile.setCurrentIndex(p.profile.findText("pedestrian"))
    assert p.weight_fields["road"].value() == pytest.approx(4.0)  # after Play too: the file's value
    assert w.sim.info.params["profiles"]["pedestrian"]["weights"]["road"] == pytest.approx(4.0)
    assert engine_state(w)["overrides"] == {}


def test_after_an_import_the_simulation_and_profiles_panels_agree(make_studio, qtbot, monkeypatch, tmp_path):
    w = make_studio(CITY)
    build(qtbot, w)
    p = w.sim.parameters
    p.profile.setCurrentIndex(p.profile.findText("pedestrian"))
    spin_type(p.weight_fields["road"].spin, "0.2", qtbot)
    settle(qtbot, w)
    # An OpenStreetMap extract: the importer gives the pedestrian a road weight of its own (4).
    src = write_osm(tmp_path / "map.osm")
    monkeypatch.setattr(dialogs, "ask_import_path", lambda parent, folder: str(src))
    monkeypatch.setattr(qt_import, "ask_import_preview", lambda parent, session: session.build())
    w.actions["file.import"].trigger()
    settle(qtbot, w)
    for pid in [p.profile.itemText(k) for k in range(p.profile.count())]:
        p.profile.setCurrentIndex(p.profile.findText(pid))
        w.profiles.combo.setCurrentText(pid)
        QtWidgets.QApplication.processEvents()
        shown = {name: value for name, value in profiles_panel(w)[2]}
        names = {t.id: t.name or t.id for t in w.scene.terrain_types}
        assert {names[t]: v for t, v in panel_state(w)["weights"].items()} == pytest.approx(shown), pid
    assert engine_state(w)["overrides"] == {}
    build(qtbot, w)
    prof = w.scene.profiles[0]
    assert w.sim.info.params["profiles"][prof.id]["weights"] == pytest.approx(
        {t.id: prof.weight(t.id) for t in w.scene.terrain_types})


# ----- finding 3: the measurement plots keep up while playing --------------------------------------------------


def plotted_until(w) -> float:
    """The latest time the measurement area's density plot reaches (0 with none)."""
    plot = w.sim.plots.density_plot
    curves = plot.listDataItems() if plot is not None else []
    return float(curves[0].xData.max()) if curves and curves[0].xData is not None and len(curves[0].xData) else 0.0


def measured(win) -> bool:
    """The run's recording fetched, its heatmap drawn and the document's area and line measured from it."""
    r, plots = win.sim.replay, win.sim.plots
    return (r.store is not None and (r.mode == "off" or r.layer.grid is not None) and not any(r._running.values())
            and plots.density_plot is not None and plots.flow_plot is not None)


def test_measurement_plots_keep_up_while_playing_however_long_a_measurement_takes(make_studio, qtbot,
                                                                                    monkeypatch):
    real = qt_replay.measure

    def slow_measure(*args, **kwargs):
        time.sleep(1.6 * qt_replay.LIVE_REFRESH_S)     # longer than the recording's refresh, as a big crowd's is
        return real(*args, **kwargs)

    monkeypatch.setattr(qt_replay, "measure", slow_measure)
    w = make_studio(ROAD)
    draw_measurements(w, ((10.0, 10.0), (190.0, 190.0)), ((20.0, 100.0), (180.0, 100.0)))
    w.sim.set_speed_index(4)                            # 4x: many recordings asked for while one is measured
    action(w, "sim.play").trigger()

    seen = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (len(seen) < 4 or w.sim.frame is None or w.sim.frame.time < 20.0):
        qtbot.wait(250)
        if plotted_until(w) > (seen[-1] if seen else 0.0):
            seen.append(plotted_until(w))
    assert not w.sim.errors, w.sim.errors
    assert len(seen) >= 3 and seen[-1] > 8.0, f"the plots advanced only to {seen} while the run reached " \
                                               f"{w.sim.frame.time:.1f} s"
    pause(qtbot, w)
    t_end = w.sim.frame.time
    qtbot.waitUntil(lambda: plotted_until(w) >= t_end - 0.2, timeout=WAIT)   # and end where the run stopped


def test_a_measurement_of_the_run_before_reset_is_not_drawn_after_it(make_studio, qtbot, monkeypatch):
    """Reset drops the old run's recording and measurement plots; a measurement of the old run still being
    computed when Reset is pressed is not drawn, and the plots come back from the new run's own recording."""
    real = qt_replay.measure
    gate = threading.Event()
    held: list[float] = []

    def held_measure(rep, upto, *args, **kwargs):
        if not gate.is_set():                            # the old run's measurement: held until after Reset
            held.append(upto)
            gate.wait(60)
        return real(rep, upto, *args, **kwargs)

    w = make_studio(ROAD)
    draw_measurements(w, ((10.0, 10.0), (190.0, 190.0)), ((20.0, 100.0), (180.0, 100.0)))
    play_until(qtbot, w, 4.0)
    pause(qtbot, w)
    t_end = w.sim.frame.time
    qtbot.waitUntil(lambda: plotted_until(w) >= t_end - 0.2, timeout=WAIT)   # measured where the run stopped
    monkeypatch.setattr(qt_replay, "measure", held_measure)
    w.sim.replay.refresh()                               # a measurement of the old run, now being computed
    qtbot.waitUntil(lambda: bool(held), timeout=WAIT)
    assert held[0] >= t_end - 0.2
    build(qtbot, w)                                      # Simulation > Reset
    assert w.sim.plots.density_plot is None and w.sim.plots.flow_plot is None
    assert w.sim.replay.store is None or w.sim.replay.store.t1 < 1.0
    gate.set()                                           # the old run's measurement finishes now
    qtbot.waitUntil(lambda: measured(w), timeout=WAIT)
    qtbot.wait(300)
    assert plotted_until(w) < 1.0, f"the old run's measurement (to {held[0]:.1f} s) was drawn after Reset"


# ----- finding 6: nothing of the last run after New or Open ---------------------------------------------------


def test_new_scene_and_reopening_show_nothing_of_the_last_run(make_studio, qtbot, monkeypatch):
    w = make_studio(ROAD)
    mode = w.sim.replay.timeline.mode
    mode.setCurrentIndex(mode.findData("grid"))
    play_until(qtbot, w, 3.0)
    qtbot.waitUntil(lambda: w.sim.replay.layer.grid is not None, timeout=WAIT)
    pause(qtbot, w)
    monkeypatch.setattr(dialogs, "ask_new_scene", lambda parent: ("Empty", 50.0, 40.0))
    monkeypatch.setattr(dialogs, "ask_unsaved", lambda parent, name: "discard")
    w.actions["file.new"].trigger()
    qtbot.wait(1500)                                   # whatever the last run still had on its way arrives
    assert w.scene.name == "Empty"
    assert w.sim.clock.text() == "t = 0.0 s"
    assert w.sim.replay.layer.grid is None and not w.sim.replay.legend.isVisible()
    assert w.sim.plots.terrain.getAxis("bottom")._tickLevels == [[(0, w.scene.terrain_types[0].name or "default")]]
    assert len(w.sim.agents.main.data) == 0 and w.sim.stats_label.text() == ""
    # The road scene opened again, then the city: the plot names the city's terrain types.
    open_file(w, ROAD, monkeypatch)
    play_until(qtbot, w, 1.0)
    open_file(w, CITY, monkeypatch)
    qtbot.wait(1500)
    names = [t.name or t.id for t in load_scene(CITY).terrain_types]
    assert [n for _, n in w.sim.plots.terrain.getAxis("bottom")._tickLevels[0]] == names
    build(qtbot, w)
    assert [n for _, n in w.sim.plots.terrain.getAxis("bottom")._tickLevels[0]] == names


# ----- finding 7: the heatmap's colour scale at a city's scale --------------------------------------------------


def test_the_heatmap_scale_reads_a_city_s_sparse_walkers(make_studio, qtbot):
    """A city's walkers are a few hundredths of an agent per square metre: the heatmap's scale (its colour bar in
    the viewport's corner) ends near the densities shown, so they read, instead of a fixed 0 .. 2 /m² that paints
    them transparent."""
    from app.layers.qt_density import DENSITY_FLOOR, density_lut, density_top

    w = make_studio(CITY, size=(1280, 800))
    mode = w.sim.replay.timeline.mode
    mode.setCurrentIndex(mode.findData("grid"))
    play_until(qtbot, w, 6.0)
    pause(qtbot, w)
    replay = w.sim.replay
    qtbot.waitUntil(lambda: replay.layer.grid is not None and replay.legend.isVisible(), timeout=WAIT)
    settle(qtbot, w)
    grid = replay.layer.grid
    occupied = grid[np.isfinite(grid) & (grid > 0)]
    assert len(occupied) > 0
    dense = float(np.percentile(occupied, 98))
    assert DENSITY_FLOOR < dense < 0.1, dense                  # a city's scale, not a crowd's
    top = replay.layer.top
    assert top == density_top(grid) and dense <= top <= 2.5 * dense, (dense, top)
    assert tuple(replay.layer.image.getLevels()) == pytest.approx((0.0, top))
    # The densest pixels shown take a colour at least half opaque on the scale, not the transparent bottom.
    assert density_lut()[int(255 * min(dense / top, 1.0)), 3] >= 100
    # The colour bar says the range, and lies whole inside the viewport.
    bar = replay.legend
    assert bar.top == top and "/m²" in bar.label_top() and bar.title.startswith("Density (grid")
    assert bar.parentWidget() is w.viewport and w.viewport.viewport().geometry().contains(bar.geometry())


# ----- finding 8: the ghost preview and the side-by-side run ---------------------------------------------------


def test_the_ghost_preview_stays_when_side_by_side_starts(make_studio, qtbot):
    w = make_studio(ROAD)
    build(qtbot, w)
    action(w, "sim.preview").setChecked(True)
    ghost = w.sim.ghost.curves[0]

    def ghost_points() -> int:
        x = ghost.getData()[0]
        return 0 if x is None else int(np.count_nonzero(np.isfinite(x)))

    qtbot.waitUntil(lambda: ghost_points() > 10, timeout=WAIT)
    action(w, "sim.compare").setChecked(True)
    qtbot.waitUntil(lambda: w.sim.info is not None and w.sim.info.compare is not None, timeout=WAIT)
    for _ in range(10):                               # a second: the preview never goes blank meanwhile
        qtbot.wait(100)
        assert ghost_points() > 10 and ghost.isVisible()
    assert action(w, "sim.preview").isChecked()


# ----- the state rule -------------------------------------------------------------------------------------------


def session_on_road(w, qtbot) -> None:
    """Open A (the road scene), tune, turn the preview and the side-by-side run on, draw, play, add agents, turn
    the heatmap on and the ECM overlay: a document with everything a document can have."""
    tune(w, qtbot)
    action(w, "sim.preview").setChecked(True)
    action(w, "sim.compare").setChecked(True)
    draw_measurements(w, ((10.0, 10.0), (190.0, 190.0)), ((20.0, 100.0), (180.0, 100.0)))
    mode = w.sim.replay.timeline.mode
    mode.setCurrentIndex(mode.findData("grid"))
    w.sim.parameters.add_n.setValue(5)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: w.sim.info is not None and len(w.sim.info.ids) == 6, timeout=BUILD_WAIT)
    play_until(qtbot, w, 3.0)
    qtbot.waitUntil(lambda: w.sim.plots.density_plot is not None and w.sim.replay.layer.grid is not None,
                    timeout=WAIT)
    pause(qtbot, w)
    w.sim.overlay_actions["ecm"].setChecked(True)
    qtbot.waitUntil(lambda: len(w.sim.ecm.axis._groups) > 0 or bool(w.sim.errors), timeout=BUILD_WAIT)
    w.sim.overlay_actions["ecm"].setChecked(False)
    assert not w.sim.errors, w.sim.errors


def compare_with_fresh(qtbot, w, fresh) -> None:
    """The window after the change and a fresh one: equal before any run, and equal after one Reset."""
    for win in (w, fresh):
        settle(qtbot, win)
    assert_same(window_state(w), window_state(fresh), "before a run")
    assert_same(engine_state(w), engine_state(fresh), "the engine, before a run")
    for win in (w, fresh):
        build(qtbot, win)
        settle(qtbot, win)
    assert_same(window_state(w), window_state(fresh), "after a build")
    assert_same(built_state(w), built_state(fresh), "the engine's parameters")


@pytest.mark.soak      # a whole session on one document, then a fresh window built beside it
def test_open_drops_everything_of_the_last_document(make_studio, qtbot, monkeypatch):
    w = make_studio(ROAD)
    session_on_road(w, qtbot)
    open_file(w, HILLS, monkeypatch)
    fresh = make_studio(HILLS)
    fresh.sim.start()
    compare_with_fresh(qtbot, w, fresh)


@pytest.mark.soak      # a whole session on one document, then a fresh window built beside it
def test_new_drops_everything_of_the_last_document(make_studio, qtbot, monkeypatch):
    w = make_studio(ROAD)
    session_on_road(w, qtbot)
    monkeypatch.setattr(dialogs, "ask_new_scene", lambda parent: ("Test", 60.0, 40.0))
    monkeypatch.setattr(dialogs, "ask_unsaved", lambda parent, name: "discard")
    w.actions["file.new"].trigger()
    fresh = make_studio(new=(60.0, 40.0))
    fresh.sim.start()
    for win in (w, fresh):
        settle(qtbot, win)
    assert_same(window_state(w), window_state(fresh), "after New")
    assert_same(engine_state(w), engine_state(fresh), "the engine after New")


@pytest.mark.soak      # a whole session on one document, then a fresh window built beside it
def test_import_drops_the_runs_and_tuning_of_the_contents_it_replaces(make_studio, qtbot, monkeypatch, tmp_path):
    w = make_studio(ROAD)
    session_on_road(w, qtbot)
    src = write_osm(tmp_path / "map.osm")
    monkeypatch.setattr(dialogs, "ask_import_path", lambda parent, folder: str(src))
    monkeypatch.setattr(qt_import, "ask_import_preview", lambda parent, session: session.build())
    w.actions["file.import"].trigger()
    # A fresh start on what the import made: the road scene's name and measurement, the hills' contents.
    made = tmp_path / "made.json"
    save_scene(w.scene, made)
    fresh = make_studio(made)
    fresh.sim.start()
    for win in (w, fresh):
        settle(qtbot, win)
    state, want = window_state(w), window_state(fresh)
    state.pop("title"), want.pop("title")             # the file name differs: nothing else may
    assert_same(state, want, "after Import")
    assert_same(engine_state(w), engine_state(fresh), "the engine after Import")
    for win in (w, fresh):
        build(qtbot, win)
    assert_same(built_state(w), built_state(fresh), "the engine's parameters after Import")


def write_orphan(config, scene, pid: int = 2 ** 22 + 12345) -> None:
    """A recovery file of a session whose process has ended (a pid no process has)."""
    folder = config / "recovery"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"session-{pid}.json").write_text(json.dumps({
        "format": "miran-studio-recovery", "version": 1, "pid": pid, "source": None, "saved_at": time.time(),
        "scene": scene_to_dict(scene)}))


@pytest.mark.soak      # a whole session on one document, then a fresh window built beside it
def test_recover_drops_everything_of_the_last_document(make_studio, qtbot, monkeypatch, isolated_config):
    w = make_studio(ROAD)
    session_on_road(w, qtbot)
    hills = load_scene(HILLS)
    write_orphan(isolated_config, hills)
    monkeypatch.setattr(dialogs, "ask_recover", lambda parent, rf: True)
    assert w.files.offer_recovery()
    write_orphan(isolated_config, hills, 2 ** 22 + 54321)
    fresh = make_studio()                              # a fresh start recovers the same work
    assert fresh.scene == w.scene
    fresh.sim.start()
    compare_with_fresh(qtbot, w, fresh)


@pytest.mark.soak      # a whole session on one document, then a fresh window built beside it
def test_reset_drops_the_run_and_keeps_the_document(make_studio, qtbot, tmp_path):
    w = make_studio(ROAD)
    session_on_road(w, qtbot)
    action(w, "sim.compare").setChecked(False)
    action(w, "sim.preview").setChecked(False)
    build(qtbot, w)                                    # Simulation > Reset
    # A fresh start on the same document (the scene as drawn) with the same tuning, built once.
    path = tmp_path / "drawn.json"
    save_scene(w.scene, path)
    fresh = make_studio(path)
    fresh.sim.start()
    tune(fresh, qtbot)
    fresh.sim.replay.timeline.mode.setCurrentIndex(fresh.sim.replay.timeline.mode.findData("grid"))
    fresh.sim.parameters.add_n.setValue(5)
    fresh.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: fresh.sim.info is not None and len(fresh.sim.info.ids) == 6, timeout=BUILD_WAIT)
    build(qtbot, fresh)
    for win in (w, fresh):
        settle(qtbot, win)
    # Both windows measure the new run's recording in the background; before the fix the window after Reset drew
    # the old run's measurement (kept recording, results still being computed) and a fresh window none yet.
    for win in (w, fresh):
        qtbot.waitUntil(lambda win=win: measured(win), timeout=BUILD_WAIT)
    state, want = window_state(w), window_state(fresh)
    for k in ("title", "scene"):
        state.pop(k), want.pop(k)
    state["panel"].pop("add"), want["panel"].pop("add")
    # The ECM overlay was built from the document's geometry, which Reset keeps (hidden, ready for the toggle).
    state["layers"].pop("ecm"), want["layers"].pop("ecm")
    assert_same(state, want, "after Reset")
    a, b = built_state(w), built_state(fresh)
    a.pop("scene_name"), b.pop("scene_name")
    assert_same(a, b, "the engine's parameters after Reset")
    assert engine_state(w)["overrides"] == engine_state(fresh)["overrides"]



def test_a_scene_with_an_agent_cut_off_its_goal_runs_without_it(make_studio, qtbot, tmp_path):
    """An agent whose route cannot be planned is in the run, lost where it starts and named in the status bar; the
    others run, Reset after Reset, and no error box opens."""
    from core.scene import Agent, Obstacle

    w = make_studio(new=(40, 30))
    wall = Obstacle("wall", [(19.0, 0.0), (21.0, 0.0), (21.0, 30.0), (19.0, 30.0)])
    w.editor.apply({"obstacles": [wall], "agents": [
        Agent("near", w.scene.profiles[0].id, start=(5.0, 5.0), goal=(12.0, 8.0)),
        Agent("across", w.scene.profiles[0].id, start=(5.0, 25.0), goal=(35.0, 25.0))]}, "setup")
    w.sim.start()
    for _ in range(2):
        gen = w.sim.generation
        action(w, "sim.reset").trigger()
        qtbot.waitUntil(lambda gen=gen: w.sim.generation != gen and w.sim.info is not None, timeout=BUILD_WAIT)
        qtbot.waitUntil(lambda: "No route for agent 'across'" in w.statusBar().currentMessage(), timeout=WAIT)
        assert w.sim.info.ids == ("near", "across") and not w.sim.errors
        sim = w.sim.bridge.worker.controller.sim
        assert sim.status_of(1)[0] == "lost" and sim.status_of(0)[0] == "walking"
    play_until(qtbot, w, 0.5)
    assert not w.sim.errors


def reset_leaving_one_out(w, qtbot) -> list[str]:
    """``cover_a_random_agent``, then Reset: the rebuild leaves that agent out and says so in one message; the ids
    of the random agents before it."""
    ids = cover_a_random_agent(w, qtbot)
    gen = w.sim.generation
    action(w, "sim.reset").trigger()
    qtbot.waitUntil(lambda: w.sim.generation != gen and bool(w.sim.errors), timeout=BUILD_WAIT)
    assert len(w.sim.errors) == 1 and w.sim.errors[0].startswith("Some agents could not be placed:")
    return ids


def cover_a_random_agent(w, qtbot) -> list[str]:
    """Build the road scene, add 4 random agents, play, and draw an obstacle over the first one's start (Select
    tool again after); the ids of the random agents."""
    build(qtbot, w)
    w.sim.parameters.add_n.setValue(4)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: w.sim.info is not None and len(w.sim.info.ids) == 5, timeout=BUILD_WAIT)
    play_until(qtbot, w, 0.5)
    pause(qtbot, w)
    routes, _, ids = w.sim.bridge.worker.controller.extra[0]
    x, y = routes[0].points[0]
    w.state.set("snap_grid", False)
    w.state.set("snap_vertices", False)
    d = Driver(w)
    d.tool("obstacle")
    for p in ((x - 1.5, y - 1.5), (x + 1.5, y - 1.5), (x + 1.5, y + 1.5), (x - 1.5, y + 1.5)):
        d.click(*p)
    d.key(QtCore.Qt.Key.Key_Return)
    d.tool("select")
    assert len(w.scene.obstacles) == len(load_scene(ROAD).obstacles) + 1
    return ids


def test_random_agents_an_obstacle_now_covers_are_left_out_at_reset(make_studio, qtbot):
    """The soak found it: random agents are kept over a Reset, but one whose start an obstacle drawn since covers
    stopped the rebuild ("the simulation stopped"); now it is left out and named, and the others run."""
    w = make_studio(ROAD)
    ids = reset_leaving_one_out(w, qtbot)
    assert f"random agent {ids[0]!r}" in w.sim.errors[0]
    assert ids[0] not in w.sim.info.ids and len(w.sim.info.ids) == 4
    w.sim.errors.clear()
    play_until(qtbot, w, 0.5)
    assert not w.sim.errors


def test_random_agents_added_after_one_was_left_out_get_ids_of_their_own(make_studio, qtbot):
    """The soak found it (city, seed 20261127, action 355): once a random agent was left out at Reset, the next
    ones were named from the count of agents, so one took the id of an agent still in the run and the engine
    stopped ("duplicate agent id 'crowd-29'"). Now every added agent gets an unused id, Reset after Reset."""
    w = make_studio(ROAD)
    ids = reset_leaving_one_out(w, qtbot)
    w.sim.errors.clear()
    w.sim._error_box.close()
    kept = w.sim.info.ids
    assert ids[0] not in kept and len(kept) == 4
    w.sim.parameters.add_n.setValue(3)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: len(w.sim.info.ids) == 7 or bool(w.sim.errors), timeout=BUILD_WAIT)
    assert not w.sim.errors, w.sim.errors
    now = w.sim.info.ids
    assert len(set(now)) == 7 and now[:4] == kept
    build(qtbot, w)                                   # Reset again: every random agent rebuilt, none refused
    assert w.sim.info.ids == now
    play_until(qtbot, w, 0.5)
    assert not w.sim.errors


def test_play_clicked_while_a_reset_rebuilds_the_run_starts_the_rebuilt_run(make_studio, qtbot):
    """The soak found it (hills, seed 20261127, action 360): Reset while playing, then Play before the rebuilt
    run's first frame came; Play was still greyed out by the old run's last frame ("playing"), the click was lost
    and the run stood at 0 s. Now Reset makes Play clickable at once, and the click plays the rebuilt run."""
    w = make_studio(ROAD)
    play_until(qtbot, w, 1.0)
    gen = w.sim.generation
    assert w.sim.frame.playing and not action(w, "sim.play").isEnabled()
    action(w, "sim.reset").trigger()
    assert action(w, "sim.play").isEnabled() and not action(w, "sim.pause").isEnabled()
    action(w, "sim.play").trigger()                    # before any event of the rebuild is handled
    qtbot.waitUntil(lambda: w.sim.generation != gen and w.sim.frame is not None
                    and w.sim.frame.generation == w.sim.generation and w.sim.frame.playing
                    and w.sim.frame.time > 0.3, timeout=BUILD_WAIT)
    assert not w.sim.errors, w.sim.errors
    assert not action(w, "sim.play").isEnabled() and action(w, "sim.pause").isEnabled()
    pause(qtbot, w)
    assert action(w, "sim.play").isEnabled()


def test_random_agents_fit_the_radius_tuned_in_the_panel(make_studio, qtbot):
    """The soak found it (hills, seed 20261127, action 474): with a profile's radius raised in the Simulation
    panel and a disc method, Add Agents stopped the simulation ("a disc of radius 1.5 would overlap 1.47 from an
    obstacle"): the random starts and goals kept the scene's radius from obstacles, the engine checks the tuned
    one. Now they keep the tuned radius, and every agent is added."""
    w = make_studio(ROAD)
    build(qtbot, w)
    p = w.sim.parameters
    p.method.setCurrentIndex(p.method.findData("irm"))
    p.method.activated.emit(p.method.currentIndex())
    spin_type(p.profile_fields["radius"].spin, "1.5", qtbot)
    settle(qtbot, w)
    assert engine_state(w)["overrides"]
    n0 = len(w.sim.info.ids)
    p.add_n.setValue(25)
    p.add_seed.setValue(3)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: len(w.sim.info.ids) == n0 + 25 or bool(w.sim.errors), timeout=BUILD_WAIT)
    assert not w.sim.errors, w.sim.errors
    from core.navmesh.queries import clearance

    sim = w.sim.bridge.worker.controller.sim
    ends = np.array([[sim.route_of(i).start, sim.route_of(i).goal] for i in range(n0, n0 + 25)]).reshape(-1, 2)
    assert clearance(sim.mesh, ends)[0].min() >= 1.5
    build(qtbot, w)                                    # and Reset keeps them all
    assert len(w.sim.info.ids) == n0 + 25


def test_random_agents_whose_routes_an_obstacle_now_crosses_are_left_out_at_reset(make_studio, qtbot):
    """The soak found it (McKenna + Road, seed 20261127, action 493): random agents are kept over a Reset with
    their routes, and routes an obstacle drawn since crosses (goals inside it) went to the engine, whose preview
    then failed with a division by zero. Now such agents are left out and named, as those whose start is covered,
    and the others run."""
    from shapely.geometry import LineString, Point, box

    from core.navmesh.queries import segment_visible

    w = make_studio(new=(60, 40))
    build(qtbot, w)
    p = w.sim.parameters
    p.add_n.setValue(8)
    p.add_seed.setValue(5)
    w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()
    qtbot.waitUntil(lambda: w.sim.info is not None and len(w.sim.info.ids) == 8 or bool(w.sim.errors),
                    timeout=BUILD_WAIT)
    assert not w.sim.errors, w.sim.errors
    routes, _, ids = w.sim.bridge.worker.controller.extra[0]
    lines = [LineString(r.points) for r in routes]
    # A 2 m square on the middle of the longest route piece that covers no start.
    target = None
    for k in sorted(range(len(routes)), key=lambda k: -lines[k].length):
        mid = lines[k].interpolate(0.5, normalized=True)
        square = box(mid.x - 1.0, mid.y - 1.0, mid.x + 1.0, mid.y + 1.0)
        if not any(square.intersects(Point(r.points[0])) for r in routes):
            target = k
            break
    assert target is not None
    crossed = {ids[k] for k, line in enumerate(lines) if line.intersects(square.buffer(-1e-6))}
    w.state.set("snap_grid", False)
    w.state.set("snap_vertices", False)
    d = Driver(w)
    d.tool("obstacle")
    x0, y0, x1, y1 = square.bounds
    for q in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
        d.click(*q)
    d.key(QtCore.Qt.Key.Key_Return)
    d.tool("select")
    assert len(w.scene.obstacles) == 1
    gen = w.sim.generation
    action(w, "sim.reset").trigger()
    qtbot.waitUntil(lambda: w.sim.generation != gen and w.sim.info is not None, timeout=BUILD_WAIT)
    qtbot.wait(200)                                    # the build's messages come before the build
    assert len(w.sim.errors) == 1 and w.sim.errors[0].startswith("Some agents could not be placed:")
    for aid in crossed:
        assert f"random agent {aid!r}" in w.sim.errors[0]
    assert ids[target] in crossed and set(w.sim.info.ids) == set(ids) - crossed
    w.sim.errors.clear()
    w.sim._error_box.close()
    sim = w.sim.bridge.worker.controller.sim
    for i in range(sim.n_agents):
        pts = np.asarray(sim.route_of(i).points)
        assert segment_visible(sim.mesh, pts[:-1], pts[1:]).all()
    action(w, "sim.preview").setChecked(True)
    play_until(qtbot, w, 1.0)
    qtbot.wait(500)
    assert not w.sim.errors, w.sim.errors
