"""Checks that a navigation mesh is a valid triangulation of a scene's free space, against shapely: its DCEL, its
areas per terrain type, its constraints and obstacle edges, its location grid. Used on fresh builds
(tests/core/navmesh/test_navmesh_build.py) and on meshes updated locally while the world changes."""

from __future__ import annotations

import numpy as np
import pytest
import shapely


def area2(v: np.ndarray) -> np.ndarray:
    """Twice the signed area of each triangle of corners v (n, 3, 2)."""
    return (v[:, 1, 0] - v[:, 0, 0]) * (v[:, 2, 1] - v[:, 0, 1]) - (v[:, 1, 1] - v[:, 0, 1]) * (v[:, 2, 0] - v[:, 0, 0])


def assert_dcel(m) -> None:
    """The half-edge structure is consistent, and every triangle counter-clockwise and non-degenerate."""
    nt, nh = m.n_triangles, m.n_half_edges
    assert nh == 3 * nt
    he = np.arange(nh)
    # next / prev are inverse 3-cycles inside one face.
    assert np.array_equal(m.he_prev[m.he_next], he)
    assert np.array_equal(m.he_next[m.he_next[m.he_next]], he)
    assert np.all(m.he_face[m.he_next] == m.he_face)
    assert np.array_equal(m.he_face[m.face_he], np.arange(nt))
    # Twins: twin of twin, opposite directions, different faces; blocked exactly where there is no twin.
    has = m.he_twin >= 0
    assert np.array_equal(m.he_twin[m.he_twin[has]], he[has])
    assert np.array_equal(m.he_origin[m.he_twin[has]], m.he_origin[m.he_next[has]])
    assert np.all(m.he_face[m.he_twin[has]] != m.he_face[has])
    assert np.array_equal(m.he_blocked, ~has)
    # Neighbours agree with the twins.
    assert np.array_equal(m.neighbors.reshape(-1)[has], m.he_face[m.he_twin[has]])
    assert np.all(m.neighbors.reshape(-1)[~has] == -1)
    # Origins follow the triangles; every vertex's half-edge leaves it.
    assert np.array_equal(m.he_origin, m.triangles.reshape(-1))
    used = m.vert_he >= 0
    assert np.array_equal(m.he_origin[m.vert_he[used]], np.flatnonzero(used))
    assert set(np.unique(m.triangles)) == set(np.flatnonzero(used))
    # Counter-clockwise, non-degenerate.
    assert np.all(area2(m.vertices[m.triangles]) > 0)
    assert np.all(area2(m.vertices[m.xtriangles]) > 0)


def assert_areas(scene, g, m) -> None:
    """Free and terrain areas as shapely's; the complete triangulation tiles the bounds; each triangle in its
    region."""
    assert m.triangle_areas().sum() == pytest.approx(g.free_area, rel=1e-9)
    np.testing.assert_allclose(m.terrain_areas(), g.areas, rtol=1e-9, atol=1e-9 * g.free_area)
    # The complete triangulation tiles the bounds; its obstacle part is the obstacles' area.
    x0, y0, x1, y1 = scene.bounds
    assert 0.5 * area2(m.vertices[m.xtriangles]).sum() == pytest.approx((x1 - x0) * (y1 - y0), rel=1e-12)
    assert np.array_equal(m.xtriangles[: m.n_triangles], m.triangles)
    cent = m.vertices[m.xtriangles[m.n_triangles:]].mean(axis=1)
    if len(cent):
        assert shapely.covers(g.obstacles, shapely.points(cent)).all()
    # Each free triangle's centroid lies in its terrain region (needle triangles of no area, made by nearly
    # collinear constraint vertices, take the type of their unconstrained neighbours instead).
    cent = m.vertices[m.triangles].mean(axis=1)
    fat = m.triangle_areas() > 1e-12 * (x1 - x0) * (y1 - y0)
    for k, region in enumerate(g.regions):
        sel = (m.tri_terrain == k) & fat
        assert shapely.covers(region, shapely.points(cent[sel])).all()


def assert_constraints(g, m) -> None:
    """Constraints where terrain changes and on the boundary; obstacle edges are the free space's outline."""
    # An edge between different terrain types, or on the boundary, is a constraint.
    nb = m.neighbors
    has = nb >= 0
    differ = np.zeros_like(has)
    differ[has] = m.tri_terrain[nb[has]] != np.repeat(m.tri_terrain[:, None], 3, axis=1)[has]
    assert np.all(m.constrained[differ])
    assert np.all(m.constrained[~has])
    # Obstacle edges are the free space's outline, free space on their left.
    e = m.obstacle_edges
    assert np.hypot(e[:, 2] - e[:, 0], e[:, 3] - e[:, 1]).sum() == pytest.approx(g.free.boundary.length, rel=1e-9)
    mid = 0.5 * (e[:, :2] + e[:, 2:])
    normal = np.column_stack([-(e[:, 3] - e[:, 1]), e[:, 2] - e[:, 0]])
    length = np.linalg.norm(normal, axis=1)
    # 1e-6 off each edge's middle, or a tenth of a shorter edge: where an obstacle crosses the bounds beside a terrain
    # edge a hair inside them, the outline turns within 2e-7, and a 1e-6 probe lands outside the free space on both
    # sides of such an edge (test_navmesh_build's case).
    probe = mid + (np.minimum(1e-6, 0.1 * length) / length)[:, None] * normal
    assert shapely.covers(g.free, shapely.points(probe)).all()


def assert_locate_seeds(m) -> None:
    """Each location grid cell's seed triangle contains the cell's centre."""
    x0, y0, cw, ch, nc, nr = m.locate_grid
    jj, ii = np.divmod(np.arange(int(nc) * int(nr)), int(nc))
    c = np.column_stack([x0 + (ii + 0.5) * cw, y0 + (jj + 0.5) * ch])
    v = m.vertices[m.xtriangles[m.locate_seed]]
    for k in range(3):
        a, b = v[:, k], v[:, (k + 1) % 3]
        cross = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
        assert np.all(cross >= -1e-9 * (cw + ch) ** 2)


def assert_navmesh_of(scene, m, g=None) -> None:
    """Every check above, against the scene's geometry (built afresh by shapely unless given)."""
    from core.scene import build_geometry

    g = build_geometry(scene) if g is None else g
    assert_dcel(m)
    assert_areas(scene, g, m)
    assert_constraints(g, m)
    assert_locate_seeds(m)
