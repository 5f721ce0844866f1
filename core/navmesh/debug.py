"""Plain arrays for drawing the navigation mesh (the app's triangulation overlay); no drawing here."""

from __future__ import annotations

import numpy as np

from .mesh import NavMesh

EDGE_PLAIN = 0  # an unconstrained edge between two free triangles
EDGE_TERRAIN = 1  # a terrain boundary (constraint between two free triangles)
EDGE_BLOCKED = 2  # an obstacle outline or the bounds


def mesh_edges(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray]:
    """Each edge of the free triangulation once: segments (k, 2, 2) float64 and kind (k,) int8 (EDGE_*)."""
    t = mesh.triangles
    a = t.reshape(-1)
    b = t[:, [1, 2, 0]].reshape(-1)
    nb = mesh.neighbors.reshape(-1)
    face = np.repeat(np.arange(len(t)), 3)
    once = (nb < 0) | (face < nb)  # interior edges from their lower-numbered triangle only
    kind = np.where(nb < 0, EDGE_BLOCKED, np.where(mesh.constrained.reshape(-1), EDGE_TERRAIN, EDGE_PLAIN))
    segs = np.stack([mesh.vertices[a[once]], mesh.vertices[b[once]]], axis=1)
    return segs, kind[once].astype(np.int8)


def triangle_corners(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray]:
    """Corners of each free triangle (nt, 3, 2) float64 and its terrain index (nt,) int32, for filled drawing."""
    return mesh.vertices[mesh.triangles], mesh.tri_terrain.copy()
