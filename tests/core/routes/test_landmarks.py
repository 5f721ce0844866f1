"""Landmark (ALT) bounds of the route searches: the Dijkstra that measures them against scipy's, optimal costs with
them against scipy's Dijkstra on random triangulations, routes that do not depend on the queries answered before,
and the cdt planner's routes on the city with landmarks against those without (the same optimum)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra
from scipy.spatial import Delaunay

from core.routes import graph as graph_module
from core.routes.planners import cdt as cdt_module
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


class _Mesh:
    """A random triangulation in the shape ``dual_graph`` reads (neighbour k across edge (T[k], T[k + 1]))."""

    def __init__(self, rng: np.random.Generator, n_types: int):
        n = int(rng.integers(30, 300))
        pts = rng.uniform(0, 100, (n, 2))
        if rng.random() < 0.5:                      # a regular lattice: many exactly tied routes
            k = int(np.ceil(np.sqrt(n)))
            pts = np.stack(np.meshgrid(np.arange(k), np.arange(k)), -1).reshape(-1, 2).astype(np.float64) * 3.0
        tri = Delaunay(pts)
        self.vertices = pts
        self.triangles = tri.simplices.astype(np.int64)
        self.neighbors = tri.neighbors[:, [2, 0, 1]].astype(np.int64)
        self.tri_terrain = rng.integers(0, n_types, len(self.triangles)).astype(np.int32)


@pytest.mark.parametrize("seed", range(10))
def test_landmark_search_costs_equal_scipy_dijkstra(seed):
    """Random triangulations (some regular), random weights below and above 1: the landmark search's optimal cost
    equals scipy's Dijkstra and the plain search's, and its node path adds up to it."""
    rng = np.random.default_rng(seed)
    mesh = _Mesh(rng, 3)
    alt, plain = dual_graph(mesh), dual_graph(mesh, use_landmarks=False)
    w = rng.choice([0.3, 0.7, 1.0, 2.0, 5.0], 3)
    costs = alt.costs(w)
    for _ in range(15):
        s, t = (int(v) for v in rng.choice(alt.n, 2, replace=False))
        head, tail = float(rng.uniform(0, 2)), float(rng.uniform(0, 2))
        args = (w, np.array([s]), np.array([head]), np.array([t]), np.array([tail]), alt.xy[t])
        nodes, cost = alt.search(*args)
        _, cost_plain = plain.search(*args)
        ref = head + _scipy_costs(alt, costs, s)[t] + tail
        assert cost == pytest.approx(ref, rel=1e-12) and cost == pytest.approx(cost_plain, rel=1e-12)
        slots = graph_module.edge_slots(alt.indptr, alt.indices, nodes)
        assert nodes[0] == s and nodes[-1] == t and np.all(slots >= 0)
        assert head + costs[slots].sum() + tail == pytest.approx(cost, rel=1e-12)
    assert alt._landmarks and not plain._landmarks


def test_routes_do_not_depend_on_the_queries_before():
    """The same queries on a fresh graph and on one that answered 200 others first (other weights too): the same
    node paths, bit for bit, and the same landmark table."""
    rng = np.random.default_rng(3)
    mesh = _Mesh(rng, 2)
    w = np.array([1.0, 0.5])
    queries = [tuple(int(v) for v in rng.choice(mesh.triangles.shape[0], 2, replace=False)) for _ in range(40)]

    def answers(g):
        return [g.search(w, np.array([s]), np.zeros(1), np.array([t]), np.zeros(1), g.xy[t])[0].tobytes()
                for s, t in queries]

    fresh = dual_graph(mesh)
    first = answers(fresh)
    used = dual_graph(mesh)
    for _ in range(200):
        s, t = (int(v) for v in rng.choice(used.n, 2, replace=False))
        ww = w if rng.random() < 0.5 else np.array([2.0, 1.0])
        used.search(ww, np.array([s]), np.zeros(1), np.array([t]), np.zeros(1), used.xy[t])
    assert answers(used) == first
    key = tuple(float(v) for v in w)
    assert np.array_equal(used._landmarks[key], fresh._landmarks[key])


def test_node_costs_and_landmark_bound_match_scipy(city_graph):
    g = city_graph
    w = np.array([1.0, 0.5, 4.0, 1.0])
    costs = g.costs(w)
    # ALT needs every edge to cost the same both ways: the two directions' sums are made of the same numbers.
    back = {(int(u), int(v)): c for u, v, c in zip(g.sources(), g.indices, costs.tolist())}
    assert all(back[(v, u)] == c for (u, v), c in back.items())
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


def test_cdt_routes_with_landmarks_are_as_cheap_as_without(monkeypatch):
    """The same 150 random queries with the straight-line bound only and with landmarks: the same optimal search cost
    to the last bit, and the same route except where two routes tie exactly (the city's regular kerbs give a few:
    another expansion order may then keep the other one, of the same cost)."""
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext, plan_route
    from core.sim.population import random_free_points

    scene = load_scene(CITY)
    mesh = build_navmesh(scene)
    pts = random_free_points(mesh, np.random.default_rng(11), 300).reshape(150, 2, 2)

    def routes(use: bool):
        monkeypatch.setattr(cdt_module, "dual_graph", functools.partial(dual_graph, use_landmarks=use))
        ctx = PlannerContext(scene, navmesh=mesh)
        out = []
        for s, t in pts:
            r = plan_route(scene, s, t, "cdt", profile="pedestrian", clearance=0.25, context=ctx, spot=False)
            out.append((r.route.points.tobytes(), r.cost, r.search_cost))
        return out, ctx.planner("cdt").graph(0.25)._landmarks

    plain, none = routes(False)
    alt, table = routes(True)
    assert not none and table
    ties = 0
    for (pts_a, cost_a, search_a), (pts_p, cost_p, search_p) in zip(alt, plain):
        assert search_a == search_p
        if pts_a != pts_p:
            ties += 1
            assert cost_a == pytest.approx(cost_p, rel=1e-12)
    assert ties <= len(plain) // 20


def test_landmarks_on_a_graph_in_two_pieces():
    """An eroded free space falls apart into pieces, and the landmarks (picked from node 0's piece) are unreachable
    from the others: queries inside the other piece still find the optimum, and across pieces none."""
    rng = np.random.default_rng(8)
    a, b = _Mesh(rng, 2), _Mesh(rng, 2)
    mesh = _Mesh.__new__(_Mesh)
    mesh.vertices = np.vstack([a.vertices, b.vertices + 500.0])
    mesh.triangles = np.vstack([a.triangles, b.triangles + len(a.vertices)])
    nb = b.neighbors.copy()
    nb[nb >= 0] += len(a.triangles)
    mesh.neighbors = np.vstack([a.neighbors, nb])
    mesh.tri_terrain = np.concatenate([a.tri_terrain, b.tri_terrain])
    g = dual_graph(mesh)
    w = np.array([1.0, 0.4])
    ref = _scipy_costs(g, g.costs(w), np.arange(len(a.triangles), g.n))
    for _ in range(20):
        s, t = (int(v) for v in rng.integers(len(a.triangles), g.n, 2))
        nodes, cost = g.search(w, np.array([s]), np.zeros(1), np.array([t]), np.array([0.5]), g.xy[t])
        assert cost == pytest.approx(ref[s - len(a.triangles), t] + 0.5, rel=1e-12)
    nodes, cost = g.search(w, np.array([0]), np.zeros(1), np.array([g.n - 1]), np.zeros(1), g.xy[g.n - 1])
    assert len(nodes) == 0 and cost == np.inf
    assert np.isinf(g._landmarks[(1.0, 0.4)][len(a.triangles):]).all()
