"""Random scenes for the navmesh tests: non-convex obstacles, overlapping terrain polygons, degenerate contacts."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import shapely

from core.scene.model import Obstacle, Profile, Scene, TerrainPolygon, TerrainType


def star_polygon(rng: np.random.Generator, cx: float, cy: float, r: float, n: int) -> list[tuple[float, float]]:
    """A random simple (star-shaped, usually non-convex) polygon around (cx, cy), counter-clockwise."""
    # Increasing angles with gaps under pi and positive radii give a simple polygon, star-shaped around (cx, cy).
    ang = (np.arange(n) + rng.uniform(-0.35, 0.35, n)) * (2 * np.pi / n) + rng.uniform(0, 2 * np.pi)
    rad = r * rng.uniform(0.35, 1.0, n)
    return [(float(cx + a * np.cos(t)), float(cy + a * np.sin(t))) for a, t in zip(rad, ang)]


def random_scene(seed: int, size: float = 100.0, n_obstacles: int = 8, n_terrains: int = 6,
                 degenerate: bool = True) -> Scene:
    """A random scene in [0, size] x [0, 0.8 size] with four terrain types.

    With ``degenerate``: an obstacle sticking out of the bounds, two obstacles sharing an edge, a terrain strip
    whose edge runs along an obstacle edge, and a terrain polygon with a hole."""
    rng = np.random.default_rng(seed)
    w, h = size, 0.8 * size
    types = [TerrainType("default", "Open"), TerrainType("road"), TerrainType("mud"), TerrainType("sidewalk")]
    obstacles = []
    for i in range(n_obstacles):
        cx, cy = rng.uniform(0.1 * w, 0.9 * w), rng.uniform(0.1 * h, 0.9 * h)
        obstacles.append(Obstacle(f"o{i}", star_polygon(rng, cx, cy, rng.uniform(0.04, 0.1) * size,
                                                        int(rng.integers(4, 10)))))
    terrains = []
    for i in range(n_terrains):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        terrains.append(TerrainPolygon(f"t{i}", types[1 + i % 3].id,
                                       star_polygon(rng, cx, cy, rng.uniform(0.1, 0.3) * size,
                                                    int(rng.integers(3, 9)))))
    if degenerate:
        s = 0.05 * size
        x0, y0 = rng.uniform(0.2 * w, 0.7 * w), rng.uniform(0.2 * h, 0.7 * h)
        # Two squares sharing an edge, and a strip along the top edge of the pair.
        obstacles.append(Obstacle("pair_a", [(x0, y0), (x0 + s, y0), (x0 + s, y0 + s), (x0, y0 + s)]))
        obstacles.append(Obstacle("pair_b", [(x0 + s, y0), (x0 + 2 * s, y0), (x0 + 2 * s, y0 + s), (x0 + s, y0 + s)]))
        terrains.append(TerrainPolygon("strip", "sidewalk", [(x0 - s, y0 + s), (x0 + 3 * s, y0 + s),
                                                             (x0 + 3 * s, y0 + 1.5 * s), (x0 - s, y0 + 1.5 * s)]))
        # Out of the bounds on the left.
        yy = rng.uniform(0.2 * h, 0.8 * h)
        obstacles.append(Obstacle("edge", [(-s, yy), (s, yy - s), (s, yy + s)]))
        # Terrain with a hole.
        cx, cy = rng.uniform(0.3 * w, 0.7 * w), rng.uniform(0.3 * h, 0.7 * h)
        terrains.append(TerrainPolygon("ring", "mud", [(cx - 3 * s, cy - 3 * s), (cx + 3 * s, cy - 3 * s),
                                                       (cx + 3 * s, cy + 3 * s), (cx - 3 * s, cy + 3 * s)],
                                       [[(cx - s, cy - s), (cx - s, cy + s), (cx + s, cy + s), (cx + s, cy - s)]]))
    profiles = [Profile("pedestrian", {"default": 1.0, "road": 4.0, "mud": 40.0, "sidewalk": 0.5}),
                Profile("child", {"default": 1.0, "road": 2.0, "mud": 0.7, "sidewalk": 1.5})]
    return Scene(bounds=(0.0, 0.0, w, h), terrain_types=types, default_terrain="default", name=f"random {seed}",
                 obstacles=obstacles, terrains=terrains, profiles=profiles)


def grid_scene() -> Scene:
    """An axis-aligned scene on an integer grid: every degenerate walk (through vertices, along edges) is easy to
    provoke with integer segment end points."""
    types = [TerrainType("default"), TerrainType("road"), TerrainType("mud")]
    obstacles = [Obstacle("a", [(2, 2), (4, 2), (4, 4), (2, 4)]), Obstacle("b", [(4, 4), (6, 4), (6, 6), (4, 6)]),
                 Obstacle("c", [(7, 1), (9, 1), (9, 2), (8, 2), (8, 3), (7, 3)])]
    terrains = [TerrainPolygon("r", "road", [(0, 4), (10, 4), (10, 5), (0, 5)]),
                TerrainPolygon("m", "mud", [(5, 0), (7, 0), (7, 8), (5, 8)])]
    profiles = [Profile("p", {"default": 1.0, "road": 3.0, "mud": 10.0})]
    return Scene(bounds=(0.0, 0.0, 10.0, 8.0), terrain_types=types, default_terrain="default", name="grid",
                 obstacles=obstacles, terrains=terrains, profiles=profiles)


def random_segments(rng: np.random.Generator, scene: Scene, n: int, length: float | None = None,
                    margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """n random segments in the bounds (extended by ``margin``); of the given length if set (clipped at bounds)."""
    x0, y0, x1, y1 = scene.bounds
    p = np.column_stack([rng.uniform(x0 - margin, x1 + margin, n), rng.uniform(y0 - margin, y1 + margin, n)])
    if length is None:
        q = np.column_stack([rng.uniform(x0 - margin, x1 + margin, n), rng.uniform(y0 - margin, y1 + margin, n)])
    else:
        a = rng.uniform(0, 2 * np.pi, n)
        q = p + length * np.column_stack([np.cos(a), np.sin(a)])
    return p, q


SCENES_DIR = Path(__file__).resolve().parents[3] / "scenes"


def shipped_scene_files() -> list[str]:
    """The scenes that ship (scenes/*.json), by file name."""
    return sorted(p.name for p in SCENES_DIR.glob("*.json") if not p.name.endswith(".sweep.json"))


@lru_cache(maxsize=None)
def case(name: str):
    """(scene, geometry, mesh) for a test case: 'random:<seed>', 'grid' or a shipped scene's file name; cached."""
    from core.navmesh import build_navmesh
    from core.scene import build_geometry, load_scene

    if name.startswith("random:"):
        scene = random_scene(int(name.split(":")[1]))
    elif name == "grid":
        scene = grid_scene()
    else:
        scene = load_scene(SCENES_DIR / name)
    geometry = build_geometry(scene)
    return scene, geometry, build_navmesh(scene, geometry)


GENERATED = ["random:0", "random:1", "random:2", "random:3", "grid"]
ALL_CASES = GENERATED + shipped_scene_files()


def shapely_terrain_lengths(g, lines: np.ndarray) -> np.ndarray:
    """Reference l^T: length of each line (n,) in each terrain region by shapely, (n, n_types).

    GEOS (3.14) occasionally loses a piece of a line-polygon intersection (random_scene(218): a 57 m piece comes
    back as three points, and the reversed line gives yet another answer). Such rows are caught because the
    regions' lengths no longer add up to the line's length in the free space, and are redone with other exact
    orders of the same overlay (polygon first; snap-rounded to 1e-11; the line's two halves) until they do."""
    ref = np.column_stack([shapely.length(shapely.intersection(lines, r)) for r in g.regions])
    free = shapely.length(shapely.intersection(lines, g.free))
    scale = np.maximum(shapely.length(lines), 1.0)

    def consistent(row, i):
        return abs(row.sum() - free[i]) <= 1e-9 * scale[i]

    for i in np.flatnonzero(np.abs(ref.sum(axis=1) - free) > 1e-9 * scale):
        c = shapely.get_coordinates(lines[i])
        mid = 0.5 * (c[0] + c[-1])
        halves = shapely.linestrings([[c[0], mid], [mid, c[-1]]])
        for attempt in (
            lambda r, line=lines[i]: shapely.intersection(r, line).length,
            lambda r, line=lines[i]: shapely.intersection(line, r, grid_size=1e-11).length,
            lambda r, halves=halves: shapely.length(shapely.intersection(halves, r)).sum(),
        ):
            row = np.array([attempt(r) for r in g.regions])
            if consistent(row, i):
                ref[i] = row
                break
    return ref
