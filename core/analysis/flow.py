"""Flow across a measurement line per PedPy's definition (PedPy documentation "Flow", ``compute_n_t``).

An agent crosses the line at the frame that ends a movement (from the frame before) intersecting the line and not
ending on it; N(t) counts the agents whose first crossing is at or before t. The flow over a window is dN / dt.
"""

from __future__ import annotations

import numpy as np
import shapely

# PedPy's distance below which a movement ends on the line (and does not count as crossing it).
ON_LINE = 1e-5


def first_crossings(t: np.ndarray, xy: np.ndarray, offsets: np.ndarray, line) -> np.ndarray:
    """(n,) time of each agent's first crossing of ``line`` (NaN: never), its path the rows
    ``offsets[i]:offsets[i + 1]`` of ``t`` (m,) and ``xy`` (m, 2) in time order."""
    n = len(offsets) - 1
    out = np.full(n, np.nan)
    if len(t) < 2:
        return out
    agent = np.repeat(np.arange(n), np.diff(offsets))
    same = agent[1:] == agent[:-1]
    a = np.flatnonzero(same)
    moves = shapely.linestrings(np.stack([xy[a], xy[a + 1]], axis=1))
    hit = shapely.intersects(moves, line) & (shapely.distance(shapely.points(xy[a + 1]), line) >= ON_LINE)
    a = a[hit]
    first = np.full(n, np.inf)
    np.minimum.at(first, agent[a], t[a + 1])
    out[np.isfinite(first)] = first[np.isfinite(first)]
    return out


def cumulative_count(crossings: np.ndarray, times: np.ndarray) -> np.ndarray:
    """N(t) at each of ``times``: the agents whose first crossing is at or before t."""
    c = np.sort(crossings[np.isfinite(crossings)])
    return np.searchsorted(c, times, side="right").astype(np.int64)


def flow_rate(crossings: np.ndarray, times: np.ndarray, window: float) -> np.ndarray:
    """Agents per second crossing over the ``window`` seconds ending at each of ``times``."""
    c = np.sort(crossings[np.isfinite(crossings)])
    n1 = np.searchsorted(c, times, side="right")
    n0 = np.searchsorted(c, times - window, side="right")
    return (n1 - n0) / float(window)
