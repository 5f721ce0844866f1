"""The triangulation overlay's arrays: every edge once, classified like the mesh."""

import numpy as np
import pytest

from core.navmesh.debug import EDGE_BLOCKED, EDGE_PLAIN, EDGE_TERRAIN, mesh_edges, triangle_corners

from scenegen import case


@pytest.mark.parametrize("name", ["random:0", "grid"])
def test_mesh_edges(name):
    scene, g, m = case(name)
    segs, kind = mesh_edges(m)
    # Euler: interior edges are shared by two half-edges, boundary edges by one.
    n_blocked = int(m.he_blocked.sum())
    assert len(segs) == (3 * m.n_triangles - n_blocked) // 2 + n_blocked
    assert np.count_nonzero(kind == EDGE_BLOCKED) == n_blocked
    lengths = np.linalg.norm(segs[:, 1] - segs[:, 0], axis=1)
    assert lengths[kind == EDGE_BLOCKED].sum() == pytest.approx(g.free.boundary.length, rel=1e-9)
    assert set(np.unique(kind)) <= {EDGE_PLAIN, EDGE_TERRAIN, EDGE_BLOCKED}
    corners, terrain = triangle_corners(m)
    assert corners.shape == (m.n_triangles, 3, 2) and np.array_equal(terrain, m.tri_terrain)
