"""Time integration of the equation of motion d^2x/dt^2 = F(x) (IRM eq. 8, mass 1) at a fixed time step.

- ``euler``: semi-implicit Euler, the scheme MIRAN section 5 uses after each attraction point ("Euler
  integration ... to generate smooth paths", C^1 paths after the Corridor Map Method): v' = v + F dt, then
  x' = x + v' dt.
- ``verlet``: velocity Verlet (the stable scheme IRM section 4.6 recommends): x' = x + v dt + F dt^2 / 2 and
  v = v_prev + (F_prev + F) dt / 2, the velocity completed one step later when the new force is known.

Both cap the speed at the character's maximum speed and so the displacement at vmax * dt.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from core.steering.forces import cap_norm

INTEGRATORS = ("euler", "verlet")
EULER = 0
VERLET = 1


def integrator_code(name: str) -> int:
    """The kernel code of an integrator name; ValueError listing the valid names otherwise."""
    try:
        return INTEGRATORS.index(name)
    except ValueError:
        raise ValueError(f"unknown integrator {name!r} (valid: {', '.join(INTEGRATORS)})") from None


@jit(noalloc=True)
def integrate(code: int, x: np.ndarray, v: np.ndarray, f_prev: np.ndarray, has_prev: bool, f: np.ndarray,
              dt: float, vmax: float, x_out: np.ndarray, v_out: np.ndarray) -> None:
    """One step from position x, velocity v and force f (and the previous force for Verlet).

    Writes the new position into ``x_out`` and the velocity to keep into ``v_out`` (all (2,) float64).
    For Verlet ``v_out`` is the velocity at x (completed with this step's force), the half-kick being folded
    into the displacement.
    """
    if code == VERLET:
        if has_prev:
            v_out[0] = v[0] + 0.5 * (f_prev[0] + f[0]) * dt
            v_out[1] = v[1] + 0.5 * (f_prev[1] + f[1]) * dt
        else:
            v_out[0] = v[0]
            v_out[1] = v[1]
        cap_norm(v_out, vmax)
        dx = v_out[0] * dt + 0.5 * f[0] * dt * dt
        dy = v_out[1] * dt + 0.5 * f[1] * dt * dt
    else:
        v_out[0] = v[0] + f[0] * dt
        v_out[1] = v[1] + f[1] * dt
        cap_norm(v_out, vmax)
        dx = v_out[0] * dt
        dy = v_out[1] * dt
    step = np.sqrt(dx * dx + dy * dy)
    lim = vmax * dt
    if step > lim and step > 0.0:
        k = lim / step
        dx *= k
        dy *= k
    x_out[0] = x[0] + dx
    x_out[1] = x[1] + dy
