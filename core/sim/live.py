"""What a live run (the app's simulation dock) asks of the engine between steps, kept out of the UI: copying one
simulation's parameters into another (the side-by-side comparison) and the traced agent's speed over time."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .params import SimParams


def copy_params(src: SimParams, dst: SimParams) -> None:
    """Write ``src``'s global, profile and weight tables into ``dst``'s arrays in place (the kernels hold them).

    Both must come from scenes with the same profiles and terrain types; a ValueError names what differs."""
    if src.profile_ids != dst.profile_ids:
        raise ValueError(f"profiles differ: {src.profile_ids} and {dst.profile_ids}")
    if src.terrain_ids != dst.terrain_ids:
        raise ValueError(f"terrain types differ: {src.terrain_ids} and {dst.terrain_ids}")
    dst.glob[:] = src.glob
    dst.prof[:] = src.prof
    dst.weights[:] = src.weights


def speed_series(path: npt.NDArray[np.float64],
                 max_points: int = 3000) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(t, v) of a walked path of [t, x, y] rows: the mean speed over each recorded step of positive duration, at
    the step's end time; thinned to at most ``max_points`` by keeping every s-th point (for a plot)."""
    p = np.asarray(path, dtype=np.float64)
    if len(p) < 2:
        return np.zeros(0), np.zeros(0)
    d = np.diff(p, axis=0)
    ok = d[:, 0] > 0
    t = p[1:, 0][ok]
    v = np.hypot(d[ok, 1], d[ok, 2]) / d[ok, 0]
    if len(t) > max_points:
        s = -(-len(t) // max_points)
        t, v = t[::s], v[::s]
    return t, v
