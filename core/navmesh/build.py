"""Build a NavMesh from a Scene: PSLG -> ``triangle`` (no refinement) -> terrain per triangle -> DCEL and grids."""

from __future__ import annotations

from typing import Callable

import numpy as np
import shapely

from core.scene.geometry import SceneGeometry, build_geometry
from core.scene.model import Scene
from core.triangulate import triangulate

from .kernels.grids import bin_edges, grid_meta, seed_cells
from .kernels.predicates import orient
from .mesh import NavMesh
from .pslg import pslg

# progress(fraction in [0, 1], stage) -> False to cancel the build (any other value continues).
Progress = Callable[[float, str], object]


class BuildCancelled(Exception):
    """Raised when a build's progress callback returns False."""


def _report(progress: Progress | None, fraction: float, stage: str) -> None:
    if progress is not None and progress(fraction, stage) is False:
        raise BuildCancelled(stage)


def build_navmesh(scene: Scene, geometry: SceneGeometry | None = None,
                  progress: Progress | None = None) -> NavMesh:
    """Constrained triangulation of the scene's free space with a terrain type per triangle, its DCEL and grids.

    Obstacle outlines, the bounds and every terrain boundary are constraints; obstacles are holes of the free
    mesh but stay triangulated in the complete triangulation (``xtriangles``) that the walks use. No quality
    refinement (``triangle`` switch ``p`` only), so the mesh stays small. Each triangle's terrain type is that of
    the region containing its centroid (triangles never straddle a region boundary, which is a constraint).
    """
    _report(progress, 0.0, "geometry")
    g = geometry if geometry is not None else build_geometry(scene)
    _report(progress, 0.1, "constraints")
    verts, segs, snap = pslg(g)
    _report(progress, 0.3, "triangulation")
    out = triangulate({"vertices": verts, "segments": segs}, "pQ")
    V = np.ascontiguousarray(out["vertices"], dtype=np.float64)
    T = counter_clockwise(V, np.ascontiguousarray(out["triangles"], dtype=np.int64))
    csegs = np.asarray(out.get("segments", segs), dtype=np.int64)
    _report(progress, 0.5, "terrain")
    terrain = _classify(g, V, T, _unconstrained_components(T, csegs, len(V)), len(scene.terrain_types))
    _report(progress, 0.7, "dcel")
    V, T, terrain, nt, vnew = _reorder(V, T, terrain)
    XN = _neighbors(T, len(V))
    mesh = _assemble(scene, V, T, XN, terrain, nt, vnew[csegs], snap)
    _report(progress, 1.0, "done")
    return mesh


def counter_clockwise(V: np.ndarray, T: np.ndarray) -> np.ndarray:
    """``T`` with every triangle counter-clockwise and the degenerate ones dropped (a sliver whose floating-point
    area rounds to 0 gets its orientation from the exact predicate)."""
    p = V[T]
    area2 = ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
             - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))
    for i in np.flatnonzero(area2 == 0):
        area2[i] = orient(*p[i, 0], *p[i, 1], *p[i, 2])
    T[area2 < 0] = T[area2 < 0][:, [0, 2, 1]]
    return T[area2 != 0]


def _unconstrained_components(T: np.ndarray, csegs: np.ndarray, nv: int) -> np.ndarray:
    """Label of each triangle's component when triangles sharing an unconstrained edge are joined.

    No region boundary crosses an unconstrained edge, so a component lies in one region (or one obstacle)."""
    nb = _neighbors(T, nv).astype(np.int64)
    free_edge = ~np.isin(_edge_keys(T, T[:, [1, 2, 0]], nv), _edge_keys(csegs[:, 0], csegs[:, 1], nv)) & (nb >= 0)
    a = np.repeat(np.arange(len(T)), 3).reshape(-1, 3)[free_edge]
    b = nb[free_edge]
    label = np.arange(len(T))
    while True:
        m = np.minimum(label[a], label[b])
        new = label.copy()
        np.minimum.at(new, a, m)
        np.minimum.at(new, b, m)
        new = new[new]  # pointer jumping
        if np.array_equal(new, label):
            return label
        label = new


def _classify(g: SceneGeometry, V: np.ndarray, T: np.ndarray, comp: np.ndarray, ntypes: int) -> np.ndarray:
    """Terrain index of each triangle, -1 inside obstacles: per component of ``comp``, the region containing the
    centroid of its largest triangle (needle triangles' own centroids may round across a boundary)."""
    p = V[T]
    area = np.abs((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
                  - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))
    order = np.lexsort((-area, comp))
    first = np.ones(len(order), dtype=bool)
    first[1:] = comp[order][1:] != comp[order][:-1]
    rep = order[first]  # the largest triangle of each component
    rep_terrain = _classify_points(g, p[rep].mean(axis=1), ntypes)
    lookup = np.full(len(T), -1, dtype=np.int32)
    lookup[comp[rep]] = rep_terrain
    return lookup[comp]


def _classify_points(g: SceneGeometry, cent: np.ndarray, ntypes: int) -> np.ndarray:
    """Terrain index of the region containing each point; -1 inside obstacles."""
    terrain = np.full(len(cent), -1, dtype=np.int32)
    for k, region in enumerate(g.regions):
        if region.is_empty:
            continue
        shapely.prepare(region)
        terrain[shapely.contains_xy(region, cent[:, 0], cent[:, 1]) & (terrain < 0)] = k
    lost = np.flatnonzero(terrain < 0)
    if len(lost) and not g.obstacles.is_empty:
        shapely.prepare(g.obstacles)
        lost = lost[~shapely.contains_xy(g.obstacles, cent[lost, 0], cent[lost, 1])]
    for i in lost:
        # A centroid on a region boundary up to rounding (needle triangles): the nearest region owns it.
        pt = shapely.Point(cent[i])
        d = [r.distance(pt) if not r.is_empty else np.inf for r in g.regions]
        terrain[i] = int(np.argmin(d)) if ntypes else -1
    return terrain


def _morton(xy: np.ndarray) -> np.ndarray:
    """Z-order key of points (16 bits per axis), for cache-friendly numbering."""
    lo = xy.min(axis=0)
    span = np.maximum(xy.max(axis=0) - lo, 1e-300)
    q = np.clip(((xy - lo) / span * 65535.0).astype(np.uint64), 0, 65535)
    key = np.zeros(len(xy), dtype=np.uint64)
    for b in range(16):
        key |= ((q[:, 0] >> np.uint64(b)) & np.uint64(1)) << np.uint64(2 * b)
        key |= ((q[:, 1] >> np.uint64(b)) & np.uint64(1)) << np.uint64(2 * b + 1)
    return key


def _reorder(V, T, terrain):
    """Number vertices and triangles in Z-order, free triangles first."""
    vorder = np.argsort(_morton(V), kind="stable")
    vnew = np.empty(len(V), dtype=np.int64)
    vnew[vorder] = np.arange(len(V))
    V = V[vorder]
    T = vnew[T]
    key = _morton(V[T].mean(axis=1))
    torder = np.lexsort((key, terrain < 0))
    T = T[torder]
    terrain = terrain[torder]
    nt = int(np.count_nonzero(terrain >= 0))
    return V, T, terrain, nt, vnew


def _neighbors(T: np.ndarray, nv: int) -> np.ndarray:
    """Triangle across each edge k = (T[t,k], T[t,(k+1)%3]); -1 where no other triangle shares it."""
    n = len(T)
    a = T.reshape(-1)
    b = T[:, [1, 2, 0]].reshape(-1)
    key = np.minimum(a, b) * nv + np.maximum(a, b)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    same = np.flatnonzero(ks[1:] == ks[:-1])
    nb = np.full(3 * n, -1, dtype=np.int64)
    h1, h2 = order[same], order[same + 1]
    nb[h1] = h2 // 3
    nb[h2] = h1 // 3
    return nb.reshape(n, 3).astype(np.int32)


def _edge_keys(a: np.ndarray, b: np.ndarray, nv: int) -> np.ndarray:
    return np.minimum(a, b).astype(np.int64) * nv + np.maximum(a, b)


def _terrain_boundaries(V: np.ndarray, tris: np.ndarray, nbr: np.ndarray, terrain: np.ndarray):
    """The free edges between triangles of different terrain types, each once: (edges (k, 4) float64 [x0, y0, x1,
    y1], sides (k, 2) int32 [terrain on the left, on the right]) (what ``kernels.crossings`` crosses)."""
    t, k = np.nonzero(nbr >= 0)
    nb = nbr[t, k]
    keep = (t < nb) & (terrain[t] != terrain[nb])
    t, k, nb = t[keep], k[keep], nb[keep]
    a = tris[t, k]
    b = tris[t, (k + 1) % 3]
    edges = np.ascontiguousarray(np.concatenate([V[a], V[b]], axis=1), dtype=np.float64).reshape(-1, 4)
    sides = np.ascontiguousarray(np.column_stack([terrain[t], terrain[nb]]), dtype=np.int32).reshape(-1, 2)
    return edges, sides


def _assemble(scene, V, T, XN, terrain, nt, csegs, snap) -> NavMesh:
    T32 = T.astype(np.int32)
    tris = np.ascontiguousarray(T32[:nt])
    nbr = XN[:nt].copy()
    nbr[(nbr >= nt)] = -1
    # Constraint flags per free edge: the edge is one of triangle's output segments, or on the boundary.
    ckeys = _edge_keys(csegs[:, 0], csegs[:, 1], len(V))
    constrained = np.isin(_edge_keys(tris, tris[:, [1, 2, 0]], len(V)), ckeys) | (nbr < 0)
    # DCEL.
    nh = 3 * nt
    he = np.arange(nh)
    he_origin = tris.reshape(-1).astype(np.int32)
    he_face = (he // 3).astype(np.int32)
    he_next = (3 * (he // 3) + (he % 3 + 1) % 3).astype(np.int32)
    he_prev = (3 * (he // 3) + (he % 3 + 2) % 3).astype(np.int32)
    flat_nb = nbr.reshape(-1)
    he_twin = np.full(nh, -1, dtype=np.int32)
    has = flat_nb >= 0
    u = flat_nb[has]
    # Edge index j in the neighbour u with nbr[u, j] == this face.
    match = nbr[u] == he_face[has][:, None]
    he_twin[has] = (3 * u + np.argmax(match, axis=1)).astype(np.int32)
    he_blocked = he_twin < 0
    face_he = (3 * np.arange(nt)).astype(np.int32)
    vert_he = np.full(len(V), -1, dtype=np.int32)
    vert_he[he_origin[::-1]] = he[::-1].astype(np.int32)
    # Obstacle edges: blocked half-edges, free space on their left.
    hb = np.flatnonzero(he_blocked)
    E = np.ascontiguousarray(np.concatenate([V[he_origin[hb]], V[he_origin[he_next[hb]]]], axis=1))
    x0, y0, x1, y1 = (float(x) for x in scene.bounds)
    bounds = (x0, y0, x1, y1)
    EG = grid_meta(bounds, max(len(E), 1))
    ES, EI = bin_edges(E, EG)
    TE, TD = _terrain_boundaries(V, tris, nbr, terrain[:nt])
    TG = grid_meta(bounds, max(len(TE), 1))
    TS, TI = bin_edges(TE, TG)
    G = grid_meta(bounds, 2 * len(T))
    S = np.empty(int(G[4]) * int(G[5]), dtype=np.int32)
    missing = seed_cells(V, T32, G, S)
    if missing:
        raise RuntimeError(f"navmesh: {missing} location cells have no seed triangle (triangulation does not tile "
                           f"the bounds)")
    return NavMesh(
        vertices=V, triangles=tris, neighbors=nbr, constrained=constrained, tri_terrain=terrain[:nt].copy(),
        he_origin=he_origin, he_twin=he_twin, he_next=he_next, he_prev=he_prev, he_face=he_face, face_he=face_he,
        he_blocked=he_blocked, vert_he=vert_he, obstacle_edges=E, edge_grid=EG, edge_cell_start=ES,
        edge_cell_items=EI, terrain_edges=TE, terrain_sides=TD, terrain_grid=TG, terrain_cell_start=TS,
        terrain_cell_items=TI, xtriangles=T32, xneighbors=XN, xterrain=terrain.astype(np.int32), locate_grid=G,
        locate_seed=S, bounds=bounds, bounds_arr=np.array(bounds, dtype=np.float64),
        n_terrain_types=len(scene.terrain_types), terrain_ids=tuple(t.id for t in scene.terrain_types), snap=snap,
    )
