"""Geometry normalisation (shapely): free space, terrain regions painted in file order, areas per terrain type.

Built once per scene and handed to the later stages (navmesh, routes, measures), which read it instead of
recomputing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from .model import Scene, TerrainPolygon
from .polygons import clean_ring


@dataclass(frozen=True)
class SceneGeometry:
    """The scene's regions as shapely geometry.

    - ``box``: the bounds rectangle.
    - ``obstacles``: the union of all obstacles, clipped to the bounds.
    - ``free``: bounds minus obstacles (Polygon or MultiPolygon).
    - ``regions[k]``: the part of ``free`` whose terrain is ``scene.terrain_types[k]``; regions are disjoint and
      their union is ``free``.
    - ``areas[k]``: the area of ``regions[k]``; ``free_area`` their sum.
    - ``components``: the connected pieces of the free space, largest first.
    """

    box: Polygon
    obstacles: BaseGeometry
    free: BaseGeometry
    regions: tuple[BaseGeometry, ...]
    areas: np.ndarray
    free_area: float
    components: tuple[Polygon, ...]


def obstacle_polygons(scene: Scene, keep: Callable[[list], bool] | None = None) -> list[Polygon]:
    """Each obstacle standing at time 0 as a shapely Polygon (cleaned of repeated vertices): the static world the
    mesh, the planners and the ECM are built for (a scheduled obstacle comes and goes during a run,
    core.sim.world; a moving one is never part of it, core.sim.moving). With ``keep``, only the obstacles whose
    outline (a list of points) it keeps."""
    return [Polygon(clean_ring(o.polygon)) for o in scene.obstacles
            if o.stands_at(0.0) and not o.moving and (keep is None or keep(o.polygon))]


def terrain_polygon(t: TerrainPolygon) -> Polygon:
    """A terrain polygon, with its holes, as a shapely Polygon."""
    return Polygon(clean_ring(t.polygon), [clean_ring(h) for h in t.holes])


def terrain_polygons(scene: Scene) -> list[Polygon]:
    """Each terrain polygon, with its holes, as a shapely Polygon."""
    return [terrain_polygon(t) for t in scene.terrains]


def build_geometry(scene: Scene) -> SceneGeometry:
    """Normalise a (validated) scene's geometry: free space and the disjoint terrain regions that tile it."""
    box = shapely.box(*scene.bounds)
    # Clipping can leave lines and points where an obstacle touches the bounds from outside: keep the areas.
    obst = polygonal(shapely.intersection(shapely.union_all(obstacle_polygons(scene)), box))
    free = shapely.difference(box, obst)
    regions, areas = paint_terrain(scene, free)
    comps = sorted(polygon_parts(free), key=lambda g: -g.area)
    return SceneGeometry(box, obst, free, regions, areas, float(free.area), tuple(comps))


def paint_terrain(scene: Scene, free: BaseGeometry,
                  within: BaseGeometry | None = None) -> tuple[tuple[BaseGeometry, ...], np.ndarray]:
    """The terrain regions that tile ``free``, one per terrain type, and their areas: later terrain polygons cover
    earlier ones, so they are painted from the last to the first, each taking what is left, and the default type
    takes the rest. With ``within`` (a region holding ``free``), only the terrain polygons that meet it are read."""
    pieces: list[list[BaseGeometry]] = [[] for _ in scene.terrain_types]
    near = boxes_meeting(within.bounds) if within is not None else None
    remaining = free
    for t in reversed(scene.terrains):
        if remaining.is_empty:
            break
        if near is not None and not near(t.polygon):
            continue
        poly = terrain_polygon(t)
        if within is not None and not within.intersects(poly):
            continue
        part = shapely.intersection(poly, remaining)
        if part.is_empty or part.area == 0.0:
            continue
        pieces[scene.terrain_index(t.type)].append(part)
        remaining = shapely.difference(remaining, poly)
    pieces[scene.terrain_index(scene.default_terrain)].append(remaining)
    regions = tuple(polygonal(shapely.union_all(p)) if p else MultiPolygon() for p in pieces)
    return regions, np.array([r.area for r in regions], dtype=np.float64)


def boxes_meeting(bounds) -> Callable[[list], bool]:
    """A test of whether a polygon's points (a list of (x, y)) have a bounding box that meets ``bounds``."""
    x0, y0, x1, y1 = bounds

    def meets(points) -> bool:
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        return min(xs) <= x1 and max(xs) >= x0 and min(ys) <= y1 and max(ys) >= y0
    return meets


def polygonal(g: BaseGeometry) -> BaseGeometry:
    """Keep only the areal part of a geometry (intersections can leave stray lines and points)."""
    parts = [p for p in polygon_parts(g) if p.area > 0]
    if not parts:
        return MultiPolygon()
    return parts[0] if len(parts) == 1 else MultiPolygon(parts)


def polygon_parts(g: BaseGeometry) -> list[Polygon]:
    """The polygons of a geometry, collections and multi-parts flattened (empty parts dropped, zero-area kept)."""
    if g.is_empty:
        return []
    if isinstance(g, Polygon):
        return [g]
    out: list[Polygon] = []
    for sub in getattr(g, "geoms", []):
        out.extend(polygon_parts(sub))
    return out
