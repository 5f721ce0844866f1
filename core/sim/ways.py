"""The characters' ways on, where a change of the world asks which of them an obstacle reaches: where each
stands, then the points of its route beyond its reference point (``State.route_lo`` / ``route_hi`` rows of the
packed routes, ``s`` past ``s_ref``), read in place by one kernel instead of gathered into new arrays: a crowd's
routes ahead hold hundreds of points a character."""

from __future__ import annotations

import numpy as np

from core.jitcache import jit


@jit(noalloc=True)
def near_box(route_lo: np.ndarray, route_hi: np.ndarray, s_ref: np.ndarray, pos: np.ndarray, points: np.ndarray,
             s: np.ndarray, agents: np.ndarray, box: np.ndarray, reach: np.ndarray, out: np.ndarray) -> int:
    """``out[k]`` True where the bounding box of agent ``agents[k]``'s way on comes within ``reach[k]`` of ``box``
    (x0, y0, x1, y1), on each axis; returns how many. ``points`` / ``s`` the packed routes' rows."""
    count = 0
    for k in range(agents.shape[0]):
        i = agents[k]
        x0 = x1 = pos[i, 0]
        y0 = y1 = pos[i, 1]
        for j in range(route_lo[i], route_hi[i]):
            if s[j] > s_ref[i]:
                x, y = points[j, 0], points[j, 1]
                x0, x1 = min(x0, x), max(x1, x)
                y0, y1 = min(y0, y), max(y1, y)
        r = reach[k]
        near = x0 <= box[2] + r and x1 >= box[0] - r and y0 <= box[3] + r and y1 >= box[1] - r
        out[k] = near
        count += near
    return count
