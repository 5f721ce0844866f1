"""The crowd step's shortcuts decide exactly as the full tests they skip (issue 20).

- A disc's collision guard skips the exact segment-clearance test when the step is shorter than its clearance at
  the start less the clearance it must keep (``core.sim.kernels._step_allowed``'s ``sure``): checked against
  shapely's distance from the step to the free space's boundary, and against the guard run without the shortcut.
- IRM eq. 6's avoidance term skips its square root beyond the influence region by a relative 1e-9: checked bit for
  bit against the formula written out, at distances within 1e-12 of the region's edge.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from core.navmesh.queries import clearance
from core.scene.geometry import build_geometry
from core.sim.kernels import _step_allowed
from core.sim.population import random_free_points
from core.steering.forces import avoidance_term

from simgen import shipped, shipped_mesh


def test_disc_guard_shortcut_keeps_the_clearance_and_decides_as_the_full_test():
    scene = shipped("city")
    mesh = shipped_mesh("city")
    boundary = build_geometry(scene).free.boundary
    M = mesh.arrays
    rng = np.random.default_rng(20)
    x = random_free_points(mesh, rng, 400)
    c0, _ = clearance(mesh, x)
    tl = np.zeros(mesh.n_terrain_types)
    scale = math.hypot(500.0, 500.0)
    tol = 1e-9 * scale
    shortcut = 0
    for k in range(len(x)):
        r = float(rng.choice([0.25, 0.4, 2.0]))
        need = min(r, c0[k]) * (1.0 - 1e-8)
        sure = c0[k] - need - tol
        h = float(rng.uniform(0.0, 2.0 * max(sure, 0.1)))
        a = rng.uniform(0.0, 2.0 * math.pi)
        x1 = x[k] + h * np.array([math.cos(a), math.sin(a)])
        fast = _step_allowed(M, -1, x[k, 0], x[k, 1], x1[0], x1[1], r, need, sure, tl)
        full = _step_allowed(M, -1, x[k, 0], x[k, 1], x1[0], x1[1], r, need, -math.inf, tl)
        assert fast == full
        if h < sure:
            shortcut += 1
            # The independent reference: the whole step keeps `need` from the boundary of the free space.
            step = shapely.LineString([x[k], x1])
            assert shapely.distance(step, boundary) >= need - 1e-9
            assert shapely.covered_by(step, build_geometry(scene).free)
    assert shortcut > 50


def _avoidance_reference(x, o, r, r_o, d_o, kr, vmax, fmax):
    """IRM eq. 6 as written before the shortcut: square root first, then the region test."""
    dx, dy = x[0] - o[0], x[1] - o[1]
    d = np.sqrt(dx * dx + dy * dy)
    if d < 1e-12:
        return 0.0, 0.0
    gap = d - r_o - r
    if gap > d_o:
        return 0.0, 0.0
    m = fmax if gap <= 0.0 else min(kr / gap, fmax)
    k = m * vmax / d
    return k * dx, k * dy


def test_avoidance_term_is_the_formula_at_the_region_edge():
    rng = np.random.default_rng(6)
    for _ in range(400):
        r, r_o, d_o = rng.uniform(0.0, 0.5), rng.uniform(0.0, 0.5), rng.uniform(0.0, 3.0)
        edge = d_o + r + r_o
        d = edge * (1.0 + float(rng.choice([-1e-12, 0.0, 1e-12, 1e-10, -1e-10, 0.5, -0.5, 2.0])))
        a = rng.uniform(0.0, 2.0 * math.pi)
        x = rng.uniform(-100.0, 100.0, 2)
        o = x - d * np.array([math.cos(a), math.sin(a)])
        out = np.zeros(2)
        avoidance_term(x, o, r, r_o, d_o, 0.5 * d_o, 1.4, 40.0, out)
        ref = _avoidance_reference(x, o, r, r_o, d_o, 0.5 * d_o, 1.4, 40.0)
        assert out[0] == ref[0] and out[1] == ref[1]
