"""The ``cdt`` planner: costs against a brute-force Dijkstra on the dual graph built here from the mesh arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from core.routes import PlannerContext, plan_route

from routecheck import assert_valid
from routedijkstra import dijkstra
from routegen import random_queries, random_scene


def dual_reference_cost(mesh, weights, start, goal) -> float:
    """MIRAN section 4 built with plain loops: centroid nodes, edges through the shared edge's midpoint weighted
    w(T_u)|e_u| + w(T_v)|e_v|; the start and goal join their triangles' centroids (triangles found by shapely)."""
    V, T, N, terr = mesh.vertices, mesh.triangles, mesh.neighbors, mesh.tri_terrain
    cent = [V[T[t]].mean(axis=0) for t in range(len(T))]
    edges = []
    for t in range(len(T)):
        for k in range(3):
            u = int(N[t, k])
            if u < 0:
                continue
            mid = 0.5 * (V[T[t, k]] + V[T[t, (k + 1) % 3]])
            w = weights[terr[t]] * math.dist(cent[t], mid) + weights[terr[u]] * math.dist(mid, cent[u])
            edges.append((t, u, w))
    tris = shapely.polygons(V[T])

    def where(p):
        hits = np.flatnonzero(shapely.intersects(tris, shapely.Point(p)))
        return {int(t): weights[terr[t]] * math.dist(cent[t], p) for t in hits}

    return dijkstra(len(T), edges, where(start), where(goal))


def exact_weighted_length(geometry, pts, w) -> float:
    """sum_T w(T) l^T of a polyline, the lengths l^T measured by shapely on the terrain regions."""
    line = shapely.LineString(pts)
    return float(sum(w[k] * shapely.intersection(line, reg).length for k, reg in enumerate(geometry.regions)))


def ambiguous_length(geometry, pts, eps: float = 1e-7) -> float:
    """Length of the polyline within eps of a boundary between terrain regions."""
    bounds = shapely.union_all([r.boundary for r in geometry.regions if not r.is_empty])
    return shapely.intersection(shapely.LineString(pts), bounds.buffer(eps)).length


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize("profile", ["pedestrian", "light"])
def test_cdt_cost_equals_brute_force_dijkstra(seed, profile):
    scene = random_scene(seed, size=50.0, network=False)
    ctx = PlannerContext(scene)
    _, w = ctx.weights(profile)
    for x0, y0, x1, y1 in random_queries(scene, seed, 8):
        s, g = np.array([x0, y0]), np.array([x1, y1])
        res = plan_route(scene, s, g, "cdt", profile, context=ctx)
        assert_valid(res, ctx.geometry, s, g)
        ref = dual_reference_cost(ctx.planner("cdt").mesh(), w, s, g)
        if len(res.route) > 2 or res.search_cost != res.cost:
            assert res.search_cost == pytest.approx(ref, rel=1e-9)
        # The returned route shortcuts the centroids: never dearer than the dual-graph optimum, and its cost is
        # its terrain-weighted length measured by shapely, up to the parts running along a terrain boundary (inside
        # needle triangles), whose terrain is ambiguous.
        assert res.cost <= res.search_cost * (1 + 1e-12)
        assert abs(res.cost - exact_weighted_length(ctx.geometry, res.route.points, w)) <= (
            (w.max() - w.min()) * ambiguous_length(ctx.geometry, res.route.points) + 1e-7 * res.cost)


def test_cdt_weights_below_one_stay_optimal():
    # All weights scaled by 0.01: the heuristic scales with the smallest weight, so the optimum only scales.
    scene = random_scene(14, size=50.0, network=False)
    for p in scene.profiles:
        p.weights = {k: 0.01 * v for k, v in p.weights.items()}
    ctx = PlannerContext(scene)
    _, w = ctx.weights("pedestrian")
    for x0, y0, x1, y1 in random_queries(scene, 14, 6):
        res = plan_route(scene, (x0, y0), (x1, y1), "cdt", "pedestrian", context=ctx)
        ref = dual_reference_cost(ctx.planner("cdt").mesh(), w, (x0, y0), (x1, y1))
        assert res.search_cost == pytest.approx(ref, rel=1e-9) or len(res.route) <= 2
