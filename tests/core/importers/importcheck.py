"""Shared checks of the importer tests: the scene validates, and its areas measured with shapely."""

from __future__ import annotations

import shapely
from shapely.geometry import Polygon

from core.scene.io import scene_to_dict
from core.scene.parse import check_scene


def assert_valid(scene) -> None:
    """The scene passes the scene validator itself (as written to JSON)."""
    checked, problems = check_scene(scene_to_dict(scene))
    assert problems == [], problems


def obstacle_area(scene) -> float:
    """The area the scene's obstacles cover (their union)."""
    return float(shapely.union_all([Polygon(o.polygon) for o in scene.obstacles]).area) if scene.obstacles else 0.0


def painted_areas(scene) -> dict[str, float]:
    """The area each terrain type paints: later polygons cover earlier ones, as the scene format says."""
    out: dict[str, float] = {}
    covered = Polygon()
    for t in reversed(scene.terrains):
        p = Polygon(t.polygon, t.holes)
        out[t.type] = out.get(t.type, 0.0) + float(p.difference(covered).area)
        covered = covered.union(p)
    return out
