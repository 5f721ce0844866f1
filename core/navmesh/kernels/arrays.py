"""Named structures the navmesh kernels take instead of long positional lists (issue 19): numba types a
``typing.NamedTuple`` of arrays as a named tuple, passed whole and read by field name at no run-time cost.

- ``MeshArrays``: the walk arrays (``walk``: V, T, N, TT, B, G, S) and the obstacle-edge arrays (``clearance``:
  E, EG, ES, EI) of one NavMesh, built once by ``NavMesh.arrays``.
- ``RouteSpan``: rows [lo, hi) of packed route arrays (points ``rp`` (m, 2), cumulative arc lengths ``rs`` (m,)).
- ``ShadowWork``: the work arrays of one shadow visibility query (``shadows.shadow_work``), one set per thread.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from core.jitcache import jit


class MeshArrays(NamedTuple):
    """The navigation mesh's kernel arrays; see ``kernels.walk`` (V..S) and ``kernels.clearance`` (E..EI)."""

    V: np.ndarray
    T: np.ndarray
    N: np.ndarray
    TT: np.ndarray
    B: np.ndarray
    G: np.ndarray
    S: np.ndarray
    E: np.ndarray
    EG: np.ndarray
    ES: np.ndarray
    EI: np.ndarray


class RouteSpan(NamedTuple):
    """One route in packed arrays: its points ``rp[lo:hi]`` and their cumulative arc lengths ``rs[lo:hi]``."""

    rp: np.ndarray
    rs: np.ndarray
    lo: int
    hi: int


class ShadowWork(NamedTuple):
    """Work arrays of ``shadows.visible_intervals_by_shadows``: shadows (MAX_SHADOWS, 2), parts (64, 2) float64,
    the window's obstacle edges (ne,) int64, the per-query edge stamp (ne + 1,) int64 and ``cells`` (ne + 5,)
    int64, the distinct edges of the last grid-cell range a window's box covered (``shadows.window_edges``): a
    walker's window moves a fraction of a cell per step, so the next step usually covers the same cells."""

    sh: np.ndarray
    parts: np.ndarray
    cand: np.ndarray
    stamp: np.ndarray
    cells: np.ndarray


@jit(inline=True)
def mesh_of(W, C) -> MeshArrays:
    """``MeshArrays`` from a walk tuple (V, T, N, TT, B, G, S) and a clearance tuple (E, EG, ES, EI), for kernels
    whose callers still hold those tuples."""
    return MeshArrays(W[0], W[1], W[2], W[3], W[4], W[5], W[6], C[0], C[1], C[2], C[3])
