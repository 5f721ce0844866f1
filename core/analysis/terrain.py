"""The length an agent walked on each terrain type, from its recorded path: the bars of the live run's plots
(MIRAN 2013, section 3.3: l^T, the path's length per terrain type), recomputed at any time of a recording."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry


def path_until(path: np.ndarray, t: float) -> np.ndarray:
    """The (k, 2) points of a recorded path (m, 3) [t, x, y] walked up to time t: the rows at or before t and the
    position at t, interpolated between the rows around it (none before the path's first time)."""
    k = int(np.searchsorted(path[:, 0], t, side="right"))
    pts = path[:k, 1:3]
    if 0 < k < len(path) and path[k - 1, 0] < t:
        t0, t1 = path[k - 1, 0], path[k, 0]
        u = (t - t0) / (t1 - t0)
        pts = np.vstack([pts, path[k - 1, 1:3] + u * (path[k, 1:3] - path[k - 1, 1:3])])
    return pts


def walked_terrain_lengths(points: np.ndarray, regions: Sequence[BaseGeometry]) -> np.ndarray:
    """(T,) the length of the polyline ``points`` (k, 2) inside each of the disjoint terrain ``regions``
    (``core.scene.build_geometry(scene).regions``, in the scene's terrain-type order)."""
    out = np.zeros(len(regions), dtype=np.float64)
    if len(points) < 2:
        return out
    line = shapely.LineString(points)
    for k, region in enumerate(regions):
        if not region.is_empty:
            out[k] = shapely.intersection(line, region).length
    return out
