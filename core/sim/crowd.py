"""The crowd phase of a step: the forces the MIRAN phases leave out, added to the total force of every agent.

- Helbing and Molnar's personal-space force between characters (IRM section 5; ``core.steering.social``), found
  through the neighbour grid (``neighbors``, the spatial hash of IRM section 5); in fast mode from the nearest
  neighbours only (core.sim.fidelity).
- IRM's noise force for IRM agents (IRM 4.4, eq. 5; ``core.steering.noise``).
- IRM's corridor boundary force for IRM agents (IRM 4.1, eqs. 1-2; ``core.steering.irm``): the push away from
  the boundary of the corridor disc the agent lies deepest in, with its admissible safe distance.
- The slope deflection of the steering force (Niederberger 7.2; ``core.steering.slope``), when switched on and the
  scene has a height field.

``X`` is the crowd extras (core.sim.kernel_inputs.CrowdArrays, built by ``Simulation._extension``): the height
field, the Perlin table and phases, the IRM corridors and each agent's place in its corridor. ``A`` is the agent
state (core.sim.agent_arrays), ``P`` the parameters, ``wk`` a block's Work (core.sim.work).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from core.jitcache import jit
from core.kernels.grid import cell_range, disc_row_span

from core.navmesh.kernels.predicates import norm2d
from core.steering.forces import boundary_force, steering_force
from core.steering.irm import disc_boundary_point, union_boundary_point
from core.steering.methods import IRM
from core.steering.noise import noise_angle, noise_force
from core.steering.slope import deflection, height_gradient, rotate
from core.steering.social import SOCIAL_FLOOR, social_reach, social_term_at

from .fidelity import FAST, keep_nearest
from .neighbors import visited, visits
from .state import WALKING


@jit(noalloc=True)
def crowd_terms(g, nb, X) -> tuple:
    """(social, slope): is the personal-space force on (with a neighbour grid), and the slope deflection (with a
    height field)?"""
    cell_start = nb.cell_start
    heights = X.heights
    social = g.social > 0.0 and g.interact > 0.0 and cell_start.shape[0] > 1 and g.social_v0 > 0.0
    slope = g.slope > 0.0 and heights.shape[0] > 0 and heights.shape[1] > 0
    return social, slope


@jit(noalloc=True)
def crowd_needed(g, nb, X, n_irm) -> bool:
    """Has ``crowd_phase`` anything to add: the social force or the slope on, or IRM agents (n_irm of them)?"""
    social, slope = crowd_terms(g, nb, X)
    return social or slope or n_irm > 0


@jit(noalloc=True)
def fastest_walker(g, nb, X) -> float:
    """The fastest walking agent's speed when the personal-space force is on (else 0.0): it bounds how far ahead the
    neighbours' personal space reaches. Read from the step's sorted grid (``nb.speed``, the walkers' |v|: the
    maximum does not depend on their order)."""
    social, slope = crowd_terms(g, nb, X)
    vtop = 0.0
    if social:
        sspeed = nb.speed
        for m in range(nb.cell_start[nb.cell_start.shape[0] - 1]):
            vtop = max(vtop, sspeed[m])
    return vtop


@jit(noalloc=True)
def crowd_phase(A, P, nb, X, t_now, vtop, wk) -> None:
    """Add the social, noise and slope terms to ``wk.fnew`` (n, 2) for every walking agent of the block (positions
    of this step); ``vtop`` is ``fastest_walker(g, nb, X)``, ``wk.crowd`` (5, 2) scratch space; ``nb`` the
    step's sorted neighbour grid (core.sim.neighbors.Neighbours)."""
    pos, attr, profile, method, radius, status = A.pos, A.attr, A.profile, A.method, A.radius, A.status
    g, prof = P.glob[0], P.prof
    fnew = wk.fnew
    hf_geo, heights, perm, phase = X.hf_geo, X.heights, X.perm, X.noise_phase
    cB, cR, corr_lo, corr_hi, corr_k, corr_ds = X.cB, X.cR, X.corr_lo, X.corr_hi, X.corr_k, X.corr_ds
    spos, svel = nb.pos, nb.vel
    social, slope = crowd_terms(g, nb, X)
    cn = g.c_n
    v0 = g.social_v0
    sig = g.social_sigma
    tau = g.social_tau
    fmax = g.f_max
    cs = g.c_s
    reach = social_reach(v0, sig, tau, vtop, SOCIAL_FLOOR)
    # For a neighbour walking at speed v the force is below the floor once |r| - tau v exceeds the static reach.
    rstat = social_reach(v0, sig, tau, 0.0, SOCIAL_FLOOR)
    # |r| <= rstat (with a margin far above rounding) keeps a neighbour: the test below needs no square root there.
    near2 = (rstat * (1.0 - 1e-9)) ** 2
    scratch = wk.crowd
    e = scratch[0]
    f = scratch[1]
    fs = scratch[2]
    grad = scratch[3]
    bp = scratch[4]
    fast = g.fidelity == FAST
    near_d, near_m = wk.near_d, wk.near_m
    # With the personal-space force, agents go in cell order (core.sim.neighbors.visited): their scans share rows.
    for k in range(visits(nb, social, wk.lo, wk.hi)):
        i = visited(nb, social, k, wk.lo, wk.hi)
        if i < 0 or status[i] != WALKING:
            continue
        x = pos[i]
        vmax = prof[profile[i]].max_speed
        dx = attr[i, 0] - x[0]
        dy = attr[i, 1] - x[1]
        da = norm2d(dx, dy)
        e[0] = dx / da if da > 0.0 else 0.0
        e[1] = dy / da if da > 0.0 else 0.0
        if social:
            f[0] = 0.0
            f[1] = 0.0
            n_near = 0
            terms = SocialTerms(v0, sig, tau, fmax * vmax, near2, rstat)
            if fast:
                # The nearest within the static reach (core.sim.fidelity), the force summed nearest first.
                n_near = social_scan(nb, i, x, e, rstat, terms, True, (near_d, near_m), f)
                for j in range(n_near):
                    m = near_m[j]
                    social_term_at(x, e, spos[m], svel[m], near_d[j], v0, sig, tau, fmax * vmax, f)
            else:
                social_scan(nb, i, x, e, reach, terms, False, (near_d, near_m), f)
            fnew[i, 0] += f[0]
            fnew[i, 1] += f[1]
        if method[i] == IRM and corr_hi[i] > corr_lo[i]:
            irm_boundary(x, radius[i], cB, cR, corr_lo[i], corr_hi[i], corr_k[i], corr_ds[i], vmax, g, bp, f)
            fnew[i, 0] += f[0]
            fnew[i, 1] += f[1]
        if method[i] == IRM and cn > 0.0:
            th = noise_angle(perm, t_now, g.noise_freq, phase[i])
            noise_force(x, attr[i], th, cn, vmax, f)
            fnew[i, 0] += f[0]
            fnew[i, 1] += f[1]
        if slope and da > 0.0:
            height_gradient(hf_geo, heights, x[0], x[1], grad)
            fade = g.slope_fade if g.slope_fade > 0.0 else prof[profile[i]].d
            delta = deflection(grad[0], grad[1], dx, dy, g.slope_max_angle, fade)
            if delta != 0.0:
                steering_force(x, attr[i], cs, vmax, fs)
                f[0] = fs[0]
                f[1] = fs[1]
                rotate(f, delta)
                fnew[i, 0] += f[0] - fs[0]
                fnew[i, 1] += f[1] - fs[1]


class SocialTerms(NamedTuple):
    """The personal-space force's terms for one character: ``v0``, ``sig``, ``tau`` (Helbing and Molnar's V0, sigma
    and Delta t), ``fcap`` the cap on its magnitude (units/s^2), ``near2`` the squared distance under which no
    neighbour is left out (no square root needed) and ``rstat`` the static reach (``social_reach`` at speed 0)."""

    v0: float
    sig: float
    tau: float
    fcap: float
    near2: float
    rstat: float


@jit(noalloc=True)
def social_scan(nb, i, x, e, reach, terms, fast, near, f) -> int:
    """Agent i's neighbours (at x, walking direction ``e``) within ``reach`` whose personal-space force (``terms``,
    SocialTerms) can reach the floor: each one's force added to ``f`` (2,), or in ``fast`` mode each kept in
    ``near`` = (distances, grid rows), the list of the nearest (``core.sim.fidelity.keep_nearest``). Returns the
    list's count (0 when not ``fast``). A call per agent, not inlined: the crowd benchmarks measured no cost for it."""
    near_d, near_m = near
    v0, sig, tau, fcap, near2, rstat = terms
    grid, cell_start, order, spos, svel, sspeed = nb.grid, nb.cell_start, nb.order, nb.pos, nb.vel, nb.speed
    ncx = int(grid[3])
    ncy = int(grid[4])
    cell = grid[2]
    reach2 = reach * reach
    n_near = 0
    cx0, cx1, cy0, cy1 = cell_range(grid[0], grid[1], cell, ncx, ncy, x[0], x[1], reach)
    for cy in range(cy0, cy1 + 1):
        # The row's cells within the disc are one run of sorted agents, in the order cell by cell; the agents of
        # the corner cells left out are all beyond the reach (skipped below as well).
        ra, rb = disc_row_span(grid[0], grid[1], cell, ncx, ncy, x[0], x[1], reach, cy)
        row = cy * ncx
        for m in range(cell_start[row + max(ra, cx0)], cell_start[row + min(rb, cx1) + 1]):
            rx = spos[m, 0] - x[0]
            ry = spos[m, 1] - x[1]
            r2 = rx * rx + ry * ry
            if r2 > reach2 or order[m] == i:
                continue
            # Within the static reach no neighbour is left out, whatever its speed: no square roots.
            a = math.sqrt(r2)
            if r2 > near2 and a - tau * sspeed[m] > rstat:
                continue
            if fast:
                n_near = keep_nearest(near_d, near_m, n_near, a, m)
            else:
                social_term_at(x, e, spos[m], svel[m], a, v0, sig, tau, fcap, f)
    return n_near


@jit(noalloc=True)
def irm_boundary(x, r, cB, cR, clo, chi, k, ds, vmax, g, bp, out) -> float:
    """IRM eq. 1 for one agent: F_b from b(x), the nearest point of its corridor's boundary (the union of the discs
    around the one it lies deepest in, core.steering.irm), into ``out`` (2,); returns the depth d_b. An agent
    outside that disc (others pushed it out of its corridor) is pulled back towards the disc's centre at the force
    cap."""
    out[0] = 0.0
    out[1] = 0.0
    k = min(max(k, clo), chi - 1)
    db = disc_boundary_point(cB[k, 0], cB[k, 1], cR[k], x, bp)
    fmax = g.f_max
    if db < 0.0:
        gap = cR[k] - db
        out[0] = fmax * vmax * (cB[k, 0] - x[0]) / gap
        out[1] = fmax * vmax * (cB[k, 1] - x[1]) / gap
        return db
    db = union_boundary_point(cB, cR, clo, chi, k, x, bp)
    # Eq. 2's upper bound R_min - r, taken where x is: where the corridor is narrower than r + d_s (eq. 2's set is
    # empty on such a corridor), the force would push from both walls in turn and the agent swing between them.
    ds = min(ds, cR[k] - r)
    if db - r < ds:
        boundary_force(x, bp, r, ds, g.kappa, g.c_b, vmax, fmax, out)
    return db
