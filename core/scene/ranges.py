"""The documented ranges of the simulation's parameters, checked wherever a value comes in.

One table serves the scene file (``profiles[i].max_speed``, ``simulation.dt`` ...), the command line (``--dt``)
and the ``Simulation`` API (``set_dt``, ``set_profile``, ``set_weight``), so that every entry point refuses the
same values with the same sentence. The limits come from what the engine can represent:

- ``dt`` in [1e-4, 10] s: below, crossing a scene takes more steps than a run can afford (the step budget of
  ``miran simulate``); above, a walker's step (14 m at 10 s) outgrows the route window the steering looks at.
- ``max_speed`` in [1e-3, 1e4] units/s and ``radius`` up to 1e6 units: a speed that moves at every allowed
  ``dt`` on scenes of ordinary size (the simulation also checks ``max_speed * dt`` against the scene's size).
- ``weight`` in [1e-6, 1e6]: a weighted length (at most 1e6 times a length below 1e10 per segment) summed over
  millions of segments stays far from float overflow, and the ratio of two weights (1e12) keeps the searches
  exact to about 1e-4 relative.
- ``sigma`` and ``d`` in [1e-3, 1e9] units with ``sigma / d`` at most MAX_CANDIDATES: the candidates of one
  window, each costing a walk over the mesh.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Range:
    """Closed interval [lo, hi] of a parameter, with its unit for messages."""

    lo: float
    hi: float
    unit: str = ""

    def describe(self) -> str:
        """The interval as messages print it: ``between 0.0001 and 10 s``."""
        unit = f" {self.unit}" if self.unit else ""
        return f"between {self.lo:g} and {self.hi:g}{unit}"


RANGES: dict[str, Range] = {
    "dt": Range(1e-4, 10.0, "s"),
    "max_speed": Range(1e-3, 1e4, "units/s"),
    # A moving obstacle's speed: the characters' own range.
    "obstacle_speed": Range(1e-3, 1e4, "units/s"),
    "radius": Range(0.0, 1e6, "units"),
    "sigma": Range(1e-3, 1e9, "units"),
    "d": Range(1e-3, 1e9, "units"),
    "weight": Range(1e-6, 1e6),
}

# A window holds at most sigma / d candidates; each costs a walk over the mesh every step.
MAX_CANDIDATES = 100_000

# A step of max_speed * dt shorter than this fraction of the scene's diagonal is within a factor 100 of the
# kernels' geometric tolerance (1e-9 of the diagonal): the agent would not move measurably.
MIN_STEP_RELATIVE = 1e-7


def range_problem(name: str, value: float) -> str | None:
    """Why ``value`` is outside the documented range of parameter ``name`` (a RANGES key), or None."""
    r = RANGES[name]
    if not math.isfinite(value) or value < r.lo or value > r.hi:
        return f"must be {r.describe()}, got {value:g}"
    return None


def candidates_problem(sigma: float, d: float) -> str | None:
    """Why a window of length sigma sampled every d holds too many candidates, or None."""
    if d > 0 and sigma / d > MAX_CANDIDATES:
        return (f"sigma / d = {sigma / d:.4g} candidates per window, over the limit of {MAX_CANDIDATES} "
                "(raise d or lower sigma)")
    return None


def step_problem(max_speed: float, dt: float, diagonal: float) -> str | None:
    """Why agents of this speed would not move at this time step in a scene of this diagonal, or None."""
    if max_speed * dt < MIN_STEP_RELATIVE * diagonal:
        return (f"a step of max_speed x dt = {max_speed * dt:.4g} units is below the engine's resolution of "
                f"{MIN_STEP_RELATIVE * diagonal:.4g} units for a scene of this size (raise max_speed or dt)")
    return None


__all__ = ["MAX_CANDIDATES", "MIN_STEP_RELATIVE", "RANGES", "Range", "candidates_problem", "range_problem",
           "step_problem"]
