"""Live-tunable simulation parameters: a global record and the per-profile table the kernels read directly.

Changing a parameter writes one number into these arrays (agents share their profile's row: profiles, not copies): the
next step uses it, nothing is rebuilt. Names are checked against the known ones and the error lists the valid names.

Global record ``glob``: a 1-element structured array of dtype ``GLOBAL_DTYPE``, one float64 field per name of
``GLOBAL_NAMES`` (kernels read ``g = P.glob[0]; g.dt``; switches are 0.0 / 1.0, the integrator its code):
- ``dt`` (s): fixed time step.
- ``integrator``: 0 euler, 1 verlet (see integrators.py).
- ``c_s`` (1/s): steering strength, F_s = c_s * vmax toward the attraction point (MIRAN 3.4, IRM eq. 3).
- ``c_b`` (1): boundary force scale on IRM eq. 1's C_b; ``kappa`` its steepness (IRM 4.1).
- ``safe_distance`` (units): IRM's d_s, the clearance under which F_b acts; 0 = automatic, 2 vmax dt, twice the
  lower bound of IRM eq. 2 (the corridor's upper bound R_min - r is not known without a corridor).
- ``c_o`` (1): obstacle-avoidance strength at the edge of the influence region (IRM eq. 6 with k_r = c_o d_o);
  ``d_o`` (units) that region; 0 = automatic, r_i + r + vmax * 1 s.
- ``f_max`` (1/s): cap on |F_b| and |F_o| relative to vmax, so touching never gives an infinite force.
- ``arrival_radius`` (units): an agent this close to its goal has arrived; 0 = automatic, vmax dt.
- ``interact`` (0/1): whether characters push each other with F_o.
- ``social`` (0/1): add Helbing and Molnar's elliptical personal-space force between characters (IRM section 5);
  ``social_v0`` (units^2/s^2) its potential V0 (2.1), ``social_sigma`` (units) its range (0.3), ``social_tau`` (s)
  the step Delta t that stretches the ellipse along the other's velocity (2.0).
- ``c_n`` (1): IRM's noise force strength relative to vmax (IRM 4.4, eq. 5), ``noise_freq`` (Hz) how fast the
  Perlin-noise angle changes; IRM agents only.
- ``slope`` (0/1): deflect the steering direction away from steep ascents of the scene's height field
  (Niederberger 7.2, eqs. 2-3); ``slope_max_angle`` (rad) the largest deflection, ``slope_fade`` (units) the distance
  to the attraction point under which the deflection fades to zero (0 = automatic, the profile's d).
- ``stall_time`` (s): an agent that makes no progress along its route for this long (at least 20 steps) walks its
  route itself for a while (the progress guarantee, core.sim.progress).
- ``fidelity``: 0 ``exact`` (every step is the papers' method), 1 ``fast`` (the crowd level of detail,
  core.sim.fidelity: an attraction point is kept for up to ``fast_steps`` steps while it stays in sight).
  ``fast_steps`` (steps, 1 to 50, 3 by default) how long it is kept. Both are left out of ``to_dict`` in exact
  mode, so that a paths file of an exact run reads as it did before the setting existed.

``dt``, the profiles' fields and the weights are held to the ranges of ``core.scene.ranges``, as in the scene
file. Profile table ``prof``: a (P,) structured array of dtype ``PROFILE_DTYPE``, one float64 field per name of
``PROFILE_FIELDS`` (kernels read ``prof[p].max_speed``): max_speed (units/s, the vmax of the papers), sigma (units),
d (units), radius (units); and ``weights`` (P, T) float64, the (profile x terrain type) weight matrix of the scene.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.scene.model import Scene
from core.scene.problems import InputError, Problem
from core.scene.ranges import RANGES, candidates_problem, range_problem, step_problem

from .fidelity import FIDELITIES, fidelity_code
from .integrators import INTEGRATORS, integrator_code

GLOBAL_NAMES = ("dt", "integrator", "c_s", "c_b", "kappa", "safe_distance", "c_o", "d_o", "f_max",
                "arrival_radius", "interact", "social", "social_v0", "social_sigma", "social_tau", "c_n",
                "noise_freq", "slope", "slope_max_angle", "slope_fade", "stall_time", "fidelity", "fast_steps")
DEFAULTS = {"dt": 0.1, "integrator": 0.0, "c_s": 4.0, "c_b": 1.0, "kappa": 1.0, "safe_distance": 0.0,
            "c_o": 0.5, "d_o": 0.0, "f_max": 40.0, "arrival_radius": 0.0, "interact": 1.0,
            "social": 1.0, "social_v0": 2.1, "social_sigma": 0.3, "social_tau": 2.0, "c_n": 0.4, "noise_freq": 0.2,
            "slope": 0.0, "slope_max_angle": 1.0, "slope_fade": 0.0, "stall_time": 3.0, "fidelity": 0.0,
            "fast_steps": 3.0}
# The longest an attraction point may be kept in fast mode (``fast_steps``).
MAX_FAST_STEPS = 50
# Switches: read and written as booleans.
_FLAGS = ("interact", "social", "slope")

PROFILE_FIELDS = ("max_speed", "sigma", "d", "radius")

# The record types the kernels see: every field float64, so a kernel reads the very numbers the setters wrote.
GLOBAL_DTYPE = np.dtype([(name, np.float64) for name in GLOBAL_NAMES])
PROFILE_DTYPE = np.dtype([(name, np.float64) for name in PROFILE_FIELDS])

# Which parameters must be > 0, and which >= 0 (0 meaning "automatic").
_POSITIVE = {"dt", "c_s", "kappa", "max_speed", "sigma", "d"}
_NONNEGATIVE = {"c_b", "safe_distance", "c_o", "d_o", "f_max", "arrival_radius", "radius", "social_v0", "c_n",
                "noise_freq", "slope_fade"}
_POSITIVE |= {"social_sigma", "social_tau", "slope_max_angle", "stall_time"}


class SimParams:
    """The parameters of one simulation: ``glob`` (1,) GLOBAL_DTYPE, ``prof`` (P,) PROFILE_DTYPE, ``weights`` (P, T).

    The arrays are owned here and handed to the kernels as they are; setters write into them in place.
    """

    def __init__(self, scene: Scene) -> None:
        self.profile_ids = [p.id for p in scene.profiles]
        self.terrain_ids = [t.id for t in scene.terrain_types]
        self.glob = np.zeros(1, dtype=GLOBAL_DTYPE)
        for name in GLOBAL_NAMES:
            self.glob[name] = DEFAULTS[name]
        self.glob["dt"] = scene.simulation.dt
        self.glob["integrator"] = integrator_code(scene.simulation.integrator)
        self.glob["fidelity"] = fidelity_code(scene.simulation.fidelity)
        self.prof = np.zeros(len(scene.profiles), dtype=PROFILE_DTYPE)
        for k, p in enumerate(scene.profiles):
            self.prof[k] = (p.max_speed, p.sigma, p.d, p.radius)
        self.weights = np.ascontiguousarray(scene.weight_matrix(), dtype=np.float64)
        x0, y0, x1, y1 = scene.bounds
        self.diagonal = math.hypot(x1 - x0, y1 - y0)

    # ----- global parameters
    def get(self, name: str) -> Any:
        """The value of a global parameter (the integrator as its name, interact as a bool)."""
        v = float(self.glob[_global_name(name)][0])
        if name == "integrator":
            return INTEGRATORS[int(v)]
        if name == "fidelity":
            return FIDELITIES[int(v)]
        if name == "fast_steps":
            return int(v)
        if name in _FLAGS:
            return bool(v)
        return v

    def set(self, name: str, value: Any) -> None:
        """Set a global parameter for the next step; InputError names a bad name or value."""
        field = self.glob[_global_name(name)]
        if name in ("integrator", "fidelity"):
            try:
                field[0] = integrator_code(value) if name == "integrator" else fidelity_code(value)
            except ValueError as e:
                raise InputError([Problem(name, str(e))]) from None
            return
        if name == "fast_steps":
            field[0] = _whole_steps(name, value)
            return
        if name in _FLAGS:
            field[0] = 1.0 if bool(value) else 0.0
            return
        v = _checked(name, value)
        if name == "dt":
            self._check_steps(self.prof["max_speed"], v, name)
        field[0] = v

    @property
    def dt(self) -> float:
        return float(self.glob["dt"][0])

    # ----- per-profile parameters
    def profile_index(self, profile_id: str) -> int:
        """Row of a profile in ``prof`` and ``weights``; InputError listing the known profiles otherwise."""
        try:
            return self.profile_ids.index(profile_id)
        except ValueError:
            raise InputError([Problem("profile", f"unknown profile {profile_id!r} (known: "
                                                 f"{', '.join(self.profile_ids)})")]) from None

    def get_profile(self, profile_id: str, field: str) -> float:
        """One of max_speed, sigma, d, radius of a profile."""
        return float(self.prof[_profile_field(field)][self.profile_index(profile_id)])

    def set_profile(self, profile_id: str, **values: float) -> None:
        """Set max_speed, sigma, d or radius of a profile (e.g. ``set_profile("adult", sigma=80)``)."""
        k = self.profile_index(profile_id)
        for f in values:
            _profile_field(f)
        checked = {f: _checked(f"profiles.{profile_id}.{f}", v, f) for f, v in values.items()}
        sigma = checked.get("sigma", self.prof["sigma"][k])
        d = checked.get("d", self.prof["d"][k])
        msg = candidates_problem(float(sigma), float(d))
        if msg:
            raise InputError([Problem(f"profiles.{profile_id}.{'d' if 'd' in checked else 'sigma'}", msg)])
        if "max_speed" in checked:
            self._check_steps(np.array([checked["max_speed"]]), self.dt, f"profiles.{profile_id}.max_speed")
        for f, v in checked.items():
            self.prof[f][k] = v

    def weight(self, profile_id: str, terrain_id: str) -> float:
        """w(T) of a profile for a terrain type (MIRAN 3.3)."""
        return float(self.weights[self.profile_index(profile_id), self._terrain_index(terrain_id)])

    def set_weight(self, profile_id: str, terrain_id: str, value: float) -> None:
        """Set w(T) > 0 of a profile for a terrain type: one number of the weight matrix changes."""
        k = self.profile_index(profile_id)
        t = self._terrain_index(terrain_id)
        v = _checked(f"profiles.{profile_id}.weights.{terrain_id}", value, "weight")
        if v <= 0.0:
            raise InputError([Problem(f"profiles.{profile_id}.weights.{terrain_id}", "must be positive")])
        self.weights[k, t] = v

    def check_steps(self) -> None:
        """InputError naming each profile too slow to move measurably at the current dt in this scene."""
        problems = []
        for k, pid in enumerate(self.profile_ids):
            msg = step_problem(float(self.prof["max_speed"][k]), self.dt, self.diagonal)
            if msg:
                problems.append(Problem(f"profiles[{k}].max_speed", msg))
        if problems:
            raise InputError(problems)

    def _check_steps(self, speeds: np.ndarray, dt: float, path: str) -> None:
        """InputError naming ``path`` when the slowest of ``speeds`` would not move measurably in one step."""
        if len(speeds):
            msg = step_problem(float(np.min(speeds)), dt, self.diagonal)
            if msg:
                raise InputError([Problem(path, msg)])

    def _terrain_index(self, terrain_id: str) -> int:
        try:
            return self.terrain_ids.index(terrain_id)
        except ValueError:
            raise InputError([Problem("terrain", f"unknown terrain type {terrain_id!r} (known: "
                                                 f"{', '.join(self.terrain_ids)})")]) from None

    def to_dict(self) -> dict[str, Any]:
        """Every parameter that shapes a run, JSON-ready (the ``parameters`` of a miran-paths file)."""
        fast = self.get("fidelity") != "exact"
        out: dict[str, Any] = {name: self.get(name) for name in GLOBAL_NAMES
                               if fast or name not in ("fidelity", "fast_steps")}
        out["profiles"] = {
            pid: {**{f: float(self.prof[f][k]) for f in PROFILE_FIELDS},
                  "weights": {tid: float(self.weights[k, t]) for t, tid in enumerate(self.terrain_ids)}}
            for k, pid in enumerate(self.profile_ids)
        }
        return out

    def copy(self) -> "SimParams":
        """An independent copy (for a forked simulation, e.g. the app's ghost preview)."""
        c = object.__new__(SimParams)
        c.profile_ids = list(self.profile_ids)
        c.terrain_ids = list(self.terrain_ids)
        c.glob = self.glob.copy()
        c.prof = self.prof.copy()
        c.weights = self.weights.copy()
        c.diagonal = self.diagonal
        return c


def _global_name(name: str) -> str:
    """``name`` when it is a global parameter (a field of GLOBAL_DTYPE); InputError listing the valid ones."""
    if isinstance(name, str) and name in GLOBAL_NAMES:
        return name
    raise InputError([Problem(str(name), f"unknown parameter (valid: {', '.join(GLOBAL_NAMES)})")])


def _profile_field(field: str) -> str:
    """``field`` when it is a profile parameter (a field of PROFILE_DTYPE); InputError listing the valid ones."""
    if isinstance(field, str) and field in PROFILE_FIELDS:
        return field
    raise InputError([Problem(str(field), f"unknown profile parameter (valid: {', '.join(PROFILE_FIELDS)})")])


def _whole_steps(path: str, value: Any) -> int:
    """``value`` as a whole number of steps from 1 to MAX_FAST_STEPS; InputError naming ``path`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not math.isfinite(float(value)) or float(value) != int(value) \
            or not 1 <= int(value) <= MAX_FAST_STEPS:
        raise InputError([Problem(path, f"must be a whole number of steps from 1 to {MAX_FAST_STEPS}, "
                                        f"got {value!r}")])
    return int(value)


def _checked(path: str, value: Any, name: str | None = None) -> float:
    key = name or path
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise InputError([Problem(path, f"expected a number, got {value!r}")])
    v = float(value)
    if not math.isfinite(v):
        raise InputError([Problem(path, f"must be a finite number, got {v}")])
    if key in _POSITIVE and v <= 0.0:
        raise InputError([Problem(path, f"must be positive, got {v:g}")])
    if key in _NONNEGATIVE and v < 0.0:
        raise InputError([Problem(path, f"must not be negative, got {v:g}")])
    if key in RANGES:
        msg = range_problem(key, v)
        if msg:
            raise InputError([Problem(path, msg)])
    return v
