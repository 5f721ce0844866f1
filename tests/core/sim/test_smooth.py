"""ECM section V's smoothing (core.sim.smooth): a shortest path with a sharp corner becomes a C1 path that keeps the
character's radius from the obstacles (shapely), stays near the control path and ends at its end."""

from __future__ import annotations

import numpy as np
import shapely

from core.sim.smooth import PathSmoother
from core.scene.model import Obstacle, Profile, Scene, TerrainType


def _scene() -> Scene:
    block = [(10.0, 10.0), (30.0, 10.0), (30.0, 30.0), (10.0, 30.0)]
    return Scene(bounds=(0.0, 0.0, 40.0, 40.0), terrain_types=[TerrainType("default")], default_terrain="default",
                 obstacles=[Obstacle("block", block)], profiles=[Profile("walker", radius=0.25)], name="block")


def _heading_changes(path: np.ndarray) -> np.ndarray:
    d = np.diff(path, axis=0)
    d = d[np.hypot(d[:, 0], d[:, 1]) > 1e-9]
    h = np.arctan2(d[:, 1], d[:, 0])
    return np.abs((np.diff(h) + np.pi) % (2 * np.pi) - np.pi)


def test_a_cornered_shortest_path_is_smoothed_inside_the_free_space():
    scene = _scene()
    # A shortest path with 1 m clearance round the block's corner (31, 31), turning there at a right angle.
    path = np.array([[2.0, 31.0], [31.0, 31.0], [31.0, 2.0]])
    smoother = PathSmoother(scene)
    smooth = smoother.smooth(path)
    assert np.hypot(*(smooth[-1] - path[-1])) <= 2.0 * 0.1 + 1e-9           # arrived (within vmax dt)
    free = shapely.box(0, 0, 40, 40).difference(shapely.box(10, 10, 30, 30))
    assert shapely.LineString(smooth).difference(free.buffer(-0.25 + 1e-6)).length < 1e-6
    assert shapely.distance(shapely.points(smooth), shapely.LineString(path)).max() < 2.0
    # The control path turns by 90 degrees at one vertex; the smooth one by a few degrees per 0.2 m step at most.
    assert np.degrees(_heading_changes(path)).max() > 89.0
    assert np.degrees(_heading_changes(smooth)).max() < 15.0
    assert smoother.cpu_s > 0.0
    # A second path in the same smoother: the first character has arrived and stays where it is.
    again = smoother.smooth(path[::-1])
    assert np.hypot(*(again[-1] - path[0])) <= 2.0 * 0.1 + 1e-9
    assert smoother.sim.n_agents == 2
