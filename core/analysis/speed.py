"""Speed and specific flow in a measurement area, per PedPy's definitions (PedPy documentation "Speed").

- Individual speed (``compute_individual_speed`` with ``SpeedCalculation.BORDER_SINGLE_SIDED``): v_i(t) =
  |x_i(t + dt) - x_i(t - dt)| / (t_end - t_start), where a side the agent's path does not reach (before its first
  or after its last recorded point) is replaced by x_i(t) itself, so at the borders the window is one-sided.
- Mean speed in the area (``compute_mean_speed_per_frame``): the mean of v_i(t) over the agents strictly inside
  the area at t (``shapely.within``), 0 when none is, NaN when none inside has a speed (a one-point window).
- Specific flow J_s(t) = rho(t) v_mean(t), agents per metre per second: the hydrodynamic relation of the
  fundamental diagram, with rho the classic density of the same area (``core.analysis.density``).

``half_window`` is PedPy's ``frame_step`` in seconds (frame_step / frame rate).
"""

from __future__ import annotations

import numpy as np
import shapely


def individual_speeds(replay, t: float, half_window: float) -> tuple[np.ndarray, np.ndarray]:
    """(speeds (n,), present (n,) bool) of every agent of a ``core.sim.replay.Replay`` at time t (module doc); the
    speed of an agent not present at t is NaN."""
    present = replay.present_at(t)
    at = replay.positions_at(t)
    before_ok = replay.present_at(t - half_window)
    after_ok = replay.present_at(t + half_window)
    start = np.where(before_ok[:, None], replay.positions_at(t - half_window), at)
    end = np.where(after_ok[:, None], replay.positions_at(t + half_window), at)
    span = np.where(before_ok, half_window, 0.0) + np.where(after_ok, half_window, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.hypot(*(end - start).T) / span
    return np.where(present & (span > 0), v, np.nan), present


def mean_speed(points: np.ndarray, speeds: np.ndarray, area) -> float:
    """Mean of ``speeds`` (k,) over the ``points`` (k, 2) strictly inside ``area``: 0 when none is, NaN when none of
    those inside has a speed (a path too short for any window, as PedPy gives)."""
    if len(points) == 0:
        return 0.0
    inside = shapely.within(shapely.points(points), area)
    if not inside.any():
        return 0.0
    v = speeds[inside]
    v = v[np.isfinite(v)]
    return float(v.mean()) if len(v) else float("nan")


def speed_series(replay, times: np.ndarray, area, half_window: float) -> np.ndarray:
    """The area's mean speed at each of ``times`` (PedPy's ``compute_mean_speed_per_frame``)."""
    out = np.zeros(len(times))
    for k, t in enumerate(times):
        v, present = individual_speeds(replay, float(t), half_window)
        out[k] = mean_speed(replay.positions_at(float(t))[present], v[present], area)
    return out


def specific_flow(density: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """J_s = rho v (1/(m s)) at each time, from the area's classic density and mean speed of the same times."""
    return np.asarray(density, dtype=np.float64) * np.asarray(speed, dtype=np.float64)
