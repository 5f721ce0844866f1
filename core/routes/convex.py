"""Convex decomposition of the free space for the ``portal`` planner (Niederberger et al. 2004, section 6.1).

The free space is cut into trapezoids with horizontal tops and bottoms (the trapezoidal map that Seidel's algorithm
builds, here by a sweep over the vertices' y coordinates) and neighbouring trapezoids are merged after Hertel and
Mehlhorn: a shared edge is removed when both its end points stay convex in the merged polygon, longest edges first.
The shared edges left are the portals. A triangulation (``triangle``) can replace the trapezoids
(``pieces="triangles"``); the merging is the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from core.jitcache import jit
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from .freespace import boundary_segments, polygon_parts
from core.kernels.geometry import orient_points
from core.triangulate import triangulate


@dataclass(frozen=True, eq=False)
class ConvexDecomposition:
    """Convex cells tiling the free space, and the portals between them.

    - ``vertices``: (nv, 2) float64 vertex positions (scene units).
    - ``poly_ptr``: (P + 1,) int64, ``poly_verts``: (sum,) int64: cell p is the counter-clockwise vertex cycle
      ``poly_verts[poly_ptr[p]:poly_ptr[p + 1]]``.
    - ``portals``: (K, 2) int64 vertex indices (a, b) of each portal, a -> b counter-clockwise in cell
      ``portal_polys[k, 0]``; ``portal_polys``: (K, 2) int64 the cells on either side.
    - ``pp_ptr``: (P + 1,) int64, ``pp_idx``: (sum,) int64: the portals of cell p are
      ``pp_idx[pp_ptr[p]:pp_ptr[p + 1]]``.
    - ``n_pieces``: how many trapezoids (or triangles) were merged into the cells.
    - ``loc_*``: a uniform bucket grid for point location: ``loc_origin`` (2,), ``loc_size`` cell size,
      ``loc_shape`` (nx, ny), ``loc_ptr`` (nx * ny + 1,) int64 and ``loc_idx`` the cells overlapping each bucket.
    """

    vertices: np.ndarray
    poly_ptr: np.ndarray
    poly_verts: np.ndarray
    portals: np.ndarray
    portal_polys: np.ndarray
    pp_ptr: np.ndarray
    pp_idx: np.ndarray
    n_pieces: int
    loc_origin: np.ndarray
    loc_size: float
    loc_shape: tuple[int, int]
    loc_ptr: np.ndarray
    loc_idx: np.ndarray

    @property
    def n_polygons(self) -> int:
        return len(self.poly_ptr) - 1

    def polygon(self, p: int) -> np.ndarray:
        """(m, 2) counter-clockwise vertices of cell p."""
        return self.vertices[self.poly_verts[self.poly_ptr[p]:self.poly_ptr[p + 1]]]

    def portal_segments(self) -> np.ndarray:
        """(K, 4) float64 portal segments [x0, y0, x1, y1]."""
        return np.hstack([self.vertices[self.portals[:, 0]], self.vertices[self.portals[:, 1]]])

    def locate(self, pts: np.ndarray) -> np.ndarray:
        """(n,) int64 cell holding each point (-1 outside the decomposition)."""
        p = np.ascontiguousarray(np.asarray(pts, dtype=np.float64).reshape(-1, 2))
        out = np.empty(len(p), dtype=np.int64)
        for i in range(len(p)):
            out[i] = locate_kernel(self.vertices, self.poly_ptr, self.poly_verts, self.loc_origin, self.loc_size,
                                   self.loc_shape[0], self.loc_shape[1], self.loc_ptr, self.loc_idx, p[i])
        return out


def triangulate_free(free: BaseGeometry) -> tuple[np.ndarray, np.ndarray]:
    """Constrained triangulation of a polygonal free space: (vertices (nv, 2), triangles (nt, 3) counter-clockwise)."""
    all_v, all_t = [], []
    base = 0
    for poly in polygon_parts(free):
        index: dict[tuple[float, float], int] = {}
        verts: list[tuple[float, float]] = []
        segs: list[tuple[int, int]] = []
        holes = []
        for ring in [poly.exterior, *poly.interiors]:
            coords = list(ring.coords)[:-1]
            ids = []
            for c in coords:
                key = (float(c[0]), float(c[1]))
                if key not in index:
                    index[key] = len(verts)
                    verts.append(key)
                ids.append(index[key])
            for i in range(len(ids)):
                u, w = ids[i], ids[(i + 1) % len(ids)]
                if u != w:
                    segs.append((u, w))
        for ring in poly.interiors:
            holes.append(Polygon(ring).representative_point().coords[0])
        data = {"vertices": np.asarray(verts, dtype=np.float64), "segments": np.asarray(segs, dtype=np.int32)}
        if holes:
            data["holes"] = np.asarray(holes, dtype=np.float64)
        out = triangulate(data, "pQ")
        v = np.asarray(out["vertices"], dtype=np.float64)
        t = np.asarray(out.get("triangles", np.zeros((0, 3))), dtype=np.int64)
        if len(t):
            a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
            cw = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]) < 0
            t[cw] = t[cw][:, ::-1]
        all_v.append(v)
        all_t.append(t + base)
        base += len(v)
    if not all_v:
        return np.zeros((0, 2)), np.zeros((0, 3), dtype=np.int64)
    return np.vstack(all_v), np.vstack(all_t)


def trapezoidate(free: BaseGeometry) -> tuple[np.ndarray, list[list[int]]]:
    """Trapezoids of the free space with horizontal top and bottom (Niederberger 6.1, after Seidel): vertices and
    counter-clockwise vertex cycles. A horizontal line through every vertex cuts the free space into slabs; each slab
    is cut by the boundary edges crossing it into intervals (inside between the 2i-th and (2i+1)-th crossing), and
    intervals of consecutive slabs between the same two edges join into one trapezoid. Trapezoid corners lying on
    another trapezoid's top or bottom are inserted into it, so neighbouring cells share whole edges (the portals)."""
    segs = boundary_segments(free)
    if len(segs) == 0:
        return np.zeros((0, 2)), []
    lo_first = segs[:, 1] <= segs[:, 3]
    e = np.where(lo_first[:, None], segs, segs[:, [2, 3, 0, 1]])  # each edge from its lower to its upper end
    slanted = np.flatnonzero(e[:, 1] < e[:, 3])
    ys = np.unique(np.concatenate([segs[:, 1], segs[:, 3]]))

    def x_at(k: int, y: float) -> float:
        x0, y0, x1, y1 = e[k]
        if y == y0:
            return float(x0)
        if y == y1:
            return float(x1)
        return float(x0 + (x1 - x0) * (y - y0) / (y1 - y0))

    traps: list[list] = []  # [left edge, right edge, y bottom, y top]
    open_: dict[tuple[int, int], int] = {}
    elo, ehi = e[slanted, 1], e[slanted, 3]
    for k in range(len(ys) - 1):
        ya, yb = ys[k], ys[k + 1]
        act = slanted[(elo <= ya) & (ehi >= yb)]
        ym = 0.5 * (ya + yb)
        xm = e[act, 0] + (e[act, 2] - e[act, 0]) * (ym - e[act, 1]) / (e[act, 3] - e[act, 1])
        act = act[np.argsort(xm, kind="stable")]
        now: dict[tuple[int, int], int] = {}
        for i in range(0, len(act) - 1, 2):
            key = (int(act[i]), int(act[i + 1]))
            t = open_.get(key)
            if t is None:
                t = len(traps)
                traps.append([key[0], key[1], ya, yb])
            else:
                traps[t][3] = yb
            now[key] = t
        open_ = now
    # Corners, and the corners on each horizontal line (to split tops and bottoms at their neighbours' corners).
    index: dict[tuple[float, float], int] = {}
    verts: list[tuple[float, float]] = []

    def vid(x: float, y: float) -> int:
        key = (x, y)
        if key not in index:
            index[key] = len(verts)
            verts.append(key)
        return index[key]

    on_line: dict[float, set[float]] = {}
    corners = []
    for l, r, y0, y1 in traps:
        c = (x_at(l, y0), x_at(r, y0), x_at(r, y1), x_at(l, y1))
        corners.append(c)
        on_line.setdefault(y0, set()).update((c[0], c[1]))
        on_line.setdefault(y1, set()).update((c[2], c[3]))
    lines = {y: np.array(sorted(xs)) for y, xs in on_line.items()}
    cycles = []
    for (l, r, y0, y1), (bl, br, tr_, tl) in zip(traps, corners):
        xs0 = lines[y0]
        xs1 = lines[y1]
        bottom = [x for x in xs0[(xs0 > bl) & (xs0 < br)]]
        top = [x for x in xs1[(xs1 > tl) & (xs1 < tr_)]][::-1]
        pts = [(bl, y0)] + [(x, y0) for x in bottom] + [(br, y0), (tr_, y1)] + [(x, y1) for x in top] + [(tl, y1)]
        cyc: list[int] = []
        for x, y in pts:
            v = vid(float(x), float(y))
            if not cyc or cyc[-1] != v:
                cyc.append(v)
        if len(cyc) > 1 and cyc[0] == cyc[-1]:
            cyc.pop()
        if len(cyc) >= 3:
            cycles.append(cyc)
    return np.asarray(verts, dtype=np.float64).reshape(-1, 2), cycles


def hertel_mehlhorn(vertices: np.ndarray, cells) -> list[list[int]]:
    """Merge convex cells (triangles or trapezoids, counter-clockwise vertex cycles sharing whole edges) into larger
    convex polygons (Hertel-Mehlhorn); returns counter-clockwise vertex cycles."""
    polys: dict[int, list[int]] = {i: [int(v) for v in cyc] for i, cyc in enumerate(cells)}
    owner: dict[tuple[int, int], int] = {}
    for i, cyc in polys.items():
        for k in range(len(cyc)):
            owner[(cyc[k], cyc[(k + 1) % len(cyc)])] = i
    diagonals = [(u, v) for (u, v) in owner if u < v and (v, u) in owner]
    length = [float(np.hypot(*(vertices[u] - vertices[v]))) for u, v in diagonals]
    scale = max(1.0, float(np.max(np.abs(vertices)))) if len(vertices) else 1.0
    eps = 1e-12 * scale * scale
    for idx in np.argsort(length)[::-1]:
        u, v = diagonals[idx]
        pa, pb = owner.get((u, v)), owner.get((v, u))
        if pa is None or pb is None or pa == pb:
            continue
        A, B = polys[pa], polys[pb]
        ia, ib = A.index(u), B.index(v)
        # A holds the directed edge u -> v, B holds v -> u. Merged cycle: v .. (A) .. u .. (B) .. v.
        a_before_u = A[ia - 1]
        a_after_v = A[(ia + 2) % len(A)]
        b_before_v = B[ib - 1]
        b_after_u = B[(ib + 2) % len(B)]
        if orient_points(vertices[a_before_u], vertices[u], vertices[b_after_u]) < -eps:
            continue
        if orient_points(vertices[b_before_v], vertices[v], vertices[a_after_v]) < -eps:
            continue
        merged = [A[(ia + 1 + k) % len(A)] for k in range(len(A))]  # v, ..., u
        merged += [B[(ib + 2 + k) % len(B)] for k in range(len(B) - 2)]  # after u ... before v
        del owner[(u, v)], owner[(v, u)]
        for k in range(len(merged)):
            owner[(merged[k], merged[(k + 1) % len(merged)])] = pa
        polys[pa] = merged
        del polys[pb]
    return [polys[k] for k in sorted(polys)]


DECOMPOSITIONS = ("trapezoids", "triangles")


def decompose(free: BaseGeometry, pieces: str = "trapezoids") -> ConvexDecomposition:
    """Cut the free space into trapezoids (or triangles) and merge them into convex cells after Hertel-Mehlhorn."""
    cells: list[list[int]] | np.ndarray
    if pieces == "trapezoids":
        vertices, cells = trapezoidate(free)
    elif pieces == "triangles":
        vertices, cells = triangulate_free(free)
    else:
        raise ValueError(f"unknown decomposition {pieces!r} (valid: {', '.join(DECOMPOSITIONS)})")
    cycles = hertel_mehlhorn(vertices, cells)
    P = len(cycles)
    poly_ptr = np.zeros(P + 1, dtype=np.int64)
    np.cumsum([len(c) for c in cycles], out=poly_ptr[1:])
    poly_verts = np.array([v for c in cycles for v in c], dtype=np.int64)
    owner = {}
    for p, cyc in enumerate(cycles):
        for k in range(len(cyc)):
            owner[(cyc[k], cyc[(k + 1) % len(cyc)])] = p
    portals, portal_polys = [], []
    for (u, v), p in owner.items():
        q = owner.get((v, u))
        if q is not None and p < q:
            portals.append((u, v))
            portal_polys.append((p, q))
    portals_a = np.array(portals, dtype=np.int64).reshape(-1, 2)
    pp_a = np.array(portal_polys, dtype=np.int64).reshape(-1, 2)
    owners = np.concatenate([pp_a[:, 0], pp_a[:, 1]])
    ids = np.concatenate([np.arange(len(pp_a)), np.arange(len(pp_a))])
    order = np.argsort(owners, kind="stable")
    pp_ptr = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(np.bincount(owners, minlength=P), out=pp_ptr[1:])
    loc = _bucket_grid(vertices, poly_ptr, poly_verts)
    return ConvexDecomposition(vertices, poly_ptr, poly_verts, portals_a, pp_a, pp_ptr,
                               np.ascontiguousarray(ids[order]), len(cells), *loc)


def _bucket_grid(vertices, poly_ptr, poly_verts):
    """A uniform grid of about P buckets over the cells' box; each bucket lists the cells whose bounding box meets
    it (cell order within a bucket). Vectorised over the cells: a Python loop took a minute for 10^5 of them."""
    P = len(poly_ptr) - 1
    if P == 0:
        return np.zeros(2), 1.0, (1, 1), np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo = vertices.min(axis=0)
    hi = vertices.max(axis=0)
    ext = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-9))
    size = ext / max(1.0, np.ceil(np.sqrt(P)))
    nx = int(np.floor((hi[0] - lo[0]) / size)) + 1
    ny = int(np.floor((hi[1] - lo[1]) / size)) + 1
    pv = vertices[poly_verts]
    starts = np.asarray(poly_ptr[:-1], dtype=np.int64)
    i0, j0 = np.floor((np.minimum.reduceat(pv, starts, axis=0) - lo) / size).astype(np.int64).T
    i1, j1 = np.floor((np.maximum.reduceat(pv, starts, axis=0) - lo) / size).astype(np.int64).T
    wi = np.minimum(i1, nx - 1) - i0 + 1
    wj = np.minimum(j1, ny - 1) - j0 + 1
    count = wi * wj
    owners_a = np.repeat(np.arange(P, dtype=np.int64), count)
    k = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    w = wi[owners_a]
    cells_a = (j0[owners_a] + k // w) * nx + i0[owners_a] + k % w
    order = np.argsort(cells_a, kind="stable")
    ptr = np.zeros(nx * ny + 1, dtype=np.int64)
    np.cumsum(np.bincount(cells_a, minlength=nx * ny), out=ptr[1:])
    return lo.astype(np.float64), float(size), (nx, ny), ptr, np.ascontiguousarray(owners_a[order])


@jit
def point_in_convex(vertices, poly_ptr, poly_verts, p, x, tol):
    """Whether x lies in convex cell p, allowing a distance ``tol`` outside its edges."""
    a = poly_ptr[p]
    b = poly_ptr[p + 1]
    m = b - a
    for k in range(m):
        u = poly_verts[a + k]
        v = poly_verts[a + (k + 1) % m]
        ex = vertices[v, 0] - vertices[u, 0]
        ey = vertices[v, 1] - vertices[u, 1]
        c = ex * (x[1] - vertices[u, 1]) - ey * (x[0] - vertices[u, 0])
        if c < -tol * np.sqrt(ex * ex + ey * ey):
            return False
    return True


@jit
def locate_kernel(vertices, poly_ptr, poly_verts, origin, size, nx, ny, ptr, idx, x):
    """The cell holding x (-1 if none); exact test first, then a tolerance of 1e-9 of the bucket size."""
    i = int(np.floor((x[0] - origin[0]) / size))
    j = int(np.floor((x[1] - origin[1]) / size))
    if i < 0 or j < 0 or i >= nx or j >= ny:
        # Points on the far boundary of the box fall just outside the last bucket.
        if i == nx:
            i = nx - 1
        if j == ny:
            j = ny - 1
        if i < 0 or j < 0 or i >= nx or j >= ny:
            return -1
    c = j * nx + i
    for tol in (0.0, 1e-9 * size):
        for k in range(ptr[c], ptr[c + 1]):
            p = idx[k]
            if point_in_convex(vertices, poly_ptr, poly_verts, p, x, tol):
                return p
    return -1
