"""Landmark (ALT) bounds of the route searches: the Dijkstra that measures them against scipy's, the bound against
true costs, and the cdt planner's routes on the city with landmarks against those without (the same optimum)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra

from core.routes import graph as graph_module
from core.routes.planners.cdt import dual_graph
from core.routes.search import landmarks, new_workspace, node_costs
from core.routes.trimesh import quality_mesh
from core.scene.geometry import build_geometry
from core.scene.io import load_scene

CITY = Path(__file__).resolve().parents[3] / "scenes" / "city.json"


@pytest.fixture(scope="module")
def city_graph():
    return dual_graph(quality_mesh(build_geometry(load_scene(CITY))))


def _scipy_costs(g, costs: np.ndarray, src) -> np.ndarray:
    m = csr_matrix((costs, g.indices, g.indptr), shape=(g.n, g.n))
    return scipy_dijkstra(m, directed=True, indices=src)


def test_node_costs_and_landmark_bound_match_scipy(city_graph):
    g = city_graph
    w = np.array([1.0, 0.5, 4.0, 1.0])
    costs = g.costs(w)
    ws = new_workspace(g.n, len(g.indices))
    out = np.empty(g.n)
    node_costs(g.indptr, g.indices, costs, 17, ws, 1, out)
    np.testing.assert_allclose(out, _scipy_costs(g, costs, 17), rtol=1e-12)
    lm = landmarks(g.indptr, g.indices, costs, 6, ws, 2)
    assert lm.shape == (g.n, 6) and len({int(np.argmin(lm[:, k])) for k in range(6)}) == 6
    rng = np.random.default_rng(4)
    targets = rng.choice(g.n, 5, replace=False)
    true = _scipy_costs(g, costs, targets)                         # (5, n) exact costs from each target
    for row, t in enumerate(targets.tolist()):
        bound = np.max(np.abs(lm - lm[t]), axis=1)
        assert np.all(bound <= true[row] * (1 + 1e-12) + 1e-9)   # admissible: never above the true cost


def test_cdt_routes_with_landmarks_are_as_cheap_as_without(city_graph, monkeypatch):
    """The same 150 random queries with the straight-line bound only and with landmarks: the same optimal search cost
    to the last bit, and the same route except where two routes tie exactly (the city's regular kerbs give a few:
    another expansion order may then keep the other one, of the same cost)."""
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext, plan_route
    from core.sim.population import random_free_points

    scene = load_scene(CITY)
    mesh = build_navmesh(scene)
    pts = random_free_points(mesh, np.random.default_rng(11), 300).reshape(150, 2, 2)

    def routes(after: int):
        monkeypatch.setattr(graph_module, "LANDMARK_AFTER", after)
        ctx = PlannerContext(scene, navmesh=mesh)
        out = []
        for s, t in pts:
            r = plan_route(scene, s, t, "cdt", profile="pedestrian", clearance=0.25, context=ctx, spot=False)
            out.append((r.route.points.tobytes(), r.cost, r.search_cost))
        return out, ctx.planner("cdt").graph(0.25)._landmarks

    plain, none = routes(10**9)
    alt, table = routes(1)
    assert not any(isinstance(v, np.ndarray) for v in none.values())
    assert any(isinstance(v, np.ndarray) for v in table.values())
    ties = 0
    for (pts_a, cost_a, search_a), (pts_p, cost_p, search_p) in zip(alt, plain):
        assert search_a == search_p
        if pts_a != pts_p:
            ties += 1
            assert cost_a == pytest.approx(cost_p, rel=1e-12)
    assert ties <= len(plain) // 20
