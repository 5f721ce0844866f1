"""Forces between characters in a crowd (IRM section 5): the avoidance term of IRM eq. 6 lives in ``forces``; this
module adds Helbing and Molnar's elliptical personal-space force.

Helbing and Molnar (1995), "Social force model for pedestrian dynamics": character beta repels alpha through the
potential V(b) = V0 exp(-b / sigma), where b is the semi-minor axis of the ellipse with foci alpha's position and
beta's position a step ``tau`` ahead along beta's velocity (the personal space stretched where beta is going):

    2 b = sqrt((|r| + |r - y|)^2 - |y|^2),   r = x_alpha - x_beta,   y = tau v_beta

and f = -grad_r V = (V0 / sigma) exp(-b / sigma) (|r| + |r - y|) / (4 b) (r / |r| + (r - y) / |r - y|).
Forces from characters outside alpha's field of view (angle ``phi`` = 100 degrees either side of its walking
direction) are weighted by ``c`` = 0.5. Units: V0 in units^2/s^2, sigma in units, tau in s; the force is an
acceleration (units/s^2), mass 1 (IRM eq. 8).
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from core.navmesh.kernels.predicates import norm2d

# Helbing and Molnar's field of view (half-angle) and the weight of what lies outside it.
FOV_COS = math.cos(math.radians(100.0))
BEHIND_WEIGHT = 0.5
# The personal-space force is neglected below this acceleration (units/s^2): it bounds the neighbours looked at.
SOCIAL_FLOOR = 0.01
# Distances below this (units) have no direction.
_TINY = 1e-12


@jit(noalloc=True)
def ellipse_b(rx: float, ry: float, yx: float, yy: float) -> float:
    """Semi-minor axis b of Helbing and Molnar's ellipse for r = x_alpha - x_beta and y = tau v_beta."""
    a = norm2d(rx, ry)
    c = norm2d(rx - yx, ry - yy)
    s = a + c
    q = s * s - (yx * yx + yy * yy)
    return 0.5 * math.sqrt(q) if q > 0.0 else 0.0


@jit(noalloc=True)
def social_term(x: np.ndarray, e: np.ndarray, o: np.ndarray, vo: np.ndarray, v0: float, sigma: float, tau: float,
                fmax: float, out: np.ndarray) -> None:
    """Add beta's (at ``o`` with velocity ``vo``) personal-space force on alpha (at ``x``, walking direction ``e``, a
    unit vector or zero) to ``out``; its magnitude is capped at ``fmax`` (units/s^2)."""
    social_term_at(x, e, o, vo, norm2d(x[0] - o[0], x[1] - o[1]), v0, sigma, tau, fmax, out)


@jit(noalloc=True)
def social_term_at(x: np.ndarray, e: np.ndarray, o: np.ndarray, vo: np.ndarray, a: float, v0: float, sigma: float,
                   tau: float, fmax: float, out: np.ndarray) -> None:
    """``social_term`` with a = |x - o| given: a neighbour scan has already taken that square root."""
    rx = x[0] - o[0]
    ry = x[1] - o[1]
    if a < _TINY:
        return
    yx = tau * vo[0]
    yy = tau * vo[1]
    dx = rx - yx
    dy = ry - yy
    c = norm2d(dx, dy)
    s = a + c
    q = s * s - (yx * yx + yy * yy)
    if q <= 0.0:
        return
    b = 0.5 * math.sqrt(q)
    if b < _TINY:
        return
    k = (v0 / sigma) * math.exp(-b / sigma) * s / (4.0 * b)
    fx = rx / a
    fy = ry / a
    if c > _TINY:
        fx += dx / c
        fy += dy / c
    fx *= k
    fy *= k
    m = norm2d(fx, fy)
    if m <= 0.0:
        return
    # Field of view: beta lies in direction -f from alpha.
    if e[0] * (-fx) + e[1] * (-fy) < m * FOV_COS:
        fx *= BEHIND_WEIGHT
        fy *= BEHIND_WEIGHT
        m *= BEHIND_WEIGHT
    if m > fmax:
        fx *= fmax / m
        fy *= fmax / m
    out[0] += fx
    out[1] += fy


@jit(noalloc=True)
def social_reach(v0: float, sigma: float, tau: float, vmax: float, floor: float) -> float:
    """A distance beyond which the force is below ``floor`` (units/s^2) for any neighbour walking at most vmax:
    b >= (|r| - tau vmax) so V0/sigma exp(-b/sigma) < floor once |r| > tau vmax + sigma ln(V0 / (sigma floor))."""
    if v0 <= 0.0 or floor <= 0.0:
        return 0.0
    return tau * vmax + sigma * max(math.log(v0 / (sigma * floor)), 0.0) + sigma
