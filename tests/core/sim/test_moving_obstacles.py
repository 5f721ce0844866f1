"""Moving obstacles (core.sim.moving): a polygon carried along a path while characters walk.

Where it stands is checked against shapely's own interpolation along the path; runs on generated crossings with
random cars (sizes, speeds, paths, turning or not) check every recorded position against the car where it stood at
that time, and every step in the car's frame, with shapely: no character stands in it or passes through it, discs
keep their radius, and every character arrives. The static structures never see a moving obstacle.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import shapely
from shapely import LineString, Point, Polygon

from ci_size import size

from core.navmesh import build_navmesh
from core.scene.io import load_scene, save_scene, scene_to_dict
from core.scene.model import Obstacle
from core.scene.parse import check_scene, parse_scene
from core.scene.problems import InputError
from core.sim import Simulation

REPO = Path(__file__).resolve().parents[3]
METHODS = ["miran", "disc-miran", "irm"]
R = 0.25


def _schema() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((REPO / "resources/schemas/miran-scene.schema.json").read_text()))


def _doc(obstacles: list[dict], routes: list[list], w: float = 40.0, h: float = 20.0, method: str = "miran") -> dict:
    return {"format": "miran-scene", "version": 1, "name": "crossing", "units": "m", "bounds": [0, 0, w, h],
            "terrain_types": [{"id": "ground"}], "default_terrain": "ground", "obstacles": obstacles,
            "terrains": [], "profiles": [{"id": "walker", "radius": R, "max_speed": 1.4, "sigma": 20, "d": 4}],
            "routes": [{"id": f"r{k}", "points": p} for k, p in enumerate(routes)], "networks": [],
            "agents": [{"id": f"a{k}", "profile": "walker", "route": f"r{k}"} for k in range(len(routes))],
            "simulation": {"method": method, "integrator": "euler", "dt": 0.1}}


def _box(cx: float, cy: float, hw: float, hh: float) -> list[list[float]]:
    return [[cx - hw, cy - hh], [cx + hw, cy - hh], [cx + hw, cy + hh], [cx - hw, cy + hh]]


def _crossing(seed: int, method: str) -> dict:
    """A street 40 x 20 m with a pillar, 12 characters crossing it from west to east, and a random car: a box of
    random size carried up and down (or round a random loop) at 1 to 12 m/s, turning with its path or not."""
    rng = np.random.default_rng(seed)
    hw, hh = rng.uniform(0.5, 1.5), rng.uniform(0.8, 2.5)
    x = rng.uniform(15.0, 25.0)
    if rng.random() < 0.5:
        path = [[x, hh + 0.5], [x, 20.0 - hh - 0.5]]
    else:
        path = [[x, 3.0], [x + rng.uniform(3, 8), rng.uniform(6, 10)], [x + rng.uniform(-3, 3), 17.0]]
    car = {"id": "car", "polygon": _box(path[0][0], path[0][1], hw, hh), "path": path,
           "speed": float(rng.uniform(1.0, 12.0)), "loop": True, "turns": bool(rng.random() < 0.5)}
    pillar = {"id": "pillar", "polygon": _box(8.0, 10.0, 0.5, 1.0)}
    routes = [[[2.0, 1.5 + 1.4 * k], [38.0, 18.5 - 1.4 * k]] for k in range(12)]
    return _doc([pillar, car], routes, method=method)


def _kept_clear(sim: Simulation, car: Obstacle, radius: float) -> int:
    """Every recorded position keeps ``radius`` (0: a point) from the car where it stood then, and no step passes
    through it in its frame (the segment between the two positions seen from the car, translated as it moved);
    returns how many positions came within 1 m of it."""
    close = 0
    for i in range(sim.n_agents):
        path = sim.path(i)
        for k, (t, x, y) in enumerate(path):
            poly = Polygon(car.polygon_at(t))
            p = Point(x, y)
            assert not poly.buffer(-1e-9).contains(p), (i, t)
            gap = poly.distance(p)
            assert gap >= radius - 1e-9, (i, t, gap)
            close += gap < 1.0
            if k and car.stands_at(path[k - 1, 0]):
                # Seen from the car: where it stood then, translated as the car moved, to where it stands. (A turn
                # at a corner of the path is taken in place, at once: a character the turned car covers goes out
                # of it to the nearest side, which may be across it.)
                x0, y0, turn0 = car.pose_at(path[k - 1, 0])
                x1, y1, turn1 = car.pose_at(t)
                seg = LineString([path[k - 1, 1:] + (x1 - x0, y1 - y0), (x, y)])
                if seg.length > 0.0 and turn0 == turn1:
                    assert seg.intersection(poly.buffer(-1e-6)).length == 0.0, (i, t)
    return close


def test_pose_follows_the_path_as_shapely_interpolates_it():
    path = [(0.0, 0.0), (10.0, 0.0), (10.0, 5.0)]
    o = Obstacle("car", [(-1.0, -0.5), (1.0, -0.5), (1.0, 0.5), (-1.0, 0.5)], appears=2.0, path=path, speed=2.0,
                 turns=True)
    line = LineString(path)
    ring = LineString([*path, path[0]])
    loop = Obstacle("car", o.polygon, appears=2.0, path=path, speed=2.0, loop=True)
    for t in np.linspace(0.0, 40.0, 161):
        s = max(0.0, 2.0 * (t - 2.0))
        x, y, turn = o.pose_at(t)
        q = line.interpolate(min(s, line.length))
        assert math.isclose(x, q.x, abs_tol=1e-9) and math.isclose(y, q.y, abs_tol=1e-9), t
        assert turn == (0.0 if s < 10.0 else math.pi / 2), t
        q = ring.interpolate(s % ring.length)
        x, y, turn = loop.pose_at(t)
        assert math.isclose(x, q.x, abs_tol=1e-9) and math.isclose(y, q.y, abs_tol=1e-9), t
        assert turn == 0.0
    # Turned a quarter at the corner: the 2 x 1 box stands 1 x 2 about the path's point.
    assert np.allclose(sorted(o.polygon_at(10.0)), sorted([(9.5, 4.0), (10.5, 4.0), (10.5, 6.0), (9.5, 6.0)]))
    assert np.allclose(Polygon(o.polygon_at(8.0)).area, 2.0)


def test_moving_obstacles_round_trip_and_pass_the_schema(tmp_path):
    doc = _crossing(3, "miran")
    scene = parse_scene(doc)
    car = scene.obstacles[1]
    assert car.moving and car.loop and car.path == [tuple(p) for p in doc["obstacles"][1]["path"]]
    p = tmp_path / "s.json"
    save_scene(scene, p)
    assert load_scene(p) == scene
    saved = json.loads(p.read_text())["obstacles"]
    assert "path" not in saved[0] and "speed" not in saved[0] and "loop" not in saved[0]
    assert list(_schema().iter_errors(scene_to_dict(scene))) == []


BAD = [
    ({"speed": 2.0}, "obstacles[1].speed", "give its 'path' too"),
    ({"loop": True}, "obstacles[1].loop", "give its 'path' too"),
    ({"turns": True}, "obstacles[1].turns", "give its 'path' too"),
    ({"path": [[20, 3], [20, 17]]}, "obstacles[1].speed", "needs its speed"),
    ({"path": [[20, 3], [20, 3]], "speed": 1.0}, "obstacles[1].path", "two distinct points"),
    ({"path": [[20, 3]], "speed": 1.0}, "obstacles[1].path", "at least 2"),
    ({"path": [[20, 3], [20, "x"]], "speed": 1.0}, "obstacles[1].path[1]", "numbers"),
    ({"path": [[20, 3], [20, 17]], "speed": 0.0}, "obstacles[1].speed", "between 0.001 and 10000"),
    ({"path": [[20, 3], [20, 17]], "speed": 1e5}, "obstacles[1].speed", "between 0.001 and 10000"),
    ({"path": [[20, 3], [20, 17]], "speed": 1.0, "loop": "yes"}, "obstacles[1].loop", "true or false"),
    ({"path": [[20, 3], [20, 17]], "speed": 1.0, "turns": 1}, "obstacles[1].turns", "true or false"),
]


@pytest.mark.parametrize("extra,where,says", BAD)
def test_bad_motion_is_refused_naming_the_field(extra, where, says):
    doc = _doc([{"id": "pillar", "polygon": _box(8, 10, 0.5, 1)}, {"id": "car", "polygon": _box(20, 3, 1, 2), **extra}],
               [[[2, 2], [38, 18]]])
    scene, problems = check_scene(doc)
    assert scene is None
    assert any(p.path == where and says in p.message for p in problems), problems
    # The schema states the structure: what it cannot say (a path standing still) only the reader refuses.
    assert bool(list(_schema().iter_errors(doc))) == ("distinct" not in says)


def test_the_static_world_never_holds_a_moving_obstacle():
    """The mesh, the planners' free space and the placement checks are those of the scene without the car: a route
    point inside the car where its path begins is valid (it drives away), and the mesh equals the one built
    without it."""
    doc = _crossing(5, "miran")
    doc["routes"][0]["points"][0] = doc["obstacles"][1]["path"][0]
    scene = parse_scene(doc)
    without = parse_scene({**doc, "obstacles": doc["obstacles"][:1]})
    a, b = build_navmesh(scene), build_navmesh(without)
    assert np.array_equal(a.vertices, b.vertices) and np.array_equal(a.triangles, b.triangles)
    sim = Simulation(scene)
    assert [o.id for o in sim.scene.obstacles] == ["pillar"]
    assert [oid for oid, _ in sim.obstacles_now()] == ["pillar", "car"]


@pytest.mark.parametrize("method", METHODS)
def test_characters_cross_a_random_car_and_never_meet_it(method):
    """Generated crossings, a random car each: every character arrives, none stands in or passes through the car,
    discs keep their radius from it and from the pillar; the car came close to somebody (the test has teeth)."""
    close = 0
    for seed in range(size(3, 12)):
        scene = parse_scene(_crossing(seed, method))
        sim = Simulation(scene)
        sim.run(until=200.0)
        assert sim.arrived().all(), [sim.status_of(i) for i in np.flatnonzero(~sim.arrived())]
        disc = R if method != "miran" else 0.0
        close += _kept_clear(sim, scene.obstacles[1], disc)
        pillar = Polygon(scene.obstacles[0].polygon)
        for i in range(sim.n_agents):
            pts = shapely.points(sim.path(i)[:, 1:])
            assert shapely.distance(pillar, pts).min() >= disc - 1e-9
    assert close > 0


def test_a_car_that_appears_on_a_character_pushes_it_out():
    doc = _doc([{"id": "car", "polygon": _box(20, 10, 2, 1), "path": [[20, 10], [20, 15]], "speed": 1.0,
                 "appears": 3.0}], [[[2, 10], [38, 10]]], method="disc-miran")
    scene = parse_scene(doc)
    sim = Simulation(scene)
    sim.run(until=3.0 - 1e-9)
    # Stand the character where the car will appear, still.
    sim.state.pos[0] = (20.0, 10.0)
    sim.set_record(True)
    sim.step(2)
    x, y = sim.state.pos[0]
    assert Polygon(scene.obstacles[0].polygon_at(sim.time)).distance(Point(x, y)) >= R - 1e-9
    assert np.allclose(sim.path(0)[-1, 1:], sim.state.pos[0])


def test_a_character_pinned_against_a_wall_is_never_inside_either():
    """A car drives into a wall with a character between them: it goes where it fits outside both, or when no
    room is left it is lost (its way blocked), and it never stands inside the car."""
    doc = _doc([{"id": "wall", "polygon": [[0, 9], [40, 9], [40, 11], [0, 11]]},
                {"id": "car", "polygon": _box(20, 14, 3, 1), "path": [[20, 14], [20, 12.2]], "speed": 2.0}],
               [[[20, 12.5], [38, 19]]], method="disc-miran")
    scene = parse_scene(doc)
    sim = Simulation(scene)
    sim.run(until=30.0)
    car = scene.obstacles[1]
    wall = Polygon(scene.obstacles[0].polygon)
    for t, x, y in sim.path(0):
        assert Polygon(car.polygon_at(t)).distance(Point(x, y)) >= R - 1e-9
        assert wall.distance(Point(x, y)) >= R - 1e-9
    assert sim.arrived()[0]


def test_move_obstacle_equals_a_fresh_build_and_bad_calls_are_refused():
    doc = _crossing(2, "miran")
    scene = parse_scene(doc)
    sim = Simulation(scene)
    sim.run(until=3.0)
    sim.move_obstacle("pillar", (0.0, 4.0))
    moved = parse_scene({**doc, "obstacles": [{"id": "pillar", "polygon": _box(8.0, 14.0, 0.5, 1.0)}]})
    fresh = build_navmesh(moved)
    assert np.allclose(sim.mesh.vertices, fresh.vertices) and np.array_equal(sim.mesh.triangles, fresh.triangles)
    before = dict(sim.obstacles_now())["car"]
    sim.move_obstacle("car", [1.0, 0.0])
    assert np.allclose(dict(sim.obstacles_now())["car"], before + [1.0, 0.0])
    with pytest.raises(InputError, match="no obstacle with this id"):
        sim.move_obstacle("nothing", (1, 1))
    with pytest.raises(InputError, match="offset"):
        sim.move_obstacle("pillar", (1, float("nan")))
    with pytest.raises(InputError, match="offset"):
        sim.move_obstacle("pillar", "up")
    sim.remove_obstacle("car")
    assert [oid for oid, _ in sim.obstacles_now()] == ["pillar"]
    sim.run(until=200.0)
    assert sim.arrived().all()


def test_the_city_with_traffic():
    """The shipped city with roadworks from 60 s and a car round the park: every character arrives, none ever
    stands in the car or (after 60 s) in the roadworks, and the walkers whose way ran through the closed stretch
    walk round it."""
    scene = load_scene(REPO / "scenes/city_traffic.json")
    sim = Simulation(scene)
    sim.run()
    assert sim.arrived().all(), [sim.status_of(i) for i in np.flatnonzero(~sim.arrived())]
    car = next(o for o in scene.obstacles if o.id == "car")
    works = Polygon(next(o for o in scene.obstacles if o.id == "roadworks").polygon)
    _kept_clear(sim, car, 0.0)
    ids = [a.id for a in scene.agents]
    for i, aid in enumerate(ids):
        path = sim.path(i)
        later = path[path[:, 0] >= 60.0, 1:]
        assert not shapely.contains_xy(works, later[:, 0], later[:, 1]).any(), aid
        if aid.startswith("walker-"):
            # Planned straight north along the closed street at time 0; now round it.
            line = LineString(path[:, 1:])
            assert line.distance(works) > 0.0, aid
            assert path[-1, 2] == pytest.approx(440.0)


def test_stepping_one_step_a_call_still_stops_on_a_lost_character():
    """While a moving obstacle stands the engine steps one step a kernel call; a character lost in a step still
    ends the call there, as the kernel's own loop does, so that ``tend`` replans it at once."""
    from core.sim import kernels
    from core.sim.state import LOST

    sim = Simulation(parse_scene(_crossing(1, "miran")))
    real = sim._one_step
    calls = []

    def losing(flags, bufs):
        got = real(flags, bufs)
        calls.append(got)
        if len(calls) == 3:
            sim.state.status[0] = LOST
        return got

    sim._one_step = losing
    assert sim._advance(10, kernels.STOP_ON_LOST, None) == 3
    assert sim._advance(2, 0, None) == 2                     # without the flag the call goes on


def test_a_move_beyond_the_coordinate_limit_is_refused_and_changes_nothing():
    """An offset past the scene format's coordinate limit (1e9) is refused before any arithmetic overflows, and a
    moving obstacle is not carried past that limit; the obstacle stays where it was."""
    sim = Simulation(parse_scene(_crossing(4, "disc-miran")))
    before = dict(sim.obstacles_now())["car"]
    with pytest.raises(InputError, match="offset"):
        sim.move_obstacle("car", (1e308, 0.0))
    with pytest.raises(InputError, match="coordinate limit"):
        sim.move_obstacle("car", (1e9, 0.0))
    assert np.array_equal(dict(sim.obstacles_now())["car"], before)
