"""The GVD's sites: the obstacles' boundary rings, their convex pieces and the four walls of the bounds.

ECM section II-A requires convex obstacles; a non-convex obstacle (or a union of overlapping ones, with holes) is
triangulated with ``triangle`` and the triangles merged after Hertel and Mehlhorn into convex pieces. Every site
is drawn on the GPU as its own colour; the exact annotation later works on the rings' vertices and edges, so each
piece also lists which of its edges are real obstacle edges (ring edges) rather than decomposition diagonals.

Ring convention: every ring has the obstacle on its left and the free space on its right; obstacle exteriors run
counter-clockwise, holes of the obstacle union clockwise, and the bounds (the "walls", with the outside of the box
as their obstacle) clockwise. The free-side unit normal of ring edge i (``ring_xy[i] -> ring_xy[ring_next[i]]``)
is ``(dy, -dx) / length``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from core.scene.geometry import SceneGeometry, obstacle_polygons, polygon_parts
from core.kernels.geometry import orient_points
from core.triangulate import triangulate

#: Vertices whose turn is below this (sine of the turning angle) are dropped as collinear.
COLLINEAR_SINE = 1e-9
#: The GPU shader reads a site's real-edge flags from a 64-bit mask: larger convex pieces are fanned into parts.
MAX_PIECE_VERTICES = 64


@dataclass(frozen=True, eq=False)
class Sites:
    """Obstacle rings and GVD sites as flat arrays (scene units throughout).

    Rings (obstacle boundaries plus the walls, which are the last ring):

    - ``ring_xy`` (nv, 2) float64: ring vertices; ``ring_next``/``ring_prev`` (nv,) int32: the following and the
      preceding vertex of the same ring; ring edge i runs from vertex i to ``ring_next[i]``.
    - ``ring_of`` (nv,) int32: ring index of each vertex; ``ring_ptr`` (nr + 1,) int32: ring r's vertices are
      ``ring_ptr[r]:ring_ptr[r+1]``, in ring order.
    - ``ring_pos`` (nv,) float64: arc length from the ring's first vertex to vertex i; ``ring_len`` (nr,) float64.
    - ``edge_normal`` (nv, 2) float64: free-side unit normal of ring edge i.

    Sites (convex pieces of the obstacles, then the four walls):

    - ``piece_ptr`` (ns + 1,) int32 and ``piece_vert`` (m,) int32: site s is the counter-clockwise convex polygon
      ``ring_xy[piece_vert[piece_ptr[s]:piece_ptr[s+1]]]``; a wall is a two-vertex segment.
    - ``real_ptr`` (ns + 1,) int32 and ``real_edge`` (k,) int32: the ring edges that bound site s (its other edges
      are diagonals inside an obstacle).
    - ``piece_comp`` (ns,) int32: the obstacle component (polygon of the union) of each site; walls get
      ``n_components``.
    - ``piece_bbox`` (ns, 4) float64: [xmin, ymin, xmax, ymax].
    - ``bounds`` (4,) float64; ``n_walls`` = 4; ``scale``: the bounds' diagonal.
    """

    ring_xy: np.ndarray
    ring_next: np.ndarray
    ring_prev: np.ndarray
    ring_of: np.ndarray
    ring_ptr: np.ndarray
    ring_pos: np.ndarray
    ring_len: np.ndarray
    edge_normal: np.ndarray
    piece_ptr: np.ndarray
    piece_vert: np.ndarray
    real_ptr: np.ndarray
    real_edge: np.ndarray
    piece_comp: np.ndarray
    piece_bbox: np.ndarray
    bounds: np.ndarray
    n_components: int
    scale: float

    @property
    def n_sites(self) -> int:
        return len(self.piece_ptr) - 1

    @property
    def n_vertices(self) -> int:
        return len(self.ring_xy)

    @property
    def n_obstacle_vertices(self) -> int:
        """Ring vertices of the obstacles (the walls' four corners not counted)."""
        return int(self.ring_ptr[-2]) if len(self.ring_ptr) > 1 else 0

    def piece(self, s: int) -> np.ndarray:
        """(m, 2) vertices of site s, counter-clockwise."""
        return self.ring_xy[self.piece_vert[self.piece_ptr[s]:self.piece_ptr[s + 1]]]

    def segments(self) -> np.ndarray:
        """(nv, 4) float64 every ring edge [x0, y0, x1, y1], walls included."""
        return np.hstack([self.ring_xy, self.ring_xy[self.ring_next]])

    def obstacle_segments(self) -> np.ndarray:
        """(n, 4) float64 the obstacles' ring edges (walls excluded)."""
        return self.segments()[: self.n_obstacle_vertices]


def _next(a: np.ndarray) -> np.ndarray:
    """a shifted by one: row i holds a[i + 1] (cyclically); np.roll is slow on small arrays."""
    return np.concatenate((a[1:], a[:1]))


def _prev(a: np.ndarray) -> np.ndarray:
    return np.concatenate((a[-1:], a[:-1]))


def _clean(coords: np.ndarray) -> np.ndarray:
    """A closed ring's distinct vertices without repeated or collinear ones."""
    a = np.asarray(coords, dtype=np.float64)[:-1]
    changed = True
    while changed and len(a) >= 3:
        changed = False
        nxt = _next(a)
        prv = _prev(a)
        d0 = a - prv
        d1 = nxt - a
        l0 = np.hypot(d0[:, 0], d0[:, 1])
        l1 = np.hypot(d1[:, 0], d1[:, 1])
        cross = d0[:, 0] * d1[:, 1] - d0[:, 1] * d1[:, 0]
        dot = d0[:, 0] * d1[:, 0] + d0[:, 1] * d1[:, 1]
        bad = (l0 == 0) | (np.abs(cross) <= COLLINEAR_SINE * l0 * l1) & (dot > 0)
        if bad.any():
            # Drop one of every run of bad vertices per pass so that neighbours are re-evaluated.
            idx = np.flatnonzero(bad)
            keep = np.ones(len(a), dtype=bool)
            keep[idx[0]] = False
            last = idx[0]
            for i in idx[1:]:
                if i > last + 1:
                    keep[i] = False
                    last = i
            a = a[keep]
            changed = True
    return a


def _polygons(g: BaseGeometry) -> list[Polygon]:
    return [p for p in polygon_parts(g) if p.area > 0]


def _convex_pieces(xy: np.ndarray, rings: list[np.ndarray], holes: list[tuple[float, float]]) -> list[list[int]]:
    """Counter-clockwise convex pieces (global vertex ids) of one polygon with holes: triangulation + Hertel-Mehlhorn.

    ``rings`` are the global vertex ids of the exterior and hole rings in ring order.
    """
    ids = np.concatenate(rings)
    local = {int(g): k for k, g in enumerate(ids)}
    segs = []
    for r in rings:
        for i in range(len(r)):
            segs.append((local[int(r[i])], local[int(r[(i + 1) % len(r)])]))
    data = {"vertices": xy[ids], "segments": np.asarray(segs, dtype=np.int32)}
    if holes:
        data["holes"] = np.asarray(holes, dtype=np.float64)
    out = triangulate(data, "pQ")
    tv = np.asarray(out["vertices"])
    if len(tv) != len(ids):
        raise ValueError("the triangulation of an obstacle added Steiner points")
    tris = np.asarray(out["triangles"], dtype=np.int64)
    a, b, c = tv[tris[:, 0]], tv[tris[:, 1]], tv[tris[:, 2]]
    cw = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]) < 0
    tris[cw] = tris[cw][:, ::-1]
    tris = ids[tris]
    return _hertel_mehlhorn(xy, tris, 1e-12 * float(np.max(np.abs(xy[ids])) + 1.0) ** 2)


def _hertel_mehlhorn(xy: np.ndarray, tris: np.ndarray, eps: float) -> list[list[int]]:
    """Merge counter-clockwise triangles across their diagonals, longest first, while the result stays convex.

    Pieces are circular lists of half-edges and a merge splices two of them in constant time (a list of pieces
    copied at every merge was quadratic: a comb of 20,000 vertices, whose valleys lie on one line, took minutes).
    A piece is named by its first triangle (union-find) and starts at the head of the diagonal it was last merged
    across, as the list version did.
    """
    nt = len(tris)
    src = tris.reshape(-1).astype(np.int64)                      # half-edge 3 t + k runs src -> dst
    dst = tris[:, [1, 2, 0]].reshape(-1).astype(np.int64)
    nxt = (np.arange(3 * nt).reshape(nt, 3)[:, [1, 2, 0]]).reshape(-1).tolist()
    prv = (np.arange(3 * nt).reshape(nt, 3)[:, [2, 0, 1]]).reshape(-1).tolist()
    src_l, dst_l = src.tolist(), dst.tolist()
    half = {(u, v): h for h, (u, v) in enumerate(zip(src_l, dst_l))}
    head = list(range(0, 3 * nt, 3))                             # first half-edge of each piece (by root)
    parent = list(range(nt))

    def root(t: int) -> int:
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    diagonals = [(u, v) for (u, v) in half if u < v and (v, u) in half]
    ends = np.array(diagonals, dtype=np.int64).reshape(-1, 2)
    lengths = np.hypot(*(xy[ends[:, 0]] - xy[ends[:, 1]]).T) if len(ends) else np.zeros(0)
    # Longest diagonals first: fewer, rounder pieces.
    for k in np.argsort(lengths)[::-1].tolist():
        u, v = diagonals[k]
        h1, h2 = half[(u, v)], half[(v, u)]
        pa, pb = root(h1 // 3), root(h2 // 3)
        if pa == pb:
            continue
        p1, n1, p2, n2 = prv[h1], nxt[h1], prv[h2], nxt[h2]
        if orient_points(xy[src_l[p1]], xy[u], xy[dst_l[n2]]) < -eps:
            continue
        if orient_points(xy[src_l[p2]], xy[v], xy[dst_l[n1]]) < -eps:
            continue
        nxt[p1], prv[n2], nxt[p2], prv[n1] = n2, p1, n1, p2
        parent[pb] = pa
        head[pa] = n1
    pieces = []
    for t in range(nt):
        if parent[t] != t:
            continue
        cyc, h = [], head[t]
        while True:
            cyc.append(int(src_l[h]))
            h = nxt[h]
            if h == head[t]:
                break
        pieces.append(cyc)
    return pieces


def _fan_split(cyc: list[int], limit: int = MAX_PIECE_VERTICES) -> list[list[int]]:
    """A convex cycle cut by diagonals from its first vertex into convex parts of at most ``limit`` vertices."""
    if len(cyc) <= limit:
        return [cyc]
    parts = []
    k = 1
    while k < len(cyc) - 1:
        end = min(len(cyc) - 1, k + limit - 2)
        parts.append([cyc[0]] + cyc[k:end + 1])
        k = end
    return parts


def _is_convex_ccw(xy: np.ndarray) -> bool:
    d = _next(xy) - xy
    dn = _next(d)
    cross = d[:, 0] * dn[:, 1] - d[:, 1] * dn[:, 0]
    return bool(np.all(cross > 0))


def obstacle_union(scene) -> BaseGeometry:
    """The union of a scene's obstacles clipped to its bounds (what ``SceneGeometry.obstacles`` holds, without the
    terrain painting that ``build_geometry`` also does)."""
    return shapely.intersection(shapely.union_all(obstacle_polygons(scene)), shapely.box(*scene.bounds))


def build_sites(obstacles: BaseGeometry | SceneGeometry, bounds) -> Sites:
    """The rings, convex pieces and walls of an obstacle union clipped to ``bounds`` (a SceneGeometry's
    ``obstacles``, or the SceneGeometry itself) inside ``bounds``."""
    if isinstance(obstacles, SceneGeometry):
        obstacles = obstacles.obstacles
    x0, y0, x1, y1 = (float(v) for v in bounds)
    ring_list: list[np.ndarray] = []
    comp_rings: list[tuple[int, list[int], list[tuple[float, float]]]] = []  # (comp, ring ids, hole points)
    for comp, poly in enumerate(_polygons(obstacles)):
        poly = shapely.geometry.polygon.orient(poly, 1.0)
        ext = _clean(np.asarray(poly.exterior.coords))
        if len(ext) < 3:
            continue
        rids = [len(ring_list)]
        ring_list.append(ext)
        hole_pts = []
        for hole in poly.interiors:
            h = _clean(np.asarray(hole.coords))
            if len(h) < 3:
                continue
            rids.append(len(ring_list))
            ring_list.append(h)
            hole_pts.append(Polygon(h).representative_point().coords[0])
        comp_rings.append((comp, rids, hole_pts))
    n_comp = len(comp_rings)
    walls = np.array([[x0, y0], [x0, y1], [x1, y1], [x1, y0]], dtype=np.float64)
    ring_list.append(walls)
    sizes = np.array([len(r) for r in ring_list], dtype=np.int64)
    ring_ptr = np.zeros(len(ring_list) + 1, dtype=np.int32)
    np.cumsum(sizes, out=ring_ptr[1:])
    xy = np.ascontiguousarray(np.vstack(ring_list))
    nv = len(xy)
    idx = np.arange(nv, dtype=np.int32)
    ring_of = np.repeat(np.arange(len(ring_list), dtype=np.int32), sizes)
    start = ring_ptr[:-1][ring_of]
    size = sizes[ring_of].astype(np.int32)
    ring_next = (start + (idx - start + 1) % size).astype(np.int32)
    ring_prev = (start + (idx - start - 1) % size).astype(np.int32)
    d = xy[ring_next] - xy
    elen = np.hypot(d[:, 0], d[:, 1])
    normal = np.column_stack([d[:, 1], -d[:, 0]]) / elen[:, None]
    ring_pos = np.zeros(nv, dtype=np.float64)
    ring_len = np.zeros(len(ring_list), dtype=np.float64)
    for r in range(len(ring_list)):
        a, b = ring_ptr[r], ring_ptr[r + 1]
        ring_pos[a:b] = np.concatenate([[0.0], np.cumsum(elen[a:b - 1])])
        ring_len[r] = float(np.sum(elen[a:b]))

    pieces: list[list[int]] = []
    comps: list[int] = []
    for comp, rids, hole_pts in comp_rings:
        rings = [np.arange(ring_ptr[r], ring_ptr[r + 1]) for r in rids]
        if len(rids) == 1 and _is_convex_ccw(xy[rings[0]]):
            cyc = [[int(v) for v in rings[0]]]
        else:
            cyc = _convex_pieces(xy, rings, hole_pts)
        cyc = [part for c in cyc for part in _fan_split(c)]
        pieces.extend(cyc)
        comps.extend([comp] * len(cyc))
    wb = int(ring_ptr[-2])
    for k in range(4):
        pieces.append([wb + k, wb + (k + 1) % 4])
        comps.append(n_comp)
    ns = len(pieces)
    piece_ptr = np.zeros(ns + 1, dtype=np.int32)
    np.cumsum([len(p) for p in pieces], out=piece_ptr[1:])
    piece_vert = np.array([v for p in pieces for v in p], dtype=np.int32)
    real: list[list[int]] = []
    for p in pieces:
        if len(p) == 2:
            real.append([p[0]])
            continue
        real.append([p[k] for k in range(len(p)) if ring_next[p[k]] == p[(k + 1) % len(p)]])
    real_ptr = np.zeros(ns + 1, dtype=np.int32)
    np.cumsum([len(r) for r in real], out=real_ptr[1:])
    real_edge = np.array([e for r in real for e in r], dtype=np.int32)
    bbox = np.empty((ns, 4), dtype=np.float64)
    for s, p in enumerate(pieces):
        q = xy[p]
        bbox[s] = [q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()]
    return Sites(
        ring_xy=xy, ring_next=ring_next, ring_prev=ring_prev, ring_of=ring_of, ring_ptr=ring_ptr,
        ring_pos=ring_pos, ring_len=ring_len, edge_normal=np.ascontiguousarray(normal),
        piece_ptr=piece_ptr, piece_vert=piece_vert, real_ptr=real_ptr, real_edge=real_edge,
        piece_comp=np.array(comps, dtype=np.int32), piece_bbox=bbox,
        bounds=np.array([x0, y0, x1, y1], dtype=np.float64), n_components=n_comp,
        scale=float(np.hypot(x1 - x0, y1 - y0)),
    )
