"""The CSR A* kernel against a heapq Dijkstra on random geometric graphs, weights below and above 1."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.routes.search import astar, csr_from_edges

from routedijkstra import dijkstra


@pytest.mark.parametrize("seed", range(12))
def test_astar_equals_dijkstra(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    xy = rng.uniform(0, 100, size=(n, 2))
    m = int(rng.integers(0, 4 * n))
    a = rng.integers(0, n, m)
    b = rng.integers(0, n, m)
    keep = a != b
    a, b = a[keep], b[keep]
    # Edge cost = a weight >= wmin times the distance: the heuristic wmin * distance stays admissible.
    wmin = float(rng.choice([0.05, 0.5, 1.0, 3.0]))
    cost = np.hypot(*(xy[a] - xy[b]).T) * rng.uniform(wmin, 5 * wmin, len(a))
    indptr, indices, order = csr_from_edges(n, a, b)
    goal = rng.uniform(0, 100, 2)
    src = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
    dst = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
    sc = np.hypot(*(xy[src] - rng.uniform(0, 100, 2)).T) * wmin
    dc = np.hypot(*(xy[dst] - goal).T) * wmin * rng.uniform(1, 2, len(dst))
    nodes, c = astar(indptr, indices, np.ascontiguousarray(cost[order]), xy, wmin, src.astype(np.int64), sc,
                     dst.astype(np.int64), dc, goal)
    ref = dijkstra(n, list(zip(a.tolist(), b.tolist(), cost.tolist())), dict(zip(src.tolist(), sc.tolist())),
                   {int(t): float(v) for t, v in zip(dst, dc)})
    if math.isinf(ref):
        assert len(nodes) == 0 and math.isinf(c)
        return
    assert c == pytest.approx(ref, rel=1e-12)
    # The returned node path is a real path whose cost adds up.
    edge = {}
    for u, v, w in zip(a.tolist(), b.tolist(), cost.tolist()):
        edge[(u, v)] = min(w, edge.get((u, v), math.inf))
    total = dict(zip(src.tolist(), sc.tolist()))[int(nodes[0])]
    total += sum(edge[(int(u), int(v))] for u, v in zip(nodes[:-1], nodes[1:]))
    total += min(float(v) for t, v in zip(dst, dc) if t == nodes[-1])
    assert total == pytest.approx(c, rel=1e-12)
