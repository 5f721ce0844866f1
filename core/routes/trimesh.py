"""The quality constrained triangulation the ``cdt`` planner searches (MIRAN section 4).

The navigation mesh (core.navmesh) is a bare constrained triangulation: long sidewalks and roads become a few long
needle triangles, and a dual-graph route crossing one of them diagonally leaves the terrain it is meant to follow.
The ``cdt`` planner therefore triangulates the same constraints (``core.navmesh.pslg``: obstacle outlines, bounds,
terrain boundaries) with ``triangle``'s quality switch ``q`` (no angle below ``MIN_ANGLE`` degrees), so triangles
are about as wide as the region they lie in and a route through their centroids stays in its region.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.scene.geometry import SceneGeometry
from core.triangulate import triangulate

from .convex import _bucket_grid, locate_kernel
from .freespace import polygon_parts, terrain_at

MIN_ANGLE = 15.0
# Steiner points the quality triangulation may add per input vertex (plus 10,000): plenty for any sound scene.
STEINER_PER_VERTEX = 50


@dataclass(frozen=True, eq=False)
class TriMesh:
    """Free triangles of a quality constrained triangulation.

    - ``vertices`` (nv, 2) float64; ``triangles`` (nt, 3) int64 counter-clockwise vertex indices.
    - ``neighbors`` (nt, 3) int64: the free triangle across edge k = (triangles[t, k], triangles[t, (k + 1) % 3]),
      -1 on an obstacle outline or the bounds.
    - ``tri_terrain`` (nt,) int32 terrain type index of each triangle.
    - ``loc_*``: bucket grid for point location (see ``ConvexDecomposition``); ``poly_ptr`` = 3 * arange(nt + 1).
    """

    vertices: np.ndarray
    triangles: np.ndarray
    neighbors: np.ndarray
    tri_terrain: np.ndarray
    poly_ptr: np.ndarray
    loc_origin: np.ndarray
    loc_size: float
    loc_shape: tuple[int, int]
    loc_ptr: np.ndarray
    loc_idx: np.ndarray

    def locate(self, pts: np.ndarray) -> np.ndarray:
        """(n,) int64 triangle holding each point (-1 outside the free space)."""
        p = np.ascontiguousarray(np.asarray(pts, dtype=np.float64).reshape(-1, 2))
        flat = self.triangles.reshape(-1)
        return np.array([locate_kernel(self.vertices, self.poly_ptr, flat, self.loc_origin, self.loc_size,
                                       self.loc_shape[0], self.loc_shape[1], self.loc_ptr, self.loc_idx, x)
                         for x in p], dtype=np.int64)


def quality_mesh(geometry: SceneGeometry, min_angle: float = MIN_ANGLE) -> TriMesh:
    """Triangulate the free space's constraints with no angle below ``min_angle``; keep the free triangles."""
    from core.navmesh.pslg import pslg

    verts, segs, _ = pslg(geometry)
    pslg_in = {"vertices": verts, "segments": segs}
    # A point inside each blocked part makes triangle carve it out before refining: only the free space is
    # refined. Otherwise the strip a clearance level erodes along the bounds (C wide, the bounds long) was refined
    # to the quality bound too, a million triangles for C = 1e-5 of the scene, then thrown away.
    holes = [p.representative_point().coords[0] for p in polygon_parts(geometry.obstacles)]
    if holes:
        pslg_in["holes"] = np.array(holes, dtype=np.float64)
    # Ruppert's refinement never ends near input features closer than round-off (a vertex 3e-7 from a segment it
    # does not touch): cap the Steiner points so that such a scene meshes, with a few poor triangles there.
    steiner = STEINER_PER_VERTEX * len(verts) + 10_000
    out = triangulate(pslg_in, f"pq{min_angle:g}S{steiner}Q")
    V = np.ascontiguousarray(out["vertices"], dtype=np.float64)
    T = np.asarray(out["triangles"], dtype=np.int64)
    p = V[T]
    area2 = ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1])
             - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))
    T[area2 < 0] = T[area2 < 0][:, ::-1]
    terrain = terrain_at(geometry, V[T].mean(axis=1))
    keep = terrain >= 0
    T, terrain = np.ascontiguousarray(T[keep]), terrain[keep]
    nt = len(T)
    a = T.reshape(-1)
    b = T[:, [1, 2, 0]].reshape(-1)
    key = np.minimum(a, b) * len(V) + np.maximum(a, b)
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    nb = np.full(3 * nt, -1, dtype=np.int64)
    h1, h2 = order[same], order[same + 1]
    nb[h1] = h2 // 3
    nb[h2] = h1 // 3
    poly_ptr = 3 * np.arange(nt + 1, dtype=np.int64)
    loc = _bucket_grid(V, poly_ptr, T.reshape(-1))
    return TriMesh(V, T, nb.reshape(nt, 3), terrain.astype(np.int32), poly_ptr, *loc)
