"""Adversarial scenes for the arrival harness (every character arrives): cities with 3 m streets, villages of
non-convex houses, mazes of long non-convex walls, walls with gaps of 2R + 0.05, thin corridors, terrain patches and
goals in corners. Each generator returns a valid Scene whose characters have radius R = 0.25 and walk at 1.4 m/s."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from core.scene.io import scene_to_dict
from core.scene.model import Obstacle, Profile, Scene, SimulationSettings, TerrainPolygon, TerrainType
from core.scene.parse import parse_scene

R = 0.25
TYPES = [TerrainType("ground"), TerrainType("sidewalk"), TerrainType("road"), TerrainType("mud")]
WEIGHTS = {"ground": 1.0, "sidewalk": 0.5, "road": 4.0, "mud": 30.0}


def _scene(name: str, w: float, h: float, obstacles: list, terrains: list | None = None,
           sigma: float = 20.0, d: float = 4.0) -> Scene:
    scene = Scene(bounds=(0.0, 0.0, w, h), terrain_types=list(TYPES), default_terrain="ground", name=name,
                  obstacles=[Obstacle(f"o{i}", _ring(p)) for i, p in enumerate(obstacles)],
                  terrains=[TerrainPolygon(f"t{i}", t, _ring(p)) for i, (t, p) in enumerate(terrains or [])],
                  profiles=[Profile("walker", dict(WEIGHTS), radius=R, max_speed=1.4, sigma=sigma, d=d)],
                  simulation=SimulationSettings("miran", "euler", 0.1))
    parse_scene(scene_to_dict(scene))  # only valid scenes
    return scene


def _ring(p) -> list[tuple[float, float]]:
    """A polygon's exterior as the scene format's vertex list (counter-clockwise, no closing vertex)."""
    p = shapely.geometry.polygon.orient(p, 1.0)
    return [(round(float(x), 6), round(float(y), 6)) for x, y in p.exterior.coords[:-1]]


def _patches(rng: np.random.Generator, w: float, h: float, n: int) -> list:
    """n random rectangular terrain patches of the non-default types."""
    out = []
    for _ in range(n):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        out.append((str(rng.choice(["sidewalk", "road", "mud"])),
                    box(x, y, min(w, x + rng.uniform(3, 0.4 * w)), min(h, y + rng.uniform(3, 0.4 * h)))))
    return out


def city(seed: int, blocks: int = 6, street: float = 3.0) -> Scene:
    """Blocks of buildings (some L-shaped) on a grid of streets of width ``street`` and more."""
    rng = np.random.default_rng(seed)
    pitch = rng.uniform(8.0, 14.0)
    size = blocks * pitch + street
    obstacles = []
    for i in range(blocks):
        for j in range(blocks):
            if rng.random() < 0.15:
                continue  # a square
            x0, y0 = street + i * pitch, street + j * pitch
            x1, y1 = x0 + pitch - street - rng.uniform(0, 2), y0 + pitch - street - rng.uniform(0, 2)
            b = box(x0, y0, x1, y1)
            if rng.random() < 0.4:
                cx, cy = rng.uniform(x0 + 1, x1 - 1), rng.uniform(y0 + 1, y1 - 1)
                b = b.difference(box(cx, cy, x1 + 1, y1 + 1))
            obstacles.append(b)
    return _scene(f"city {seed}", size, size, obstacles, _patches(rng, size, size, 6))


def village(seed: int, houses: int = 14, size: float = 60.0) -> Scene:
    """Non-convex houses (random stars) scattered over open ground, never closer than 1 m to each other."""
    rng = np.random.default_rng(seed)
    placed: list = []
    for _ in range(40 * houses):
        if len(placed) == houses:
            break
        cx, cy, r = rng.uniform(5, size - 5), rng.uniform(5, size - 5), rng.uniform(2.0, 5.0)
        n = int(rng.integers(5, 11))
        ang = 2 * np.pi * np.arange(n) / n + rng.uniform(0, np.pi / n, n)
        rad = r * rng.uniform(0.35, 1.0, n)
        poly = Polygon(np.column_stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)]))
        if poly.is_valid and all(poly.distance(q) >= 1.0 for q in placed):
            placed.append(poly)
    return _scene(f"village {seed}", size, size, placed, _patches(rng, size, size, 5))


def maze(seed: int, n: int = 5, cell: float = 8.0, wall: float = 0.6) -> Scene:
    """A perfect maze (random depth-first carving) of n x n cells whose walls merge into long non-convex
    obstacles; passages are cell - wall wide."""
    rng = np.random.default_rng(seed)
    right = np.ones((n, n), dtype=bool)   # wall east of cell (i, j)
    up = np.ones((n, n), dtype=bool)      # wall north of cell (i, j)
    seen = np.zeros((n, n), dtype=bool)
    stack = [(0, 0)]
    seen[0, 0] = True
    while stack:
        i, j = stack[-1]
        nxt = [(a, b) for a, b in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1))
               if 0 <= a < n and 0 <= b < n and not seen[a, b]]
        if not nxt:
            stack.pop()
            continue
        a, b = nxt[int(rng.integers(len(nxt)))]
        if a != i:
            right[min(a, i), j] = False
        else:
            up[i, min(b, j)] = False
        seen[a, b] = True
        stack.append((a, b))
    h = wall / 2
    walls = []
    for i in range(n):
        for j in range(n):
            x, y = (i + 1) * cell, (j + 1) * cell
            if right[i, j] and i < n - 1:
                walls.append(box(x - h, y - cell - h, x + h, y + h))
            if up[i, j] and j < n - 1:
                walls.append(box(x - cell - h, y - h, x + h, y + h))
    size = n * cell
    union = shapely.union_all(walls).intersection(box(0.5, 0.5, size - 0.5, size - 0.5))
    parts = [p for p in getattr(union, "geoms", [union]) if p.area > 0]
    return _scene(f"maze {seed}", size, size, parts, [("mud", box(0, 0, cell, size / 2))], sigma=12.0, d=2.0)


def gap(width: float = 2 * R + 0.05, offset: float = 0.0) -> Scene:
    """A 40 x 20 room split by a 1 m thick wall with one gap of ``width``, its centre ``offset`` from the middle."""
    c = 10.0 + offset
    return _scene(f"gap {width:g}", 40.0, 20.0,
                  [box(19.5, 0.0, 20.5, c - width / 2), box(19.5, c + width / 2, 20.5, 20.0)])


def corridor(length: float = 300.0, width: float = 2 * R + 0.1) -> Scene:
    """A thin corridor of ``width`` and ``length`` between two rooms (the long way round is closed)."""
    h = 20.0
    y0, y1 = h / 2 - width / 2, h / 2 + width / 2
    return _scene(f"corridor {width:g}", length + 20.0, h,
                  [box(10.0, 0.0, 10.0 + length, y0), box(10.0, y1, 10.0 + length, h)], sigma=15.0, d=3.0)


def corner_points(scene: Scene, room: float) -> np.ndarray:
    """Points in the corners of the free space: at distance ``room`` from two walls that meet (obstacle vertices
    and the bounds' corners), kept where they are that far from everything."""
    from core.routes import PlannerContext

    ctx = PlannerContext(scene)
    pts = []
    x0, y0, x1, y1 = scene.bounds
    for cx, cy, sx, sy in ((x0, y0, 1, 1), (x1, y0, -1, 1), (x0, y1, 1, -1), (x1, y1, -1, -1)):
        pts.append((cx + sx * room, cy + sy * room))
    for o in scene.obstacles:
        for x, y in o.polygon:
            for sx in (-1, 1):
                for sy in (-1, 1):
                    pts.append((x + sx * room * 1.0001, y + sy * room * 1.0001))
    p = np.asarray(pts, dtype=np.float64)
    d = ctx.free(0.0).point_clearance(p)
    return p[(d >= room * (1 - 1e-6)) & (d <= room * 1.5)]
