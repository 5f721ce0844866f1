"""The ``portal`` planner: the convex decomposition against shapely, the cone of sight against the visibility-graph
shortest path, and Niederberger's moving nodes against the static portal-centre A* (section 8)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from core.routes import PlannerContext, plan_route
from core.routes.convex import trapezoidate
from core.routes.funnel import funnel
from core.routes.planners.portal import centre_graph, centre_route
from core.routes.reference import VisibilityGraph

from routecheck import assert_valid
from routegen import random_queries, random_scene, shipped


@pytest.mark.parametrize("pieces", ["trapezoids", "triangles"])
@pytest.mark.parametrize("seed", [21, 22])
def test_decomposition_tiles_free_space_with_convex_cells(seed, pieces):
    scene = random_scene(seed)
    ctx = PlannerContext(scene, portal_pieces=pieces)
    dec = ctx.planner("portal").decomposition()
    cells = [shapely.Polygon(dec.polygon(p)) for p in range(dec.n_polygons)]
    assert all(c.is_valid and c.area > 0 for c in cells)
    assert all(c.convex_hull.area - c.area <= 1e-9 * max(1.0, c.area) for c in cells)
    assert sum(c.area for c in cells) == pytest.approx(ctx.geometry.free.area, rel=1e-9)
    assert shapely.union_all(cells).symmetric_difference(ctx.geometry.free).area < 1e-6
    assert dec.n_polygons < dec.n_pieces  # Hertel-Mehlhorn merged something
    if pieces == "trapezoids":
        # Before merging, every cell is a trapezoid: top and bottom horizontal.
        v, traps = trapezoidate(ctx.geometry.free)
        for cyc in traps:
            y = v[cyc, 1]
            assert len(np.unique(y)) <= 2
    # Every portal is an edge of both its cells, a -> b counter-clockwise in the first.
    for k, (a, b) in enumerate(dec.portals):
        p, q = dec.portal_polys[k]
        cyc_p = list(dec.poly_verts[dec.poly_ptr[p]:dec.poly_ptr[p + 1]])
        cyc_q = list(dec.poly_verts[dec.poly_ptr[q]:dec.poly_ptr[q + 1]])
        assert cyc_p[(cyc_p.index(a) + 1) % len(cyc_p)] == b
        assert cyc_q[(cyc_q.index(b) + 1) % len(cyc_q)] == a
    # Point location agrees with shapely.
    pts = np.random.default_rng(seed).uniform(scene.bounds[:2], scene.bounds[2:], size=(300, 2))
    loc = dec.locate(pts)
    for x, c in zip(pts, loc):
        if c >= 0:
            assert cells[c].distance(shapely.Point(x)) < 1e-9
        else:
            assert not ctx.geometry.free.contains(shapely.Point(x))


def test_funnel_is_the_shortest_path_through_a_corridor():
    # A zig-zag corridor of vertical portals: the taut string bends at (4, 1) (right end of portal 2) and (6, 1)
    # (left end of portal 3) and passes portals 1 and 4 inside.
    left = np.array([[0, 0], [2, 1], [4, 3], [6, 1], [8, 3], [10, 2]], float)
    right = np.array([[0, 0], [2, -1], [4, 1], [6, -1], [8, 1], [10, 2]], float)
    assert np.allclose(funnel(left, right), [[0, 0], [4, 1], [6, 1], [10, 2]])
    left = np.array([[0, 0], [1, 5], [2, 5], [3, 0]], float)
    straight = funnel(left, np.array([[0, 0], [1, -5], [2, -5], [3, 0]], float))
    assert np.allclose(straight, [[0, 0], [3, 0]])


@pytest.mark.parametrize("name", ["random", "mckenna", "city"])
def test_portal_routes_are_valid_and_near_shortest(name):
    scene = random_scene(23) if name == "random" else shipped(name)
    ctx = PlannerContext(scene)
    vg = VisibilityGraph(ctx)
    ratios = []
    for x0, y0, x1, y1 in random_queries(scene, 23, 25):
        res = plan_route(scene, (x0, y0), (x1, y1), "portal", context=ctx)
        assert_valid(res, ctx.geometry, (x0, y0), (x1, y1))
        _, best = vg.shortest((x0, y0), (x1, y1))
        assert res.route.length >= best * (1 - 1e-9)
        assert res.cost == pytest.approx(res.route.length)
        ratios.append(res.route.length / best)
    # The portal sequence may differ from the shortest path's, but rarely and by little.
    assert np.median(ratios) < 1.0 + 1e-9
    assert max(ratios) < 1.5


@pytest.mark.parametrize("name", ["random", "forest", "city"])
def test_moving_nodes_beat_portal_centres_in_90_percent(name):
    scene = random_scene(24, n_obstacles=16) if name == "random" else shipped(name)
    ctx = PlannerContext(scene)
    planner = ctx.planner("portal")
    dec = planner.decomposition()
    cg = centre_graph(dec)
    wins = total = 0
    for x0, y0, x1, y1 in random_queries(scene, 24, 60):
        s, g = np.array([x0, y0]), np.array([x1, y1])
        ps, pg = dec.locate(np.vstack([s, g]))
        ours = plan_route(scene, s, g, "portal", context=ctx).route.length
        base = centre_route(dec, cg, s, g, int(ps), int(pg))
        assert base is not None
        base_len = float(np.sum(np.hypot(*np.diff(base, axis=0).T)))
        total += 1
        wins += ours <= base_len * (1 + 1e-9)
    assert wins >= 0.9 * total, f"{wins} of {total}"
