"""The ``grid`` planner: its raster against shapely, its costs against a brute-force Dijkstra built here."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from core.routes import PlannerContext, plan_route
from core.scene.problems import InputError

from routecheck import assert_valid
from routedijkstra import dijkstra
from routegen import random_queries, random_scene


def grid_reference_cost(planner, weights, start, goal, clearance=0.0) -> float:
    """Dijkstra on the 8-connected grid built from the raster arrays with plain loops (MIRAN 4's edge weights)."""
    h, nx, ny = planner.h, planner.nx, planner.ny
    open_ = planner.open_cells(clearance)
    terr = planner.terrain
    edges = []
    for j in range(ny):
        for i in range(nx):
            u = j * nx + i
            if not open_[u]:
                continue
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if (di, dj) == (0, 0) or not (0 <= i + di < nx and 0 <= j + dj < ny):
                        continue
                    v = (j + dj) * nx + i + di
                    if open_[v]:
                        edges.append((u, v, 0.5 * h * math.hypot(di, dj) * (weights[terr[u]] + weights[terr[v]])))
    cs, cg = planner.cell_of(start), planner.cell_of(goal)
    src = {cs: weights[terr[cs]] * math.dist(planner.centres[cs], start)}
    dst = {cg: weights[terr[cg]] * math.dist(planner.centres[cg], goal)}
    return dijkstra(nx * ny, edges, src, dst)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_raster_matches_shapely(seed):
    scene = random_scene(seed, size=40.0)
    ctx = PlannerContext(scene, cell_size=1.0)
    p = ctx.planner("grid")
    p.open_cells(0.0)
    geom = ctx.geometry
    inside = shapely.contains_xy(geom.free, p.centres[:, 0], p.centres[:, 1])
    assert np.array_equal(p.terrain >= 0, inside | (p.terrain >= 0) & shapely.intersects_xy(geom.free, *p.centres.T))
    for k, reg in enumerate(geom.regions):
        strictly = shapely.contains_xy(reg, p.centres[:, 0], p.centres[:, 1])
        assert np.all(p.terrain[strictly] == k)
    d = shapely.distance(shapely.points(p.centres[inside]), geom.free.boundary)
    capped = np.minimum(d, p._cap)
    assert np.allclose(p.clearance[inside], capped, atol=1e-9)


@pytest.mark.parametrize("seed", [4, 5, 6])
@pytest.mark.parametrize("profile", ["pedestrian", "light"])
def test_grid_cost_equals_brute_force_dijkstra(seed, profile):
    scene = random_scene(seed, size=40.0, network=False)
    ctx = PlannerContext(scene, cell_size=1.0)
    planner = ctx.planner("grid")
    _, w = ctx.weights(profile)
    checked = 0
    for x0, y0, x1, y1 in random_queries(scene, seed, 12):
        s, g = np.array([x0, y0]), np.array([x1, y1])
        open_ = planner.open_cells(0.0)
        if not (open_[planner.cell_of(s)] and open_[planner.cell_of(g)]) or planner.cell_of(s) == planner.cell_of(g):
            continue
        ref = grid_reference_cost(planner, w, s, g)
        if math.isinf(ref):
            with pytest.raises(InputError, match="no grid route"):
                plan_route(scene, s, g, "grid", profile, context=ctx)
            continue
        res = plan_route(scene, s, g, "grid", profile, context=ctx)
        assert res.cost == pytest.approx(ref, rel=1e-9)
        assert res.search_cost == res.cost
        assert_valid(res, ctx.geometry, s, g)
        checked += 1
    assert checked >= 5


def test_grid_keeps_clearance_and_blocks_cells_near_obstacles():
    scene = random_scene(8, size=60.0, network=False)
    ctx = PlannerContext(scene, cell_size=1.0)
    for x0, y0, x1, y1 in random_queries(scene, 8, 10):
        try:
            res = plan_route(scene, (x0, y0), (x1, y1), "grid", clearance=1.5, context=ctx)
        except InputError:
            continue
        assert_valid(res, ctx.geometry, (x0, y0), (x1, y1), clearance=1.5)
        if res.clearance_used == 1.5:
            # Away from the joining segments, every route vertex (a cell centre) keeps C + h / sqrt(2).
            inner = res.route.points[1:-1]
            d = shapely.distance(shapely.points(inner), ctx.geometry.free.boundary)
            assert np.all(d >= 1.5 + 1.0 / math.sqrt(2) - 1e-9)
