"""The search's table of shrunk edge portals (``search.edge_rows``, kept per (edge, clearance) in ``QueryWork``): its
rows are, to the bit, those the search computed for every relaxation before (``_edge_portals``), in both walking
directions, and a batch that reuses them across clearances (0.0 and -0.0 included) answers as single queries."""

import numpy as np
import pytest

from core.ecm import query_batch, shortest_path_status
from core.ecm.search import _edge_portals, edge_rows

from conftest import case


@pytest.mark.parametrize("seed", [200, 202])
def test_edge_rows_are_the_portals_of_each_walk(seed):
    scene, g, ecm = case(seed)
    a = ecm.arrays
    nev = a.ev_R.shape[0]
    top = 2 * nev - 1
    E = np.full((2 * nev, 7), np.nan)
    ref = np.empty((nev + 8, 7))
    checked = 0
    for c in (0.0, 0.3, 1.5, float(np.median(a.ev_R)), 1e9):
        for k in range(a.edge_uv.shape[0]):
            ea, eb = int(a.edge_ptr[k]), int(a.edge_ptr[k + 1])
            edge_rows(a.ev_B, a.ev_R, a.ev_l, a.ev_r, ea, eb, c, E)
            n = _edge_portals(a.ev_B, a.ev_R, a.ev_l, a.ev_r, True, ea, eb - 1, c, ref, 0)
            assert n == eb - ea
            assert E[ea:eb].tobytes() == ref[:n].tobytes()
            n = _edge_portals(a.ev_B, a.ev_R, a.ev_l, a.ev_r, False, eb - 1, ea, c, ref, 0)
            assert E[top - (eb - 1):top - ea + 1].tobytes() == ref[:n].tobytes()
            checked += 1
    assert checked > 100
    # Every row belongs to exactly one edge and one direction: the table is full.
    assert np.all(np.isfinite(E))


def test_batch_reusing_rows_across_clearances_answers_as_single_queries():
    scene, g, ecm = case(201)
    rng = np.random.default_rng(8)
    x0, y0, x1, y1 = scene.bounds
    S = rng.uniform([x0, y0], [x1, y1], size=(90, 2))
    G = rng.uniform([x0, y0], [x1, y1], size=(90, 2))
    # Alternating signed zeros and repeated clearances: rows kept for one are reused or replaced for the next.
    c = np.tile([0.0, -0.0, 0.4, 0.4, 0.0, 1.2], 15)
    b = query_batch(ecm, S, G, c)
    ok = 0
    for q in range(len(S)):
        pts, length, status = shortest_path_status(ecm, S[q], G[q], c[q])
        assert b.status[q] == status, q
        assert b.path(q).tobytes() == pts.tobytes(), q
        assert b.lengths[q].tobytes() == np.float64(length).tobytes(), q
        ok += status == 0
    assert ok > 20
