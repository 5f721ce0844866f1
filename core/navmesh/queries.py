"""Python-level batch queries on a NavMesh: numpy arrays in, arrays out; thin wrappers over the numba kernels."""

from __future__ import annotations

import numpy as np

from .kernels import clearance as kc
from .kernels import disc as kd
from .kernels import segments as ks
from .kernels import shadows as ksh
from .kernels import walk as kw
from .kernels.arrays import RouteSpan
from .mesh import NavMesh


def _pts(a, name: str = "points") -> np.ndarray:
    """(n, 2) float64 points, C-contiguous and writable: a read-only array (a Route's) is copied, so the kernels keep
    one specialisation each."""
    p = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    if not p.flags.writeable:
        p = p.copy()
    if p.ndim == 1 and p.shape == (2,):
        p = p.reshape(1, 2)
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"{name}: expected an (n, 2) array of points, got shape {np.shape(a)}")
    return p


def _pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    p, q = _pts(p, "p"), _pts(q, "q")
    if len(p) != len(q):
        if len(p) == 1:
            p = np.repeat(p, len(q), axis=0)
        elif len(q) == 1:
            q = np.repeat(q, len(p), axis=0)
        else:
            raise ValueError(f"p and q differ in length: {len(p)} and {len(q)}")
    return p, q


def locate(mesh: NavMesh, pts, detail: bool = False) -> np.ndarray:
    """Free triangle containing each point, (n,) int32; -1 inside an obstacle or outside the bounds.

    With ``detail`` a point outside the bounds (or not finite) gets -2 instead (``kernels.walk.OUTSIDE``). Points
    on an obstacle outline are in the closed free space and get the free triangle beside it."""
    p = _pts(pts)
    out = np.empty(len(p), dtype=np.int32)
    kw.locate_batch(mesh.arrays.walk, p, out)
    if not detail:
        out[out < 0] = -1
    return out


def segment_visible(mesh: NavMesh, p, q) -> np.ndarray:
    """Does each segment p[i] -> q[i] stay in the closed free space? (n,) bool. p, q: (n, 2) or one point."""
    p, q = _pair(p, q)
    out = np.empty(len(p), dtype=np.bool_)
    ks.visible_batch(mesh.arrays.walk, p, q, out)
    return out


def segment_terrain_lengths(mesh: NavMesh, p, q) -> np.ndarray:
    """Length of each segment on each terrain type (MIRAN 2013, 3.3: l^T), (n, n_terrain_types) float64.

    Parts inside obstacles or outside the bounds count for no terrain type."""
    p, q = _pair(p, q)
    out = np.zeros((len(p), mesh.n_terrain_types), dtype=np.float64)
    ks.terrain_lengths_batch(mesh.arrays.walk, p, q, out)
    return out


def polyline_terrain_lengths(mesh: NavMesh, pts) -> np.ndarray:
    """Length of the polyline pts (m, 2) on each terrain type, (n_terrain_types,) float64."""
    p = _pts(pts)
    out = np.zeros(mesh.n_terrain_types, dtype=np.float64)
    ks.polyline_terrain_lengths(mesh.arrays.walk, p, out)
    return out


def polyline_visible(mesh: NavMesh, pts) -> bool:
    """Does the polyline pts (m, 2) stay in the closed free space?"""
    return bool(ks.polyline_visible(mesh.arrays.walk, _pts(pts)))


def weighted_length(lengths: np.ndarray, weights) -> np.ndarray:
    """Weighted length sum_T w(T) l^T (MIRAN 2013, 3.3) of terrain lengths (..., n_types) for a weight row."""
    return np.asarray(lengths, dtype=np.float64) @ np.asarray(weights, dtype=np.float64)


def segment_cost(mesh: NavMesh, p, q, weights) -> np.ndarray:
    """Weighted length of each segment, (n,) float64, walked once without building the terrain-length rows."""
    p, q = _pair(p, q)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    _check_weights(mesh, w)
    out = np.empty(len(p), dtype=np.float64)
    ks.cost_batch(mesh.arrays.walk, p, q, w, out)
    return out


def _check_weights(mesh: NavMesh, w: np.ndarray) -> None:
    if w.shape != (mesh.n_terrain_types,):
        raise ValueError(f"weights: expected one weight per terrain type ({mesh.n_terrain_types}), got shape {w.shape}")


def clearance(mesh: NavMesh, pts) -> tuple[np.ndarray, np.ndarray]:
    """Distance from each point to the nearest obstacle edge (obstacle outlines and the bounds), (n,) float64, and
    that nearest point, (n, 2) float64. Points inside obstacles get their distance to the outline too."""
    p = _pts(pts)
    dist = np.empty(len(p), dtype=np.float64)
    near = np.empty((len(p), 2), dtype=np.float64)
    kc.clearance_batch(mesh.arrays.edges, p, dist, near)
    return dist, near


def polyline_clearance(mesh: NavMesh, pts) -> float:
    """Smallest distance between the polyline pts (m, 2) and any obstacle edge (0 where it touches or crosses)."""
    p = _pts(pts)
    return float(kc.polyline_clearance(mesh.arrays.edges, p))


def visible_intervals(mesh: NavMesh, x, route_pts, route_s, s0: float, s1: float) -> np.ndarray:
    """Arc-length intervals of the route window [s0, s1] visible from x (MIRAN 2013, 3.2), (k, 2) float64.

    route_pts (m, 2) float64 and route_s (m,) float64 (cumulative arc length) describe the route; the intervals
    are sorted, disjoint, and exclude pieces shorter than ``kernels.visibility.MERGE_TOL`` times the scene size.
    Computed from the obstacle edges' shadows (``kernels.shadows``), as the simulation does."""
    xy = np.asarray(x, dtype=np.float64).reshape(2)
    rp = _pts(route_pts, "route_pts")
    rs = np.ascontiguousarray(route_s, dtype=np.float64).reshape(-1)
    if len(rs) != len(rp):
        raise ValueError(f"route_s has {len(rs)} values for {len(rp)} route points")
    out = np.empty((max(8, 2 * len(rp)), 2), dtype=np.float64)
    work = ksh.shadow_work(mesh.obstacle_edges.shape[0])
    while True:
        n = ksh.visible_intervals_by_shadows(mesh.arrays, xy[0], xy[1], RouteSpan(rp, rs, 0, len(rp)), float(s0),
                                             float(s1), out, work, -1)
        if n >= 0:
            return out[:n].copy()
        out = np.empty((2 * len(out), 2), dtype=np.float64)


def disc_traversal_cost(mesh: NavMesh, p, q, radius: float, weights) -> np.ndarray:
    """Traversal cost of a disc of the given radius sweeping p[i] -> q[i] (Kremyzas 2014, ch. 3), (n,) float64.

    At each centre position the cost rate is the largest weight among the free triangles the closed disc meets
    (0 where it meets none); NaN where p or q lies outside the bounds."""
    p, q = _pair(p, q)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    _check_weights(mesh, w)
    out = np.empty(len(p), dtype=np.float64)
    kd.disc_cost_batch(mesh.arrays.walk, p, q, float(radius), w, out)
    return out


def disc_overlap_intervals(mesh: NavMesh, p, q, radius: float, weights) -> np.ndarray:
    """The max-weight overlap intervals of one disc sweep p -> q (Kremyzas 2014, Algorithm 3), (k, 3) float64
    rows [x_start, x_end, terrain index] with x the distance of the centre from p; cost = sum w * (end - start)."""
    p, q = _pts(p, "p")[0], _pts(q, "q")[0]
    w = np.ascontiguousarray(weights, dtype=np.float64)
    _check_weights(mesh, w)
    cap = 64
    while True:
        out = np.empty((cap, 3), dtype=np.float64)
        n = kd.disc_intervals(mesh.arrays.walk, p[0], p[1], q[0], q[1], float(radius), w, out)
        if n >= 0:
            return out[:n].copy()
        cap *= 4
