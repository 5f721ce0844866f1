"""Generated scenes and queries for the routes tests: random star-shaped obstacles, terrain, weights below and above
1, and an indicative network of visible edges."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import shapely

from core.scene.geometry import build_geometry
from core.scene.io import load_scene, scene_to_dict
from core.scene.parse import parse_scene
from core.scene.model import Network, Obstacle, Profile, Scene, TerrainPolygon, TerrainType

SCENES_DIR = Path(__file__).resolve().parents[3] / "scenes"
SHIPPED = ["mckenna", "mckenna_road", "forest", "city"]


def star(rng: np.random.Generator, cx: float, cy: float, r: float, n: int) -> list[tuple[float, float]]:
    """A random simple star-shaped polygon around (cx, cy), counter-clockwise: one vertex per angular sector, so
    consecutive angles differ by less than pi and the centre sees every edge."""
    ang = 2 * np.pi * np.arange(n) / n + rng.uniform(0, np.pi / n, n)
    rad = r * rng.uniform(0.4, 1.0, n)
    return [(float(cx + a * np.cos(t)), float(cy + a * np.sin(t))) for a, t in zip(rad, ang)]


def random_scene(seed: int, size: float = 100.0, n_obstacles: int = 10, n_terrains: int = 6,
                 network: bool = True) -> Scene:
    """A random scene of size x 0.8 size with four terrain types, two profiles (one with weights below 1) and a
    network joining random free points by visible edges."""
    rng = np.random.default_rng(seed)
    w, h = size, 0.8 * size
    types = [TerrainType("default"), TerrainType("road"), TerrainType("mud"), TerrainType("sidewalk")]
    obstacles = []
    for i in range(n_obstacles):
        cx, cy = rng.uniform(0.05 * w, 0.95 * w), rng.uniform(0.05 * h, 0.95 * h)
        obstacles.append(Obstacle(f"o{i}", star(rng, cx, cy, rng.uniform(0.04, 0.1) * size,
                                                int(rng.integers(4, 10)))))
    terrains = []
    for i in range(n_terrains):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        terrains.append(TerrainPolygon(f"t{i}", types[1 + i % 3].id,
                                       star(rng, cx, cy, rng.uniform(0.1, 0.3) * size, int(rng.integers(3, 9)))))
    profiles = [Profile("pedestrian", {"default": 1.0, "road": 4.0, "mud": 40.0, "sidewalk": 0.5}),
                Profile("light", {"default": 0.8, "road": 0.3, "mud": 2.0, "sidewalk": 0.6})]
    scene = Scene(bounds=(0.0, 0.0, w, h), terrain_types=types, default_terrain="default", name=f"random {seed}",
                  obstacles=obstacles, terrains=terrains, profiles=profiles)
    parse_scene(scene_to_dict(scene))  # the generator only makes valid scenes
    if network:
        scene.networks = [random_network(scene, rng)]
    return scene


def random_network(scene: Scene, rng: np.random.Generator, n: int = 40) -> Network:
    """Random free points joined to their nearest visible neighbours (a connected-looking roadmap)."""
    g = build_geometry(scene)
    comp = g.components[0]
    pts = random_points(scene, rng, n, comp)
    edges = []
    for i in range(n):
        d = np.hypot(*(pts - pts[i]).T)
        for j in np.argsort(d)[1:6]:
            if i < j and shapely.covers(g.free, shapely.LineString([pts[i], pts[j]])):
                edges.append((i, int(j)))
    return Network("net", [tuple(map(float, p)) for p in pts], edges)


def random_points(scene: Scene, rng: np.random.Generator, n: int, region=None) -> np.ndarray:
    """n uniform random points of a region (default: the largest connected part of the free space)."""
    region = region if region is not None else build_geometry(scene).components[0]
    shapely.prepare(region)
    x0, y0, x1, y1 = region.bounds
    out = []
    while len(out) < n:
        p = rng.uniform([x0, y0], [x1, y1], size=(4 * n, 2))
        out.extend(p[shapely.contains_xy(region, p[:, 0], p[:, 1])])
    return np.asarray(out[:n])


def random_queries(scene: Scene, seed: int, n: int) -> np.ndarray:
    """(n, 4) queries [x0, y0, x1, y1] with both ends in the largest connected part of the free space."""
    rng = np.random.default_rng(seed)
    return random_points(scene, rng, 2 * n).reshape(n, 4)


@lru_cache(maxsize=None)
def shipped(name: str) -> Scene:
    """A shipped scene (scenes/NAME.json)."""
    return load_scene(SCENES_DIR / f"{name}.json")
