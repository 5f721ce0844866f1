"""The weighted navigation mesh: a constrained triangulation of the free space, its DCEL and exact queries.

Build once per scene, query many times::

    from core.navmesh import build_navmesh, locate, segment_terrain_lengths
    mesh = build_navmesh(scene)          # geometry=None: core.scene.build_geometry(scene); progress(f, stage)
    tri = locate(mesh, pts)              # (n,) int32, -1 inside an obstacle / outside the bounds

``build_navmesh(scene, geometry=None, progress=None) -> NavMesh``: obstacle outlines, the bounds and every terrain
boundary are constraints of one ``triangle`` run (switch ``p``: no quality refinement, the city has ~2000
triangles). ``progress(fraction, stage)`` returning False cancels with ``BuildCancelled``. ``NavMesh`` (``mesh``)
is a frozen dataclass of flat arrays whose shapes and dtypes its docstring lists: vertices, CCW triangles,
neighbors, constrained, tri_terrain, the DCEL (he_origin, he_twin, he_next, he_prev, he_face, face_he, he_blocked,
vert_he; half-edge 3t+k is edge k of triangle t), obstacle_edges with their grid, and the complete triangulation
of the bounds (xtriangles, xneighbors, xterrain: obstacle interiors included) with the point-location grid.

``update.local_update(mesh, scene, changed) -> NavMesh | None``: the mesh of ``scene`` after obstacles were
inserted, deleted or moved (``changed``: their shapely polygons, old and new places), retriangulating only the
triangles around them; None where its checks fail, for a fresh build (what a simulation's world changes use).

Python-level queries (numpy in, numpy out; p, q are (n, 2) arrays or one point; see ``queries``):

- ``locate(mesh, pts (n,2), detail=False) -> (n,) int32``: free triangle, -1 inside an obstacle or outside the
  bounds (with ``detail``: -2 outside the bounds).
- ``segment_visible(mesh, p, q) -> (n,) bool``: the closed segment lies in the closed free space.
- ``segment_terrain_lengths(mesh, p, q) -> (n, n_types) float64`` (MIRAN 2013, 3.3: l^T).
- ``polyline_terrain_lengths(mesh, pts (m,2)) -> (n_types,)``; ``polyline_visible(mesh, pts) -> bool``.
- ``weighted_length(lengths, weights)`` = lengths @ weights (weights: a row of ``scene.weight_matrix()``);
  ``segment_cost(mesh, p, q, weights) -> (n,)`` the same in one walk.
- ``clearance(mesh, pts) -> (dist (n,), nearest (n,2))``: to the nearest obstacle edge (obstacle outlines and the
  bounds); ``polyline_clearance(mesh, pts) -> float``.
- ``visible_intervals(mesh, x (2,), route_pts (m,2), route_s (m,), s0, s1) -> (k, 2) float64``: arc-length
  intervals of the route window visible from x (MIRAN 2013, 3.2).
- ``disc_traversal_cost(mesh, p, q, radius, weights) -> (n,) float64`` (Kremyzas 2014, ch. 3: max-weight rule,
  triangle-disc and triangle-box walks); ``disc_overlap_intervals(mesh, p, q, radius, weights) -> (k, 3)`` rows
  [start, end, terrain] of one sweep (terrain -1 where the disc meets no free triangle).
- ``measure.measure_polyline(mesh, pts, weights, radius) -> PolylineMeasure`` (what ``miran measure`` prints).
- ``debug.mesh_edges(mesh) -> (segments (k,2,2), kind (k,))`` and ``debug.triangle_corners(mesh)`` for overlays.

Numba level (``core.navmesh.kernels``, all ``core.jitcache.jit``, callable from other jitted code):
the mesh is one named structure, ``mesh.arrays`` (``kernels.arrays.MeshArrays``, built once): walk kernels take
its triangulation ``mesh.arrays.walk`` (``WalkArrays``: V, T, N, TT, B, G, S) first, clearance kernels its obstacle
edges ``mesh.arrays.edges`` (``EdgeGrid``: E, EG, ES, EI), and the visibility, fan and MIRAN kernels the whole
structure; a route is a ``RouteSpan(rp, rs, lo, hi)``
and the shadows' work arrays as ``ShadowWork`` (``shadows.shadow_work(ne)``). Single queries:
``walk.locate_free(..., x, y) -> int`` (or
``walk.locate_status``: -1 obstacle, -2 outside), ``segments.segment_visible(..., px, py, qx, qy) -> bool``,
``segments.segment_terrain_lengths(..., out)``,
``segments.segment_cost(..., weights) -> float``, ``segments.fan_costs(mesh.arrays, x, y, cands (k,2), weights,
visible (k,), cost (k,))`` (one location for all of MIRAN's candidates), ``clearance.point_clearance(..., x, y)
-> (d, nx, ny, edge)``, ``visibility.visible_intervals(mesh.arrays, x, y, route, s0, s1, out) -> int`` (triangle
expansion) and ``shadows.visible_intervals_by_shadows(mesh.arrays, x, y, route, s0, s1, out, work, tri)``
(obstacle edges' shadows, the expansion where they are ill-conditioned; what the simulation uses),
``disc.disc_cost(mesh.arrays.walk, px, py, qx, qy, r, weights) -> float`` (``disc_cost_work``
reuses a ``disc_work.DiscWork``). Batch forms: ``walk.locate_batch``,
``segments.visible_batch``, ``terrain_lengths_batch``, ``cost_batch``, ``fan_costs_batch``,
``clearance.clearance_batch``, ``shadows.visible_intervals_batch`` (packed routes), ``disc.disc_cost_batch``.

Tolerances and degenerate input: every combinatorial decision (which triangle, which side of a line, through a
vertex or along an edge, q before or after a vertex) is an exact orientation sign (adaptive exact predicate), so
segments through vertices, along edges, starting or ending on a boundary and collinear terrain edges are handled
exactly; lengths, crossing points and interval ends are floating-point constructions (relative error ~1e-15).
The closed free space counts: a segment along an obstacle outline or through a pinch point between two obstacles
is visible. A piece along an edge belongs to the free triangle beside it (between two free triangles, to the one
on its left), so it counts once for one terrain type. While building, constraint vertices closer than
``pslg.SNAP_RELATIVE`` (1e-12) times the bounds diagonal are merged and edges are split at vertices that close to
them. Visible intervals close gaps and drop pieces shorter than ``kernels.visibility.MERGE_TOL`` (1e-9) times the
bounds' width + height. The disc walks accept edges within a relative 1e-9 of the disc or box (extra triangles only,
their intervals are exact). Non-finite coordinates give -1, False, zero lengths or NaN.
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
