"""Sites: the convex pieces tile the obstacle union, their real edges are the rings' edges, walls close the box."""

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon

from core.ecm.sites import build_sites
from core.scene import build_geometry

from ecmgen import comb_scene, random_scene


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


def _list_hertel_mehlhorn(xy, tris, eps):
    """The reference: Hertel-Mehlhorn on explicit vertex lists, each merge copying both pieces."""
    from core.kernels.geometry import orient_points

    polys = {i: [int(u), int(v), int(w)] for i, (u, v, w) in enumerate(tris)}
    owner = {}
    for i, cyc in polys.items():
        for k in range(3):
            owner[(cyc[k], cyc[(k + 1) % 3])] = i
    diagonals = [(u, v) for (u, v) in owner if u < v and (v, u) in owner]
    lengths = [float(np.hypot(*(xy[u] - xy[v]))) for u, v in diagonals]
    for k in np.argsort(lengths)[::-1]:
        u, v = diagonals[k]
        pa, pb = owner[(u, v)], owner[(v, u)]
        if pa == pb:
            continue
        A, B = polys[pa], polys[pb]
        ia, ib = A.index(u), B.index(v)
        if orient_points(xy[A[ia - 1]], xy[u], xy[B[(ib + 2) % len(B)]]) < -eps:
            continue
        if orient_points(xy[B[ib - 1]], xy[v], xy[A[(ia + 2) % len(A)]]) < -eps:
            continue
        merged = [A[(ia + 1 + j) % len(A)] for j in range(len(A))]
        merged += [B[(ib + 2 + j) % len(B)] for j in range(len(B) - 2)]
        del owner[(u, v)], owner[(v, u)]
        for j in range(len(merged)):
            owner[(merged[j], merged[(j + 1) % len(merged)])] = pa
        polys[pa] = merged
        del polys[pb]
    return [polys[k] for k in sorted(polys)]


@pytest.mark.parametrize("scene", [random_scene(seed) for seed in range(6)] + [comb_scene(2000)],
                         ids=[f"seed{s}" for s in range(6)] + ["comb2000"])
def test_spliced_pieces_are_those_of_the_list_algorithm(scene, monkeypatch):
    from core.ecm import sites

    g = build_geometry(scene)
    fast = build_sites(g, scene.bounds)
    monkeypatch.setattr(sites, "_hertel_mehlhorn", _list_hertel_mehlhorn)
    ref = build_sites(g, scene.bounds)
    for field in ("piece_ptr", "piece_vert", "real_ptr", "real_edge"):
        assert np.array_equal(getattr(fast, field), getattr(ref, field)), field


@pytest.mark.heavy
def test_a_comb_at_the_vertex_limit_is_cut_into_convex_pieces_that_tile_it():
    """20,000 vertices, as the scene limit allows: the list algorithm spent minutes on this one."""
    scene = comb_scene(20_000)
    g = build_geometry(scene)
    s = build_sites(g, scene.bounds)
    obst = [s.piece(k) for k in range(s.n_sites) if s.piece_comp[k] < s.n_components]
    assert sum(len(p) for p in obst) >= 20_000 and all(len(p) <= 64 for p in obst)
    for p in obst:
        d = np.roll(p, -1, axis=0) - p
        assert np.all(d[:, 0] * np.roll(d[:, 1], -1) - d[:, 1] * np.roll(d[:, 0], -1) >= -1e-9)
    assert abs(sum(Polygon(p).area for p in obst) - g.obstacles.area) <= 1e-9 * g.box.area
    assert shapely.union_all([Polygon(p) for p in obst]).symmetric_difference(g.obstacles).area <= 1e-9 * g.box.area
