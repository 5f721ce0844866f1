"""The planar straight-line graph handed to ``triangle``: every constraint segment of a scene, noded and snapped.

Constraints are the bounds rectangle, the outline of the obstacles (their union, clipped to the bounds) and every
boundary of the terrain regions (``SceneGeometry.regions``). GEOS nodes them (splits segments where they cross or
touch and merges collinear overlaps), then vertices closer than ``snap`` are merged so that ``triangle`` receives a
valid PSLG: no crossing segments, no duplicate or nearly coincident vertices, no zero-length segments.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from core.scene.geometry import SceneGeometry

# Vertices closer than SNAP_RELATIVE * (bounds diagonal) are merged into one (for a 1 km scene: 1e-9 m).
SNAP_RELATIVE = 1e-12


def _boundaries(g: BaseGeometry) -> list[BaseGeometry]:
    if g.is_empty:
        return []
    b = shapely.boundary(g)
    return [] if b.is_empty else [b]


def constraint_lines(geometry: SceneGeometry) -> BaseGeometry:
    """All constraint lines (bounds, obstacle outlines, terrain boundaries) noded into one MultiLineString."""
    parts = _boundaries(geometry.box) + _boundaries(geometry.obstacles)
    for region in geometry.regions:
        parts += _boundaries(region)
    return shapely.line_merge(shapely.union_all(parts)) if len(parts) > 1 else parts[0]


def pslg(geometry: SceneGeometry) -> tuple[np.ndarray, np.ndarray, float]:
    """Vertices (n, 2) float64, segments (m, 2) int32 and the snap distance used, for ``triangle``'s ``p`` switch."""
    x0, y0, x1, y1 = geometry.box.bounds
    snap = SNAP_RELATIVE * float(np.hypot(x1 - x0, y1 - y0))
    verts, segs = pslg_of_lines(constraint_lines(geometry), snap)
    return verts, segs, snap


def pslg_of_lines(lines: BaseGeometry, snap: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (n, 2) float64 and segments (m, 2) int32 of constraint lines, noded, with vertices closer than
    ``snap`` merged and segments split at the vertices within ``snap`` of them."""
    lines = shapely.union_all([lines])
    coords_list, seg_list = [], []
    offset = 0
    for ls in shapely.get_parts(lines):
        c = shapely.get_coordinates(ls)
        if len(c) < 2:
            continue
        coords_list.append(c)
        idx = np.arange(offset, offset + len(c))
        seg_list.append(np.stack([idx[:-1], idx[1:]], axis=1))
        offset += len(c)
    coords = np.concatenate(coords_list)
    segs = np.concatenate(seg_list)
    # Merge exact duplicates, then clusters of vertices within `snap` of each other (union-find over close pairs).
    uniq, inverse = np.unique(coords, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    root = np.arange(len(uniq))
    if snap > 0 and len(uniq) > 1:
        tree = shapely.STRtree(shapely.points(uniq))
        a, b = tree.query(shapely.points(uniq), predicate="dwithin", distance=snap)
        close = a < b
        for i, j in zip(a[close], b[close]):
            ri, rj = _find(root, i), _find(root, j)
            if ri != rj:
                root[max(ri, rj)] = min(ri, rj)
        root = np.array([_find(root, i) for i in range(len(root))])
    keep, new_index = np.unique(root, return_inverse=True)
    verts = uniq[keep]
    s = new_index.reshape(-1)[inverse[segs]]
    s = _dedupe(s)
    for _ in range(8):
        s, changed = _split_at_close_vertices(verts, s, snap)
        if not changed:
            break
    return verts.astype(np.float64), s.astype(np.int32)


def _dedupe(s: np.ndarray) -> np.ndarray:
    s = s[s[:, 0] != s[:, 1]]
    return np.unique(np.sort(s, axis=1), axis=0)


def _split_at_close_vertices(verts: np.ndarray, s: np.ndarray, snap: float) -> tuple[np.ndarray, bool]:
    """Split every segment at the vertices lying within ``snap`` of its interior.

    Boundaries computed by different overlays (an obstacle outline and the terrain region beside it) can differ
    by a rounding error: a vertex of one lies 1e-16 off the other's edge. Splitting the edge there makes both the
    same chain (deduplicated), instead of leaving a needle triangle between two nearly identical lines."""
    if snap <= 0 or len(s) == 0:
        return s, False
    lines = shapely.linestrings(np.stack([verts[s[:, 0]], verts[s[:, 1]]], axis=1))
    tree = shapely.STRtree(lines)
    vi, si = tree.query(shapely.points(verts), predicate="dwithin", distance=snap)
    inner = (vi != s[si, 0]) & (vi != s[si, 1])
    vi, si = vi[inner], si[inner]
    if len(vi) == 0:
        return s, False
    a = verts[s[si, 0]]
    d = verts[s[si, 1]] - a
    t = np.einsum("ij,ij->i", verts[vi] - a, d) / np.einsum("ij,ij->i", d, d)
    split = np.unique(si)
    kept = np.setdiff1d(np.arange(len(s)), split)
    out = [s[kept]]
    order = np.lexsort((t, si))
    vi, si, t = vi[order], si[order], t[order]
    bounds = np.flatnonzero(np.diff(si)) + 1
    for group_v, group_s in zip(np.split(vi, bounds), np.split(si, bounds)):
        chain = np.concatenate([[s[group_s[0], 0]], group_v, [s[group_s[0], 1]]])
        out.append(np.stack([chain[:-1], chain[1:]], axis=1))
    return _dedupe(np.concatenate(out)), True


def _find(root: np.ndarray, i: int) -> int:
    while root[i] != i:
        root[i] = root[root[i]]
        i = root[i]
    return int(i)
