"""Local updates of a NavMesh: an obstacle inserted, deleted or moved retriangulates only the cavity around it.

The cavity is the set of triangles of the complete triangulation that meet a box around each changed polygon, with
any triangles it encloses. Inside it the scene's geometry is derived afresh, as ``core.scene.geometry`` derives it
for the whole scene but clipped to the cavity (obstacles, the terrain painted in file order), its constraint lines
are noded and snapped as ``pslg`` does, and ``triangle`` triangulates them with the cavity's outline as constraints.
The new triangles replace the cavity's, whose outline keeps its vertices and edges, so the rest of the mesh is
untouched; the arrays are then numbered and assembled as a fresh build assembles them.

A local update is checked before it is used: the cavity's outline comes back edge for edge (a vertex that the
clipping left a hair off a straight outline edge is dissolved; an outline edge that a real constraint crosses
grows the cavity across it, a few times at most), its area is kept, and the free area inside it equals the clipped
geometry's. Where a check fails, ``local_update`` returns None and the caller builds the whole mesh afresh. The
result has the same free space and terrain as a fresh build of the new scene, triangulated differently inside the
cavity.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from core.scene.geometry import (SceneGeometry, boxes_meeting, obstacle_polygons, paint_terrain, polygon_parts,
                                 polygonal)
from core.scene.model import Scene
from core.triangulate import triangulate

from .build import _assemble, _classify, _edge_keys, _neighbors, _reorder, _unconstrained_components, \
    counter_clockwise
from .mesh import NavMesh
from .pslg import constraint_lines, pslg_of_lines

# The box around a changed polygon grows by this fraction of its size (and at least by MARGIN_SNAPS snaps), so the
# polygon lies strictly inside the cavity.
MARGIN_FRACTION = 0.05
MARGIN_SNAPS = 1e3
# Times the cavity grows across outline edges the local triangulation splits before the update gives up.
GROWTHS = 3
# A local vertex within this many snaps of a mesh vertex or an outline edge is on it.
NEAR_SNAPS = 4.0
# Relative tolerance of the area checks.
AREA_RTOL = 1e-9


def local_update(mesh: NavMesh, scene: Scene, changed: Sequence[Polygon]) -> NavMesh | None:
    """The navigation mesh of ``scene`` from ``mesh`` (that of the scene before the change), retriangulating only
    around the ``changed`` polygons (those inserted, deleted or moved, old and new places); None where the local
    update does not pass its checks, for the caller to build afresh."""
    XT, XN = mesh.xtriangles.astype(np.int64), mesh.xneighbors.astype(np.int64)
    p = mesh.vertices[XT]
    lo, hi = p.min(axis=1), p.max(axis=1)
    cav = _cavity(mesh, [g for g in changed if not g.is_empty], p, lo, hi)
    if not cav.any():
        return mesh  # every change lies outside the bounds
    for _ in range(GROWTHS + 1):
        got = _retriangulated(mesh, scene, _closed(cav, lo, hi, XN), XT, XN)
        if got is None or isinstance(got, NavMesh):
            return got
        cav = got
    return None


def _retriangulated(mesh: NavMesh, scene: Scene, cav: np.ndarray, XT: np.ndarray,
                    XN: np.ndarray) -> NavMesh | np.ndarray | None:
    """The mesh with the cavity ``cav`` retriangulated from the scene; or the cavity grown across the outline
    edges that the local triangulation splits (a vertex of the clipped geometry on them), to try again; or None."""
    V = mesh.vertices
    outline, across = _outline(XT, XN, cav)
    # One polygon, or several where the cavities of distant changes stay apart.
    P = shapely.union_all(shapely.polygons(V[XT[np.flatnonzero(cav)]]))
    g = _clipped_geometry(scene, P)
    lv, ls = pslg_of_lines(constraint_lines(g), mesh.snap)
    glob = _match_outline(lv, V, np.unique(outline), mesh.snap)
    if glob is None:
        return None
    lv, ls, glob = _dissolved(lv, ls, glob, V[outline[across >= 0]], mesh.snap)
    try:
        out = triangulate({"vertices": lv, "segments": ls}, "pQ")
    except RuntimeError:
        return None
    tv = np.asarray(out["vertices"], dtype=np.float64)
    if len(tv) != len(lv):
        return None  # triangle added a vertex where constraints cross: the cavity's noding was not exact
    lt = counter_clockwise(tv, np.asarray(out["triangles"], dtype=np.int64))
    lsegs = np.asarray(out.get("segments", ls), dtype=np.int64)
    # Every outline edge with a triangle across comes back edge for edge (one on the bounds may be split).
    gid = np.where(glob >= 0, glob, len(V) + np.cumsum(glob < 0) - 1)
    nv_all = len(V) + int(np.count_nonzero(glob < 0))
    local_edges = _edge_keys(gid[lt], gid[lt[:, [1, 2, 0]]], nv_all).reshape(-1)
    split = ~np.isin(_edge_keys(outline[:, 0], outline[:, 1], nv_all), local_edges) & (across >= 0)
    if split.any():
        grown = cav.copy()
        grown[across[split]] = True
        return grown
    terrain = _classify(g, lv, lt, _unconstrained_components(lt, lsegs, len(lv)), len(scene.terrain_types))
    area = _areas(lv, lt)
    if not _close(area.sum(), P.area, P.area) or not _close(area[terrain >= 0].sum(), g.free_area, P.area):
        return None
    # Splice: the cavity's triangles out, the new ones in; constraints outside the cavity kept.
    keep = ~cav
    Vn = np.concatenate([V, lv[glob < 0]])
    Tn = np.concatenate([XT[keep], gid[lt]])
    terr = np.concatenate([mesh.xterrain[keep], terrain.astype(np.int32)])
    csegs = np.concatenate([_kept_constraints(mesh, cav), gid[lsegs]])
    used = np.zeros(len(Vn), dtype=bool)
    used[Tn.reshape(-1)] = True
    renum = np.cumsum(used) - 1
    Vn, Tn, csegs = Vn[used], renum[Tn], renum[csegs]
    csegs = csegs[(csegs >= 0).all(axis=1)]
    Vn, Tn, terr, nt, vnew = _reorder(Vn, Tn, terr)
    return _assemble(scene, Vn, Tn, _neighbors(Tn, len(Vn)), terr, nt, vnew[csegs], mesh.snap)


def _cavity(mesh: NavMesh, changed: list, p: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """(nx,) bool: the triangles (corners ``p``, boxes ``lo``-``hi``) meeting the grown box of a changed polygon
    (none for a polygon outside the bounds)."""
    cav = np.zeros(len(p), dtype=bool)
    x0, y0, x1, y1 = mesh.bounds
    for poly in changed:
        a0, b0, a1, b1 = poly.bounds
        m = max(MARGIN_FRACTION * max(a1 - a0, b1 - b0), MARGIN_SNAPS * mesh.snap)
        box = (max(a0 - m, x0), max(b0 - m, y0), min(a1 + m, x1), min(b1 + m, y1))
        if box[0] >= box[2] or box[1] >= box[3]:
            continue
        near = np.flatnonzero((lo[:, 0] <= box[2]) & (hi[:, 0] >= box[0]) & (lo[:, 1] <= box[3])
                              & (hi[:, 1] >= box[1]) & ~cav)
        if len(near):
            meet = shapely.area(shapely.intersection(shapely.box(*box), shapely.polygons(p[near]))) > 0.0
            cav[near[meet]] = True
    return cav


def _closed(cav: np.ndarray, lo: np.ndarray, hi: np.ndarray, XN: np.ndarray) -> np.ndarray:
    """The cavity with the triangles it encloses: those inside its box that cannot reach the bounds without
    crossing it."""
    c = np.flatnonzero(cav)
    clo, chi = lo[c].min(axis=0), hi[c].max(axis=0)
    hole = ~cav & (lo[:, 0] >= clo[0]) & (hi[:, 0] <= chi[0]) & (lo[:, 1] >= clo[1]) & (hi[:, 1] <= chi[1])
    while hole.any():
        h = np.flatnonzero(hole)
        nb = XN[h]
        inside = np.where(nb >= 0, cav[nb] | hole[np.maximum(nb, 0)], False)
        leak = h[~inside.all(axis=1)]
        if len(leak) == 0:
            break
        hole[leak] = False
    return cav | hole


def _outline(XT: np.ndarray, XN: np.ndarray, cav: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cavity's outline: (k, 2) vertex pairs of its triangles' edges with no cavity triangle across, and (k,)
    the triangle across each (-1 on the bounds)."""
    t = np.flatnonzero(cav)
    nb = XN[t]
    out = (nb < 0) | ~cav[np.maximum(nb, 0)]
    ti, k = np.nonzero(out)
    a = XT[t[ti], k]
    b = XT[t[ti], (k + 1) % 3]
    return np.stack([a, b], axis=1), nb[ti, k]


def _clipped_geometry(scene: Scene, P: BaseGeometry) -> SceneGeometry:
    """The scene's geometry inside ``P`` (a polygon or several), as ``core.scene.geometry.build_geometry`` derives it
    for the whole scene but clipped to P: obstacles, free space and the painted terrain."""
    shapely.prepare(P)
    obst = [o for o in obstacle_polygons(scene, boxes_meeting(P.bounds)) if P.intersects(o)]
    obstacles = polygonal(shapely.intersection(shapely.union_all(obst), P)) if obst else MultiPolygon()
    free = polygonal(shapely.difference(P, obstacles)) if not obstacles.is_empty else P
    regions, areas = paint_terrain(scene, free, P)
    return SceneGeometry(P, obstacles, free, regions, areas, float(free.area), tuple(polygon_parts(free)))


def _match_outline(lv: np.ndarray, V: np.ndarray, outline_v: np.ndarray, snap: float) -> np.ndarray | None:
    """(n,) int64: the mesh vertex each local vertex is (an outline vertex, its coordinates set to the mesh's
    exactly), -1 for a new vertex; None when an outline vertex has no local vertex."""
    glob = np.full(len(lv), -1, dtype=np.int64)
    tree = shapely.STRtree(shapely.points(lv))
    oi, li = tree.query(shapely.points(V[outline_v]), predicate="dwithin", distance=NEAR_SNAPS * snap)
    if len(oi) != len(outline_v) or len(np.unique(oi)) != len(oi) or len(np.unique(li)) != len(li):
        return None
    glob[li] = outline_v[oi]
    lv[li] = V[outline_v[oi]]
    return glob


def _dissolved(lv: np.ndarray, ls: np.ndarray, glob: np.ndarray, edges: np.ndarray,
               snap: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The local constraints without the new vertices that only continue an outline edge (``edges`` (k, 2, 2)):
    an overlay that clipped the geometry to the cavity leaves a vertex where another polygon's edge crossed the
    cavity's outline, a hair off that straight edge, which would split it."""
    if len(edges) == 0:
        return lv, ls, glob
    lines = shapely.linestrings(edges)
    vi, ei = shapely.STRtree(lines).query(shapely.points(lv), predicate="dwithin", distance=NEAR_SNAPS * snap)
    gone = np.zeros(len(lv), dtype=bool)
    segs = [tuple(e) for e in ls.tolist()]
    for v, e in zip(vi.tolist(), ei.tolist()):
        if glob[v] >= 0 or gone[v]:
            continue
        mine = [sg for sg in segs if v in sg]
        ends = [a if b == v else b for a, b in mine]
        if len(mine) != 2 or not (shapely.distance(lines[e], shapely.points(lv[ends])) <= NEAR_SNAPS * snap).all():
            continue
        segs = [sg for sg in segs if v not in sg] + [(ends[0], ends[1])]
        gone[v] = True
    if not gone.any():
        return lv, ls, glob
    renum = np.cumsum(~gone) - 1
    return lv[~gone], renum[np.asarray(segs, dtype=np.int64)].astype(ls.dtype), glob[~gone]


def _kept_constraints(mesh: NavMesh, cav: np.ndarray) -> np.ndarray:
    """(k, 2) vertex pairs of the constraint edges of the free triangles outside the cavity."""
    nt = mesh.n_triangles
    t, k = np.nonzero(mesh.constrained & ~cav[:nt, None])
    T = mesh.triangles.astype(np.int64)
    return np.stack([T[t, k], T[t, (k + 1) % 3]], axis=1)


def _areas(V: np.ndarray, T: np.ndarray) -> np.ndarray:
    p = V[T]
    return 0.5 * ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
                  - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= AREA_RTOL * max(scale, 1.0)
