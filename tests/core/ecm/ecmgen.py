"""Random scenes for the ECM tests: non-convex and overlapping obstacles, courtyards, contacts with the bounds.

Coordinates are rounded to 1e-3 so that an exact segment Voronoi diagram on an integer grid (Boost.Polygon via
pyvoronoi, scaled by 1000) sees exactly the same input as the ECM.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon

from core.scene.model import Obstacle, Profile, Scene, TerrainType


def _r(p) -> tuple[float, float]:
    return (round(float(p[0]), 3), round(float(p[1]), 3))


def star(rng, cx, cy, r, n):
    """A random star-shaped (usually non-convex) polygon, counter-clockwise."""
    ang = (np.arange(n) + rng.uniform(-0.3, 0.3, n)) * (2 * np.pi / n) + rng.uniform(0, 2 * np.pi)
    rad = r * rng.uniform(0.4, 1.0, n)
    return [_r((cx + a * np.cos(t), cy + a * np.sin(t))) for a, t in zip(rad, ang)]


def rect(x0, y0, x1, y1):
    return [_r((x0, y0)), _r((x1, y0)), _r((x1, y1)), _r((x0, y1))]


def random_scene(seed: int, width: float = 100.0, height: float = 70.0, n: int = 9) -> Scene:
    """A scene with ``n`` random obstacles plus, depending on the seed, an L, a U, a courtyard or a wall contact.

    Obstacles keep at least about 1.5 % of the width from each other unless they overlap on purpose, so that a
    GVD of a few hundred pixels separates them.
    """
    rng = np.random.default_rng(seed)
    obstacles: list[list[tuple[float, float]]] = []
    placed: list[Polygon] = []
    gap = 0.015 * width

    def add(ring, overlap_ok=False):
        poly = Polygon(ring)
        if not poly.is_valid or poly.area <= 0:
            return
        if not overlap_ok and any(poly.distance(q) < gap for q in placed):
            return
        obstacles.append(ring)
        placed.append(poly)

    kind = seed % 4
    if kind == 0:
        x, y = rng.uniform(0.2, 0.5) * width, rng.uniform(0.2, 0.5) * height
        s = 0.12 * width
        add([_r(p) for p in [(x, y), (x + s, y), (x + s, y + 0.3 * s), (x + 0.3 * s, y + 0.3 * s),
                             (x + 0.3 * s, y + s), (x, y + s)]])
    elif kind == 1:
        x, y = rng.uniform(0.2, 0.5) * width, rng.uniform(0.2, 0.5) * height
        s = 0.15 * width
        add([_r(p) for p in [(x, y), (x + s, y), (x + s, y + s), (x + 0.7 * s, y + s), (x + 0.7 * s, y + 0.3 * s),
                             (x + 0.3 * s, y + 0.3 * s), (x + 0.3 * s, y + s), (x, y + s)]])
    elif kind == 2:
        # A courtyard: four overlapping walls whose union has a hole.
        x, y = rng.uniform(0.15, 0.45) * width, rng.uniform(0.15, 0.4) * height
        s, t = 0.25 * width, 0.04 * width
        add(rect(x, y, x + s, y + t))
        add(rect(x, y + s - t, x + s, y + s), overlap_ok=True)
        add(rect(x, y, x + t, y + s), overlap_ok=True)
        add(rect(x + s - t, y, x + s, y + s), overlap_ok=True)
    else:
        # Touching the bounds, and two obstacles sharing an edge.
        y = rng.uniform(0.2, 0.6) * height
        add(rect(0.0, y, 0.1 * width, y + 0.08 * width))
        x = rng.uniform(0.3, 0.6) * width
        add(rect(x, 0.5 * height, x + 0.06 * width, 0.5 * height + 0.06 * width))
        add(rect(x + 0.06 * width, 0.5 * height, x + 0.12 * width, 0.5 * height + 0.04 * width), overlap_ok=True)
    tries = 0
    while len(obstacles) < n + 1 and tries < 200:
        tries += 1
        cx, cy = rng.uniform(0.05, 0.95) * width, rng.uniform(0.05, 0.95) * height
        r = rng.uniform(0.03, 0.08) * width
        if rng.random() < 0.6:
            ring = star(rng, cx, cy, r, int(rng.integers(3, 9)))
        else:
            a = rng.uniform(0, np.pi)
            w2, h2 = r, r * rng.uniform(0.3, 1.0)
            pts = [(-w2, -h2), (w2, -h2), (w2, h2), (-w2, h2)]
            ring = [_r((cx + px * np.cos(a) - py * np.sin(a), cy + px * np.sin(a) + py * np.cos(a))) for px, py in pts]
        poly = Polygon(ring)
        if not poly.within(shapely.box(0, 0, width, height)):
            continue
        add(ring)
    return Scene(
        bounds=(0.0, 0.0, float(width), float(height)),
        terrain_types=[TerrainType("default", "Open ground")],
        default_terrain="default",
        name=f"random {seed}",
        obstacles=[Obstacle(f"o{i}", ring) for i, ring in enumerate(obstacles)],
        profiles=[Profile("pedestrian")],
    )


def comb_scene(n: int) -> Scene:
    """One comb obstacle of ``n`` vertices in a 100 x 100 box: teeth 10 m tall and 90 / n m apart, their valleys on
    one line (the worst case measured for the vertex limit: a Hertel-Mehlhorn merging all the valleys into one
    piece, GEOS buffers crossing hundreds of neighbours)."""
    teeth = n - 2
    x = np.round(5.0 + 90.0 * np.arange(teeth) / (teeth - 1), 3)
    y = np.where(np.arange(teeth) % 2 == 1, 70.0, 60.0)
    ring = [(95.0, 40.0), (5.0, 40.0)] + list(zip(x.tolist(), y.tolist()))
    return Scene(bounds=(0.0, 0.0, 100.0, 100.0), terrain_types=[TerrainType("default", "Open ground")],
                 default_terrain="default", name=f"comb {n}", obstacles=[Obstacle("comb", ring)])
