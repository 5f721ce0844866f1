"""Checks for one edited item against the scene: would this obstacle, terrain polygon, route or point be valid?

The file validator (parse.py) checks whole documents; these check the items an edit adds or changes, on the
scene as it would be after the edit, so that the editor can refuse the edit at once and show where it goes
wrong. Each problem carries the spot to highlight. The rules are the validator's (a route point, network node or
agent end must lie in free space inside the bounds; polygons must be simple), plus one the editor adds: a drawn
terrain polygon must not lie entirely inside obstacles, where it would paint nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from .edits import find
from .model import Scene
from .polygons import clean_ring, outline_polygons, ring_problem
from .problems import fmt_point

_EPS = 1e-12


@dataclass(frozen=True)
class EditProblem:
    """Why an edit is refused, and where (``(x, y)`` in scene units, or None when it has no one spot)."""

    message: str
    where: tuple[float, float] | None = None

    def __str__(self) -> str:
        return self.message


def self_intersections(ring) -> np.ndarray:
    """Points where a closed ring crosses or touches itself, as a (k, 2) float64 array (scene units).

    Non-adjacent edges that meet (crossing, touching, or overlapping along a stretch) give one point per pair;
    adjacent edges that fold back over each other (a spike) give their shared vertex. Empty (0, 2) when simple.
    """
    a = clean_ring(ring)
    n = len(a)
    if n < 3:
        return np.zeros((0, 2))
    p, q = a, np.roll(a, -1, axis=0)  # edge i runs p[i] -> q[i]
    d = q - p
    out: list[np.ndarray] = []
    # Spikes: consecutive edges that are collinear and point in opposite directions.
    dn = np.roll(d, -1, axis=0)
    cross_adj = d[:, 0] * dn[:, 1] - d[:, 1] * dn[:, 0]
    scale = np.abs(d).sum(axis=1) * np.abs(dn).sum(axis=1)
    spike = (np.abs(cross_adj) <= _EPS * scale) & (np.einsum("ij,ij->i", d, dn) < 0)
    if spike.any():
        out.append(q[spike])
    # Non-adjacent edge pairs, in chunks of rows to bound memory.
    idx = np.arange(n)
    for i0 in range(0, n, 256):
        i = idx[i0:i0 + 256, None]
        j = idx[None, :]
        mask = (j > i + 1) & ~((i == 0) & (j == n - 1))
        ii, jj = np.nonzero(mask)
        if len(ii) == 0:
            continue
        ii = ii + i0
        pts = _segment_meets(p[ii], d[ii], p[jj], d[jj])
        if len(pts):
            out.append(pts)
    if not out:
        return np.zeros((0, 2))
    pts = np.concatenate(out)
    return np.unique(np.round(pts, 12), axis=0)


def _segment_meets(p: np.ndarray, r: np.ndarray, s: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For segment pairs p+t*r and s+v*u ((m, 2) arrays), a point where each pair meets, for the pairs that do."""
    denom = r[:, 0] * u[:, 1] - r[:, 1] * u[:, 0]
    sp = s - p
    tnum = sp[:, 0] * u[:, 1] - sp[:, 1] * u[:, 0]
    vnum = sp[:, 0] * r[:, 1] - sp[:, 1] * r[:, 0]
    scale = np.abs(r).sum(axis=1) * np.abs(u).sum(axis=1)
    parallel = np.abs(denom) <= _EPS * scale
    out = []
    with np.errstate(divide="ignore", invalid="ignore"):
        t = tnum / denom
        v = vnum / denom
    hit = ~parallel & (t >= -1e-12) & (t <= 1 + 1e-12) & (v >= -1e-12) & (v <= 1 + 1e-12)
    if hit.any():
        out.append(p[hit] + t[hit, None] * r[hit])
    # Parallel pairs meet only when collinear and overlapping: project the second onto the first.
    col = parallel & (np.abs(vnum) <= _EPS * np.abs(sp).sum(axis=1) * np.abs(r).sum(axis=1))
    if col.any():
        rr = np.einsum("ij,ij->i", r[col], r[col])
        t0 = np.einsum("ij,ij->i", s[col] - p[col], r[col]) / rr
        t1 = np.einsum("ij,ij->i", s[col] + u[col] - p[col], r[col]) / rr
        lo = np.maximum(np.minimum(t0, t1), 0.0)
        hi = np.minimum(np.maximum(t0, t1), 1.0)
        ok = lo <= hi + 1e-12
        if ok.any():
            out.append(p[col][ok] + lo[ok, None] * r[col][ok])
    return np.concatenate(out) if out else np.zeros((0, 2))


def polygon_problems(ring) -> list[EditProblem]:
    """Why a drawn ring cannot bound a polygon: too few vertices, no area, or every spot where it crosses itself."""
    a = clean_ring(ring)
    msg = ring_problem(a)
    if msg is None:
        return []
    if "distinct" in msg or "zero area" in msg:
        return [EditProblem(msg, (float(a[:, 0].mean()), float(a[:, 1].mean())) if len(a) else None)]
    crossings = self_intersections(a)
    if len(crossings):
        return [EditProblem(f"self-intersecting at {fmt_point(c)}", (float(c[0]), float(c[1]))) for c in crossings]
    return [EditProblem(msg, (float(a[0, 0]), float(a[0, 1])))]


def point_problems(scene: Scene, points, labels: list[str]) -> list[EditProblem]:
    """Points ((n, 2), scene units) that lie outside the bounds or inside an obstacle that does not move (a moving
    one passes on); ``labels[k]`` names point k."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return []
    box = shapely.box(*scene.bounds)
    geoms = shapely.points(pts)
    outside = ~shapely.covered_by(geoms, box)
    still = [o for o in scene.obstacles if not o.moving]
    polys = outline_polygons(o.polygon for o in still)
    inside: dict[int, str] = {}
    if polys:
        tree = shapely.STRtree(polys)
        gi, oi = tree.query(geoms, predicate="within")
        for g, o in zip(gi.tolist(), oi.tolist()):
            inside.setdefault(g, f"obstacle {still[o].id!r}")
        # A point on the seam of overlapping obstacles is within none of them but inside their union.
        gi, oi = tree.query(geoms, predicate="intersects")
        touching: dict[int, list[int]] = {}
        for g, o in zip(gi.tolist(), oi.tolist()):
            if g not in inside:
                touching.setdefault(g, []).append(o)
        for g, os_ in touching.items():
            if len(os_) > 1 and shapely.within(geoms[g], shapely.union_all([polys[o] for o in os_])):
                inside[g] = "the obstacles " + ", ".join(repr(still[o].id) for o in sorted(os_))
    out = []
    for k in range(len(pts)):
        at = (float(pts[k, 0]), float(pts[k, 1]))
        if outside[k]:
            out.append(EditProblem(f"{labels[k]} at {fmt_point(at)} is outside the bounds", at))
        elif k in inside:
            out.append(EditProblem(f"{labels[k]} at {fmt_point(at)} is inside {inside[k]}", at))
    return out


def obstacle_problems(scene: Scene, ring) -> list[EditProblem]:
    """Problems of an obstacle with this outline in ``scene``: its shape, the bounds, and what it would cover.

    A route point, network node or agent end inside the obstacle makes the scene invalid, so each such point is
    a problem located at the point.
    """
    probs = polygon_problems(ring)
    if probs:
        return probs
    poly = Polygon(clean_ring(ring))
    if not poly.intersects(shapely.box(*scene.bounds)):
        return [EditProblem("the obstacle lies entirely outside the bounds", _centre(poly))]
    polys = outline_polygons(o.polygon for o in scene.obstacles)
    box = shapely.box(*scene.bounds)
    if sum(p.area for p in polys) + poly.area >= box.area * (1 - 1e-9):
        if box.difference(shapely.union_all([*polys, poly])).area <= 1e-12 * box.area:
            return [EditProblem("the obstacles would cover the whole bounds: no free space would be left",
                                _centre(poly))]
    pts, labels = _free_points(scene)
    if not pts:
        return []
    # Points the new obstacle covers, alone or together with the obstacles it overlaps (their seams).
    near = [polys[i] for i in shapely.STRtree(polys).query(poly, predicate="intersects")] if polys else []
    cover = shapely.union_all([poly, *near]) if near else poly
    arr = np.asarray(pts, dtype=np.float64)
    geoms = shapely.points(arr)
    inside = shapely.within(geoms, cover) & shapely.intersects(geoms, poly)
    return [
        EditProblem(f"{labels[k]} at {fmt_point(arr[k])} would be inside this obstacle",
                    (float(arr[k, 0]), float(arr[k, 1])))
        for k in np.nonzero(inside)[0]
    ]


def terrain_problems(scene: Scene, ring, holes=()) -> list[EditProblem]:
    """Problems of a terrain polygon with this outline in ``scene``: its shape, the bounds, and obstacles hiding it."""
    probs = polygon_problems(ring)
    for h in holes:
        probs += polygon_problems(h)
    if probs:
        return probs
    poly = Polygon(clean_ring(ring), [clean_ring(h) for h in holes])
    if not poly.is_valid:
        return [EditProblem(f"invalid polygon: {shapely.is_valid_reason(poly)}", _centre(poly))]
    box = shapely.box(*scene.bounds)
    if not poly.intersects(box):
        return [EditProblem("the terrain polygon lies entirely outside the bounds", _centre(poly))]
    polys = outline_polygons(o.polygon for o in scene.obstacles)
    if polys:
        tree = shapely.STRtree(polys)
        hits = tree.query(poly, predicate="intersects")
        if len(hits):
            visible = shapely.difference(shapely.intersection(poly, box), shapely.union_all([polys[i] for i in hits]))
            if visible.area <= 1e-9 * max(poly.area, 1e-300):
                names = ", ".join(repr(scene.obstacles[i].id) for i in sorted(hits.tolist())[:3])
                return [EditProblem(f"the terrain polygon lies inside obstacle {names}", _centre(poly))]
    return []


def route_problems(scene: Scene, points, name: str = "route") -> list[EditProblem]:
    """Problems of a route with these points: fewer than two distinct points, points outside free space."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(np.unique(pts, axis=0)) < 2:
        where = (float(pts[0, 0]), float(pts[0, 1])) if len(pts) else None
        return [EditProblem("a route needs at least 2 distinct points", where)]
    return point_problems(scene, pts, [f"{name} point {k}" for k in range(len(pts))])


def check_item(scene: Scene, kind: str, item_id: str) -> list[EditProblem]:
    """Problems of one item of ``scene`` (as it would be after an edit) named by kind and id."""
    it = find(scene, kind, item_id)
    if it is None:
        return []
    if kind == "obstacle":
        others = dataclasses.replace(scene, obstacles=[o for o in scene.obstacles if o.id != item_id])
        return obstacle_problems(others, it.polygon)
    if kind == "terrain":
        return terrain_problems(scene, it.polygon, it.holes)
    if kind == "route":
        return route_problems(scene, it.points, f"route {it.id!r}")
    if kind == "network":
        return point_problems(scene, it.nodes, [f"network {it.id!r} node {k}" for k in range(len(it.nodes))])
    if kind == "agent":
        ends = [(key, getattr(it, key)) for key in ("start", "goal") if getattr(it, key) is not None]
        probs = point_problems(scene, [p for _, p in ends], [f"agent {it.id!r} {key}" for key, _ in ends])
        if it.planner == "network" and not scene.networks:
            probs.append(EditProblem(f"agent {it.id!r} plans on a network, and the scene has none",
                                     ends[0][1] if ends else None))
        return probs
    return []


def check_items(scene: Scene, refs) -> list[EditProblem]:
    """Problems of several ``(kind, id)`` items of ``scene``, in order."""
    out: list[EditProblem] = []
    for kind, item_id in refs:
        out.extend(check_item(scene, kind, item_id))
    return out


def removal_problems(scene: Scene) -> list[EditProblem]:
    """Problems a removal can cause in what remains: agents planning on a network when none is left."""
    if scene.networks:
        return []
    return [
        EditProblem(f"agent {a.id!r} plans on a network: change its planner or remove it too", a.start)
        for a in scene.agents if a.planner == "network"
    ]


def _free_points(scene: Scene) -> tuple[list[tuple[float, float]], list[str]]:
    """Every point the scene requires to be in free space, with a label naming it."""
    pts: list[tuple[float, float]] = []
    labels: list[str] = []
    for r in scene.routes:
        for k, p in enumerate(r.points):
            pts.append(p)
            labels.append(f"route {r.id!r} point {k}")
    for n in scene.networks:
        for k, p in enumerate(n.nodes):
            pts.append(p)
            labels.append(f"network {n.id!r} node {k}")
    for a in scene.agents:
        for key in ("start", "goal"):
            p = getattr(a, key)
            if p is not None:
                pts.append(p)
                labels.append(f"agent {a.id!r} {key}")
    return pts, labels


def _centre(poly) -> tuple[float, float]:
    c = poly.representative_point() if not poly.is_empty else None
    return (float(c.x), float(c.y)) if c is not None else (0.0, 0.0)


__all__ = [
    "EditProblem", "check_item", "check_items", "obstacle_problems", "point_problems", "polygon_problems",
    "removal_problems", "route_problems", "self_intersections", "terrain_problems",
]
