"""Generated scenes and routes for the simulation tests: star-shaped (often non-convex) obstacles, four terrain
types with weights below and above 1, scenes of different sizes, and random routes planned or sketched in them."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from core.navmesh import build_navmesh
from core.routes import PlannerContext, Route, plan_route
from core.scene.geometry import build_geometry
from core.scene.io import load_scene, scene_to_dict
from core.scene.model import Obstacle, Profile, Scene, SimulationSettings, TerrainPolygon, TerrainType
from core.scene.parse import parse_scene
from core.scene.problems import InputError

SCENES_DIR = Path(__file__).resolve().parents[3] / "scenes"


def star(rng: np.random.Generator, cx: float, cy: float, r: float, n: int) -> list[tuple[float, float]]:
    """A random simple star-shaped polygon around (cx, cy), counter-clockwise (one vertex per angular sector)."""
    ang = 2 * np.pi * np.arange(n) / n + rng.uniform(0, np.pi / n, n)
    rad = r * rng.uniform(0.4, 1.0, n)
    return [(float(cx + a * np.cos(t)), float(cy + a * np.sin(t))) for a, t in zip(rad, ang)]


def random_scene(seed: int, size: float = 100.0, n_obstacles: int = 12, n_terrains: int = 7) -> Scene:
    """A random scene of size x 0.8 size: obstacles that may touch or overlap, terrain of four types, two profiles
    whose speed and sampling scale with the scene."""
    rng = np.random.default_rng(seed)
    w, h = size, 0.8 * size
    types = [TerrainType("default"), TerrainType("road"), TerrainType("mud"), TerrainType("sidewalk")]
    obstacles = [Obstacle(f"o{i}", star(rng, rng.uniform(0.05, 0.95) * w, rng.uniform(0.05, 0.95) * h,
                                        rng.uniform(0.04, 0.11) * size, int(rng.integers(3, 10))))
                 for i in range(n_obstacles)]
    terrains = [TerrainPolygon(f"t{i}", types[1 + i % 3].id,
                               star(rng, rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.3) * size,
                                    int(rng.integers(3, 9))))
                for i in range(n_terrains)]
    speed = 0.014 * size
    profiles = [Profile("pedestrian", {"default": 1.0, "road": 4.0, "mud": 40.0, "sidewalk": 0.5},
                        radius=0.004 * size, max_speed=speed, sigma=0.3 * size, d=0.06 * size),
                Profile("child", {"default": 0.8, "road": 0.3, "mud": 2.0, "sidewalk": 0.6},
                        radius=0.003 * size, max_speed=1.2 * speed, sigma=0.5 * size, d=0.1 * size)]
    scene = Scene(bounds=(0.0, 0.0, w, h), terrain_types=types, default_terrain="default", name=f"random {seed}",
                  obstacles=obstacles, terrains=terrains, profiles=profiles,
                  simulation=SimulationSettings("miran", "euler", 0.1))
    parse_scene(scene_to_dict(scene))  # only valid scenes
    return scene


def random_points(region, rng: np.random.Generator, n: int) -> np.ndarray:
    """n uniform random points of a polygonal region."""
    shapely.prepare(region)
    x0, y0, x1, y1 = region.bounds
    out: list[np.ndarray] = []
    while len(out) < n:
        p = rng.uniform([x0, y0], [x1, y1], size=(8 * n, 2))
        out.extend(p[shapely.contains_xy(region, p[:, 0], p[:, 1])])
    return np.asarray(out[:n])


def planned_routes(scene: Scene, rng: np.random.Generator, n: int, planner: str = "cdt", clearance: float = 0.0,
                   context: PlannerContext | None = None) -> list[Route]:
    """n routes planned between random points of the largest free component (those the planner can join with
    the clearance asked for; clearance > 0 keeps only routes that keep it)."""
    ctx = context or PlannerContext(scene)
    comp = ctx.geometry.components[0]
    region = comp.buffer(-clearance) if clearance > 0 else comp
    out: list[Route] = []
    for _ in range(20 * n):
        if len(out) == n:
            break
        s, g = random_points(region, rng, 2)
        if np.hypot(*(s - g)) < 0.2 * (scene.bounds[2] - scene.bounds[0]):
            continue
        try:
            res = plan_route(scene, s, g, planner, profile=scene.profiles[0].id, clearance=clearance, context=ctx)
        except InputError:
            continue
        if clearance > 0 and not res.clearance_ok:
            continue
        out.append(res.route)
    return out


def sketched_routes(scene: Scene, rng: np.random.Generator, n: int, legs: int = 6) -> list[Route]:
    """n random polylines of visible legs in the free space (what a designer sketches: corners, reversals,
    self-crossings), each leg of random length and direction."""
    geo = build_geometry(scene)
    free = geo.free
    shapely.prepare(free)
    size = scene.bounds[2] - scene.bounds[0]
    out: list[Route] = []
    while len(out) < n:
        pts = [random_points(geo.components[0], rng, 1)[0]]
        for _ in range(200):
            if len(pts) > legs:
                break
            ang = rng.uniform(0, 2 * np.pi)
            q = pts[-1] + rng.uniform(0.05, 0.4) * size * np.array([np.cos(ang), np.sin(ang)])
            if free.covers(LineString([pts[-1], q])):
                pts.append(q)
        if len(pts) > legs:
            out.append(Route.from_points(np.asarray(pts)))
    return out


@lru_cache(maxsize=None)
def shipped(name: str) -> Scene:
    """A shipped scene (cached; tests must not modify it)."""
    return load_scene(SCENES_DIR / f"{name}.json")


@lru_cache(maxsize=None)
def shipped_mesh(name: str):
    """The navmesh of a shipped scene (cached)."""
    return build_navmesh(shipped(name))


def obstacle_union(scene: Scene):
    """The union of the obstacles (shapely), for independent checks."""
    return shapely.union_all([Polygon(o.polygon) for o in scene.obstacles])
