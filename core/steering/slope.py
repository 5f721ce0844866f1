"""Slope-aware steering (Niederberger et al. 2004, section 7.2, eqs. 2-3): turn away from steep ascents.

The agent heading from p to its next waypoint w (here: its attraction point) is turned by

    delta(p) = f(|w - p|) |grad h(p)| cos(phi),   phi = angle(w - p, grad h(p))          (eqs. 2-3)

only while it ascends (cos(phi) > 0), away from the gradient, where f: R -> [0, max_angle] fades to 0 as w is
approached so that the waypoint is still reached: f(l) = max_angle * min(1, l / fade). delta is capped at
max_angle. |grad h| is the slope (rise over run, dimensionless).

The height field is a raster: ``hf_geo`` (3,) float64 [x0, y0, cell] and ``heights`` (ny, nx) float64, node
(j, i) at (x0 + i cell, y0 + j cell); h is bilinear inside a cell and constant beyond the raster's border.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit


@jit(noalloc=True)
def height_gradient(hf_geo: np.ndarray, heights: np.ndarray, x: float, y: float, out: np.ndarray) -> float:
    """Bilinear height h(x, y) (returned) and its gradient into ``out`` (2,); zero gradient outside the raster."""
    ny, nx = heights.shape
    out[0] = 0.0
    out[1] = 0.0
    if nx == 0 or ny == 0:
        return 0.0
    cell = hf_geo[2]
    u = (x - hf_geo[0]) / cell
    v = (y - hf_geo[1]) / cell
    inside_u = 0.0 <= u <= nx - 1
    inside_v = 0.0 <= v <= ny - 1
    u = min(max(u, 0.0), nx - 1.0)
    v = min(max(v, 0.0), ny - 1.0)
    i = min(int(u), max(nx - 2, 0))
    j = min(int(v), max(ny - 2, 0))
    i1 = min(i + 1, nx - 1)
    j1 = min(j + 1, ny - 1)
    fu = u - i
    fv = v - j
    h00 = heights[j, i]
    h10 = heights[j, i1]
    h01 = heights[j1, i]
    h11 = heights[j1, i1]
    h = (h00 * (1 - fu) + h10 * fu) * (1 - fv) + (h01 * (1 - fu) + h11 * fu) * fv
    if inside_u and i1 > i:
        out[0] = ((h10 - h00) * (1 - fv) + (h11 - h01) * fv) / cell
    if inside_v and j1 > j:
        out[1] = ((h01 - h00) * (1 - fu) + (h11 - h10) * fu) / cell
    return h


@jit(noalloc=True)
def deflection(gx: float, gy: float, wx: float, wy: float, max_angle: float, fade: float) -> float:
    """Niederberger eq. 2's signed turn (rad) for the direction (wx, wy) to the waypoint and the gradient (gx, gy):
    positive turns counter-clockwise. Zero when descending, on flat ground, or at the waypoint."""
    lw = math.hypot(wx, wy)
    lg = math.hypot(gx, gy)
    if lw <= 0.0 or lg <= 0.0:
        return 0.0
    cphi = (wx * gx + wy * gy) / (lw * lg)
    if cphi <= 0.0:
        return 0.0
    f = max_angle * (min(1.0, lw / fade) if fade > 0.0 else 1.0)
    delta = min(f * lg * cphi, max_angle)
    # Away from the gradient: turn towards the side where the gradient is not (cross(w, g) > 0: g is to the left).
    cross = wx * gy - wy * gx
    return -delta if cross > 0.0 else delta


@jit(noalloc=True)
def rotate(v: np.ndarray, angle: float) -> None:
    """Rotate the (2,) vector v in place by ``angle`` radians (counter-clockwise)."""
    c = math.cos(angle)
    s = math.sin(angle)
    x = v[0]
    v[0] = c * x - s * v[1]
    v[1] = s * x + c * v[1]
