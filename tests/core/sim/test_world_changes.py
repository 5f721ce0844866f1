"""Obstacles added and removed while characters walk (core.sim.world), by the API and on the scene's schedule: on
generated cities, with every method, every recorded position is checked with shapely against the obstacles present
at its time; characters the new obstacle covers move out, those whose way it crosses walk round it, those it cuts
off from their goal are lost with the reason and walk again when it goes."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import shapely
from shapely import LineString, Polygon

import stressgen as sg
from ci_size import size
from mesh_checks import assert_navmesh_of
from test_arrival_stress import _errands

from core.scene.io import load_scene, save_scene, scene_to_dict
from core.scene.parse import parse_scene
from core.scene.problems import InputError
from core.sim import Simulation

METHODS = ["miran", "disc-miran", "irm"]


@pytest.fixture(scope="module")
def city():
    scene = sg.city(7)
    return scene, _errands(scene, 30, 301)


def _walkers(scene, routes, method: str, until: float) -> Simulation:
    sim = Simulation(scene, method=method, add_scene_agents=False)
    sim.add_agents(routes, ["walker"] * len(routes))
    sim.run(until=until)
    return sim


def _one_walking(city, method: str, until: float, k: int) -> tuple[Simulation, int]:
    """The city's walkers run until ``until``, and the index of the k-th still walking."""
    sim = _walkers(*city, method, until)
    return sim, int(np.flatnonzero(sim.state.status == 0)[k])


def _square(x: float, y: float, half: float) -> np.ndarray:
    return np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]])


def _ahead(sim: Simulation, i: int, by: float) -> shapely.Point:
    """The point ``by`` along character i's route past where it stands."""
    line = LineString(sim.route_of(i).points)
    return line.interpolate(min(line.length, line.project(shapely.Point(sim.state.pos[i])) + by))


def _arrived_or_cut_off(sim: Simulation) -> None:
    """Every character arrived, or is lost because its goal was closed off, which shapely confirms: where it stands
    and its goal lie in no one piece of the free space less its route clearance."""
    st = sim.state
    for k in np.flatnonzero(st.status != 1).tolist():
        assert sim.status_of(k) == ("lost", "its goal was closed off"), (k, sim.status_of(k))
        room = sim.context.geometry.free.buffer(-sim.clearance_for("walker") + 1e-9)
        p, g = shapely.Point(st.pos[k]), shapely.Point(st.goal[k])
        assert not any(c.covers(p) and c.covers(g) for c in getattr(room, "geoms", [room])), k


def _kept_out(sim: Simulation, block: np.ndarray, t0: float, t1: float = np.inf) -> None:
    """No character stands in ``block`` at a time in (t0, t1], nor walks through it on a step that starts after
    t0; a disc keeps its radius from it."""
    poly = Polygon(block)
    interior = poly.buffer(-1e-9)
    disc = sim.method in ("disc-miran", "irm")
    for i in range(sim.n_agents):
        path = sim.path(i)
        t, p = path[:, 0], path[:, 1:]
        live = (t > t0) & (t <= t1)
        assert not shapely.contains_xy(interior, p[live, 0], p[live, 1]).any(), f"agent {i} stood in the obstacle"
        for k in np.flatnonzero(live[:-1] & live[1:]):
            assert LineString(p[k:k + 2]).intersection(interior).length == 0.0, f"agent {i} walked through it"
        if disc and live.any():
            d = shapely.distance(poly.boundary, shapely.points(p[live]))
            assert d.min() >= sim.state.radius[i] - 1e-6, f"agent {i}'s disc came {d.min():.6f} from it"


@pytest.mark.parametrize("method", METHODS)
def test_an_obstacle_added_ahead_is_walked_round(city, method):
    sim, i = _one_walking(city, method, 5.0, 0)
    st = sim.state
    p = _ahead(sim, i, 6.0)
    block = _square(p.x, p.y, 2.0)
    assert not Polygon(block).covers(shapely.points(st.goal)).any()
    replans = st.replans.copy()
    t0 = sim.time
    assert sim.add_obstacle(block, "market stall") == "market stall"
    assert [o.id for o in sim.scene.obstacles][-1] == "market stall"
    # Replanned at the next step: nearest first, a few a step (core.sim.world's queue).
    assert i in sim.replanning and len(sim.replanning) <= sim.replans_per_step
    sim.step()
    assert len(sim.replanning) == 0
    assert LineString(sim.route_of(i).points).distance(Polygon(block)) >= (st.radius[i] if method != "miran" else 0)
    assert (st.replans == replans).all()          # a change of the world is not a character's failure
    sim.run()
    assert (st.status == 1).all(), [sim.status_of(k) for k in np.flatnonzero(st.status != 1)]
    _kept_out(sim, block, t0)


@pytest.mark.parametrize("method", METHODS)
def test_an_obstacle_dropped_on_a_character_moves_it_out(city, method):
    sim, i = _one_walking(city, method, 5.0, 1)
    st = sim.state
    x, y = st.pos[i]
    block = _square(x, y, 1.0)
    t0 = sim.time
    sim.add_obstacle(block)
    assert Polygon(block).distance(shapely.Point(st.pos[i])) >= max(st.radius[i], sim.clearance_for("walker"))
    assert np.allclose(sim.path(i)[-1, 1:], st.pos[i]) and sim.path(i)[-1, 0] == t0     # the move is on its path
    sim.run()
    assert st.status[i] == 1
    _arrived_or_cut_off(sim)
    _kept_out(sim, block, t0)


def test_a_goal_closed_off_is_lost_then_walked_to_when_it_opens(city):
    sim, i = _one_walking(city, "miran", 3.0, 2)
    st = sim.state
    block = _square(*st.goal[i], 1.5)
    t0 = sim.time
    sim.add_obstacle(block, "closed")
    assert i in sim.replanning
    sim.step()
    assert sim.status_of(i) == ("lost", "its goal was closed off")
    sim.run()
    others = np.arange(sim.n_agents) != i
    assert (st.status[others] == 1).all() and sim.status_of(i) == ("lost", "its goal was closed off")
    t1 = sim.time
    sim.remove_obstacle("closed")
    assert "closed" not in [o.id for o in sim.scene.obstacles]
    assert list(sim.replanning) == [i]
    sim.run()
    assert st.status[i] == 1 and np.allclose(sim.path(i)[-1, 1:], st.goal[i])
    _kept_out(sim, block, t0, t1)


@pytest.mark.parametrize("polygon, problem", [
    ([[1, 1], [2, 2]], "at least 3"),
    ([[1, 1], [2, float("nan")], [3, 1]], "finite"),
    ([[0, 0], [2, 2], [2, 0], [0, 2]], "simple polygon"),            # a bow tie
    ([[1, 1], [1, 1], [1, 1]], "simple polygon"),
    ([[-90, -90], [-80, -90], [-80, -80]], "outside the scene's bounds"),
    ("a car", "points"),
])
def test_a_bad_obstacle_is_refused_naming_it_and_changes_nothing(city, polygon, problem):
    scene, routes = city
    sim = _walkers(scene, routes, "miran", 0.5)
    before = (len(sim.scene.obstacles), sim.state.pos.copy(), sim.mesh)
    with pytest.raises(InputError, match=f"obstacle car.*{problem}"):
        sim.add_obstacle(polygon, "car")
    assert (len(sim.scene.obstacles), sim.mesh) == (before[0], before[2])
    assert (sim.state.pos == before[1]).all()


def test_ids_are_unique_and_an_unknown_one_is_refused(city):
    scene, routes = city
    sim = _walkers(scene, routes, "miran", 0.5)
    a = sim.add_obstacle(_square(1.0, 1.0, 0.5))
    b = sim.add_obstacle(_square(3.0, 1.0, 0.5))
    assert a != b and {a, b} <= {o.id for o in sim.scene.obstacles}
    with pytest.raises(InputError, match=f"obstacle {a}: an obstacle with this id"):
        sim.add_obstacle(_square(5.0, 1.0, 0.5), a)
    with pytest.raises(InputError, match="obstacle nowhere: no obstacle with this id"):
        sim.remove_obstacle("nowhere")


@pytest.mark.parametrize("method", METHODS)
def test_a_random_sequence_of_additions_and_removals(city, method):
    """Squares dropped at random (half of them on a walker, the rest anywhere), moved and removed again while the
    crowd walks, arrived characters given new errands: after each change the navigation mesh, updated locally, is a
    valid triangulation of the changed scene's free space and terrain (shapely); every character stays out of each
    square while it stands, and once they are all gone every character arrives. 12 changes in CI, 500 under
    MIRAN_TEST_FULL (issue 30's sequence)."""
    rng = np.random.default_rng({"miran": 1, "disc-miran": 2, "irm": 3}[method])
    sim = _walkers(*city, method, 1.0)
    sim.respawn = True
    st = sim.state
    x0, y0, x1, y1 = sim.scene.bounds
    standing: dict[str, tuple[float, np.ndarray]] = {}
    spans = []
    local = changes = 0
    for k in range(size(12, 500)):
        roll = rng.random()
        if standing and (roll < 0.4 or len(standing) >= 4):
            oid = sorted(standing)[int(rng.integers(len(standing)))]
            t0, block = standing.pop(oid)
            sim.remove_obstacle(oid)
            spans.append((block, t0, sim.time))
        elif standing and roll < 0.6:
            oid = sorted(standing)[int(rng.integers(len(standing)))]
            t0, block = standing[oid]
            shift = rng.normal(0.0, 2.0, 2)
            before = sim.scene
            try:
                sim.move_obstacle(oid, shift)
            except InputError as e:                        # off the bounds: refused, nothing changed
                assert f"obstacle {oid}" in str(e) and sim.scene is before
            else:
                spans.append((block, t0, sim.time))
                standing[oid] = (sim.time, block + shift)
        else:
            walking = np.flatnonzero(st.status == 0)
            if len(walking) and rng.random() < 0.5:
                cx, cy = st.pos[int(rng.choice(walking))] + rng.normal(0.0, 1.0, 2)
            else:
                cx, cy = rng.uniform((x0, y0), (x1, y1))
            block = _square(float(cx), float(cy), float(rng.uniform(0.3, 2.0)))
            standing[sim.add_obstacle(block, f"random-{k}")] = (sim.time, block)
        assert_navmesh_of(sim.scene, sim.mesh)
        local += sim.last_mesh_update_local
        changes += 1
        sim.run(until=sim.time + float(rng.uniform(0.5, 3.0)))
    assert (st.status == 0).sum() > len(st.status) // 2         # the changes met a walking crowd to the end
    assert local >= 0.95 * changes                              # the mesh updated locally, not rebuilt
    for oid, (t0, block) in sorted(standing.items()):
        sim.remove_obstacle(oid)
        spans.append((block, t0, sim.time))
    sim.respawn = False
    sim.run()
    assert (st.status == 1).all(), [sim.status_of(k) for k in np.flatnonzero(st.status != 1)]
    for block, t0, t1 in spans:
        _kept_out(sim, block, t0, t1)


def test_the_planners_ecm_is_updated_locally_and_its_characters_arrive(city):
    """A run whose planners' context holds an ECM, its characters replanned by the ``ecm`` planner: at each
    addition, move and removal the map is updated locally (not dropped) and equals a fresh exact build of the changed
    scene; a change prepared on another thread carries it too; once the squares are gone every character arrives."""
    from core.ecm import build_ecm
    from core.sim import world

    from ecm_checks import assert_same_map

    rng = np.random.default_rng(5)
    sim = _walkers(*city, "miran", 1.0)
    sim.planner = "ecm"
    sim.context.ecm = build_ecm(sim.scene, backend="exact")
    tol = 1e-8 * sim.context.ecm.sites.scale
    st = sim.state
    standing: list[str] = []
    for k in range(size(6, 60)):
        walking = np.flatnonzero(st.status == 0)
        if standing and rng.random() < 0.4:
            sim.remove_obstacle(standing.pop(int(rng.integers(len(standing)))))
        elif standing and rng.random() < 0.3:
            sim.move_obstacle(standing[-1], rng.normal(0.0, 1.0, 2))
        else:
            cx, cy = st.pos[int(rng.choice(walking))] + rng.normal(0.0, 1.0, 2) if len(walking) else (50.0, 50.0)
            standing.append(sim.add_obstacle(_square(float(cx), float(cy), 0.8), f"ecm-{k}"))
        assert sim.last_ecm_update_local
        assert_same_map(sim.context.ecm, build_ecm(sim.scene, backend="exact"), tol)
        sim.run(until=sim.time + 1.0)
    if standing:
        last = standing.pop()
        gone = (world.GOES, next(o for o in sim.scene.obstacles if o.id == last))
        world.apply_change(sim, (gone,), world.prepare(sim, (gone,)))
        assert sim.last_world_update_prepared and sim.last_ecm_update_local
        assert_same_map(sim.context.ecm, build_ecm(sim.scene, backend="exact"), tol)
    for oid in standing:
        sim.remove_obstacle(oid)
    sim.run()
    assert (st.status == 1).all(), [sim.status_of(k) for k in np.flatnonzero(st.status != 1)]


def test_a_map_built_after_a_change_was_prepared_is_updated_as_without_the_preparation(city):
    """The planners' ECM first built while a change is being prepared (the preparation held none) is updated
    locally when the change is applied, to the same map as when the change is computed then."""
    from core.ecm import build_ecm
    from core.scene.model import Obstacle
    from core.sim import world

    maps = []
    for prepared in (True, False):
        sim = _walkers(*city, "miran", 2.0)
        i = int(np.flatnonzero(sim.state.status == 0)[0])
        p = _ahead(sim, i, 6.0)
        ops = ((world.COMES, Obstacle("stall", _square(p.x, p.y, 1.5).tolist())),)
        ready = world.prepare(sim, ops) if prepared else None
        if ready is not None:
            ready.steps()                                   # prepared without a map
        sim.context.ecm = build_ecm(sim.scene, backend="exact")
        world.apply_change(sim, ops, ready)
        assert sim.last_world_update_prepared == prepared and sim.last_ecm_update_local
        maps.append(sim.context.ecm)
    for name in ("vert_xy", "edge_uv", "ev_B", "ev_R", "ev_fl", "ev_fr"):
        assert np.array_equal(getattr(maps[0], name), getattr(maps[1], name)), name


def test_without_pyvoronoi_a_change_drops_the_map_for_a_fresh_build(city, monkeypatch):
    from core.ecm import build_ecm

    sim = _walkers(*city, "miran", 1.0)
    sim.context.ecm = build_ecm(sim.scene, backend="exact")
    monkeypatch.setitem(sys.modules, "pyvoronoi", None)    # its import fails
    i = int(np.flatnonzero(sim.state.status == 0)[0])
    p = _ahead(sim, i, 6.0)
    sim.add_obstacle(_square(p.x, p.y, 1.0), "stall")
    assert not sim.last_ecm_update_local and sim.last_mesh_update_local
    assert sim._context is None or sim._context.ecm is None


def _scheduled(scene, block: np.ndarray, appears: float, vanishes: float | None, oid: str = "roadworks"):
    """The scene with ``block`` as an obstacle standing from ``appears`` until ``vanishes``, through its file."""
    data = scene_to_dict(scene)
    data["obstacles"].append({"id": oid, "polygon": block.tolist(), "appears": appears,
                              **({} if vanishes is None else {"vanishes": vanishes})})
    return parse_scene(data)


@pytest.mark.parametrize("method", METHODS)
def test_a_scheduled_obstacle_stands_only_while_it_is_due(city, method):
    scene, routes = city
    probe, i = _one_walking(city, method, 5.0, 0)
    p = _ahead(probe, i, 6.0)
    block = _square(p.x, p.y, 2.0)
    timed = _scheduled(scene, block, 5.0, 20.0)
    assert [o.id for o in timed.at(0.0).obstacles] == [o.id for o in scene.obstacles]
    assert timed.at(5.0).obstacles[-1].id == "roadworks" and len(timed.at(20.0).obstacles) == len(scene.obstacles)
    sim = Simulation(timed, method=method, add_scene_agents=False)
    sim.add_agents(routes, ["walker"] * len(routes))
    assert "roadworks" not in [o.id for o in sim.scene.obstacles]
    sim.run(until=5.0)
    assert sim.scene.obstacles[-1].id == "roadworks" and sim.last_world_update_s > 0.0   # it came at 5 s
    sim.run(until=20.0)
    assert "roadworks" not in [o.id for o in sim.scene.obstacles]                       # and went at 20 s
    sim.run()
    _arrived_or_cut_off(sim)
    assert (sim.state.status == 1).all()
    _kept_out(sim, block, 5.0, 20.0)


def test_a_scheduled_change_prepared_ahead_gives_the_same_run(city):
    """A scheduled obstacle's mesh and planners' structures are prepared off the step thread before it comes and
    goes (core.sim.world.prepare_ahead): the run takes them (last_world_update_prepared) and walks exactly as a run
    computing them at the change does (the same recorded positions, bit for bit)."""
    scene, routes = city
    probe, i = _one_walking(city, "miran", 5.0, 0)
    p = _ahead(probe, i, 6.0)
    timed = _scheduled(scene, _square(p.x, p.y, 2.0), 5.0, 12.0)
    runs = []
    for ahead in (10.0, -1.0):
        sim = Simulation(timed, method="miran", add_scene_agents=False)
        sim.prepare_ahead_s = ahead
        sim.add_agents(routes, ["walker"] * len(routes))
        sim.run(until=5.0)
        came = sim.last_world_update_prepared
        sim.run(until=12.0)
        went = sim.last_world_update_prepared
        sim.run()
        runs.append(sim)
        assert (came, went) == ((True, True) if ahead > 0 else (False, False))
    a, b = (r.recorder for r in runs)
    n = int(a.cursor[0])
    assert n == int(b.cursor[0]) and np.array_equal(a.xy[:n], b.xy[:n]) and np.array_equal(a.t[:n], b.t[:n])


def test_changes_prepared_one_after_another_give_the_same_run(city):
    """Two changes prepared on another thread, the second after the first (as the app prepares a user's edits made
    in quick succession), then applied: the run takes both preparations and walks exactly as a run computing the
    changes when they are applied."""
    from core.scene.model import Obstacle
    from core.sim import world

    scene, routes = city
    probe, i = _one_walking(city, "miran", 3.0, 0)
    p, q = _ahead(probe, i, 6.0), _ahead(probe, i, 12.0)
    first = (world.COMES, Obstacle("stall", _square(p.x, p.y, 1.5).tolist()))
    runs = []
    for prepared in (True, False):
        sim = Simulation(scene, method="miran", add_scene_agents=False)
        sim.add_agents(routes, ["walker"] * len(routes))
        sim.run(until=3.0)
        second = ((world.GOES, first[1]), (world.COMES, Obstacle("stall-2", _square(q.x, q.y, 1.5).tolist())))
        a = world.prepare(sim, (first,)) if prepared else None
        b = world.prepare(sim, second, after=a) if prepared else None
        world.apply_change(sim, (first,), a)
        assert sim.last_world_update_prepared == prepared
        world.apply_change(sim, second, b)
        assert sim.last_world_update_prepared == prepared
        sim.run()
        runs.append(sim.recorder)
    n = int(runs[0].cursor[0])
    assert n == int(runs[1].cursor[0]) and np.array_equal(runs[0].xy[:n], runs[1].xy[:n])


def test_a_goal_closed_on_schedule_is_reached_when_it_opens_though_all_others_have_arrived(city):
    scene, routes = city
    goal = routes[3].points[-1]
    timed = _scheduled(scene, _square(*goal, 1.5), 2.0, 90.0)
    sim = Simulation(timed, method="miran", add_scene_agents=False)
    sim.add_agents(routes, ["walker"] * len(routes))
    sim.run(until=10.0)
    assert sim.status_of(3) == ("lost", "its goal was closed off")
    sim.run()                                 # the others arrive, then the time runs on to 90 s, and it walks
    assert (sim.state.status == 1).all() and sim.state.t_arrive[3] > 90.0
    _kept_out(sim, _square(*goal, 1.5), 2.0, 90.0)


def test_simulate_runs_a_scheduled_scene_and_bad_schedules_are_refused(city, tmp_path, capsys):
    from core.cli.main import main

    scene, _ = city
    timed = _scheduled(scene, _square(30.0, 30.0, 2.0), 4.0, None)
    path = tmp_path / "timed.json"
    save_scene(timed, path)
    assert json.loads(path.read_text())["obstacles"][-1] == {
        "id": "roadworks", "polygon": _square(30.0, 30.0, 2.0).tolist(), "appears": 4}
    assert load_scene(path) == timed
    assert main(["simulate", str(path), "--agents", "10", "--steps", "300", "--out",
                 str(tmp_path / "p.json")]) == 0
    good = path.read_text()
    for bad, where in (({"appears": -1}, "appears"), ({"vanishes": 0}, "vanishes"),
                       ({"appears": 9, "vanishes": 3}, "vanishes"), ({"appears": "soon"}, "appears"),
                       ({"vanishes": None}, "vanishes"), ({"from": 3}, "from")):
        data = json.loads(good)
        data["obstacles"][-1].update(bad)
        path.write_text(json.dumps(data))
        capsys.readouterr()
        assert main(["simulate", str(path)]) == 2, bad
        err = capsys.readouterr().err
        assert f"obstacles[{len(data['obstacles']) - 1}].{where}" in err and "Traceback" not in err, err


def test_ways_on_are_what_shapely_builds_per_character(city):
    """core.sim.world builds every character's way on in one vectorised call; each equals the line through where
    it stands and its route's points ahead of its reference point."""
    from core.sim.world import _ways_on

    sim = _walkers(*city, "miran", 4.0)
    st = sim.state
    agents = np.flatnonzero(st.status == 0)
    got = _ways_on(sim, agents)
    for k, i in enumerate(agents.tolist()):
        lo, hi = st.route_lo[i], st.route_hi[i]
        ahead = sim.routes.points[lo:hi][sim.routes.s[lo:hi] > st.s_ref[i]]
        want = LineString(np.vstack([st.pos[i][None], ahead])) if len(ahead) else shapely.Point(st.pos[i])
        assert got[k].equals_exact(want, 0.0), i


def test_replanning_after_a_change_is_spread_over_steps_nearest_first(city):
    """A wall across the middle of the city: the characters whose way crosses it wait in a queue and get their new
    routes a few a step, nearest to the wall first; meanwhile and after, nobody walks through it, and everyone
    arrives or is lost because the wall closed their goal off."""
    scene, routes = city
    sim = _walkers(scene, routes, "miran", 2.0)
    st = sim.state
    x0, y0, x1, y1 = scene.bounds
    cy = (y0 + y1) / 2
    xa = x0 + 0.3 * (x1 - x0)
    wall = np.array([[xa, cy - 0.5], [x1, cy - 0.5], [x1, cy + 0.5], [xa, cy + 0.5]])
    sim.replans_per_step = 2
    t0 = sim.time
    sim.add_obstacle(wall, "wall")
    queue = sim.replanning
    assert len(queue) > 4
    d = shapely.distance(Polygon(wall), shapely.points(st.pos[queue]))
    assert (np.diff(d) >= 0).all()                       # nearest first
    served = []
    while len(sim.replanning):
        before = sim.replanning
        sim.step()
        now = sim.replanning
        gone = before[:len(before) - len(now)]
        assert list(before[len(gone):]) == list(now)
        assert np.count_nonzero(st.status[gone] != 1) <= 2      # those that arrived meanwhile are only dropped
        served += list(gone)
    assert served == list(queue)
    sim.run()
    _arrived_or_cut_off(sim)
    _kept_out(sim, wall, t0)


@pytest.mark.parametrize("bad", [0, -3, 2.5, "8", True])
def test_a_bad_replanning_budget_is_refused(city, bad):
    sim = Simulation(city[0], add_scene_agents=False)
    with pytest.raises(InputError, match="replans_per_step"):
        sim.replans_per_step = bad
    assert sim.replans_per_step == 8


def test_the_preparing_thread_yields_the_cpu_to_the_thread_that_steps(city):
    """A change prepared while the characters walk runs on a thread niced PREPARE_NICE above the one that first
    prepared (Linux, where threads have nice values of their own)."""
    import os
    import threading

    from core.scene.model import Obstacle
    from core.sim import world

    if not sys.platform.startswith("linux"):
        pytest.skip("threads have nice values of their own on Linux only")
    for old in world._PREPARER:
        old.shutdown(wait=False)
    world._PREPARER.clear()                                 # made afresh by this thread
    sim = _walkers(*city, "miran", 1.0)
    ops = ((world.COMES, Obstacle("stall", _square(5.0, 5.0, 1.0).tolist())),)
    world.prepare(sim, ops).steps()
    (preparer,) = world._PREPARER[0]._threads
    stat = open(f"/proc/self/task/{preparer.native_id}/stat").read()
    nice = int(stat.rsplit(")", 1)[1].split()[16])
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert nice == min(19, mine + world.PREPARE_NICE)


def test_a_moves_first_half_is_prepared_without_planning_structures(city):
    """A building moved is taken away and put back in one change: the first half's planners' context is never
    planned with (a removal only queues characters), so its preparation builds no free space or mesh for it; the
    last half's is warmed with a route a profile. (That the run is the same is checked above, with a removal
    followed by an addition.)"""
    from core.scene.model import Obstacle
    from core.sim import world

    sim = _walkers(*city, "miran", 2.0)
    stall = Obstacle("stall", _square(5.0, 5.0, 1.0).tolist())
    world.apply_change(sim, ((world.COMES, stall),))
    moved = Obstacle("stall", _square(8.0, 5.0, 1.0).tolist())
    gone, back = world.prepare(sim, ((world.GOES, stall), (world.COMES, moved))).steps()
    assert not gone.context._free and not gone.context._planners
    assert back.context._free and back.context._planners
    alone = world.prepare(sim, ((world.GOES, stall),)).steps()[0]
    assert alone.context._free, "a removal that is the last change is warmed"
