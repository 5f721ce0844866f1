"""Free space as the planners see it: clearance levels (eroded free space), visibility and clearance measures.

A planner asked for clearance C plans in the free space eroded by C, so every point of its route keeps C from the
obstacles and the bounds. The erosion is computed with shapely; the buffer radius is enlarged by 1/cos(pi/(4q)) so
that the polygonal approximation of each rounded corner (q segments per quarter circle) lies outside the true
circle of radius C, and by 1/(1 - 0.01) for GEOS's simplification of the buffer's input, so the guarantee holds for
the polygonal result, not only for the ideal one.

GEOS's buffer nodes every offset segment against every other one it crosses, so an obstacle whose edges lie much
closer together than the clearance (a comb of 20,000 vertices, teeth 4.5 mm apart, eroded by 0.25 m) took 16 s of
CPU and grows with the square of its vertices. Above ``PIECEWISE_VERTICES`` the erosion is computed as the bounds
shrunk by the clearance minus the obstacles' Minkowski sum with the disc, built as the union of the buffered
triangles of the obstacles (the sum distributes over a union, and the cascaded union merges neighbours first),
simplified within the margin kept for GEOS's simplification: 4.5 s on that comb (1.8 s of it the triangulation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from core.scene.geometry import SceneGeometry

QUAD_SEGS = 4
# GEOS simplifies the input of a buffer by this fraction of the distance (BufferParameters' simplify factor), so
# the offset may come that much closer; the radius is enlarged to make up for it.
GEOS_SIMPLIFY = 0.01
# Free spaces with more vertices than this are eroded piecewise (GEOS's own buffer takes 0.09 s at 2,000).
PIECEWISE_VERTICES = 2000


def polygon_parts(g: BaseGeometry) -> list[Polygon]:
    """The polygons of a (multi)polygonal or mixed geometry, dropping lines, points and zero-area parts."""
    if g.is_empty:
        return []
    if isinstance(g, Polygon):
        return [g] if g.area > 0 else []
    out: list[Polygon] = []
    for sub in getattr(g, "geoms", []):
        out.extend(polygon_parts(sub))
    return out


def _as_polygonal(parts: list[Polygon]) -> BaseGeometry:
    if not parts:
        return MultiPolygon()
    return parts[0] if len(parts) == 1 else MultiPolygon(parts)


def erode_geometry(geometry: SceneGeometry, clearance: float) -> SceneGeometry:
    """The scene geometry restricted to points at distance >= clearance from every obstacle and the bounds."""
    if clearance <= 0.0:
        return geometry
    r = clearance / (math.cos(math.pi / (4 * QUAD_SEGS)) * (1.0 - GEOS_SIMPLIFY))
    free = _as_polygonal(polygon_parts(_shrunk_free(geometry, r)))
    regions = tuple(_as_polygonal(polygon_parts(shapely.intersection(reg, free))) for reg in geometry.regions)
    areas = np.array([g.area for g in regions], dtype=np.float64)
    comps = tuple(sorted(polygon_parts(free), key=lambda p: -p.area))
    obstacles = shapely.difference(geometry.box, free)
    return SceneGeometry(geometry.box, obstacles, free, regions, areas, float(free.area), comps)


def _shrunk_free(geometry: SceneGeometry, r: float) -> BaseGeometry:
    """The free space minus everything within r of the obstacles or the bounds (see the module's note on speed)."""
    if shapely.get_num_coordinates(geometry.free) <= PIECEWISE_VERTICES:
        return shapely.buffer(geometry.free, -r, quad_segs=QUAD_SEGS)
    x0, y0, x1, y1 = geometry.box.bounds
    if x1 - x0 <= 2.0 * r or y1 - y0 <= 2.0 * r:
        return Polygon()
    inner = shapely.box(x0 + r, y0 + r, x1 - r, y1 - r)
    triangles = shapely.get_parts(shapely.constrained_delaunay_triangles(geometry.obstacles))
    grown = shapely.union_all(shapely.buffer(triangles, r, quad_segs=QUAD_SEGS))
    # The union keeps every arc's crossing with its neighbours' (five times GEOS's vertices on a comb). The triangles'
    # buffers were not simplified, so the margin r (1 - GEOS_SIMPLIFY) allowed for that is still free: simplify by it
    # (Douglas-Peucker moves no point further), which leaves fewer vertices than GEOS's own buffer.
    tolerance = GEOS_SIMPLIFY * r * math.cos(math.pi / (4 * QUAD_SEGS))
    return shapely.simplify(shapely.difference(inner, grown), tolerance, preserve_topology=True)


def boundary_segments(free: BaseGeometry) -> np.ndarray:
    """(k, 4) float64 segments [x0, y0, x1, y1] of every ring of a polygonal geometry."""
    segs = []
    for p in polygon_parts(free):
        for ring in [p.exterior, *p.interiors]:
            c = np.asarray(ring.coords, dtype=np.float64)
            if len(c) >= 2:
                segs.append(np.hstack([c[:-1], c[1:]]))
    return np.vstack(segs) if segs else np.zeros((0, 4), dtype=np.float64)


@dataclass(eq=False)
class FreeSpace:
    """The free space at one clearance level, with the queries the planners share.

    - ``clearance``: the level C in scene units (0 for the scene's own free space).
    - ``geometry``: the (eroded) SceneGeometry; ``free`` is prepared for fast predicates.
    - ``segments``: (k, 4) float64 boundary segments of ``free``; ``tree`` an STRtree over them.
    """

    clearance: float
    geometry: SceneGeometry

    def __post_init__(self) -> None:
        self.free = self.geometry.free
        shapely.prepare(self.free)
        self.segments = boundary_segments(self.free)
        self._lines = shapely.linestrings(self.segments.reshape(-1, 2, 2)) if len(self.segments) else np.array([])
        self.tree = shapely.STRtree(self._lines)

    @classmethod
    def of(cls, geometry: SceneGeometry, clearance: float = 0.0) -> "FreeSpace":
        """The free space of a scene geometry eroded by ``clearance``."""
        return cls(float(clearance), erode_geometry(geometry, clearance))

    @cached_property
    def empty(self) -> bool:
        """The free space has no area (asked on every point query: shapely's is_empty, measured once)."""
        return bool(self.free.is_empty)

    def contains(self, pts: np.ndarray) -> np.ndarray:
        """(n,) bool: points in the closed free space."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if self.empty:
            return np.zeros(len(p), dtype=bool)
        return shapely.intersects_xy(self.free, p[:, 0], p[:, 1])

    def visible(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """(n,) bool: segment p[i] -> q[i] stays in the closed free space."""
        p = np.asarray(p, dtype=np.float64).reshape(-1, 2)
        q = np.asarray(q, dtype=np.float64).reshape(-1, 2)
        if self.empty:
            return np.zeros(len(p), dtype=bool)
        same = np.all(p == q, axis=1)
        out = np.empty(len(p), dtype=bool)
        if np.any(same):
            out[same] = self.contains(p[same])
        if np.any(~same):
            lines = shapely.linestrings(np.stack([p[~same], q[~same]], axis=1))
            out[~same] = shapely.covers(self.free, lines)
        return out

    def point_clearance(self, pts: np.ndarray) -> np.ndarray:
        """(n,) float64 distance of each point to the free space's boundary (0 outside the free space)."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if len(self.segments) == 0 or len(p) == 0:
            return np.zeros(len(p))
        (which, _), d = self.tree.query_nearest(shapely.points(p), return_distance=True, all_matches=False)
        # A point so far away that its distance overflows (1e200 m) has no nearest segment: it is outside anyway.
        dist = np.zeros(len(p))
        dist[which] = d
        return np.where(self.contains(p), dist, 0.0)

    def narrowest(self, pts: np.ndarray) -> float:
        """The smallest distance from the polyline ``pts`` (m, 2) to the free space's boundary."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if len(self.segments) == 0:
            return 0.0
        if len(p) == 1:
            geoms = shapely.points(p)
        else:
            geoms = shapely.linestrings(np.stack([p[:-1], p[1:]], axis=1))
        _, d = self.tree.query_nearest(geoms, return_distance=True, all_matches=False)
        return float(np.min(d))

    def nearest_inside(self, x: np.ndarray) -> np.ndarray | None:
        """(2,) the point of the free space nearest to x, nudged inside; None when the free space is empty."""
        if self.empty:
            return None
        from shapely.geometry import Point
        from shapely.ops import nearest_points

        q = np.asarray(nearest_points(self.free, Point(float(x[0]), float(x[1])))[0].coords[0], dtype=np.float64)
        d = q - np.asarray(x, dtype=np.float64)
        n = float(np.hypot(d[0], d[1]))
        if n > 0:
            scale = max(1.0, float(np.max(np.abs(q))))
            q = q + d / n * (1e-9 * scale)
        return q


def line(pts: np.ndarray) -> LineString:
    """A shapely LineString through (m, 2) points."""
    return LineString(np.asarray(pts, dtype=np.float64))


def terrain_at(geometry: SceneGeometry, pts: np.ndarray, default: int = -1) -> np.ndarray:
    """(n,) int32 terrain type index of each point (its region in ``geometry.regions``); ``default`` outside all."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    out = np.full(len(p), default, dtype=np.int32)
    todo = np.ones(len(p), dtype=bool)
    for k, reg in enumerate(geometry.regions):
        if reg.is_empty or not np.any(todo):
            continue
        hit = np.zeros(len(p), dtype=bool)
        shapely.prepare(reg)  # an indexed test per point instead of a scan of every edge (once per region)
        hit[todo] = shapely.intersects_xy(reg, p[todo, 0], p[todo, 1])
        out[hit] = k
        todo &= ~hit
    return out


def segment_terrain_lengths(geometry: SceneGeometry, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(n, n_types) float64 length of each segment p[i] -> q[i] inside each terrain region (MIRAN 3.3, l^T)."""
    p = np.asarray(p, dtype=np.float64).reshape(-1, 2)
    q = np.asarray(q, dtype=np.float64).reshape(-1, 2)
    out = np.zeros((len(p), len(geometry.regions)))
    if len(p) == 0:
        return out
    lines = shapely.linestrings(np.stack([p, q], axis=1))
    for k, reg in enumerate(geometry.regions):
        if not reg.is_empty:
            out[:, k] = shapely.length(shapely.intersection(lines, reg))
    return out
