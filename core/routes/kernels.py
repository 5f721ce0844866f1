"""numba kernels over packed routes: the point at an arc length and the first closest point in a window.

Routes are read from flat arrays (see ``PackedRoutes``): ``points`` (N, 2) float64 route vertices in scene units,
``s`` (N,) float64 cumulative arc length of each vertex *within its route* (0 at a route's first vertex), and one
route is the index range ``[lo, hi)`` of those arrays (``hi - lo >= 2``). The steering kernels call these from
inside their own njit code.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from core.navmesh.kernels.predicates import norm2d, orient


@jit(noalloc=True)
def segment_of(s: np.ndarray, lo: int, hi: int, t: float) -> int:
    """Index j in [lo, hi - 2] of the segment [s[j], s[j+1]] holding arc length t (clamped to the route)."""
    a = lo
    b = hi - 1
    if t <= s[lo]:
        return lo
    if t >= s[hi - 1]:
        return hi - 2
    # Invariant: s[a] <= t < s[b].
    while b - a > 1:
        m = (a + b) >> 1
        if s[m] <= t:
            a = m
        else:
            b = m
    return a


@jit
def point_at(points: np.ndarray, s: np.ndarray, lo: int, hi: int, t: float) -> np.ndarray:
    """The (2,) point of route [lo, hi) at arc length t, clamped to [0, length]."""
    out = np.empty(2, dtype=np.float64)
    point_at_into(points, s, lo, hi, t, out)
    return out


@jit(noalloc=True)
def point_at_into(points: np.ndarray, s: np.ndarray, lo: int, hi: int, t: float, out: np.ndarray) -> None:
    """Write the point at arc length t into ``out`` (2,) without allocating (for per-agent steering loops)."""
    j = segment_of(s, lo, hi, t)
    L = s[j + 1] - s[j]
    u = 0.0
    if L > 0.0:
        u = (t - s[j]) / L
        if u < 0.0:
            u = 0.0
        elif u > 1.0:
            u = 1.0
    out[0] = points[j, 0] + u * (points[j + 1, 0] - points[j, 0])
    out[1] = points[j, 1] + u * (points[j + 1, 1] - points[j, 1])


@jit(noalloc=True)
def closest_point(points: np.ndarray, s: np.ndarray, lo: int, hi: int, x: np.ndarray, s0: float,
                  s1: float) -> float:
    """Arc length of the FIRST closest point of route [lo, hi) to x within the window [s0, s1] (MIRAN 3.1).

    "First" means the smallest arc length among points at the minimum distance; distances within a relative
    1e-12 of the best count as ties, so round-off cannot move the answer ahead along the route.
    """
    total = s[hi - 1]
    if s0 < 0.0:
        s0 = 0.0
    if s1 > total:
        s1 = total
    if s1 < s0:
        s1 = s0
    j = segment_of(s, lo, hi, s0)
    best_t = s0
    best_d = np.inf
    while j < hi - 1:
        a = s[j]
        b = s[j + 1]
        if a > s1:
            break
        L = b - a
        ta = s0 if s0 > a else a
        tb = s1 if s1 < b else b
        if L > 0.0 and tb >= ta:
            dx = points[j + 1, 0] - points[j, 0]
            dy = points[j + 1, 1] - points[j, 1]
            # Projection of x on the segment's line, as an arc length, clamped to the clipped piece [ta, tb].
            t = a + ((x[0] - points[j, 0]) * dx + (x[1] - points[j, 1]) * dy) / L
            if t < ta:
                t = ta
            elif t > tb:
                t = tb
            v = (t - a) / L
            px = points[j, 0] + v * dx - x[0]
            py = points[j, 1] + v * dy - x[1]
            d = np.sqrt(px * px + py * py)
            if best_d == np.inf or d < best_d - 1e-12 * (1.0 + best_d):
                best_d = d
                best_t = t
        j += 1
    return best_t


@jit
def cumulative_length(points: np.ndarray) -> np.ndarray:
    """(n,) cumulative arc length of a (n, 2) polyline, starting at 0."""
    n = points.shape[0]
    out = np.zeros(n, dtype=np.float64)
    for i in range(1, n):
        out[i] = out[i - 1] + norm2d(points[i, 0] - points[i - 1, 0], points[i, 1] - points[i - 1, 1])
    return out


@jit
def clean_polyline(points: np.ndarray):
    """Drop every point at zero distance from the last kept one; returns (kept points (k, 2), cumulative arc
    length (k,), all coordinates finite). A step so small that it does not raise the arc length is dropped too."""
    n = points.shape[0]
    out = np.empty((n, 2))
    s = np.empty(n)
    finite = True
    k = 0
    for i in range(n):
        x = points[i, 0]
        y = points[i, 1]
        if not (np.isfinite(x) and np.isfinite(y)):
            finite = False
            continue
        if k == 0:
            out[0, 0] = x
            out[0, 1] = y
            s[0] = 0.0
            k = 1
            continue
        t = s[k - 1] + norm2d(x - out[k - 1, 0], y - out[k - 1, 1])
        if t > s[k - 1]:
            out[k, 0] = x
            out[k, 1] = y
            s[k] = t
            k += 1
    return out[:k].copy(), s[:k].copy(), finite


@jit
def bend_mask(points: np.ndarray) -> np.ndarray:
    """(n,) bool: the vertices a polyline needs, its ends and every vertex that is not exactly on the straight
    piece between its neighbours (exact orientation; a vertex where the polyline turns back is kept). Dropping the
    others leaves the same curve with the same arc lengths at the kept vertices."""
    n = points.shape[0]
    keep = np.ones(n, dtype=np.bool_)
    for k in range(1, n - 1):
        ax, ay = points[k - 1, 0], points[k - 1, 1]
        bx, by = points[k, 0], points[k, 1]
        cx, cy = points[k + 1, 0], points[k + 1, 1]
        if orient(ax, ay, bx, by, cx, cy) == 0 and (bx - ax) * (cx - bx) + (by - ay) * (cy - by) > 0.0:
            keep[k] = False
    return keep
