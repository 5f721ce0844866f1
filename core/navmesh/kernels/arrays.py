"""Named structures the navmesh kernels take instead of long positional lists (issue 19): numba types a
``typing.NamedTuple`` of arrays as a named tuple, passed whole and read by field name at no run-time cost.

- ``WalkArrays``: the triangulation the walk kernels take (V, T, N, TT, B, G, S; ``kernels.walk``).
- ``EdgeGrid``: edges in a uniform grid (E, EG, ES, EI; ``kernels.clearance``), the obstacle edges or the terrain
  boundaries.
- ``MeshArrays``: one NavMesh as the kernels take it, ``walk`` and ``edges``, built once by ``NavMesh.arrays``.
- ``RouteSpan``: rows [lo, hi) of packed route arrays (points ``rp`` (m, 2), cumulative arc lengths ``rs`` (m,)).
- ``ShadowWork``: the work arrays of one shadow visibility query (``shadows.shadow_work``), one set per thread.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class WalkArrays(NamedTuple):
    """The complete triangulation the walk kernels run on (``NavMesh.arrays.walk``); see ``kernels.walk``."""

    V: np.ndarray
    T: np.ndarray
    N: np.ndarray
    TT: np.ndarray
    B: np.ndarray
    G: np.ndarray
    S: np.ndarray


class EdgeGrid(NamedTuple):
    """Edges in a uniform grid of cells: the obstacle edges (``NavMesh.arrays.edges``) the clearance kernels take,
    or the terrain boundaries; see ``kernels.clearance``."""

    E: np.ndarray
    EG: np.ndarray
    ES: np.ndarray
    EI: np.ndarray


class MeshArrays(NamedTuple):
    """The navigation mesh as the kernels take it, built once by ``NavMesh.arrays``: its triangulation and its
    obstacle edges."""

    walk: WalkArrays
    edges: EdgeGrid


class RouteSpan(NamedTuple):
    """One route in packed arrays: its points ``rp[lo:hi]`` and their cumulative arc lengths ``rs[lo:hi]``."""

    rp: np.ndarray
    rs: np.ndarray
    lo: int
    hi: int


class ShadowWork(NamedTuple):
    """Work arrays of ``shadows.visible_intervals_by_shadows``: shadows (MAX_SHADOWS, 2), parts (64, 2) float64,
    the window's obstacle edges (ne,) int64 and the per-query edge stamp (ne + 1,) int64."""

    sh: np.ndarray
    parts: np.ndarray
    cand: np.ndarray
    stamp: np.ndarray
