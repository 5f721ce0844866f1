"""Independent checks of a planned route with shapely: ends, inside the bounds, clear of every obstacle."""

from __future__ import annotations

import numpy as np
import shapely

from core.routes import PlanResult
from core.scene.geometry import SceneGeometry

TOL = 1e-7


def assert_valid(res: PlanResult, geometry: SceneGeometry, start, goal, clearance: float = 0.0) -> None:
    """The route joins start to goal, stays in the (closed) free space, and its reported clearance is right."""
    pts = res.route.points
    assert np.allclose(pts[0], start) and np.allclose(pts[-1], goal)
    line = shapely.LineString(pts)
    assert shapely.covers(geometry.box, line), "route leaves the bounds"
    assert not shapely.intersects(line, shapely.buffer(geometry.obstacles, -TOL)), "route crosses an obstacle"
    assert shapely.covers(shapely.buffer(geometry.free, TOL), line)
    narrow = shapely.distance(line, geometry.free.boundary)
    assert abs(narrow - res.narrowest) <= 1e-6 * max(1.0, narrow)
    assert res.clearance_ok == (narrow >= clearance - 1e-6)
    assert np.isclose(res.route.length, line.length)
