"""Random changes of a scene's obstacles, shared by the tests of the local updates (the navigation mesh's and the
ECM's): an obstacle added, moved or removed, as a sequence of a user's edits would."""

from __future__ import annotations

import dataclasses
from typing import Callable

import shapely

from core.scene.model import Obstacle


def random_change(rng, scene, mine: dict, k: int, star: Callable):
    """One random change of ``scene``: remove or move one of ``mine`` (obstacles this sequence added), or add a
    random star-shaped obstacle ``star(rng, cx, cy, r, n)`` (a few over the bounds); returns (new scene, the changed
    polygons)."""
    x0, y0, x1, y1 = scene.bounds
    span = max(x1 - x0, y1 - y0)
    obs = list(scene.obstacles)
    roll = rng.random()
    if mine and roll < 0.35:
        oid = sorted(mine)[int(rng.integers(len(mine)))]
        changed = [shapely.Polygon(mine.pop(oid))]
        obs = [o for o in obs if o.id != oid]
    elif mine and roll < 0.6:
        oid = sorted(mine)[int(rng.integers(len(mine)))]
        d = rng.normal(0.0, 0.03 * span, 2)
        new = [(x + d[0], y + d[1]) for x, y in mine[oid]]
        changed = [shapely.Polygon(mine[oid]), shapely.Polygon(new)]
        mine[oid] = new
        obs = [Obstacle(oid, new) if o.id == oid else o for o in obs]
    else:
        cx, cy = rng.uniform((x0, y0), (x1, y1))
        poly = star(rng, float(cx), float(cy), float(rng.uniform(0.005, 0.08)) * span, int(rng.integers(3, 9)))
        mine[f"n{k}"] = poly
        obs.append(Obstacle(f"n{k}", poly))
        changed = [shapely.Polygon(poly)]
    return dataclasses.replace(scene, obstacles=obs), changed
