"""The simulation controller without Qt: commands in, snapshots out, on mckenna_road (MIRAN Figure 8's scene)."""

import json
import sqlite3
import time

import jsonschema
import numpy as np
import pytest

from app.sim.mailbox import Mailbox
from app.sim.messages import Event
from app.sim.preview import ragged_polylines
from app.sim.trails import TrailBuffer
from core.export import read_paths
from core.scene.io import load_scene
from core.sim import Simulation

from sim_harness import SCENES, Harness

SCHEMA = SCENES.parent / "resources" / "schemas" / "miran-paths.schema.json"
# Compile (or load) the engine once per session, outside the timed waits (tests/app/conftest.py).
pytestmark = pytest.mark.usefixtures("jit_warm")


@pytest.fixture
def harness(jit_warm):
    h = Harness()
    h.send("load", load_scene(SCENES / "mckenna_road.json"))
    yield h
    h.close()


def test_mailbox_latest_wins_and_one_wake_per_drain():
    box = Mailbox()
    assert box.put("frame", 1) is True
    assert box.put("frame", 2) is False
    assert box.event(Event("progress", (0.1, "a"))) is False
    box.event(Event("progress", (0.5, "b")))
    box.event(Event("info", ("x",)))
    latest, events = box.take()
    assert latest == {"frame": 2}
    assert [e.args for e in events] == [(0.5, "b"), ("x",)]
    assert box.put("frame", 3) is True


def test_play_streams_positions_at_most_at_display_rate(harness):
    h = harness
    h.send("speed", 0)
    h.send("play")
    # At full speed the road's one walker arrives within a few frames (and nothing is published once idle).
    h.wait(lambda h: len(h.frames) >= 2 and h.frames[-1].steps > 20, what="frames")
    times = [f.time for f in h.frames]
    assert times == sorted(times) and times[-1] > times[0]
    assert not np.array_equal(h.frames[0].positions, h.frames[-1].positions)
    # The wake-ups never outnumber the drains by more than one: no backlog of notifications.
    assert h.wakes <= len(h.frames) + len(h.events) + 5
    h.wait(lambda h: any(e.kind == "info" and "arrived" in e.args[0] for e in h.events), what="arrival")
    last = h.latest["frame"]
    assert last.arrived == 1 and not last.playing
    # Never faster than the display: at least 1/60 s between two published frames, however fast the engine runs.
    assert len(h.published) >= 2 and np.diff(h.published).min() >= 1 / 60 - 1e-3
    assert not h.errors()


def test_pause_step_reset(harness):
    h = harness
    h.send("step", 1)
    h.wait(lambda h: h.frames and h.frames[-1].steps == 1, what="one step")
    dt = load_scene(SCENES / "mckenna_road.json").simulation.dt
    assert h.frames[-1].time == pytest.approx(dt)
    h.send("step", 5)
    h.wait(lambda h: h.frames[-1].steps == 6, what="six steps")
    # The same steps in a headless simulation give the same positions: the app adds no behaviour.
    ref = Simulation(load_scene(SCENES / "mckenna_road.json"))
    ref.step(6)
    assert np.array_equal(h.frames[-1].positions, ref.positions())
    h.send("play")
    h.wait(lambda h: h.frames[-1].steps > 10, what="playing")
    h.send("pause")
    h.wait(lambda h: not h.latest["frame"].playing, what="paused")
    steps = h.latest["frame"].steps
    time.sleep(0.3)
    h.drain()
    assert h.latest["frame"].steps == steps
    gen = h.latest["frame"].generation
    h.send("reset")
    h.wait(lambda h: h.latest["frame"].generation > gen, what="reset")
    f = h.latest["frame"]
    assert f.steps == 0 and f.time == 0
    assert np.array_equal(f.positions, Simulation(load_scene(SCENES / "mckenna_road.json")).positions())


def test_live_sigma_changes_the_chosen_attraction_point(harness):
    h = harness
    h.send("overlays", ["reference", "candidates", "attraction", "intervals"])
    h.send("select", 0)
    h.send("step", 30)
    h.wait(lambda h: h.latest.get("trace") is not None and "frame" in h.latest and h.latest["frame"].steps == 30,
           what="trace")
    before = h.latest["trace"].trace
    pid = "pedestrian"
    h.send("profile", pid, "sigma", 4.0)
    h.wait(lambda h: h.latest["trace"].trace.window_end_s - h.latest["trace"].trace.reference_s < 4.0 + 1e-6,
           what="trace with the new sigma")
    after = h.latest["trace"].trace
    # The simulation did not move; only the choice changed (MIRAN 3.2: candidates within sigma of r_i).
    assert after.position == pytest.approx(before.position)
    assert before.window_end_s - before.reference_s > 4.0 + 1e-6
    assert after.attraction_s - after.reference_s <= 4.0 + 1e-6
    assert not np.allclose(after.attraction, before.attraction)
    assert np.all(after.candidate_s <= after.reference_s + 4.0 + 1e-6)
    # The next steps use it: the trace of a real step has the new window too.
    h.send("step", 1)
    h.wait(lambda h: h.latest["frame"].steps == 31, what="step")
    tr = h.latest["trace"].trace
    assert tr.window_end_s - tr.reference_s <= 4.0 + 1e-6


def test_mud_weight_changes_the_ghost_path(harness):
    h = harness
    h.send("preview", True)
    h.wait(lambda h: "ghost" in h.latest and h.latest["ghost"].complete, what="ghost")
    first = h.latest["ghost"]
    h.send("weight", "pedestrian", "mud", 0.05)
    h.send("weight", "pedestrian", "sidewalk", 30.0)
    h.wait(lambda h: h.latest["ghost"].request > first.request and h.latest["ghost"].complete, what="new ghost")
    second = h.latest["ghost"]
    a, b = first.paths[~np.isnan(first.paths[:, 0])], second.paths[~np.isnan(second.paths[:, 0])]
    assert len(a) > 10 and len(b) > 10
    assert a.shape != b.shape or not np.allclose(a, b)
    # The ghost is exactly what the simulation then walks (deterministic engine).
    h.send("speed", 0)
    h.send("play")
    h.wait(lambda h: "frame" in h.latest and h.latest["frame"].arrived == 1, what="arrival")
    end = h.latest["frame"].positions[0]
    assert np.allclose(b[-1], end, atol=1e-4)


def test_export_json_matches_the_schema_and_the_reader(harness, tmp_path):
    h = harness
    h.send("speed", 0)
    h.send("play")
    h.wait(lambda h: "frame" in h.latest and h.latest["frame"].arrived == 1, what="arrival")
    out = tmp_path / "paths.json"
    h.send("export", str(out), "json")
    csv = tmp_path / "paths.csv"
    h.send("export", str(csv), "csv")
    others = {"pedpy": tmp_path / "paths.txt", "jupedsim": tmp_path / "paths.sqlite",
              "geojson": tmp_path / "paths.geojson"}
    for fmt, p in others.items():
        h.send("export", str(p), fmt)
    h.wait(lambda h: sum(e.kind == "exported" for e in h.events) == 5, what="export")
    assert all(e.args[1] is None for e in h.events if e.kind == "exported")
    data = json.loads(out.read_text())
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    pf = read_paths(out)
    assert pf.agents[0].reached_goal and pf.agents[0].terrain_lengths["mud"] == 0.0
    lines = csv.read_text().splitlines()
    assert lines[0] == "agent,profile,t,x,y" and len(lines) == len(pf.agents[0].points) + 1
    # No float noise: t as frame x dt with the step's decimals, x and y to 1 mm.
    t, x, y = pf.agents[0].points[-1].tolist()
    assert lines[-1].split(",")[2:] == [f"{round(t / pf.dt) * pf.dt:.1f}", f"{x:.3f}", f"{y:.3f}"]
    # The same writers as miran export: the trajectory files hold every point, the GeoJSON the scene too.
    assert len(others["pedpy"].read_text().splitlines()) == len(pf.agents[0].points) + 5
    with sqlite3.connect(others["jupedsim"]) as con:
        assert con.execute("SELECT COUNT(*) FROM trajectory_data").fetchone()[0] == len(pf.agents[0].points)
        assert con.execute("SELECT wkt FROM geometry").fetchone()[0].startswith("POLYGON")
    roles = {f["properties"]["role"] for f in json.loads(others["geojson"].read_text())["features"]}
    assert {"obstacle", "terrain", "path"} <= roles


def test_engine_errors_are_reported_and_the_worker_lives_on(harness):
    h = harness
    h.send("param", "dt", -1.0)
    h.send("method", "no-such-method")
    h.wait(lambda h: len(h.errors()) >= 2, what="errors")
    assert h.errors()[0].args[0] == "dt not changed" and "dt" in h.errors()[0].args[1]
    assert "no-such-method" in h.errors()[1].args[1]
    h.send("step", 2)
    h.wait(lambda h: "frame" in h.latest and h.latest["frame"].steps == 2, what="steps after the errors")


def test_side_by_side_miran_and_irm_figure_8():
    """MIRAN Figure 8: MIRAN and IRM on the same route at once; the traced agent's IRM corridor is drawn."""
    h = Harness()
    try:
        scene = load_scene(SCENES / "mckenna_road.json")
        h.send("load", scene)
        h.send("overlays", ["corridor", "attraction"])
        h.send("select", 0)
        h.send("compare", "irm")
        h.send("step", 1)
        h.wait(lambda h: h.latest.get("trace") is not None and "frame" in h.latest, what="trace")
        corridor = h.latest["trace"].corridor
        assert corridor.shape[1] == 3 and len(corridor) > 4 and np.all(corridor[:, 2] > 0)
        h.send("speed", 0)
        h.send("play")
        h.wait(lambda h: not h.latest["frame"].playing and h.latest["frame"].steps > 1, what="both arrived")
        f = h.latest["frame"]
        assert f.compare_positions is not None and f.compare_positions.shape == f.positions.shape
        assert f.arrived == 1 and np.all(f.compare_status == 1)
        st = h.latest["stats"]
        # The plots compare the two runs' terrain lengths: MIRAN keeps out of the mud (Figure 8).
        assert len(st.compare_terrain_lengths) == len(st.terrain_lengths) and st.terrain_lengths[-1] == 0.0
        assert not h.errors()
    finally:
        h.close()


def test_side_by_side_forks_the_run_at_its_current_time(harness):
    """Switching side by side on mid-run forks the running simulation: same time, same positions, other method;
    the first run is not rebuilt (its generation, steps and trails stay)."""
    h = harness
    h.send("step", 30)
    h.wait(lambda h: "frame" in h.latest and h.latest["frame"].steps == 30, what="30 steps")
    f0 = h.latest["frame"]
    gen = h.controller.generation
    h.send("compare", "irm")
    h.wait(lambda h: h.latest["frame"].compare_positions is not None, what="the side-by-side frame")
    f = h.latest["frame"]
    assert h.controller.generation == gen and f.steps == 30 and f.time == f0.time
    assert np.array_equal(f.compare_positions, f0.positions)
    assert h.controller.compare.time == h.controller.sim.time and h.controller.compare.method == "irm"
    h.send("step", 10)
    h.wait(lambda h: h.latest["frame"].steps == 40, what="10 more steps")
    assert h.controller.compare.steps == h.controller.sim.steps == 40
    assert any(e.kind == "info" and "from t = " in e.args[0] for e in h.events)
    h.send("compare", None)
    h.wait(lambda h: h.latest["frame"].compare_positions is None, what="side by side off")
    assert h.latest["frame"].steps == 40 and not h.errors()


def test_a_side_by_side_disc_that_does_not_fit_stands_lost_and_the_runs_go_on():
    """The soak found it (hills, seed 424242): side by side with a disc method after the radius was tuned wider than
    an agent's goal, the side-by-side run refused that agent and stopped both runs ("the simulation stopped"). Now
    the side-by-side run keeps every agent of the main run, in the same order; the one whose disc does not fit
    stands lost where it starts with its reason, an info names it, and the main run walks as before."""
    import dataclasses

    from core.navmesh.queries import clearance

    base = load_scene(SCENES / "mckenna_road.json")
    ref = Simulation(base)
    route = ref.route_of(0)
    room, _ = clearance(ref.mesh, np.array([route.start, route.goal]))
    wide = float(1.5 * room.max())                      # the disc fits neither at its start nor at its goal
    scene = dataclasses.replace(base, profiles=[dataclasses.replace(base.profiles[0], radius=wide)])
    h = Harness()
    try:
        h.send("load", scene)
        h.send("compare", "irm")
        h.send("step", 20)
        h.wait(lambda h: "frame" in h.latest and h.latest["frame"].steps == 20 or h.errors(), what="20 steps")
        assert not h.errors()
        f = h.latest["frame"]
        assert f.compare_positions is not None and f.compare_positions.shape == f.positions.shape
        side = h.controller.compare
        assert list(side.state.ids) == list(h.controller.sim.state.ids) == ["pedestrian-1"]
        assert side.status_of(0) == ("lost", "its disc does not fit at its start or goal")
        assert np.array_equal(f.compare_positions[0], route.start) and f.compare_status[0] == 2
        assert f.status[0] == 0 and not np.array_equal(f.positions[0], route.start)   # the main run walks on
        (info,) = [e.args[0] for e in h.events if e.kind == "info" and e.args[0].startswith("Side by side (irm)")]
        assert "'pedestrian-1'" in info and f"a disc of radius {wide:g}" in info
    finally:
        h.close()


def test_trails_and_ragged_polylines():
    tb = TrailBuffer(2, 0.1)
    for k in range(tb.k + 5):
        tb.push(np.array([[k, 0.0], [k, 1.0]]), 0.1 * k, force=True)
    lines = tb.polylines()
    assert lines.shape == (2 * (tb.k + 1), 2)
    assert np.isnan(lines[tb.k]).all() and lines[tb.k - 1, 0] == tb.k + 4 and lines[0, 0] == 5
    tb.push(np.array([[0, 0], [1, 1], [2, 2.0]]), 1e9)
    assert tb.polylines().shape == (3 * (tb.k + 1), 2)
    xy = np.arange(20, dtype=np.float64).reshape(10, 2)
    out = ragged_polylines(xy, np.array([0, 4, 4, 10]), max_points=100)
    assert out.shape == (13, 2) and np.isnan(out[4]).all() and np.isnan(out[5]).all() and out[6, 0] == 8
    thin = ragged_polylines(xy, np.array([0, 4, 4, 10]), max_points=3)
    assert np.array_equal(thin[~np.isnan(thin[:, 0])][:, 0], [0, 6, 8, 16, 18])


def test_a_build_can_be_cancelled_and_the_worker_goes_on():
    h = Harness()
    try:
        h.send("load", load_scene(SCENES / "city.json"))
        h.send("reset")
        h.wait(lambda h: any(e.kind == "progress" for e in h.events), what="build progress")
        h.controller.cancel.set()
        h.wait(lambda h: any(e.kind == "info" and "cancelled" in e.args[0] for e in h.events), what="cancelled")
        assert "frame" not in h.latest and not h.errors()
        h.send("load", load_scene(SCENES / "mckenna_road.json"))
        h.send("step", 1)
        h.wait(lambda h: "frame" in h.latest and h.latest["frame"].steps == 1, what="the next build")
    finally:
        h.close()


def test_warm_up_reports_its_time():
    h = Harness()
    try:
        h.send("warmup")
        h.wait(lambda h: any(e.kind == "warm" for e in h.events), timeout=900, what="warm-up")
        kinds = [e.kind for e in h.events]
        assert kinds.index("busy") < kinds.index("warm")
        assert "warm-up" in h.events[kinds.index("busy")].args[0]
    finally:
        h.close()


def test_a_character_lost_for_good_is_named_in_the_frames_and_at_the_end(harness):
    """The frames (the status bar's text) and the end-of-run message name every character lost for good with its
    reason. The engine's state is set while the run is paused: a lost character is hard to make on purpose now."""
    from core.sim.state import LOST, REASON_NO_ROUTE

    h = harness
    h.send("add_agents", 2, 7)
    h.send("step")
    h.wait(lambda h: h.frames and h.frames[-1].steps == 1 and len(h.frames[-1].positions) == 3, what="one step")
    st = h.controller.sim.state
    st.status[0] = LOST
    st.lost_reason[0] = REASON_NO_ROUTE
    h.send("speed", 0)
    h.send("play")
    h.wait(lambda h: any(e.kind == "info" and "lost" in e.args[0] for e in h.events), what="the end")
    (msg,) = [e.args[0] for e in h.events if e.kind == "info" and "lost" in e.args[0]]
    assert "Every agent has arrived or is lost" in msg and "1 lost: pedestrian-1 (no route to its goal)" in msg
    # The frames name it too (the last frame may follow the message by a display period).
    h.wait(lambda h: h.latest["frame"].lost == ("pedestrian-1 (no route to its goal)",), what="the lost in a frame")


def test_the_threads_setting_steps_the_running_simulation_on_that_many_threads(harness):
    """The Simulation panel's Threads: applied to the running simulation from the next step, the same positions as
    on one thread; a bad count is an error event naming it and changes nothing."""
    h = harness
    h.send("threads", 1)
    h.send("step", 10)
    h.wait(lambda h: "frame" in h.latest and h.latest["frame"].steps == 10, what="10 steps")
    h.send("threads", 2)
    h.send("step", 20)
    h.wait(lambda h: h.latest["frame"].steps == 30, what="20 more steps")
    assert h.controller.sim.threads == 2 and h.controller.threads == 2
    h.send("threads", 0)
    h.wait(lambda h: h.errors(), what="the error event")
    assert "threads" in h.errors()[-1].args[1] and h.controller.sim.threads == 2
    ref = Simulation(load_scene(SCENES / "mckenna_road.json"))
    ref.step(30)
    assert np.array_equal(h.latest["frame"].positions, ref.state.pos)


def test_agents_refused_in_a_later_round_are_left_out_and_named_by_their_index_in_the_document(monkeypatch,
                                                                                                 jit_warm):
    """The soak found it (mckenna_road, seed 7, action 374): the engine checks the agents' routes first and where
    their discs stand after. With one agent left out for its route, the next round refused another for its goal,
    and that second refusal stopped the rebuild ("the simulation stopped"). Now each round's agents are left out,
    every problem named by the agent's index in the document, and the others run."""
    import dataclasses
    from core.scene.problems import InputError, Problem

    base = load_scene(SCENES / "mckenna_road.json")
    scene = dataclasses.replace(base, agents=[dataclasses.replace(base.agents[0], id=f"a{k}") for k in range(4)])
    real = Simulation.add_scene_agents

    def refusing(sim):
        ids = [a.id for a in sim.scene.agents]
        if "a1" in ids:                                 # round 1: a route no detour can make
            raise InputError([Problem(f"agents[{ids.index('a1')}].points", "the route crosses an obstacle")])
        if "a3" in ids:                                 # round 2: a disc that cannot stand on its goal
            raise InputError([Problem(f"agents[{ids.index('a3')}].goal", "a disc cannot stand on it")])
        return real(sim)

    monkeypatch.setattr(Simulation, "add_scene_agents", refusing)
    h = Harness()
    try:
        h.send("load", scene)
        h.send("reset")
        h.wait(lambda h: "build" in h.latest and h.latest["build"].ids == ("a0", "a2") or
               any(e.args[0] == "The simulation stopped" for e in h.errors()), what="the build without a1, a3")
        assert h.latest["build"].ids == ("a0", "a2")
        (warning,) = h.errors()
        assert warning.args[0] == "Some agents could not be placed"
        assert warning.args[1].splitlines() == ["agent 'a1' points: the route crosses an obstacle",
                                                "agent 'a3' goal: a disc cannot stand on it"]
    finally:
        h.close()


def test_a_scheduled_obstacle_comes_and_goes_in_the_live_run(jit_warm):
    """A scene with a scheduled obstacle plays in the window's engine: the obstacle comes and goes on time in the
    running simulation, the walkers react and arrive, and no error is raised (the window draws the scene as it is,
    its overlays the world at time 0)."""
    from core.scene.io import scene_to_dict
    from core.scene.parse import parse_scene

    data = scene_to_dict(load_scene(SCENES / "mckenna_road.json"))
    x0, y0, x1, y1 = data["bounds"]
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    data["obstacles"].append({"id": "stall", "polygon": [[cx - 1, cy - 1], [cx + 1, cy - 1], [cx + 1, cy + 1],
                                                         [cx - 1, cy + 1]], "appears": 1.0, "vanishes": 3.0})
    h = Harness()
    try:
        h.send("load", parse_scene(data))
        h.send("speed", 0)
        h.send("play")
        h.wait(lambda h: any(e.kind == "info" and "arrived" in e.args[0] for e in h.events), what="arrival")
        assert not [e for e in h.events if e.kind == "error"]
        sim = h.controller.sim
        assert sim.time > 3.0 and "stall" not in [o.id for o in sim.scene.obstacles] and not sim._events
    finally:
        h.close()


def test_frames_carry_the_moving_and_scheduled_obstacles_where_they_stand(jit_warm):
    """A scene with a car going round a loop and a stall that comes at 1 s: every frame carries the outlines of
    those obstacles standing at its time, the car where its path has carried it (Obstacle.polygon_at), and
    nothing of the obstacles that stand all the time."""
    from core.scene.io import scene_to_dict
    from core.scene.parse import parse_scene

    data = scene_to_dict(load_scene(SCENES / "mckenna_road.json"))
    x0, y0, x1, y1 = data["bounds"]
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    data["obstacles"] += [
        {"id": "stall", "polygon": [[cx - 1, cy - 1], [cx + 1, cy - 1], [cx + 1, cy + 1], [cx - 1, cy + 1]],
         "appears": 1.0},
        {"id": "car", "polygon": [[3, 2], [7, 2], [7, 4], [3, 4]], "path": [[5, 3], [40, 3]], "speed": 5.0,
         "loop": True}]
    scene = parse_scene(data)
    car = scene.obstacles[-1]
    h = Harness()
    try:
        h.send("load", scene)
        h.send("speed", 0)
        h.send("play")
        h.wait(lambda h: "frame" in h.latest and h.latest["frame"].time > 2.0, what="2 s")
        f = h.latest["frame"]
        assert len(f.world) == 2
        stall, moved = f.world
        assert np.allclose(moved, car.polygon_at(f.time))
        assert np.allclose(stall, scene.obstacles[-2].polygon)
        assert not [e for e in h.events if e.kind == "error"]
    finally:
        h.close()


def test_an_obstacle_drawn_in_a_scene_with_traffic_applies_at_once_and_reset_starts_from_time_0(jit_warm):
    """In a scene with a car and roadworks that come at 1 s, the triangulation sent follows the roadworks when
    they come; a stall drawn during the run applies at once (the run goes on, the car keeps moving); an edit of the
    roadworks waits for Reset; after Reset the run starts from the scene at time 0 (no roadworks in its world, the
    stall in it)."""
    import dataclasses

    from core.scene.io import scene_to_dict
    from core.scene.model import Obstacle
    from core.scene.parse import parse_scene

    data = scene_to_dict(load_scene(SCENES / "mckenna_road.json"))
    data["obstacles"] += [
        {"id": "works", "polygon": [[60, 60], [64, 60], [64, 64], [60, 64]], "appears": 1.0},
        {"id": "car", "polygon": [[3, 2], [7, 2], [7, 4], [3, 4]], "path": [[5, 3], [40, 3]], "speed": 5.0,
         "loop": True}]
    scene = parse_scene(data)
    h = Harness()
    try:
        h.send("load", scene)
        h.send("step", 30)
        h.wait(lambda h: h.controller.sim is not None and h.controller.sim.steps >= 30, what="30 steps")
        c = h.controller
        sim, generation = c.sim, c.generation
        assert "works" in [o.id for o in sim.scene.obstacles]
        # The triangulation overlay follows the world: the mesh with the works came after the build's.
        h.wait(lambda h: "mesh" in h.latest, what="the mesh with the works")
        assert h.latest["mesh"].generation == generation
        assert len(h.latest["mesh"].edges) > len(h.latest["build"].mesh_edges)
        stall = Obstacle("stall", [(120.0, 120.0), (122.0, 120.0), (122.0, 122.0), (120.0, 122.0)])
        h.send("scene", dataclasses.replace(scene, obstacles=[*scene.obstacles, stall]))
        h.wait(lambda h: any(e.kind == "info" and "changed while the simulation runs" in e.args[0]
                             for e in h.events), what="the live change")
        assert c.sim is sim and c.generation == generation and "stall" in [o.id for o in sim.scene.obstacles]
        assert [oid for oid, _ in sim.obstacles_now()][-1] == "car"
        works = dataclasses.replace(scene.obstacles[-2], polygon=[(60, 60), (66, 60), (66, 66), (60, 66)])
        edited = dataclasses.replace(scene, obstacles=[*scene.obstacles[:-2], works, scene.obstacles[-1], stall])
        h.send("scene", edited)
        h.wait(lambda h: c.pending is not None, what="the edit waiting for Reset")
        h.send("reset")
        h.wait(lambda h: c.generation > generation and c.sim.steps == 0, what="the reset")
        ids = [o.id for o in c.sim.scene.obstacles]
        assert "stall" in ids and "works" not in ids and not [e for e in h.events if e.kind == "error"]
    finally:
        h.close()


def test_an_obstacle_drawn_while_the_crowd_walks_applies_at_once(harness):
    """Drawing, reshaping or deleting an obstacle while a started run walks changes the running simulation as soon
    as the change is prepared off the engine's thread (no Reset: the same run goes on, its triangulation is sent
    anew, the status gives the update's time); an edit of anything else still waits for a Reset."""
    import dataclasses

    from core.scene.model import Obstacle

    h = harness
    h.send("step", 20)
    h.wait(lambda h: h.controller.sim is not None and h.controller.sim.steps >= 20, what="20 steps")
    c = h.controller
    sim, generation, scene = c.sim, c.generation, c.scene
    x0, y0, x1, y1 = scene.bounds
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    stall = Obstacle("stall", [(cx - 1, cy - 1), (cx + 1, cy - 1), (cx + 1, cy + 1), (cx - 1, cy + 1)])
    h.send("scene", dataclasses.replace(scene, obstacles=[*scene.obstacles, stall]))
    h.wait(lambda h: any(e.kind == "info" and "changed while the simulation runs" in e.args[0] for e in h.events),
           what="the live change")
    assert c.sim is sim and c.generation == generation and sim.steps >= 20 and c.pending is None
    assert sim.scene.obstacles[-1] == stall and c.mesh is sim.mesh and sim.last_world_update_prepared
    assert h.latest["build"].generation == generation                       # the triangulation, sent anew
    bigger = dataclasses.replace(stall, polygon=[(cx - 2, cy - 2), (cx + 2, cy - 2), (cx + 2, cy + 2),
                                                 (cx - 2, cy + 2)])
    h.send("scene", dataclasses.replace(scene, obstacles=[*scene.obstacles, bigger]))
    h.wait(lambda h: c.sim.scene.obstacles[-1] == bigger, what="the reshaped obstacle")
    h.send("scene", scene)
    h.wait(lambda h: "stall" not in [o.id for o in c.sim.scene.obstacles], what="the deleted obstacle")
    assert c.sim is sim and not any(e.kind == "stale" and e.args[0] for e in h.events)
    h.send("scene", dataclasses.replace(scene, default_terrain=scene.terrain_types[-1].id))
    h.wait(lambda h: any(e.kind == "stale" and e.args[0] for e in h.events), what="a terrain edit waiting")
