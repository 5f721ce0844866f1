"""The two lookups a disc MIRAN agent's attraction step begins with, done as the step did before issue 20's third
pass and as it does now (``disc_miran.sweep_need``, ``disc_miran.located``), for the bench's same-run comparison:
the sweep clearance min(R, clearance(x)) and the disc's triangle."""

from __future__ import annotations

from core.jitcache import jit
from core.navmesh.kernels.clearance import point_clearance
from core.navmesh.kernels.walk import locate_any
from core.steering.disc_miran import NEED_RTOL, located, sweep_need


@jit
def lookups_measured(M, X, rad, need, tri) -> None:
    """Each row of X (n, 2): its nearest-obstacle query and its location from the mesh's grid (the baseline)."""
    W = M.walk
    C = M.edges
    for i in range(X.shape[0]):
        c0, _, _, _ = point_clearance(C, X[i, 0], X[i, 1])
        need[i] = min(rad[i], c0) * (1.0 - NEED_RTOL)
        tri[i] = locate_any(W, X[i, 0], X[i, 1])


@jit
def lookups_reused(M, X, rad, c_last, at, hint, tol, need, tri) -> None:
    """The same values from the last step's clearance ``c_last`` measured at ``at`` (n, 2) and triangle ``hint``."""
    W = M.walk
    C = M.edges
    for i in range(X.shape[0]):
        need[i] = sweep_need(C, X[i], rad[i], c_last[i], at[i], tol)
        tri[i] = located(W, hint[i], X[i, 0], X[i, 1])
