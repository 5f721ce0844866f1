"""The weighted navigation mesh: a constrained triangulation of the free space, its DCEL and exact queries.

Build once per scene, query many times::

    from core.navmesh import build_navmesh, locate, segment_terrain_lengths
    mesh = build_navmesh(scene)                    # geometry=None: core.scene.build_geometry(scene)
    tri = locate(mesh, pts)                        # (n,) int32, -1 inside an obstacle / outside the bounds

Python-level queries (numpy in, numpy out; see ``queries``):

- ``locate(mesh, pts (n,2)) -> (n,) int32``
- ``segment_visible(mesh, p, q) -> (n,) bool``: the closed segment lies in the closed free space.
- ``segment_terrain_lengths(mesh, p, q) -> (n, n_types) float64`` (MIRAN 2013, 3.3, l^T).
- ``polyline_terrain_lengths(mesh, pts (m,2)) -> (n_types,)``, ``polyline_visible(mesh, pts) -> bool``.
- ``weighted_length(lengths, weights)`` = lengths @ weights; ``segment_cost(mesh, p, q, weights) -> (n,)``.
- ``clearance(mesh, pts) -> (dist (n,), nearest (n,2))``; ``polyline_clearance(mesh, pts) -> float``.
- ``visible_intervals(mesh, x (2,), route_pts (m,2), route_s (m,), s0, s1) -> (k, 2) float64`` (MIRAN 2013, 3.2).
- ``disc_traversal_cost(mesh, p, q, radius, weights) -> (n,) float64`` (Kremyzas 2014, ch. 3, max-weight rule);
  ``disc_overlap_intervals(mesh, p, q, radius, weights) -> (k, 3)`` rows [start, end, terrain] of one sweep.

Numba level: ``core.navmesh.kernels`` (walk kernels take ``*mesh.kernel_args()``, clearance kernels
``*mesh.clearance_args()``).

Tolerances: every combinatorial decision (which triangle, which side, through a vertex or along an edge) uses an
exact orientation predicate, so degenerate segments (through vertices, along edges, starting or ending on a
boundary, collinear terrain edges) are handled exactly; lengths and crossing points are floating-point
constructions (relative error ~1e-15). A segment running along an edge belongs to the free triangle beside it
(or, between two free triangles, to the one on its left), so it counts for that terrain type once. While
building, constraint vertices closer than ``pslg.SNAP_RELATIVE`` (1e-12) times the bounds diagonal are merged.
"""

from .build import BuildCancelled, build_navmesh
from .mesh import NavMesh
from .queries import (
    clearance,
    disc_overlap_intervals,
    disc_traversal_cost,
    locate,
    polyline_clearance,
    polyline_terrain_lengths,
    polyline_visible,
    segment_cost,
    segment_terrain_lengths,
    segment_visible,
    visible_intervals,
    weighted_length,
)

__all__ = [
    "BuildCancelled", "NavMesh", "build_navmesh", "clearance", "disc_overlap_intervals", "disc_traversal_cost",
    "locate", "polyline_clearance", "polyline_terrain_lengths", "polyline_visible", "segment_cost",
    "segment_terrain_lengths", "segment_visible", "visible_intervals", "weighted_length",
]
