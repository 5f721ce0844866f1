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
# ``social_run``'s work buffer: PAIR_ROWS rows of PAIR_CHUNK neighbours (a scan's run is taken in chunks of that size).
PAIR_CHUNK = 64
PAIR_ROWS = 8


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


@jit(inline=True, noalloc=True)
def social_run(spos: np.ndarray, svel: np.ndarray, sspeed: np.ndarray, order: np.ndarray, i: int, x: np.ndarray,
               e: np.ndarray, lo: int, hi: int, scan: tuple, buf: np.ndarray) -> None:
    """``social_term_at`` of the sorted neighbours [lo, hi) (hi - lo <= PAIR_CHUNK) on agent i at ``x`` walking along
    ``e``, each into buf[6] (x) and buf[7] (y), 0.0 for a neighbour left out; a caller adds them in order, which gives
    the scalar scan's sums bit for bit (a sum that starts at +0.0 never becomes -0.0, so adding 0.0 changes nothing).

    ``spos``, ``svel`` (2, n) by coordinate, ``sspeed`` (n,) and ``order`` (n,) as in core.sim.neighbors;
    ``scan`` = (reach2, near2, rstat, v0, sigma, tau, fmax): the neighbours kept are those with |r|^2 <= reach2, not
    agent i itself, and |r| <= rstat + tau |v_beta| unless |r|^2 <= near2 (the crowd phase's reach tests). The
    per-pair loops are branch-free (selects) over contiguous runs, so LLVM runs them in SIMD lanes; square root and
    division are correctly rounded there, as in scalar code. Only exp stays a scalar libm call, for the kept pairs.
    Divisions use np.divide: numba's ``/`` checks for a zero divisor, a branch that stops the vectoriser."""
    reach2, near2, rstat, v0, sigma, tau, fmax = scan
    ra, rc, rs, rb, rk, rex, ofx, ofy = buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7]
    sx, sy, vx, vy = spos[0], spos[1], svel[0], svel[1]
    x0 = x[0]
    x1 = x[1]
    n = hi - lo
    # The scan's tests, |r|, |r - y| and the ellipse's semi-minor axis b (Helbing and Molnar; see social_term_at).
    for t in range(n):
        m = lo + t
        px = sx[m] - x0
        py = sy[m] - x1
        r2 = px * px + py * py
        a = math.sqrt(r2)
        rx = x0 - sx[m]
        ry = x1 - sy[m]
        yx = tau * vx[m]
        yy = tau * vy[m]
        dx = rx - yx
        dy = ry - yy
        c = math.sqrt(dx * dx + dy * dy)
        s = a + c
        q = s * s - (yx * yx + yy * yy)
        b = 0.5 * math.sqrt(q)
        keep = (r2 <= reach2) & (order[m] != i) & ((r2 <= near2) | (a - tau * sspeed[m] <= rstat))
        keep = keep & (a >= _TINY) & (q > 0.0) & (b >= _TINY)
        ra[t] = a
        rc[t] = c
        rs[t] = s
        rb[t] = b
        rk[t] = 1.0 if keep else 0.0
    # V0 / sigma exp(-b / sigma) for the kept pairs only: libm's exp, one call each.
    for t in range(n):
        rex[t] = math.exp(-rb[t] / sigma) if rk[t] != 0.0 else 0.0
    k0 = v0 / sigma
    # The force of each kept pair, its field-of-view weight and cap, as social_term_at computes them.
    for t in range(n):
        m = lo + t
        a = ra[t]
        c = rc[t]
        rx = x0 - sx[m]
        ry = x1 - sy[m]
        dx = rx - tau * vx[m]
        dy = ry - tau * vy[m]
        k = np.divide(k0 * rex[t] * rs[t], 4.0 * rb[t])
        fx = np.divide(rx, a)
        fy = np.divide(ry, a)
        gx = fx + np.divide(dx, c)
        gy = fy + np.divide(dy, c)
        fx = (gx if c > _TINY else fx) * k
        fy = (gy if c > _TINY else fy) * k
        mm = math.sqrt(fx * fx + fy * fy)
        # Field of view: beta lies in direction -f from alpha (a weight of 1.0 changes no bit).
        w = BEHIND_WEIGHT if e[0] * (-fx) + e[1] * (-fy) < mm * FOV_COS else 1.0
        mw = mm * w
        cap = np.divide(fmax, mw) if mw > fmax else 1.0
        ok = (rk[t] != 0.0) & (mm > 0.0)
        ofx[t] = fx * w * cap if ok else 0.0
        ofy[t] = fy * w * cap if ok else 0.0
