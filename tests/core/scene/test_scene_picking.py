"""Hit tests and snapping against brute-force references on generated scenes."""

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point, Polygon

from core.scene import Agent, Network, Obstacle, Route, Scene, TerrainPolygon
from core.scene.picking import PickIndex, nice_step, simplify_polyline, snap_to_grid


def _random_scene(rng, n=15):
    s = Scene.empty(100, 100)
    for i in range(n):
        cx, cy = rng.uniform(5, 95, 2)
        k = int(rng.integers(3, 7))
        ang = np.sort(rng.uniform(0, 2 * np.pi, k))
        r = rng.uniform(1, 4, k)
        pts = [(float(cx + ri * np.cos(a)), float(cy + ri * np.sin(a))) for a, ri in zip(ang, r)]
        s.obstacles.append(Obstacle(f"o{i}", pts))
    s.terrains = [TerrainPolygon("t1", "default", [(0, 0), (50, 0), (50, 50), (0, 50)]),
                  TerrainPolygon("t2", "default", [(25, 25), (75, 25), (75, 75), (25, 75)])]
    s.routes = [Route(f"r{i}", [tuple(map(float, rng.uniform(0, 100, 2))) for _ in range(4)]) for i in range(3)]
    s.networks = [Network("n1", [(10.0, 90.0), (20.0, 90.0), (20.0, 80.0)], [(0, 1), (1, 2)])]
    s.agents = [Agent("a1", "pedestrian", start=(90.0, 90.0), goal=(95.0, 10.0)),
                Agent("a2", "pedestrian", route="r0")]
    return s


def _all_vertices(s):
    out = []
    for i, o in enumerate(s.obstacles):
        out += [("obstacle", i, 0, j, p) for j, p in enumerate(o.polygon)]
    for i, t in enumerate(s.terrains):
        out += [("terrain", i, 0, j, p) for j, p in enumerate(t.polygon)]
    for i, r in enumerate(s.routes):
        out += [("route", i, 0, j, p) for j, p in enumerate(r.points)]
    for i, n in enumerate(s.networks):
        out += [("network", i, 0, j, p) for j, p in enumerate(n.nodes)]
    out += [("agent", 0, 0, 0, s.agents[0].start), ("agent", 0, 0, 1, s.agents[0].goal),
            ("agent", 1, 0, 0, s.routes[0].points[0]), ("agent", 1, 0, 1, s.routes[0].points[-1])]
    return out


def test_nearest_vertex_matches_brute_force():
    rng = np.random.default_rng(1)
    s = _random_scene(rng)
    idx = PickIndex(s)
    verts = _all_vertices(s)
    assert len(idx.vertices) == len(verts)
    for _ in range(200):
        x, y = rng.uniform(0, 100, 2)
        h = idx.nearest_vertex(x, y, 1e9)
        d = min(np.hypot(p[0] - x, p[1] - y) for *_, p in verts)
        assert h.distance == pytest.approx(d)
        assert np.hypot(h.point[0] - x, h.point[1] - y) == pytest.approx(d)
        assert idx.nearest_vertex(x, y, d * 0.999) is None


def test_nearest_segment_matches_shapely():
    rng = np.random.default_rng(2)
    s = _random_scene(rng)
    idx = PickIndex(s)
    lines = [Polygon(o.polygon).exterior for o in s.obstacles] + [Polygon(t.polygon).exterior for t in s.terrains]
    lines += [LineString(r.points) for r in s.routes]
    lines += [LineString([s.networks[0].nodes[a], s.networks[0].nodes[b]]) for a, b in s.networks[0].edges]
    for _ in range(200):
        x, y = rng.uniform(0, 100, 2)
        h = idx.nearest_segment(x, y, 1e9)
        ref = min(g.distance(Point(x, y)) for g in lines)
        assert h.distance == pytest.approx(ref, abs=1e-9)


def test_pick_prefers_small_things_then_topmost_terrain():
    s = _random_scene(np.random.default_rng(4), n=0)
    idx = PickIndex(s)
    assert idx.pick(30, 30, 0.1, kinds=("terrain",)) == ("terrain", 1)
    assert idx.pick(10, 10, 0.1, kinds=("terrain",)) == ("terrain", 0)
    assert idx.pick(90, 90, 0.5) == ("agent", 0)
    assert idx.pick(15, 90, 0.5) == ("network", 0)
    assert idx.pick(99, 99, 0.1) is None


def test_in_rect_matches_shapely_intersects():
    rng = np.random.default_rng(5)
    s = _random_scene(rng, n=30)
    idx = PickIndex(s)
    for _ in range(50):
        x0, y0 = rng.uniform(0, 100, 2)
        w, h = rng.uniform(1, 30, 2)
        box = shapely.box(x0, y0, x0 + w, y0 + h)
        got = set(idx.in_rect(x0 + w, y0 + h, x0, y0, kinds=("obstacle", "route")))
        ref = {("obstacle", i) for i, o in enumerate(s.obstacles) if Polygon(o.polygon).intersects(box)}
        ref |= {("route", i) for i, r in enumerate(s.routes) if LineString(r.points).intersects(box)}
        assert got == ref


def test_snap_prefers_vertices_then_grid():
    s = _random_scene(np.random.default_rng(6), n=0)
    idx = PickIndex(s)
    assert idx.snap(90.3, 89.8, 0.5, grid=5) == (90.0, 90.0, "vertex")
    assert idx.snap(41.2, 43.9, 0.5, grid=5) == (40.0, 45.0, "grid")
    assert idx.snap(41.2, 43.9, 0.5, grid=None, vertices=False) == (41.2, 43.9, "none")
    assert snap_to_grid(-2.4, 7.6, 0.5) == (-2.5, 7.5)


def test_simplify_keeps_ends_and_stays_within_tolerance():
    rng = np.random.default_rng(7)
    t = np.linspace(0, 10, 400)
    stroke = np.column_stack([t, np.sin(t) + rng.normal(0, 0.01, len(t))])
    simple = simplify_polyline(stroke, 0.05)
    assert 3 < len(simple) < 60
    assert np.allclose(simple[0], stroke[0]) and np.allclose(simple[-1], stroke[-1])
    line = LineString(simple)
    assert max(line.distance(Point(p)) for p in stroke) <= 0.05 + 1e-9
    assert simplify_polyline([(0, 0), (0, 0), (1, 1)], 0.1).tolist() == [[0, 0], [1, 1]]


def test_nice_step():
    assert [nice_step(v) for v in (0.7, 1.0, 1.3, 3, 7, 42)] == [1.0, 1.0, 2.0, 5.0, 10.0, 50.0]
