"""The forces that move a character (MIRAN 3.4, after IRM section 4), for one character at a time.

Every force is an acceleration (mass 1, IRM eq. 8) written into a (2,) float64 ``out`` in scene units per s^2.
Strengths are given relative to the character's maximum speed ``vmax`` (units per s), so that one set of constants
behaves alike in a 20 m room and a 500 m city: a constant ``c`` gives an acceleration of ``c * vmax``.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

# Distances below this (scene units) have no direction: the force that needs one is left out.
_TINY = 1e-12
# Relative margin of the squared-distance tests that skip a square root: far above rounding (1e-16), far below any
# distance that matters, so the test decides exactly as the square-rooted comparison would.
_FAR = 1e-9


@jit(noalloc=True)
def steering_force(x: np.ndarray, alpha: np.ndarray, cs: float, vmax: float, out: np.ndarray) -> None:
    """F_s = c_s (alpha - x) / |alpha - x| (MIRAN 3.4, IRM eq. 3), scaled by vmax; zero when x == alpha."""
    dx = alpha[0] - x[0]
    dy = alpha[1] - x[1]
    n = np.sqrt(dx * dx + dy * dy)
    if n < _TINY:
        out[0] = 0.0
        out[1] = 0.0
        return
    k = cs * vmax / n
    out[0] = k * dx
    out[1] = k * dy


@jit(noalloc=True)
def boundary_magnitude(d_b: float, r: float, ds: float, kappa: float) -> float:
    """IRM eq. 1's scalar C_b = (d_s + r - d_b) / (d_b - r)^kappa where d_b - r < d_s, else 0.

    It grows without bound as the character touches the boundary (d_b -> r); the caller caps the force.
    Inside the radius (d_b <= r) it is +inf.
    """
    gap = d_b - r
    if gap >= ds:
        return 0.0
    if gap <= 0.0:
        return np.inf
    return (ds - gap) / gap ** kappa


@jit(noalloc=True)
def boundary_force(x: np.ndarray, b: np.ndarray, r: float, ds: float, kappa: float, cb: float, vmax: float,
                   fmax: float, out: np.ndarray) -> None:
    """F_b = c_b C_b (x - b(x)) / |x - b(x)| (MIRAN 3.4 with IRM eq. 1), b(x) the nearest obstacle point.

    The magnitude is capped at ``fmax * vmax`` so that a character touching a wall gets a strong finite push
    instead of an infinite one; zero when x is on the boundary itself (no direction).
    """
    dx = x[0] - b[0]
    dy = x[1] - b[1]
    d_b = np.sqrt(dx * dx + dy * dy)
    out[0] = 0.0
    out[1] = 0.0
    if d_b < _TINY:
        return
    m = cb * boundary_magnitude(d_b, r, ds, kappa)
    if m <= 0.0:
        return
    cap = fmax
    if m > cap:
        m = cap
    k = m * vmax / d_b
    out[0] = k * dx
    out[1] = k * dy


@jit(noalloc=True)
def avoidance_term(x: np.ndarray, o: np.ndarray, r: float, r_o: float, d_o: float, kr: float, vmax: float,
                   fmax: float, out: np.ndarray) -> None:
    """Add one obstacle's (or other character's) push to ``out``: IRM eq. 6, c_o = k_r / (d_i - r_i - r).

    Applied only inside the influence region d_i - r_i - r <= d_o; the magnitude (times vmax) is capped at
    ``fmax * vmax``, overlapping discs included. Coincident centres have no direction and add nothing.
    """
    dx = x[0] - o[0]
    dy = x[1] - o[1]
    d2 = dx * dx + dy * dy
    # Beyond the influence region by more than any rounding: no square root (most neighbours of a crowd).
    far = (d_o + r_o + r) * (1.0 + _FAR)
    if d2 > far * far:
        return
    d = np.sqrt(d2)
    if d < _TINY:
        return
    gap = d - r_o - r
    if gap > d_o:
        return
    m = fmax
    if gap > 0.0:
        m = kr / gap
        if m > fmax:
            m = fmax
    k = m * vmax / d
    out[0] += k * dx
    out[1] += k * dy


@jit(noalloc=True)
def cap_norm(v: np.ndarray, vmax: float) -> None:
    """Scale the (2,) vector v in place so that |v| <= vmax (the maximum speed of MIRAN and IRM)."""
    n = np.sqrt(v[0] * v[0] + v[1] * v[1])
    if n > vmax and n > 0.0:
        k = vmax / n
        v[0] *= k
        v[1] *= k
