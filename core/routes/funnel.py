"""The cone-of-sight post-processing (Niederberger et al. 2004, section 7.1): the shortest path through a
sequence of portals, keeping the cone's left and right borders L, R and restarting at L or R when a portal lies
wholly outside the cone. It is the funnel algorithm for portals of any direction.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit
from core.kernels.geometry import orient


@jit
def funnel(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Shortest path through portals: ``left``/``right`` (n, 2) float64 are each portal's end points on the
    traveller's left and right; portal 0 is the start (left = right = start), portal n - 1 the goal. Returns the
    (k, 2) waypoints from start to goal."""
    n = left.shape[0]
    out = np.empty((n + 1, 2))
    ax = left[0, 0]
    ay = left[0, 1]
    lx, ly, rx, ry = ax, ay, ax, ay
    apex_i = 0
    left_i = 0
    right_i = 0
    out[0, 0] = ax
    out[0, 1] = ay
    k = 1
    i = 1
    while i < n:
        plx = left[i, 0]
        ply = left[i, 1]
        prx = right[i, 0]
        pry = right[i, 1]
        restarted = False
        # Narrow the cone from the right.
        if orient(ax, ay, rx, ry, prx, pry) >= 0.0:
            if (ax == rx and ay == ry) or orient(ax, ay, lx, ly, prx, pry) < 0.0:
                rx, ry, right_i = prx, pry, i
            else:
                # The portal lies left of the cone: L becomes a waypoint and the cone restarts there.
                ax, ay, apex_i = lx, ly, left_i
                if ax != out[k - 1, 0] or ay != out[k - 1, 1]:
                    out[k, 0] = ax
                    out[k, 1] = ay
                    k += 1
                lx, ly, rx, ry = ax, ay, ax, ay
                left_i = apex_i
                right_i = apex_i
                i = apex_i + 1
                restarted = True
        if not restarted:
            # Narrow the cone from the left.
            if orient(ax, ay, lx, ly, plx, ply) <= 0.0:
                if (ax == lx and ay == ly) or orient(ax, ay, rx, ry, plx, ply) > 0.0:
                    lx, ly, left_i = plx, ply, i
                else:
                    # The portal lies right of the cone: R becomes a waypoint.
                    ax, ay, apex_i = rx, ry, right_i
                    if ax != out[k - 1, 0] or ay != out[k - 1, 1]:
                        out[k, 0] = ax
                        out[k, 1] = ay
                        k += 1
                    lx, ly, rx, ry = ax, ay, ax, ay
                    left_i = apex_i
                    right_i = apex_i
                    i = apex_i + 1
                    restarted = True
        if not restarted:
            i += 1
    gx = left[n - 1, 0]
    gy = left[n - 1, 1]
    if gx != out[k - 1, 0] or gy != out[k - 1, 1]:
        out[k, 0] = gx
        out[k, 1] = gy
        k += 1
    return out[:k].copy()
