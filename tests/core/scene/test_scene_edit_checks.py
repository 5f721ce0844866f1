"""Edit checks: self-intersections against shapely, obstacle / terrain / route placement on generated scenes."""

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LinearRing, LineString, Point

from core.scene import Agent, Network, Obstacle, Route, Scene, TerrainPolygon
from core.scene.checks import (
    check_item, obstacle_problems, point_problems, polygon_problems, route_problems, self_intersections,
    terrain_problems,
)

ring_st = st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=3, max_size=9)


def _clean(pts):
    out = []
    for p in pts:
        if not out or out[-1] != p:
            out.append(p)
    while len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


@settings(max_examples=300, deadline=None)
@given(ring_st)
def test_self_intersections_agree_with_shapely_simplicity(pts):
    ring = _clean(pts)
    if len(set(ring)) < 3:
        return
    a = np.asarray(ring, dtype=float)
    if np.linalg.matrix_rank(a - a.mean(axis=0)) < 2:
        return
    found = self_intersections(ring)
    assert (len(found) == 0) == LinearRing(ring).is_simple
    # Every reported point lies on the ring (on two of its edges, or at a spike's vertex).
    boundary = LineString(ring + [ring[0]])
    for p in found:
        assert boundary.distance(Point(p)) < 1e-9


def test_bow_tie_crossing_is_located():
    probs = polygon_problems([(0, 0), (2, 2), (2, 0), (0, 2)])
    assert len(probs) == 1
    assert probs[0].where == pytest.approx((1.0, 1.0))
    assert "self-intersecting at (1, 1)" in probs[0].message


def test_collinear_and_too_small_rings():
    assert "collinear" in polygon_problems([(0, 0), (1, 1), (2, 2)])[0].message
    assert "3 distinct" in polygon_problems([(0, 0), (1, 1), (0, 0)])[0].message
    assert polygon_problems([(0, 0), (1, 0), (1, 1)]) == []


def _scene():
    s = Scene.empty(100, 100)
    s.obstacles = [Obstacle("b1", [(10, 10), (30, 10), (30, 30), (10, 30)])]
    s.routes = [Route("r1", [(5, 5), (50, 50), (95, 5)])]
    s.networks = [Network("n1", [(60, 60), (70, 70)], [(0, 1)])]
    s.agents = [Agent("a1", "pedestrian", start=(80, 80), goal=(90, 20), planner="cdt")]
    return s


def test_obstacle_covering_route_point_network_node_or_agent_end_is_refused():
    s = _scene()
    probs = obstacle_problems(s, [(45, 45), (85, 45), (85, 85), (45, 85)])
    where = sorted(p.where for p in probs)
    assert where == [(50.0, 50.0), (60.0, 60.0), (70.0, 70.0), (80.0, 80.0)]
    assert any("route 'r1' point 1" in p.message for p in probs)
    assert obstacle_problems(s, [(40, 10), (45, 10), (45, 20)]) == []
    assert "outside the bounds" in obstacle_problems(s, [(200, 200), (210, 200), (210, 210)])[0].message


def test_terrain_inside_obstacle_is_refused_but_overlap_is_fine():
    s = _scene()
    inside = terrain_problems(s, [(12, 12), (20, 12), (20, 20)])
    assert len(inside) == 1 and "inside obstacle 'b1'" in inside[0].message
    assert shapely.Polygon([(10, 10), (30, 10), (30, 30), (10, 30)]).contains(Point(inside[0].where))
    assert terrain_problems(s, [(5, 5), (20, 5), (20, 20)]) == []


def test_terrain_hidden_by_two_obstacles_is_refused():
    s = _scene()
    s.obstacles.append(Obstacle("b2", [(30, 10), (40, 10), (40, 30), (30, 30)]))
    assert terrain_problems(s, [(15, 15), (35, 15), (35, 25), (15, 25)])


def test_route_and_point_checks():
    s = _scene()
    probs = route_problems(s, [(5, 5), (20, 20), (150, 50)])
    assert [p.where for p in probs] == [(20.0, 20.0), (150.0, 50.0)]
    assert "inside obstacle 'b1'" in probs[0].message and "outside the bounds" in probs[1].message
    assert "2 distinct" in route_problems(s, [(5, 5), (5, 5)])[0].message
    # A point on an obstacle's outline is in free space (the validator's rule: 'within' the obstacle is refused).
    assert point_problems(s, [(10, 20)], ["p"]) == []


def test_check_item_matches_the_file_validator_on_generated_scenes():
    from core.scene import check_scene, scene_to_dict

    rng = np.random.default_rng(3)
    for _ in range(20):
        s = _scene()
        x, y = rng.uniform(0, 90, 2)
        s.routes.append(Route("r2", [(float(x), float(y)), (float(x) + 5, float(y) + 5)]))
        _, file_problems = check_scene(scene_to_dict(s))
        assert bool(check_item(s, "route", "r2")) == bool(file_problems)


def test_agent_following_route_has_no_own_points():
    s = _scene()
    s.agents.append(Agent("a2", "pedestrian", route="r1"))
    assert check_item(s, "agent", "a2") == []
    s.agents.append(Agent("a3", "pedestrian", start=(20, 20), goal=(90, 90)))
    assert "agent 'a3' start" in check_item(s, "agent", "a3")[0].message


def test_terrain_with_a_hole_checks_the_hole():
    s = _scene()
    bad_hole = [(60, 60), (62, 62), (62, 60), (60, 62)]
    assert terrain_problems(s, [(50, 50), (80, 50), (80, 80), (50, 80)], [bad_hole])
    t = TerrainPolygon("t1", "default", [(50, 50), (80, 50), (80, 80), (50, 80)], [[(60, 60), (62, 60), (62, 62)]])
    s.terrains.append(t)
    assert check_item(s, "terrain", "t1") == []


def test_seams_whole_cover_and_network_planner():
    from core.scene.checks import removal_problems

    s = _scene()
    s.obstacles.append(Obstacle("b2", [(30, 10), (40, 10), (40, 30), (30, 30)]))
    probs = point_problems(s, [(30, 20)], ["p"])
    assert len(probs) == 1 and "'b1', 'b2'" in probs[0].message
    # A new obstacle beside an existing one covers the seam point between them.
    s2 = _scene()
    s2.routes[0] = Route("r1", [(5, 5), (30, 20)])
    probs = obstacle_problems(s2, [(30, 10), (40, 10), (40, 30), (30, 30)])
    assert [p.where for p in probs] == [(30.0, 20.0)]
    empty = Scene.empty(10, 10)
    assert "whole bounds" in obstacle_problems(empty, [(-1, -1), (11, -1), (11, 11), (-1, 11)])[0].message
    s.agents.append(Agent("a9", "pedestrian", start=(1, 1), goal=(2, 2), planner="network"))
    assert removal_problems(s) == []
    s.networks = []
    assert "a9" in removal_problems(s)[0].message
    assert "network" in check_item(s, "agent", "a9")[0].message


def test_outlines_made_in_one_call_cover_what_each_cleaned_outline_covers():
    """``outline_polygons`` against shapely's Polygon of each cleaned outline, one at a time: random simple
    outlines with repeated vertices and closing vertices, valid or not."""
    from shapely.geometry import Polygon

    from core.scene.polygons import clean_ring, outline_polygons

    rng = np.random.default_rng(20261130)
    outlines = []
    for _ in range(300):
        n = int(rng.integers(3, 12))
        angles = np.sort(rng.uniform(0, 2 * np.pi, n))
        pts = np.c_[np.cos(angles), np.sin(angles)] * rng.uniform(0.5, 5, (n, 1)) + rng.uniform(-50, 50, 2)
        if rng.random() < 0.3:
            k = int(rng.integers(0, n))
            pts = np.insert(pts, k, pts[k], axis=0)           # a repeated vertex
        if rng.random() < 0.3:
            pts = np.vstack([pts, pts[:1]])                   # a closing vertex
        if rng.random() < 0.1:
            pts = pts[rng.permutation(len(pts))]              # self-intersecting, often
        outlines.append(pts.round(3).tolist())
    made = outline_polygons(outlines)
    ref = [Polygon(clean_ring(o)) for o in outlines]
    assert len(made) == len(ref)
    for a, b in zip(made, ref):
        assert a.area == pytest.approx(b.area, rel=1e-12, abs=1e-12)
        assert a.is_valid == b.is_valid
        if b.is_valid:
            assert a.equals(b)
    assert outline_polygons([]) == []
