"""The Corridor Map Method (Geraerts and Overmars 2007, the IRM paper's reference [5]) and IRM for one character in
a corridor with small static obstacles, to reproduce IRM Figure 1 ("Obstacle avoidance inside corridors").

**CMM (IRM section 1.1).** "A backbone path is extracted from the corridor map together with a collision-free
corridor around it ... an attraction point moves along the backbone path and attracts the character in such a way
that no collisions occur with the environment." After [5]: the corridor is the backbone path densely sampled with
its maximum clearance discs K(B[s], R[s]); the attraction point of a character at x is alpha(x) = B[s_max], the
farthest backbone point whose disc still holds x, s_max = max{s : |x - B[s]| < R[s]}; the attraction force is
F_a = f (alpha - x) / |alpha - x| with f = 1 / (R[s_max] - |x - B[s_max]|) - 1 / R[s_max]. x lies near the rim of
that farthest disc, so f is large, unbounded as the sampling gets denser: the "almost infinite force" IRM section
1.1 blames for a character that "has to be very close to an obstacle to avoid it and only at the very last moment
adapts its motion". [5] is not among this repository's papers: the definitions above are [5]'s as published, the
IRM text describes them in words only. The motion is integrated with semi-implicit Euler, the velocity-based
scheme MIRAN section 5 uses for its own attraction-point steering (core.sim.integrators).

**IRM (sections 4.1-4.6), as the engine steers it** (core.steering.irm, core.sim.irm_phase, core.sim.crowd): the
route's corridor from the retraction onto the medial axis, the disc x lies deepest in, the attraction point of eq. 4
on its rim, the steering force of eq. 3, the boundary force of eq. 1 with the admissible safe distance of eq. 2,
Verlet integration (4.6). Figure 1(b) uses "the medial axis as the indicative route", so both methods follow the
same backbone path here.

**Small obstacles (IRM 4.5).** Discs that are not part of the corridor map; both methods feel the same repulsion of
eq. 6, F_o = k_r / (d_i - r_i - r) away from the disc within d_o of its rim (``core.steering.forces.avoidance_term``,
k_r = c_o d_o relative to vmax), uncapped as in the paper, so the obstacle can always hold the character off.

Why here and not a steering method of the simulator: CMM is the baseline IRM replaces, used only to redraw the
paper's comparison; a single character walks, one step a loop turn, every force from the engine's kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.routes.kernels import point_at_into
from core.routes.route import Route
from core.sim.crowd import irm_boundary
from core.sim.integrators import EULER, VERLET, integrate
from core.sim.irm_phase import corridor_reach
from core.sim.params import SimParams
from core.steering.forces import avoidance_term, steering_force
from core.steering.irm import admissible_safe_distance, attraction_on_disc, build_corridor, deepest_disc, disc_stretch

# The CMM corridor's sampling step along the backbone (m): "the skeleton of the map is densely sampled" (IRM 3.1).
CMM_STEP = 0.05
# eq. 6 without a cap (the paper's form).
UNCAPPED = 1e12
# CMM's force is stiff (unbounded near the rim of its farthest disc): it is integrated this many times per step of
# dt, as IRM 4.6 asks of forces "that have widely different scales and can vary quickly" (a small time step); the
# path keeps one point per step of dt, as IRM's.
CMM_SUBSTEPS = 10


@dataclass
class Walker:
    """One character: radius (m), maximum speed (m/s), time step (s), IRM's preferred safe distance d_s (m)."""

    radius: float = 0.25
    vmax: float = 1.4
    dt: float = 0.1
    safe_distance: float = 2.0


def corridor(mesh, route: Route, step: float | None, scale: float) -> tuple[np.ndarray, ...]:
    """The corridor (B, R, L, Q, S) of a route retracted onto the medial axis (IRM 3.2): sampled as the engine does
    (every R/2) when ``step`` is None, else every ``step`` (CMM's densely sampled backbone)."""
    pts = np.ascontiguousarray(route.points, dtype=np.float64)
    s = np.ascontiguousarray(route.s, dtype=np.float64)
    lo, hi = (max(1e-4 * scale, 1e-3 * route.length / len(pts)), 0.02 * scale) if step is None else (step, step)
    return build_corridor(mesh.arrays.edges, pts, s, 0, len(pts), lo, hi, scale)


def cmm_attraction(B: np.ndarray, R: np.ndarray, S: np.ndarray, k: int, x: np.ndarray) -> int:
    """[5]'s s_max: the last disc, from k on and within four radii of backbone length, that still holds x (the
    farthest backbone point whose clearance disc contains the character); k itself when none ahead does."""
    j = int(np.searchsorted(S, S[k] + 4.0 * R[k], side="right"))
    inside = np.flatnonzero(np.hypot(B[k:j, 0] - x[0], B[k:j, 1] - x[1]) < R[k:j])
    return k + int(inside[-1]) if len(inside) else k


def cmm_force(B: np.ndarray, R: np.ndarray, k: int, x: np.ndarray, out: np.ndarray) -> None:
    """[5]'s attraction force towards alpha = B[k]: f (alpha - x) / |alpha - x|, f = 1 / (R - |x - B|) - 1 / R."""
    d = float(np.hypot(*(B[k] - x)))
    out[:] = 0.0
    if d > 0.0:
        f = 1.0 / max(R[k] - d, 1e-9) - 1.0 / R[k]
        out[:] = f * (B[k] - x) / d


def walk(method: str, mesh, backbone: Route, obstacles: np.ndarray, scene, who: Walker | None = None,
         max_time: float = 600.0) -> np.ndarray:
    """The path (n, 2) of one character from the backbone's start to its goal with ``method`` ("cmm" or "irm")
    among small disc obstacles (m, 3) [x, y, radius], one point per step of dt (CMM integrates CMM_SUBSTEPS times
    per step); stops on arrival (within vmax dt of the goal) or at ``max_time``. IRM's noise force (4.4) is left
    out: Figure 1(b) shows the repulsion of eq. 6 alone."""
    who = who or Walker()
    params = SimParams(scene)
    g = params.glob[0]
    scale = float(np.hypot(scene.bounds[2] - scene.bounds[0], scene.bounds[3] - scene.bounds[1]))
    B, R, _, _, S = corridor(mesh, backbone, CMM_STEP if method == "cmm" else None, scale)
    rp = np.ascontiguousarray(backbone.points, dtype=np.float64)
    rs = np.ascontiguousarray(backbone.s, dtype=np.float64)
    n = len(rp)
    goal = rp[-1]
    vmax, dt, r = who.vmax, who.dt, who.radius
    d_o = g["d_o"] if g["d_o"] > 0 else vmax * 1.0
    ds = admissible_safe_distance(who.safe_distance, vmax, dt, float(R.min()), r)
    x, v = rp[0].copy(), np.zeros(2)
    f_prev, f = np.zeros(2), np.zeros(2)
    fs, fb, fo, q, bp = (np.zeros(2) for _ in range(5))
    x_new, v_new = np.zeros(2), np.zeros(2)
    attr = goal.copy()
    k = 0
    path = [x.copy()]
    sub = CMM_SUBSTEPS if method == "cmm" else 1
    h = dt / sub
    for step in range(int(max_time / dt) * sub):
        if np.hypot(*(goal - x)) <= vmax * dt:
            if step % sub:
                path.append(x.copy())
            break
        if method == "cmm":
            k = cmm_attraction(B, R, S, k, x)
            cmm_force(B, R, k, x, f)
        else:
            k0 = min(k, len(R) - 1)
            k = deepest_disc(B, R, S, 0, len(R), k0, x, corridor_reach(R[k0], np.hypot(*(x - B[k0])), vmax, dt))
            s_to = disc_stretch(rp, rs, 0, n, B[k, 0], B[k, 1], R[k], S[k])
            s_a = attraction_on_disc(rp, rs, 0, n, B[k, 0], B[k, 1], R[k], S[k], s_to)
            if s_a >= 0.0:
                point_at_into(rp, rs, 0, n, s_a, attr)
            steering_force(x, attr, g["c_s"], vmax, fs)
            irm_boundary(x, r, B, R, 0, len(R), k, ds, vmax, g, bp, fb)
            f[:] = fs + fb
        fo[:] = 0.0
        for ox, oy, orad in obstacles:
            q[0], q[1] = ox, oy
            avoidance_term(x, q, r, orad, d_o, g["c_o"] * d_o, vmax, UNCAPPED, fo)
        f += fo
        integrate(EULER if method == "cmm" else VERLET, x, v, f_prev, step > 0, f, h, vmax, x_new, v_new)
        x[:], v[:], f_prev[:] = x_new, v_new, f
        if (step + 1) % sub == 0:
            path.append(x.copy())
    return np.array(path)
