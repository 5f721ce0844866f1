"""Exact orientation predicate (adaptive: a floating-point filter, then exact expansion arithmetic).

``orient(ax, ay, bx, by, cx, cy)`` is the sign of the determinant ``(b - a) x (c - a)``: +1 when c lies left of the
directed line a -> b, -1 right of it, 0 exactly on it. The sign is exact for any finite double inputs (Shewchuk,
"Adaptive precision floating-point arithmetic and fast robust geometric predicates", 1997: error bound A, then an
exact expansion of the 16 product terms), so the triangle walks built on it never see inconsistent geometry.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

_EPS = 2.0**-53
_SPLITTER = 2.0**27 + 1.0
# Shewchuk's ccwerrboundA: |det - exact| <= this * (|detleft| + |detright|).
_ERRBOUND_A = (3.0 + 16.0 * _EPS) * _EPS


@jit(inline=True)
def _two_sum(a: float, b: float) -> tuple[float, float]:
    x = a + b
    bv = x - a
    av = x - bv
    return x, (a - av) + (b - bv)


@jit(inline=True)
def _split(a: float) -> tuple[float, float]:
    c = _SPLITTER * a
    big = c - a
    hi = c - big
    return hi, a - hi


@jit(inline=True)
def _two_product(a: float, b: float) -> tuple[float, float]:
    x = a * b
    ahi, alo = _split(a)
    bhi, blo = _split(b)
    err = x - ahi * bhi - alo * bhi - ahi * blo
    return x, alo * blo - err


@jit
def _exact_sign(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> int:
    """Sign of (ax-cx)(by-cy) - (ay-cy)(bx-cx) computed exactly with expansions (the slow path)."""
    # Each difference is an exact 2-term expansion; each product of 2-term expansions is 4 exact 2-term products.
    p0, p1 = _two_sum(ax, -cx)
    q0, q1 = _two_sum(by, -cy)
    r0, r1 = _two_sum(ay, -cy)
    s0, s1 = _two_sum(bx, -cx)
    terms = np.empty(16)
    k = 0
    for u in (p0, p1):
        for v in (q0, q1):
            h, lo = _two_product(u, v)
            terms[k] = h
            terms[k + 1] = lo
            k += 2
    for u in (r0, r1):
        for v in (s0, s1):
            h, lo = _two_product(u, v)
            terms[k] = -h
            terms[k + 1] = -lo
            k += 2
    # Grow a nonoverlapping expansion term by term (Shewchuk's Grow-Expansion); its largest component has the
    # sign of the exact sum.
    e = np.zeros(17)
    m = 0
    for i in range(16):
        q = terms[i]
        for j in range(m):
            q, hh = _two_sum(q, e[j])
            e[j] = hh
        e[m] = q
        m += 1
    for j in range(m - 1, -1, -1):
        if e[j] > 0.0:
            return 1
        if e[j] < 0.0:
            return -1
    return 0


@jit
def orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> int:
    """Exact sign of the orientation of (a, b, c): +1 counter-clockwise (c left of a->b), -1 clockwise, 0 collinear."""
    detleft = (ax - cx) * (by - cy)
    detright = (ay - cy) * (bx - cx)
    det = detleft - detright
    bound = _ERRBOUND_A * (abs(detleft) + abs(detright))
    if det > bound:
        return 1
    if -det > bound:
        return -1
    if detleft == 0.0 and detright == 0.0:
        return 0
    return _exact_sign(ax, ay, bx, by, cx, cy)


@jit(inline=True)
def orient_det(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    """The floating-point orientation determinant (b - a) x (c - a): twice the signed area, for constructions."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@jit(inline=True, noalloc=True)
def norm2d(x: float, y: float) -> float:
    """sqrt(x^2 + y^2): the length of a vector of scene coordinates (libm's hypot guards against overflow far
    beyond any scene's size and costs five times as much in the step kernels)."""
    return math.sqrt(x * x + y * y)
