"""Placement rules of a scene: what must lie inside the bounds and outside the obstacles.

Route points, network nodes and agent starts and goals must be in the free space (bounds minus obstacles; a point
on an obstacle's boundary counts as free). Obstacles and terrain polygons may reach past the bounds (they are
clipped) but not lie wholly outside them, and the obstacles may not cover the whole bounds.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import shapely
from shapely.geometry import Polygon

from .fields import FieldReader
from .model import Agent, Network, Obstacle, Route, TerrainPolygon
from .polygons import thickness
from .problems import fmt_point

# Geometry thinner than this fraction of the bounds' diagonal is below the tolerance of the engine's predicates
# (core.sim and core.navmesh compare distances with 1e-9 of the scene's size).
RESOLUTION_RELATIVE = 1e-9


def check_placement(r: FieldReader, bounds: tuple[float, float, float, float],
                    obstacles: list[tuple[int, Obstacle]], terrains: list[tuple[int, TerrainPolygon]],
                    routes: list[tuple[int, Route]], networks: list[tuple[int, Network]],
                    agents: list[tuple[int, Agent]]) -> None:
    """Record a problem for every misplaced obstacle, terrain polygon, route point, network node and agent end.

    Each list holds the valid items with their index in the file, ``(index, item)``, so paths name the file's
    items even when some items before them were invalid and left out.
    """
    box = shapely.box(*bounds)
    resolution = RESOLUTION_RELATIVE * float(np.hypot(bounds[2] - bounds[0], bounds[3] - bounds[1]))
    polys = [Polygon(o.polygon) for _, o in obstacles]
    for (i, o), p in zip(obstacles, polys):
        msg = _outside(p, box) or _too_thin(o.polygon, resolution)
        if msg:
            r.add(f"obstacles[{i}].polygon", msg)
    for i, t in terrains:
        msg = _outside(Polygon(t.polygon), box) or _too_thin(t.polygon, resolution)
        if msg:
            r.add(f"terrains[{i}].polygon", msg)
    # A moving obstacle passes on: the free space and the points are checked against the others only.
    polys = [p for (_, o), p in zip(obstacles, polys) if not o.moving]
    union = shapely.union_all(polys) if polys else Polygon()
    # The exact overlay only when clipping (linear time) says the obstacles cover most of the bounds.
    if polys and shapely.clip_by_rect(union, *bounds).area >= 0.5 * box.area and \
            box.difference(union).area <= 1e-12 * box.area:
        r.add("obstacles", "the obstacles cover the whole bounds: there is no free space")
    tree = shapely.STRtree(polys)
    names = [o.id for _, o in obstacles if not o.moving]
    for i, route in routes:
        _check_points(r, bounds, tree, names, union, route.points, _indexed(f"routes[{i}].points"))
    for i, net in networks:
        _check_points(r, bounds, tree, names, union, net.nodes, _indexed(f"networks[{i}].nodes"))
    ends, paths = [], []
    for i, a in agents:
        for key in ("start", "goal"):
            p = getattr(a, key)
            if p is not None:
                ends.append(p)
                paths.append(f"agents[{i}].{key}")
    _check_points(r, bounds, tree, names, union, ends, lambda k: paths[k])


def _too_thin(ring, resolution: float) -> str | None:
    """Why a polygon is too thin for the engine at this scene's size, or None."""
    w = thickness(ring)
    if w <= resolution:
        return (f"is about {w:.3g} thick, below the engine's resolution of {resolution:.3g} for bounds of this size "
                f"({RESOLUTION_RELATIVE:g} of their diagonal)")
    return None


def _outside(p: Polygon, box: Polygon) -> str | None:
    """Why a polygon has no area inside the bounds (wholly outside, or touching them only along an edge or at a
    corner), or None."""
    if not p.intersects(box):
        return "lies entirely outside the bounds"
    # clip_by_rect is linear in the vertices (an overlay with the box took seconds for 10^5 of them).
    if shapely.clip_by_rect(p, *box.bounds).area <= 0.0:
        return "lies outside the bounds, touching them only along their edge"
    return None


def _indexed(prefix: str) -> Callable[[int], str]:
    """The JSON path of item k of the list at ``prefix``."""
    return lambda k: f"{prefix}[{k}]"


def _check_points(r: FieldReader, bounds, tree: shapely.STRtree, names: list[str], union, pts: list,
                  path_of: Callable[[int], str]) -> None:
    """Each point must be covered by the bounds and not in the interior of an obstacle (or of touching ones)."""
    if not pts:
        return
    xy = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    x0, y0, x1, y1 = bounds
    outside = (xy[:, 0] < x0) | (xy[:, 0] > x1) | (xy[:, 1] < y0) | (xy[:, 1] > y1)
    # A point is blocked when it lies in the interior of the union of the obstacles (a point on the seam between
    # two touching obstacles is within neither, but inside their union); the prepared union answers in bulk.
    blocked = np.zeros(len(xy), dtype=bool)
    if not union.is_empty:
        shapely.prepare(union)
        blocked = shapely.contains_xy(union, xy[:, 0], xy[:, 1]) & ~outside
    suspects = np.flatnonzero(blocked)
    inside_one: dict[int, int] = {}
    for gi, oi in zip(*tree.query(shapely.points(xy[suspects]), predicate="within")):
        inside_one.setdefault(int(suspects[gi]), int(oi))
    for k in np.flatnonzero(outside | blocked).tolist():
        if outside[k]:
            r.add(path_of(k), f"{fmt_point(xy[k])} is outside the bounds [{x0:g}, {y0:g}, {x1:g}, {y1:g}]")
        elif k in inside_one:
            r.add(path_of(k), f"{fmt_point(xy[k])} is inside obstacle {names[inside_one[k]]!r}")
        else:
            near = sorted(names[int(j)] for j in tree.query(shapely.Point(xy[k]), predicate="intersects"))
            r.add(path_of(k), f"{fmt_point(xy[k])} is inside the obstacles {', '.join(map(repr, near))} "
                              "where they meet")
