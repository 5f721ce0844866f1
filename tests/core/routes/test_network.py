"""The ``network`` planner (IRM section 5): joins to the closest visible network point, A* on the network."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from core.routes import PlannerContext, plan_route
from core.scene.model import Network
from core.scene.problems import InputError

from routecheck import assert_valid
from routedijkstra import dijkstra
from routegen import random_points, random_queries, random_scene


def brute_attach(scene_geometry, nodes, edges, x, n=400):
    """The closest network point visible from x, by dense sampling of every edge and shapely visibility."""
    best = math.inf
    for a, b in edges:
        t = np.linspace(0, 1, n)
        pts = nodes[a] + t[:, None] * (nodes[b] - nodes[a])
        vis = shapely.covers(scene_geometry.free, shapely.linestrings(np.stack([np.repeat(x[None], n, 0), pts], 1)))
        if vis.any():
            best = min(best, float(np.min(np.hypot(*(pts[vis] - x).T))))
    return best


@pytest.mark.parametrize("seed", [31, 32])
def test_attach_is_the_closest_visible_network_point(seed):
    scene = random_scene(seed)
    ctx = PlannerContext(scene)
    planner = ctx.planner("network")
    net = scene.networks[0]
    nodes = np.asarray(net.nodes)
    for x in random_points(scene, np.random.default_rng(seed), 15):
        got = planner.attach(x)
        ref = brute_attach(ctx.geometry, nodes, net.edges, x)
        if got is None:
            assert math.isinf(ref)
            continue
        e, t, p = got
        assert shapely.covers(shapely.buffer(ctx.geometry.free, 1e-9), shapely.LineString([x, p]))
        d = float(np.hypot(*(p - x)))
        # Never farther than the sampled optimum, never closer than the true optimum allows (sample spacing).
        spacing = max(math.dist(nodes[a], nodes[b]) for a, b in net.edges) / 399
        assert d <= ref + 1e-7
        assert d >= ref - spacing


@pytest.mark.parametrize("seed", [33, 34])
def test_network_cost_equals_dijkstra_on_the_network(seed):
    scene = random_scene(seed)
    ctx = PlannerContext(scene)
    net = scene.networks[0]
    nodes = np.asarray(net.nodes)
    _, w = ctx.weights("pedestrian")
    regions = ctx.geometry.regions

    def cost(p, q):
        line = shapely.LineString([p, q])
        return sum(w[k] * shapely.intersection(line, r).length for k, r in enumerate(regions))

    planner = ctx.planner("network")
    checked = 0
    for x0, y0, x1, y1 in random_queries(scene, seed, 10):
        s, g = np.array([x0, y0]), np.array([x1, y1])
        js, jg = planner.attach(s), planner.attach(g)
        if js is None or jg is None:
            with pytest.raises(InputError, match="no point of the indicative network is visible"):
                plan_route(scene, s, g, "network", context=ctx)
            continue
        (es, _, ps), (eg, _, pg) = js, jg
        edges = []
        for a, b in net.edges:
            c = cost(nodes[a], nodes[b])
            edges += [(a, b, c), (b, a, c)]
        n = len(nodes)
        # Two extra nodes: the join points, splitting their edges.
        S, G = n, n + 1
        a_s, b_s = net.edges[es]
        a_g, b_g = net.edges[eg]
        edges += [(S, a_s, cost(ps, nodes[a_s])), (S, b_s, cost(ps, nodes[b_s])),
                  (a_g, G, cost(nodes[a_g], pg)), (b_g, G, cost(nodes[b_g], pg))]
        if es == eg:
            edges.append((S, G, cost(ps, pg)))
        ref = dijkstra(n + 2, edges, {S: cost(s, ps)}, {G: cost(pg, g)})
        if math.isinf(ref):
            with pytest.raises(InputError, match="network"):
                plan_route(scene, s, g, "network", context=ctx)
            continue
        res = plan_route(scene, s, g, "network", context=ctx)
        assert_valid(res, ctx.geometry, s, g)
        assert res.cost == pytest.approx(ref, rel=1e-6)
        checked += 1
    assert checked >= 3


def test_network_edge_through_an_obstacle_is_reported():
    scene = random_scene(35)
    o = np.asarray(scene.obstacles[0].polygon)
    c = o.mean(axis=0)
    x0, y0, x1, y1 = scene.bounds
    scene.networks = [Network("bad", [(x0 + 0.01, c[1]), (x1 - 0.01, c[1])], [(0, 1)])]
    ctx = PlannerContext(scene)
    with pytest.raises(InputError, match=r"networks\[0\]\.edges\[0\].*crosses an obstacle"):
        plan_route(scene, (x0 + 0.01, c[1]), (x1 - 0.01, c[1]), "network", context=ctx)


def test_no_network_is_reported():
    scene = random_scene(36, network=False)
    with pytest.raises(InputError, match="no indicative network"):
        plan_route(scene, *random_queries(scene, 36, 1).reshape(2, 2), "network")
