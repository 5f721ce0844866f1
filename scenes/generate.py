"""Generate the shipped scenes: ``python scenes/generate.py [OUT_DIR]`` (default: this folder).

The papers' original footprints are not public; these are faithful stand-ins with the papers' counts (see
scenes/README.md). Everything here is deterministic: hand-placed coordinates for McKenna, and a fixed seed plus
coordinates rounded to 0.01 for the forest and the city, so that running the script again rewrites the same bytes.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box

from core.scene.io import load_scene, save_scene
from core.scene.model import (
    Agent,
    HeightField,
    Network,
    Obstacle,
    Profile,
    Route,
    Scene,
    SimulationSettings,
    TerrainPolygon,
    TerrainType,
)

HERE = Path(__file__).resolve().parent


def rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    """An axis-aligned rectangle, counter-clockwise from its lower-left corner."""
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def ring_of(poly: Polygon) -> list[tuple[float, float]]:
    """A shapely polygon's exterior, counter-clockwise, without the closing vertex, rounded to 0.01."""
    return _round_ring(shapely.geometry.polygon.orient(poly, 1.0).exterior.coords)


def holes_of(poly: Polygon) -> list[list[tuple[float, float]]]:
    return [_round_ring(h.coords) for h in shapely.geometry.polygon.orient(poly, 1.0).interiors]


def _round_ring(coords) -> list[tuple[float, float]]:
    pts = [(round(float(x), 2), round(float(y), 2)) for x, y in list(coords)[:-1]]
    return [(x + 0.0, y + 0.0) for x, y in pts]  # + 0.0 turns -0.0 into 0.0


def regular(cx: float, cy: float, r: float, n: int, phase: float = 0.0, stretch: float = 1.0,
            angle: float = 0.0) -> list[tuple[float, float]]:
    """A convex n-gon inscribed in an ellipse (radii r*stretch along ``angle`` and r across), rounded to 0.01."""
    ca, sa = math.cos(angle), math.sin(angle)
    pts = []
    for k in range(n):
        t = phase + 2 * math.pi * k / n
        u, v = r * stretch * math.cos(t), r * math.sin(t)
        pts.append((round(cx + u * ca - v * sa, 2) + 0.0, round(cy + u * sa + v * ca, 2) + 0.0))
    return pts


# ---------------------------------------------------------------------------------------------------------------
# McKenna (MIRAN section 5, Figures 7 and 8): 200 x 200 units, 23 convex buildings with 96 vertices in all.
# Streets: north-south at x = 50, 100, 155 and east-west at y = 40, 100 (the wide main street), 160.

MCKENNA_BUILDINGS: list[list[tuple[float, float]]] = [
    # south-west block row (y 2..29)
    rect(4, 4, 18, 24),
    [(22, 4), (37, 4), (37, 20), (31, 26), (22, 26)],                    # pentagon (chamfered corner)
    [(63, 5), (87, 6), (86, 27), (63, 26)],
    rect(113, 4, 126, 27),
    rect(130, 4, 143, 18),
    [(170, 6), (174, 3), (194, 3), (197, 7), (197, 26), (170, 26)],      # hexagon
    # y 51..81
    rect(4, 53, 20, 79),
    rect(24, 56, 38, 76),
    rect(62, 52, 88, 64),
    rect(64, 68, 86, 80),
    rect(112, 51, 120, 60),                                              # the yard block keeps one shed
    rect(183, 52, 197, 80),
    # y 119..149
    rect(6, 130, 36, 147),
    rect(62, 120, 74, 148),
    [(78, 120), (88, 120), (88, 142), (83, 148), (78, 148)],             # pentagon
    rect(112, 120, 126, 136),
    rect(130, 122, 143, 148),
    rect(168, 121, 196, 147),
    # y 171..198
    rect(3, 172, 17, 196),
    rect(21, 175, 38, 197),
    [(62, 172), (88, 172), (88, 190), (62, 197)],
    rect(113, 173, 142, 196),
    rect(168, 172, 196, 190),
]

# The indicative route of Figure 7: east along the main street, north, then a loop round the four middle blocks
# (north-east, south, west; 450 units from crossing to crossing, so that sigma = 300 can neither see nor reach its
# far side at the crossing and cuts it part-way, while sigma = 1250 skips it) that crosses the first leg at
# (50, 100), then north to the goal.
MCKENNA_ROUTE = [(8, 100), (100, 100), (100, 160), (155, 160), (155, 40), (50, 40), (50, 192)]


def mckenna_types() -> list[TerrainType]:
    return [TerrainType("default", "Open ground", "#cbd5a3")]


def mckenna() -> Scene:
    """McKenna MOUT site stand-in: one terrain type, the route with a loop, the pedestrian of Figure 7 (d = 20)."""
    return Scene(
        name="McKenna", units="m", bounds=(0.0, 0.0, 200.0, 200.0),
        terrain_types=mckenna_types(), default_terrain="default",
        obstacles=[Obstacle(f"b{i + 1}", list(p)) for i, p in enumerate(MCKENNA_BUILDINGS)],
        profiles=[Profile("pedestrian", {}, radius=0.25, max_speed=1.4, sigma=100.0, d=20.0)],
        routes=[Route("loop", list(MCKENNA_ROUTE))],
        agents=[Agent("walker", "pedestrian", route="loop")],
        simulation=SimulationSettings("miran", "euler", 0.1),
    )


# McKenna + Road (Figure 8): 10 convex terrain polygons with 39 vertices. The main street carries a road
# (y 92..108) with sidewalks on both sides; a second road runs north-south at x 151..159 with sidewalks at
# x 147..151 and 159..163 south of the main street. Mud lies in the yard south of the main street, 2 m off both
# sidewalks, and in two smaller patches beside the sidewalks elsewhere.
ROAD_TERRAINS: list[tuple[str, str, list[tuple[float, float]]]] = [
    ("sidewalk-main-south", "sidewalk", rect(0, 86, 200, 92)),
    ("sidewalk-main-north", "sidewalk", rect(0, 108, 200, 114)),
    ("sidewalk-ns-west", "sidewalk", rect(147, 0, 151, 86)),
    ("sidewalk-ns-east", "sidewalk", rect(159, 0, 163, 86)),
    ("road-main", "road", rect(0, 92, 200, 108)),
    ("road-ns-south", "road", rect(151, 0, 159, 92)),
    ("road-ns-north", "road", rect(151, 108, 159, 200)),
    ("mud-yard", "mud", [(118, 84), (126, 60), (145, 58), (145, 84)]),
    ("mud-north", "mud", [(22, 114), (40, 114), (30, 124)]),
    ("mud-east", "mud", [(163, 50), (178, 52), (180, 68), (163, 70)]),
]

# A sloppy sketch along the south side of the main street, bulging twice 5 m into the road, round the corner of the
# muddy yard (whose edge stays 5 m off the corner) and down the west sidewalk of the north-south road. MIRAN only
# attracts to route points (section 3.2), so it keeps to the sidewalk by choosing cheap chords across the bulges and
# stays out of the mud; a follower blind to the weights follows the bulges onto the road, and one that cuts the
# corner wide (IRM's attraction point on its clearance disc, IRM 4.3) crosses the mud.
ROAD_ROUTE = [(4, 90), (40, 97), (80, 89.5), (120, 97), (149, 89), (149, 6)]


def mckenna_road() -> Scene:
    """McKenna + Road: the same buildings plus road, sidewalk and mud, and the pedestrian of MIRAN section 5."""
    return Scene(
        name="McKenna + Road", units="m", bounds=(0.0, 0.0, 200.0, 200.0),
        terrain_types=[TerrainType("default", "Open ground", "#cbd5a3"), TerrainType("sidewalk", "Sidewalk", "#d9d9d9"),
                       TerrainType("road", "Road", "#7f7f7f"), TerrainType("mud", "Mud", "#7a5230")],
        default_terrain="default",
        obstacles=[Obstacle(f"b{i + 1}", list(p)) for i, p in enumerate(MCKENNA_BUILDINGS)],
        terrains=[TerrainPolygon(tid, ttype, list(p), []) for tid, ttype, p in ROAD_TERRAINS],
        profiles=[Profile("pedestrian", {"default": 1.0, "sidewalk": 0.5, "road": 4.0, "mud": 40.0},
                          radius=0.25, max_speed=1.4, sigma=40.0, d=10.0)],
        routes=[Route("main-street", list(ROAD_ROUTE))],
        agents=[Agent("pedestrian-1", "pedestrian", route="main-street")],
        simulation=SimulationSettings("miran", "euler", 0.1),
    )


# ---------------------------------------------------------------------------------------------------------------
# Forest (MIRAN Figure 1 and section 4): 300 x 200 m of forest crossed by a 16 m forest track that forks. The short
# southern branch has two puddles and a fallen tree across it; the longer northern branch climbs through a clearing
# with a panoramic view. The adult (puddles 10, fallen trees 30, view 1) takes the northern branch, the child
# (puddles 1, fallen trees 1, view 10) the southern one. The track is smooth (Chaikin curves, concave corners
# filleted): MIRAN looks at least d = 20 m ahead, and a 20 m chord across a sharp corner of a narrow path leaves the
# path, after which section 3.3's 1 / d_ij favours far chords through the forest (the adult then walks the forest).

FOREST_PATH_MAIN = [(-5, 100), (100, 100)]
FOREST_PATH_SOUTH = [(100, 100), (125, 92), (150, 86), (175, 92), (200, 100)]
FOREST_PATH_NORTH = [(100, 100), (130, 110), (150, 135), (170, 110), (200, 100)]
FOREST_PATH_EAST = [(200, 100), (305, 100)]
FOREST_PATH_HALF_WIDTH = 8.0
FOREST_VIEW = (150.0, 128.0, 12.0)
FOREST_FILLET = 8.0
FOREST_SEED = 20130401
FOREST_TREES = 90


def _along(line: list[tuple[float, float]], s: float) -> tuple[float, float, float]:
    """The point at arc length ``s`` along a polyline and the direction (radians) there."""
    ls = LineString(line)
    p = ls.interpolate(s)
    q = ls.interpolate(min(s + 0.5, ls.length))
    o = ls.interpolate(max(s - 0.5, 0.0))
    return p.x, p.y, math.atan2(q.y - o.y, q.x - o.x)


def _chaikin(line: list[tuple[float, float]], rounds: int = 4) -> list[tuple[float, float]]:
    """Chaikin's corner cutting, ``rounds`` times, end points kept: a smooth curve inside the polyline's hull."""
    pts = np.asarray(line, dtype=float)
    for _ in range(rounds):
        q = 0.75 * pts[:-1] + 0.25 * pts[1:]
        r = 0.25 * pts[:-1] + 0.75 * pts[1:]
        mid = np.empty((2 * len(q), 2))
        mid[0::2], mid[1::2] = q, r
        pts = np.vstack([pts[:1], mid[1:-1], pts[-1:]])
    return [(float(x), float(y)) for x, y in pts]


def forest() -> Scene:
    """The forest of MIRAN Figure 1 with the adult and child profiles of section 4."""
    bounds = (0.0, 0.0, 300.0, 200.0)
    frame = box(*bounds)
    south = _chaikin(FOREST_PATH_SOUTH)
    lines = [_chaikin(FOREST_PATH_MAIN), south, _chaikin(FOREST_PATH_NORTH), _chaikin(FOREST_PATH_EAST)]
    path = shapely.union_all([LineString(l).buffer(FOREST_PATH_HALF_WIDTH, quad_segs=3) for l in lines])
    path = path.buffer(FOREST_FILLET, quad_segs=4).buffer(-FOREST_FILLET, quad_segs=4)
    path = shapely.set_precision(path.intersection(frame), 0.01)
    terrains = [TerrainPolygon("path", "path", ring_of(path), holes_of(path))]

    south_len = LineString(south).length
    puddles = []
    for k, s in enumerate((0.28 * south_len, 0.74 * south_len)):
        x, y, a = _along(south, s)
        puddles.append(regular(x, y, 5.0, 10, stretch=1.5, angle=a))
        terrains.append(TerrainPolygon(f"puddle-{k + 1}", "puddles", puddles[-1], []))
    x, y, a = _along(south, 0.5 * south_len)
    fallen = [_thin_rect(x, y, 9.0, 1.5, a + math.pi / 2 + 0.2), _thin_rect(62.0, 150.0, 8.0, 1.2, 0.7),
              _thin_rect(228.0, 52.0, 10.0, 1.3, -0.4)]
    for k, f in enumerate(fallen):
        terrains.append(TerrainPolygon(f"fallen-tree-{k + 1}", "trees", f, []))
    view = regular(*FOREST_VIEW, 12, phase=math.pi / 12)
    terrains.append(TerrainPolygon("panoramic-view", "view", view, []))

    # Obstacle trees: small octagons scattered in the forest, clear of the path, the puddles, the fallen trees,
    # the view spot and each other.
    keep_clear = shapely.union_all([path] + [Polygon(p) for p in puddles + fallen + [view]]).buffer(4.0)
    rng = np.random.default_rng(FOREST_SEED)
    trees: list[Polygon] = []
    while len(trees) < FOREST_TREES:
        cx, cy = rng.uniform(6, 294), rng.uniform(6, 194)
        r = float(rng.uniform(1.0, 2.4))
        c = Point(cx, cy)
        if keep_clear.intersects(c.buffer(r)) or any(t.distance(c) < r + 3.0 for t in trees):
            continue
        trees.append(Polygon(regular(cx, cy, r, 8, phase=float(rng.uniform(0, math.pi / 4)))))
    obstacles = [Obstacle(f"tree-{k + 1}", ring_of(t)) for k, t in enumerate(trees)]

    return Scene(
        name="Forest", units="m", bounds=bounds,
        terrain_types=[TerrainType("forest", "Forest", "#3f7f3a"), TerrainType("path", "Path", "#9e9e9e"),
                       TerrainType("puddles", "Puddles", "#4f86d9"), TerrainType("trees", "Fallen trees", "#7b4a21"),
                       TerrainType("view", "Panoramic view", "#dedede")],
        default_terrain="forest",
        obstacles=obstacles, terrains=terrains,
        profiles=[
            Profile("adult", {"forest": 30.0, "path": 2.0, "puddles": 10.0, "trees": 30.0, "view": 1.0},
                    radius=0.25, max_speed=1.4, sigma=80.0, d=20.0),
            Profile("child", {"forest": 30.0, "path": 2.0, "puddles": 1.0, "trees": 1.0, "view": 10.0},
                    radius=0.2, max_speed=1.6, sigma=100.0, d=20.0),
        ],
        agents=[Agent("adult", "adult", start=(4.0, 99.0), goal=(296.0, 99.0), planner="grid"),
                Agent("child", "child", start=(4.0, 101.5), goal=(296.0, 101.5), planner="grid")],
        simulation=SimulationSettings("miran", "euler", 0.1),
    )


def _thin_rect(cx: float, cy: float, half_len: float, half_w: float, angle: float) -> list[tuple[float, float]]:
    """A rotated rectangle (a fallen trunk), counter-clockwise, rounded to 0.01."""
    ca, sa = math.cos(angle), math.sin(angle)
    out = []
    for u, v in ((-half_len, -half_w), (half_len, -half_w), (half_len, half_w), (-half_len, half_w)):
        out.append((round(cx + u * ca - v * sa, 2) + 0.0, round(cy + u * sa + v * ca, 2) + 0.0))
    return out


# ---------------------------------------------------------------------------------------------------------------
# City (ECM section VI: 500 x 500 m, 181 buildings and trees): a street grid with roads and sidewalks, lots with
# buildings (L- and U-shaped ones included), a park with trees around a paved plaza, a handful of characters.

CITY_STREETS = (50.0, 150.0, 250.0, 350.0, 450.0)
ROAD_HALF, WALK = 5.0, 3.0                       # road half-width and sidewalk width (m)
STREET_HALF = ROAD_HALF + WALK
PARK_LOT = (2, 2)                                # lot (column, row) that holds the park
CITY_OBSTACLES = 181


def _lots() -> list[tuple[int, int, float, float, float, float]]:
    """The lots between the streets as (column, row, x0, y0, x1, y1), row-major from the south-west."""
    edges = [0.0] + [v for c in CITY_STREETS for v in (c - STREET_HALF, c + STREET_HALF)] + [500.0]
    spans = [(edges[2 * i], edges[2 * i + 1]) for i in range(len(edges) // 2)]
    return [(i, j, x0, y0, x1, y1) for j, (y0, y1) in enumerate(spans) for i, (x0, x1) in enumerate(spans)]


def _l_shape(x0, y0, x1, y1, arm: float, corner: str) -> list[tuple[float, float]]:
    """An L-shaped footprint filling the ``corner`` (sw, se, ne, nw) of a box, arms ``arm`` deep."""
    poly = box(x0, y0, x1, y1).difference(
        {"sw": box(x0 + arm, y0 + arm, x1, y1), "se": box(x0, y0 + arm, x1 - arm, y1),
         "ne": box(x0, y0, x1 - arm, y1 - arm), "nw": box(x0 + arm, y0, x1, y1 - arm)}[corner])
    return ring_of(poly)


def _u_shape(x0, y0, x1, y1, arm: float, open_side: str) -> list[tuple[float, float]]:
    """A U-shaped footprint around a courtyard open on one side (n, s, e, w)."""
    cut = {"n": box(x0 + arm, y0 + arm, x1 - arm, y1), "s": box(x0 + arm, y0, x1 - arm, y1 - arm),
           "e": box(x0 + arm, y0 + arm, x1, y1 - arm), "w": box(x0, y0 + arm, x1 - arm, y1 - arm)}[open_side]
    return ring_of(box(x0, y0, x1, y1).difference(cut))


def _round_rect(x0, y0, x1, y1) -> list[tuple[float, float]]:
    return rect(round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2))


def _interior_lot(kind: str, x0: float, y0: float, x1: float, y1: float, rng) -> list[list[tuple[float, float]]]:
    """Buildings of an 84 x 84 m lot (set back 2 m from the sidewalk) in one of four layouts."""
    a0, b0, a1, b1 = x0 + 2, y0 + 2, x1 - 2, y1 - 2
    w = a1 - a0
    if kind == "perimeter":                      # four L-shaped corner blocks and a house in each side's middle
        arm, leg, gap = 14.0, 30.0, 4.0
        out = [_l_shape(a0, b0, a0 + leg, b0 + leg, arm, "sw"), _l_shape(a1 - leg, b0, a1, b0 + leg, arm, "se"),
               _l_shape(a1 - leg, b1 - leg, a1, b1, arm, "ne"), _l_shape(a0, b1 - leg, a0 + leg, b1, arm, "nw")]
        mx0, mx1, my0, my1 = a0 + leg + gap, a1 - leg - gap, b0 + leg + gap, b1 - leg - gap
        d = float(rng.uniform(9, 13))
        out += [_round_rect(mx0, b0, mx1, b0 + d), _round_rect(mx0, b1 - d, mx1, b1),
                _round_rect(a0, my0, a0 + d, my1), _round_rect(a1 - d, my0, a1, my1)]
        return out
    if kind == "rows":                           # three houses on the south face and three on the north face
        gap = 4.0
        width = (w - 2 * gap) / 3
        out = []
        for k in range(3):
            xa = a0 + k * (width + gap)
            out.append(_round_rect(xa, b0, xa + width, b0 + float(rng.uniform(18, 24))))
            out.append(_round_rect(xa, b1 - float(rng.uniform(18, 24)), xa + width, b1))
        return out
    if kind == "court":                          # a U around a courtyard, three small houses on the open side
        side = ("n", "s", "e", "w")[int(rng.integers(4))]
        depth = 52.0
        frame = {"n": (a0, b0, a1, b0 + depth), "s": (a0, b1 - depth, a1, b1),
                 "e": (a0, b0, a0 + depth, b1), "w": (a1 - depth, b0, a1, b1)}[side]
        out = [_u_shape(*frame, 14.0, side)]
        gap, n = 4.0, 3
        width = (w - (n - 1) * gap) / n
        for k in range(n):
            t = k * (width + gap)
            if side == "n":
                out.append(_round_rect(a0 + t, b1 - 20, a0 + t + width, b1))
            elif side == "s":
                out.append(_round_rect(a0 + t, b0, a0 + t + width, b0 + 20))
            elif side == "e":
                out.append(_round_rect(a1 - 20, b0 + t, a1, b0 + t + width))
            else:
                out.append(_round_rect(a0, b0 + t, a0 + 20, b0 + t + width))
        return out
    # "towers": four square blocks around a central square
    s = float(rng.uniform(30, 34))
    return [_round_rect(a0, b0, a0 + s, b0 + s), _round_rect(a1 - s, b0, a1, b0 + s),
            _round_rect(a1 - s, b1 - s, a1, b1), _round_rect(a0, b1 - s, a0 + s, b1)]


def _edge_lot(x0, y0, x1, y1, n: int, rng) -> list[list[tuple[float, float]]]:
    """Buildings of a lot on the city's edge: ``n`` houses in a row along its long side, the first one L-shaped."""
    a0, b0, a1, b1 = x0 + 2, y0 + 2, x1 - 2, y1 - 2
    vertical = (b1 - b0) > (a1 - a0)
    length = (b1 - b0) if vertical else (a1 - a0)
    gap = 4.0
    size = (length - (n - 1) * gap) / n
    out = []
    for k in range(n):
        t = k * (size + gap)
        depth = float(rng.uniform(0.7, 1.0)) * ((a1 - a0) if vertical else (b1 - b0))
        if vertical:
            box_ = (a0, b0 + t, a0 + depth, b0 + t + size) if x0 == 0 else (a1 - depth, b0 + t, a1, b0 + t + size)
        else:
            box_ = (a0 + t, b0, a0 + t + size, b0 + depth) if y0 == 0 else (a0 + t, b1 - depth, a0 + t + size, b1)
        if k == 0:
            # The first house of the row is L-shaped, its long arm along the city's edge.
            if vertical:
                corner = "sw" if x0 == 0 else "se"
            else:
                corner = "sw" if y0 == 0 else "nw"
            out.append(_l_shape(*box_, 8.0, corner))
        else:
            out.append(_round_rect(*box_))
    return out


def _corner_lot(x0, y0, x1, y1) -> list[list[tuple[float, float]]]:
    """A 42 x 42 m corner lot: one L-shaped building hugging the city corner and one house."""
    a0, b0, a1, b1 = x0 + 2, y0 + 2, x1 - 2, y1 - 2
    corner = ("s" if y0 == 0 else "n") + ("w" if x0 == 0 else "e")
    out = [_l_shape(a0, b0, a1, b1, 12.0, corner)]
    cx = a1 - 10 if "w" in corner else a0
    cy = b1 - 10 if "s" in corner else b0
    out.append(_round_rect(cx, cy, cx + 10, cy + 10))
    return out


def city() -> Scene:
    """The 500 x 500 m city with 181 obstacles (buildings and park trees), roads, sidewalks and a park."""
    rng = np.random.default_rng(20100503)
    kinds = ["perimeter"] * 5 + ["rows"] * 5 + ["court"] * 3 + ["towers"] * 2
    rng.shuffle(kinds)
    buildings: list[list[tuple[float, float]]] = []
    park = None
    edge_counts = [4] * 8 + [5] * 8
    rng.shuffle(edge_counts)
    last = len(CITY_STREETS)
    for i, j, x0, y0, x1, y1 in _lots():
        on_edge_x, on_edge_y = i in (0, last), j in (0, last)
        if (i, j) == PARK_LOT:
            park = (x0, y0, x1, y1)
        elif on_edge_x and on_edge_y:
            buildings += _corner_lot(x0, y0, x1, y1)
        elif on_edge_x or on_edge_y:
            buildings += _edge_lot(x0, y0, x1, y1, edge_counts.pop(), rng)
        else:
            buildings += _interior_lot(kinds.pop(), x0, y0, x1, y1, rng)
    assert park is not None
    px0, py0, px1, py1 = park
    pcx, pcy = (px0 + px1) / 2, (py0 + py1) / 2
    plaza = regular(pcx, pcy, 12.0, 8, phase=math.pi / 8)
    # Park footpaths cross the lot through the plaza; trees stand clear of them and of the plaza.
    paths = shapely.union_all([LineString([(px0, pcy), (px1, pcy)]).buffer(2.0, cap_style="flat"),
                               LineString([(pcx, py0), (pcx, py1)]).buffer(2.0, cap_style="flat")])
    keep_clear = shapely.union_all([Polygon(plaza), paths]).buffer(3.0)
    trees: list[Polygon] = []
    while len(buildings) + len(trees) < CITY_OBSTACLES:
        cx, cy = rng.uniform(px0 + 4, px1 - 4), rng.uniform(py0 + 4, py1 - 4)
        r = float(rng.uniform(1.5, 2.5))
        c = Point(cx, cy)
        if keep_clear.intersects(c.buffer(r)) or any(t.distance(c) < r + 6.0 for t in trees):
            continue
        trees.append(Polygon(regular(cx, cy, r, 8, phase=float(rng.uniform(0, math.pi / 4)))))

    obstacles = [Obstacle(f"building-{k + 1}", b) for k, b in enumerate(buildings)]
    obstacles += [Obstacle(f"tree-{k + 1}", ring_of(t)) for k, t in enumerate(trees)]

    terrains = []
    for c in CITY_STREETS:                       # sidewalks first: the roads painted after them cover the crossings
        n = int(c)
        terrains += [TerrainPolygon(f"walk-x{n}-w", "sidewalk", rect(c - STREET_HALF, 0, c - ROAD_HALF, 500), []),
                     TerrainPolygon(f"walk-x{n}-e", "sidewalk", rect(c + ROAD_HALF, 0, c + STREET_HALF, 500), []),
                     TerrainPolygon(f"walk-y{n}-s", "sidewalk", rect(0, c - STREET_HALF, 500, c - ROAD_HALF), []),
                     TerrainPolygon(f"walk-y{n}-n", "sidewalk", rect(0, c + ROAD_HALF, 500, c + STREET_HALF), [])]
    for c in CITY_STREETS:
        n = int(c)
        terrains += [TerrainPolygon(f"road-x{n}", "road", rect(c - ROAD_HALF, 0, c + ROAD_HALF, 500), []),
                     TerrainPolygon(f"road-y{n}", "road", rect(0, c - ROAD_HALF, 500, c + ROAD_HALF), [])]
    terrains.append(TerrainPolygon("park", "park", rect(px0, py0, px1, py1), [list(reversed(plaza))]))
    for k, g in enumerate(getattr(paths.difference(Polygon(plaza)), "geoms", [])):
        terrains.append(TerrainPolygon(f"park-path-{k + 1}", "sidewalk", ring_of(g), []))

    nodes = [(x, y) for y in CITY_STREETS for x in CITY_STREETS]
    n = len(CITY_STREETS)
    edges = [(j * n + i, j * n + i + 1) for j in range(n) for i in range(n - 1)]
    edges += [(j * n + i, (j + 1) * n + i) for j in range(n - 1) for i in range(n)]

    return Scene(
        name="City", units="m", bounds=(0.0, 0.0, 500.0, 500.0),
        terrain_types=[TerrainType("ground", "Paved ground", "#c9c1b1"), TerrainType("sidewalk", "Sidewalk", "#dddddd"),
                       TerrainType("road", "Road", "#6f6f6f"), TerrainType("park", "Park lawn", "#8cc269")],
        default_terrain="ground",
        obstacles=obstacles, terrains=terrains,
        profiles=[
            Profile("pedestrian", {"ground": 1.0, "sidewalk": 0.5, "road": 4.0, "park": 1.0},
                    radius=0.25, max_speed=1.4, sigma=40.0, d=10.0),
            Profile("jogger", {"ground": 1.0, "sidewalk": 1.0, "road": 3.0, "park": 0.4},
                    radius=0.25, max_speed=3.0, sigma=60.0, d=10.0),
            Profile("cyclist", {"ground": 2.0, "sidewalk": 3.0, "road": 0.6, "park": 4.0},
                    radius=0.4, max_speed=5.0, sigma=80.0, d=20.0),
        ],
        routes=[
            Route("commute", [(43.5, 10.0), (43.5, 143.5), (143.5, 143.5), (143.5, 343.5), (356.5, 343.5),
                              (356.5, 456.5), (490.0, 456.5)]),
            Route("park-lap", [(156.5, 200.0), (200.0, 200.0), (200.0, 250.0), (250.0, 250.0), (250.0, 150.0),
                               (200.0, 150.0), (200.0, 200.0), (156.5, 200.0)]),
        ],
        networks=[Network("streets", nodes, edges)],
        agents=[
            Agent("commuter", "pedestrian", route="commute"),
            Agent("jogger", "jogger", route="park-lap"),
            Agent("shopper", "pedestrian", start=(56.5, 400.0), goal=(443.5, 60.0), planner="cdt"),
            Agent("courier", "cyclist", start=(10.0, 250.0), goal=(490.0, 350.0), planner="ecm"),
            Agent("tourist", "pedestrian", start=(250.0, 250.0), goal=(456.5, 456.5), planner="portal"),
            Agent("driver", "cyclist", start=(50.0, 50.0), goal=(450.0, 450.0), planner="network"),
            Agent("child", "jogger", start=(343.5, 156.5), goal=(200.0, 170.0), planner="grid"),
        ],
        simulation=SimulationSettings("miran", "euler", 0.1),
    )


def city_traffic() -> Scene:
    """The city with a world that changes during the run: roadworks close the street at x = 250 between two
    buildings (y 326 to 330) from t = 60 s, and a car drives round the park on the roads' centre lines at 8 m/s,
    turning at the corners; four more pedestrians walk north through the closed stretch, which they reach after it
    has closed."""
    base = city()
    works = Obstacle("roadworks", rect(239.0, 326.0, 261.0, 330.0), appears=60.0)
    car = Obstacle("car", rect(147.8, 149.1, 152.2, 150.9), path=[(150.0, 150.0), (250.0, 150.0), (250.0, 250.0),
                                                                   (150.0, 250.0)], speed=8.0, loop=True, turns=True)
    walkers = [Agent(f"walker-{k + 1}", "pedestrian", start=(x, 160.0 + 20.0 * k), goal=(x, 440.0), planner="cdt")
               for k, x in enumerate((243.5, 256.5, 243.5, 256.5))]
    return dataclasses.replace(base, name="City traffic", obstacles=[*base.obstacles, works, car],
                               agents=[*base.agents, *walkers])


def hills() -> Scene:
    """Slope-aware steering (Niederberger 7.2): a meadow with a steep round hill across a straight route, a gentle
    ridge, and a few boulders; a height raster every 5 m."""
    bounds = (0.0, 0.0, 200.0, 120.0)
    cell = 5.0
    xs = np.arange(0.0, 200.0 + cell / 2, cell)
    ys = np.arange(0.0, 120.0 + cell / 2, cell)
    X, Y = np.meshgrid(xs, ys)
    hill = 30.0 * np.exp(-((X - 100.0) ** 2 + (Y - 62.0) ** 2) / (2 * 22.0 ** 2))
    ridge = 6.0 * np.exp(-((X - 40.0) ** 2) / (2 * 12.0 ** 2))
    heights = [[round(float(v), 2) + 0.0 for v in row] for row in hill + ridge]
    return Scene(
        name="Hills", units="m", bounds=bounds,
        terrain_types=[TerrainType("grass", "Meadow", "#a9c47f"), TerrainType("trail", "Trail", "#c8b28a")],
        default_terrain="grass",
        obstacles=[Obstacle("boulder-1", regular(60.0, 20.0, 4.0, 7)),
                   Obstacle("boulder-2", regular(150.0, 100.0, 5.0, 6, 0.3)),
                   Obstacle("boulder-3", regular(165.0, 30.0, 3.0, 5, 0.1))],
        terrains=[TerrainPolygon("trail", "trail", [(0.0, 57.0), (200.0, 57.0), (200.0, 63.0), (0.0, 63.0)])],
        profiles=[Profile("hiker", {"grass": 1.0, "trail": 0.8}, radius=0.25, max_speed=1.4, sigma=40.0, d=10.0)],
        routes=[Route("over-the-hill", [(5.0, 60.0), (195.0, 60.0)])],
        agents=[Agent("hiker", "hiker", route="over-the-hill")],
        simulation=SimulationSettings("miran", "euler", 0.1),
        heightfield=HeightField((0.0, 0.0), cell, heights),
    )


SCENES = {"mckenna.json": mckenna, "mckenna_road.json": mckenna_road, "forest.json": forest, "city.json": city,
          "city_traffic.json": city_traffic, "hills.json": hills}


def main(argv: list[str]) -> int:
    """Write every shipped scene into the folder given (this one by default) and check each reads back."""
    out = Path(argv[0]) if argv else HERE
    out.mkdir(parents=True, exist_ok=True)
    for name, build in SCENES.items():
        scene = build()
        save_scene(scene, out / name)
        assert load_scene(out / name) == scene, name
        print(f"wrote {out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
