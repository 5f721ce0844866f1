"""IRM's path-variation force (Karamouzas et al. 2009, section 4.4, eq. 5) driven by one-dimensional Perlin noise.

Perlin noise over time (Perlin 1985, gradient noise): at each integer lattice point k a pseudo-random gradient
g_k in [-1, 1] (from a permutation table of 256 entries), and between lattice points the two ramps g_k t and
g_{k+1} (t - 1) blended with the fade curve 6t^5 - 15t^4 + 10t^3. The value lies in [-0.5, 0.5], changes smoothly
and is zero on the lattice points. Each agent reads the noise at ``freq * time + phase_i`` (its own phase), so the
agents vary independently; the angle theta = pi * value lies in [-pi/2, pi/2] as IRM 4.4 asks.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from core.navmesh.kernels.predicates import norm2d

TABLE = 256


def permutation(seed: int) -> np.ndarray:
    """(512,) int64 Perlin permutation table (the 256 values twice, so that p[p[k] + 1] needs no wrap)."""
    p = np.random.default_rng(int(seed)).permutation(TABLE).astype(np.int64)
    return np.concatenate([p, p])


@jit(noalloc=True)
def _grad(perm: np.ndarray, k: int) -> float:
    return perm[k & (TABLE - 1)] / (TABLE - 1) * 2.0 - 1.0


@jit(noalloc=True)
def perlin1(perm: np.ndarray, u: float) -> float:
    """One-dimensional Perlin noise at u: in [-0.5, 0.5], C^2 in u, 0 at integers."""
    k = math.floor(u)
    t = u - k
    ki = int(k)
    g0 = _grad(perm, ki)
    g1 = _grad(perm, ki + 1)
    f = t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
    a = g0 * t
    b = g1 * (t - 1.0)
    return a + f * (b - a)


@jit(noalloc=True)
def noise_angle(perm: np.ndarray, t: float, freq: float, phase: float) -> float:
    """IRM 4.4's theta in [-pi/2, pi/2] for an agent with this phase at time t (s)."""
    return math.pi * perlin1(perm, freq * t + phase)


@jit(noalloc=True)
def noise_force(x: np.ndarray, alpha: np.ndarray, theta: float, cn: float, vmax: float, out: np.ndarray) -> None:
    """IRM eq. 5: F_n = c_n R(theta) (alpha - x) / |alpha - x|, scaled by vmax; zero when x == alpha."""
    dx = alpha[0] - x[0]
    dy = alpha[1] - x[1]
    n = norm2d(dx, dy)
    out[0] = 0.0
    out[1] = 0.0
    if n < 1e-12:
        return
    c = math.cos(theta)
    s = math.sin(theta)
    k = cn * vmax / n
    out[0] = k * (c * dx - s * dy)
    out[1] = k * (s * dx + c * dy)
