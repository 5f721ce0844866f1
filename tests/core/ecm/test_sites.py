"""Sites: the convex pieces tile the obstacle union, their real edges are the rings' edges, walls close the box."""

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon

from core.ecm.sites import build_sites
from core.scene import build_geometry

from ecmgen import random_scene


@pytest.mark.parametrize("seed", range(8))
def test_pieces_are_convex_and_tile_the_obstacles(seed):
    scene = random_scene(seed)
    g = build_geometry(scene)
    s = build_sites(g, scene.bounds)
    obst = [s.piece(k) for k in range(s.n_sites) if s.piece_comp[k] < s.n_components]
    for p in obst:
        d = np.roll(p, -1, axis=0) - p
        cross = d[:, 0] * np.roll(d[:, 1], -1) - d[:, 1] * np.roll(d[:, 0], -1)
        assert np.all(cross >= -1e-9), "a piece is not convex counter-clockwise"
        assert len(p) <= 64
    union = shapely.union_all([Polygon(p) for p in obst])
    assert abs(union.area - g.obstacles.area) <= 1e-9 * g.box.area
    assert union.symmetric_difference(g.obstacles).area <= 1e-9 * g.box.area
    # Pieces overlap only along diagonals.
    assert abs(sum(Polygon(p).area for p in obst) - g.obstacles.area) <= 1e-9 * g.box.area


@pytest.mark.parametrize("seed", range(8))
def test_real_edges_are_ring_edges_with_free_space_on_the_right(seed):
    scene = random_scene(seed)
    g = build_geometry(scene)
    s = build_sites(g, scene.bounds)
    assert s.n_sites - sum(s.piece_comp < s.n_components) == 4  # the walls
    # Every ring edge belongs to exactly one site.
    counts = np.bincount(s.real_edge, minlength=s.n_vertices)
    assert np.all(counts == 1)
    # The free space lies just to the right of every obstacle ring edge (along its normal).
    mid = 0.5 * (s.ring_xy + s.ring_xy[s.ring_next])
    eps = 1e-6 * s.scale
    probe = mid + eps * s.edge_normal
    inner = mid - eps * s.edge_normal
    on_box = np.zeros(len(mid), dtype=bool)
    x0, y0, x1, y1 = scene.bounds
    for k, (a, b) in enumerate(zip(s.ring_xy, s.ring_xy[s.ring_next])):
        on_box[k] = (a[0] == b[0] and a[0] in (x0, x1)) or (a[1] == b[1] and a[1] in (y0, y1))
    free = shapely.contains_xy(g.free, probe[:, 0], probe[:, 1])
    blocked = ~shapely.contains_xy(g.free, inner[:, 0], inner[:, 1])
    assert np.all(free | on_box)
    assert np.all(blocked)
