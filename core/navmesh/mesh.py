"""The NavMesh: a constrained triangulation of the free space, its DCEL and query grids, as flat numpy arrays."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .kernels.arrays import EdgeGrid, MeshArrays, WalkArrays


@dataclass(frozen=True, eq=False)
class NavMesh:
    """A weighted navigation mesh (Kremyzas 2014, section 2.2: a DCEL of a weighted triangulated subdivision).

    Units are the scene's (metres). ``nt`` free triangles, ``nx >= nt`` triangles of the complete triangulation of
    the bounds (obstacle interiors included), ``nv`` vertices, ``nh = 3 nt`` half-edges, ``ne`` obstacle edges.

    Free-space triangulation (the contract other stages use):

    - ``vertices`` (nv, 2) float64: coordinates of every vertex (those only used by obstacle triangles included).
    - ``triangles`` (nt, 3) int32: counter-clockwise vertex indices of the free triangles.
    - ``neighbors`` (nt, 3) int32: free triangle across edge k = (triangles[t, k], triangles[t, (k+1) % 3]), or -1
      where the edge is an obstacle or bounds boundary.
    - ``constrained`` (nt, 3) bool: edge k is a constraint (obstacle outline, bounds or terrain boundary).
    - ``tri_terrain`` (nt,) int32: index into ``scene.terrain_types`` (``terrain_ids``).

    DCEL (half-edge ``3 t + k`` is edge k of triangle t, directed counter-clockwise, its face on its left):

    - ``he_origin`` (nh,) int32 vertex; ``he_twin`` (nh,) int32 (-1 on the free-space boundary); ``he_next``,
      ``he_prev``, ``he_face`` (nh,) int32; ``face_he`` (nt,) int32 = 3 t; ``he_blocked`` (nh,) bool: the half-edge
      lies on an obstacle outline or the bounds; ``vert_he`` (nv,) int32: a half-edge leaving each vertex (-1 for
      vertices inside obstacles).

    Obstacle edges and clearance grid:

    - ``obstacle_edges`` (ne, 4) float64 rows [x0, y0, x1, y1]: every blocked half-edge, directed so that the free
      space is on its left (outlines of obstacles and the bounds).
    - ``edge_grid`` (6,) float64 [x0, y0, cell_w, cell_h, ncols, nrows]; ``edge_cell_start`` (ncells + 1,) int32 and
      ``edge_cell_items`` int32: CSR lists of the obstacle edges meeting each cell.

    Terrain boundaries (what ``kernels.crossings`` weighs visible segments by):

    - ``terrain_edges`` (k, 4) float64: the free edges with a different terrain type on each side, once each, and
      ``terrain_sides`` (k, 2) int32 [type on the left, type on the right]; ``terrain_grid`` (6,),
      ``terrain_cell_start`` and ``terrain_cell_items``: their CSR grid, as for the obstacle edges.

    Complete triangulation (what the walks run on; it covers the convex bounds so straight walks never stall):

    - ``xtriangles`` (nx, 3) int32, rows [0, nt) equal ``triangles``, rows [nt, nx) lie inside obstacles.
    - ``xneighbors`` (nx, 3) int32: neighbour across each edge in the complete triangulation (-1 on the bounds).
    - ``xterrain`` (nx,) int32: terrain index, -1 for obstacle triangles.
    - ``locate_grid`` (6,) float64 grid metadata and ``locate_seed`` (ncells,) int32: a triangle containing each
      cell centre, where point location starts its walk.

    Scalars: ``bounds`` (xmin, ymin, xmax, ymax); ``bounds_arr`` (4,) float64; ``n_terrain_types``;
    ``terrain_ids`` tuple of str; ``snap`` the vertex-merge distance used while building.
    """

    vertices: np.ndarray
    triangles: np.ndarray
    neighbors: np.ndarray
    constrained: np.ndarray
    tri_terrain: np.ndarray
    he_origin: np.ndarray
    he_twin: np.ndarray
    he_next: np.ndarray
    he_prev: np.ndarray
    he_face: np.ndarray
    face_he: np.ndarray
    he_blocked: np.ndarray
    vert_he: np.ndarray
    obstacle_edges: np.ndarray
    edge_grid: np.ndarray
    edge_cell_start: np.ndarray
    edge_cell_items: np.ndarray
    terrain_edges: np.ndarray
    terrain_sides: np.ndarray
    terrain_grid: np.ndarray
    terrain_cell_start: np.ndarray
    terrain_cell_items: np.ndarray
    xtriangles: np.ndarray
    xneighbors: np.ndarray
    xterrain: np.ndarray
    locate_grid: np.ndarray
    locate_seed: np.ndarray
    bounds: tuple[float, float, float, float]
    bounds_arr: np.ndarray
    n_terrain_types: int
    terrain_ids: tuple[str, ...]
    snap: float

    @property
    def n_triangles(self) -> int:
        """Number of free triangles (nt)."""
        return int(self.triangles.shape[0])

    @property
    def n_half_edges(self) -> int:
        """Number of half-edges (3 nt)."""
        return int(self.he_origin.shape[0])

    @cached_property
    def arrays(self) -> MeshArrays:
        """The mesh as the kernels take it, built once (``kernels.arrays.MeshArrays``): ``walk`` (V, T, N, TT, B, G,
        S; see ``kernels.walk``) and ``edges``, the obstacle edges in their grid (E, EG, ES, EI; see
        ``kernels.clearance``)."""
        walk = WalkArrays(self.vertices, self.xtriangles, self.xneighbors, self.xterrain, self.bounds_arr,
                          self.locate_grid, self.locate_seed)
        edges = EdgeGrid(self.obstacle_edges, self.edge_grid, self.edge_cell_start, self.edge_cell_items)
        return MeshArrays(walk, edges)

    def terrain_args(self) -> tuple:
        """The arrays of ``kernels.crossings`` in order: (TE, TD, TG, TS, TI), edges, sides and their grid."""
        return (self.terrain_edges, self.terrain_sides, self.terrain_grid, self.terrain_cell_start,
                self.terrain_cell_items)

    def triangle_areas(self) -> np.ndarray:
        """Area of each free triangle, (nt,) float64."""
        v = self.vertices[self.triangles]
        return 0.5 * ((v[:, 1, 0] - v[:, 0, 0]) * (v[:, 2, 1] - v[:, 0, 1])
                      - (v[:, 1, 1] - v[:, 0, 1]) * (v[:, 2, 0] - v[:, 0, 0]))

    def terrain_areas(self) -> np.ndarray:
        """Free area per terrain type, (n_terrain_types,) float64."""
        return np.bincount(self.tri_terrain, weights=self.triangle_areas(), minlength=self.n_terrain_types)
