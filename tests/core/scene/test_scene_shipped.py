"""The shipped scenes have the papers' counts, look like what they stand for, and regenerate byte for byte."""

from __future__ import annotations

import heapq
import importlib.util
import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Polygon

from core.scene.geometry import build_geometry
from core.scene.io import load_scene
from core.scene.polygons import is_convex

from scenedata import SCENES, SHIPPED


def _load(name):
    return load_scene(SCENES / name)


def test_the_six_scenes_ship():
    assert SHIPPED == ["city.json", "city_traffic.json", "forest.json", "hills.json", "mckenna.json",
                       "mckenna_road.json"]


def test_city_traffic_is_the_city_with_roadworks_a_car_and_four_walkers():
    """The city's static world unchanged; roadworks across the street at x = 250 between two buildings from 60 s
    (closing it: the free space at that time falls apart at no point, but the street's stretch is cut); a car
    round the park on the roads, clear of every building all the way round."""
    city, traffic = _load("city.json"), _load("city_traffic.json")
    assert traffic.at(0.0).obstacles == city.obstacles and traffic.terrains == city.terrains
    works = next(o for o in traffic.obstacles if o.id == "roadworks")
    car = next(o for o in traffic.obstacles if o.id == "car")
    assert works.appears == 60.0 and works.vanishes is None and not works.moving
    buildings = shapely.union_all([Polygon(o.polygon) for o in city.obstacles])
    # Wall to wall across the street: it touches a building on each side.
    assert Polygon(works.polygon).intersects(buildings)
    street = shapely.box(240.0, 300.0, 260.0, 360.0).difference(buildings)
    assert len(shapely.get_parts(street.difference(Polygon(works.polygon)))) == 2
    assert car.moving and car.loop and car.turns and car.speed == 8.0
    for t in np.linspace(0.0, 50.0, 501):
        assert not Polygon(car.polygon_at(t)).intersects(buildings), t
    assert [a.id for a in traffic.agents][-4:] == ["walker-1", "walker-2", "walker-3", "walker-4"]


def test_generator_reproduces_the_shipped_files(tmp_path):
    spec = importlib.util.spec_from_file_location("scene_generator", SCENES / "generate.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    gen.main([str(tmp_path)])
    for name in SHIPPED:
        assert (tmp_path / name).read_bytes() == (SCENES / name).read_bytes(), name


@pytest.mark.parametrize("name", SHIPPED)
def test_free_space_is_one_piece_and_obstacles_do_not_overlap(name):
    """Of the static world at time 0 (roadworks that come later close a street wall to wall on purpose)."""
    scene = _load(name).at(0.0)
    geo = build_geometry(scene)
    assert len(geo.components) == 1
    polys = [Polygon(o.polygon) for o in scene.obstacles]
    tree = shapely.STRtree(polys)
    pairs = [(i, j) for i, j in zip(*tree.query(polys, predicate="intersects")) if i < j]
    assert pairs == []
    # Terrain regions tile the free space (MIRAN section 2: every free point has exactly one terrain type).
    assert math.isclose(float(geo.areas.sum()), geo.free_area, rel_tol=1e-9)


@pytest.mark.parametrize("name", SHIPPED)
def test_sketched_routes_stay_in_the_streets(name):
    """Indicative routes may cross obstacles in general; the shipped ones do not, so they read as paths."""
    scene = _load(name)
    obstacles = shapely.union_all([Polygon(o.polygon) for o in scene.obstacles])
    for r in scene.routes:
        assert LineString(r.points).intersection(obstacles).length == 0.0, r.id


def test_mckenna_counts():
    """MIRAN section 5: 200 x 200 units, one terrain type, 23 convex obstacles with 96 vertices, a route with a loop."""
    s = _load("mckenna.json")
    assert s.bounds == (0.0, 0.0, 200.0, 200.0)
    assert len(s.terrain_types) == 1 and s.terrains == []
    assert len(s.obstacles) == 23
    assert sum(len(o.polygon) for o in s.obstacles) == 96
    assert all(is_convex(o.polygon) for o in s.obstacles)
    (route,) = s.routes
    assert not LineString(route.points).is_simple      # the route crosses itself: the loop of Figure 7
    assert s.profiles[0].d == 20.0                      # "The sampling distance d used in all examples is 20"


def test_mckenna_road_counts_and_weights():
    """MIRAN section 5: the same obstacles plus 10 convex terrain polygons with 39 vertices; the pedestrian."""
    s, base = _load("mckenna_road.json"), _load("mckenna.json")
    assert s.bounds == base.bounds and s.obstacles == base.obstacles
    assert len(s.terrains) == 10
    assert sum(len(t.polygon) + sum(len(h) for h in t.holes) for t in s.terrains) == 39
    assert all(is_convex(t.polygon) and not t.holes for t in s.terrains)
    assert {t.type for t in s.terrains} == {"road", "sidewalk", "mud"}
    (p,) = s.profiles
    assert p.weights == {"default": 1.0, "sidewalk": 0.5, "road": 4.0, "mud": 40.0}
    assert (p.sigma, p.d) == (40.0, 10.0)


def test_mckenna_road_route_tempts_a_weight_blind_follower():
    """Figure 8: a follower that ignores weights keeps to the route, which bulges onto the road, while a sidewalk
    runs alongside within a few metres; a wide cut of the corner crosses the mud, which stays off the route."""
    s = _load("mckenna_road.json")
    geo = build_geometry(s)
    region = {t.id: geo.regions[k] for k, t in enumerate(s.terrain_types)}
    line = LineString(s.routes[0].points)
    on_road = line.intersection(region["road"]).length
    assert on_road > 0.3 * line.length
    assert line.intersection(region["mud"]).length == 0.0
    road_part = line.intersection(region["road"])
    for d in np.linspace(0.0, road_part.length, 40):
        q = road_part.interpolate(d)
        assert region["sidewalk"].distance(q) <= 10.0
    # The weighted length along the route: most of its cost is the road, which MIRAN can avoid.
    w = s.profiles[0].weights
    cost = {k: line.intersection(region[k]).length * w[k] for k in ("road", "mud", "sidewalk", "default")}
    assert cost["road"] > cost["sidewalk"]
    # Cutting the corner 15 m before and after it (an attraction point on a clearance disc) runs through the mud.
    corner = LineString([line.interpolate(line.project(shapely.Point(149, 89)) - 15.0),
                         line.interpolate(line.project(shapely.Point(149, 89)) + 15.0)])
    assert corner.intersection(region["mud"]).length > 1.0


FOREST_WEIGHTS = {
    "adult": {"forest": 30.0, "path": 2.0, "puddles": 10.0, "trees": 30.0, "view": 1.0},
    "child": {"forest": 30.0, "path": 2.0, "puddles": 1.0, "trees": 1.0, "view": 10.0},
}


def test_forest_has_figure_1_and_section_4():
    s = _load("forest.json")
    assert [t.id for t in s.terrain_types] == ["forest", "path", "puddles", "trees", "view"]
    assert s.default_terrain == "forest"
    assert {p.id: p.weights for p in s.profiles} == FOREST_WEIGHTS
    assert {p.id: (p.sigma, p.d) for p in s.profiles} == {"adult": (80.0, 20.0), "child": (100.0, 20.0)}
    assert [(a.id, a.profile, a.planner) for a in s.agents] == [("adult", "adult", "grid"), ("child", "child", "grid")]
    types = {t.type for t in s.terrains}
    assert types == {"path", "puddles", "trees", "view"}
    assert len(s.obstacles) == 90 and all(is_convex(o.polygon) for o in s.obstacles)   # obstacle trees
    assert any(t.holes for t in s.terrains)                    # the forked path encloses an island of forest


def _grid_route_terrains(scene, profile_index, start, goal, h=2.0):
    """Terrain types crossed by the cheapest 8-connected grid route (MIRAN section 4 weights, brute force)."""
    geo = build_geometry(scene)
    x0, y0, x1, y1 = scene.bounds
    xs = x0 + h * (np.arange(int((x1 - x0) / h)) + 0.5)
    ys = y0 + h * (np.arange(int((y1 - y0) / h)) + 0.5)
    X, Y = np.meshgrid(xs, ys)
    cell = np.full(X.shape, -1)
    for k, reg in enumerate(geo.regions):
        cell[shapely.contains_xy(reg, X, Y)] = k
    w = scene.weight_matrix()[profile_index]
    cost = np.where(cell >= 0, w[np.maximum(cell, 0)], np.inf)
    src = (int((start[1] - y0) / h), int((start[0] - x0) / h))
    dst = (int((goal[1] - y0) / h), int((goal[0] - x0) / h))
    dist = {src: 0.0}
    prev = {}
    heap = [(0.0, src)]
    while heap:
        d, (i, j) = heapq.heappop(heap)
        if (i, j) == dst:
            break
        if d > dist[(i, j)]:
            continue
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                a, b = i + di, j + dj
                if (di or dj) and 0 <= a < cost.shape[0] and 0 <= b < cost.shape[1] and np.isfinite(cost[a, b]):
                    nd = d + h * math.hypot(di, dj) * 0.5 * (cost[i, j] + cost[a, b])
                    if nd < dist.get((a, b), math.inf):
                        dist[(a, b)], prev[(a, b)] = nd, (i, j)
                        heapq.heappush(heap, (nd, (a, b)))
    names, c = set(), dst
    while c != src:
        names.add(scene.terrain_types[cell[c]].id)
        c = prev[c]
    return names


def test_forest_adult_and_child_choose_differently():
    """Figure 1: the adult avoids the puddles and the fallen tree and passes the panoramic view; the child walks
    through the puddles, climbs over the tree and skips the view."""
    s = _load("forest.json")
    adult, child = s.agents
    seen_adult = _grid_route_terrains(s, 0, adult.start, adult.goal)
    seen_child = _grid_route_terrains(s, 1, child.start, child.goal)
    assert "view" in seen_adult and not {"puddles", "trees"} & seen_adult
    assert {"puddles", "trees"} <= seen_child and "view" not in seen_child


def test_city_counts():
    """ECM section VI: 500 x 500 m with 181 buildings and trees; here 170 buildings (43 of them non-convex, L and U
    shapes) and 11 trees in the park, roads, sidewalks, a park and seven characters."""
    s = _load("city.json")
    assert s.bounds == (0.0, 0.0, 500.0, 500.0)
    assert len(s.obstacles) == 181
    buildings = [o for o in s.obstacles if o.id.startswith("building-")]
    trees = [o for o in s.obstacles if o.id.startswith("tree-")]
    assert (len(buildings), len(trees)) == (170, 11)
    assert sum(not is_convex(o.polygon) for o in buildings) == 43
    assert {t.id for t in s.terrain_types} == {"ground", "sidewalk", "road", "park"}
    assert {t.type for t in s.terrains} == {"sidewalk", "road", "park"}
    assert len(s.agents) == 7 and len(s.routes) == 2 and len(s.networks) == 1
    assert {a.planner for a in s.agents if a.planner} == {"grid", "cdt", "ecm", "portal", "network"}
    park = next(t for t in s.terrains if t.type == "park")
    assert len(park.holes) == 1
