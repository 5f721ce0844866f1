"""Polygon checks shared by the scene validator and the editor: distinct vertices, area, self-intersection."""

from __future__ import annotations

import re

import numpy as np
import shapely
from shapely.geometry import Polygon

from .problems import fmt_point

_REASON = re.compile(r"^(?P<what>[^\[]+)\[(?P<x>\S+) (?P<y>\S+)\]")


def clean_ring(points) -> np.ndarray:
    """The ring's vertices as an (n, 2) array without consecutive duplicates or a repeated closing vertex."""
    a = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(a) == 0:
        return a
    keep = np.ones(len(a), dtype=bool)
    keep[1:] = np.any(a[1:] != a[:-1], axis=1)
    a = a[keep]
    if len(a) > 1 and np.all(a[0] == a[-1]):
        a = a[:-1]
    return a


def outline_polygons(outlines) -> list[Polygon]:
    """Shapely polygons of many outlines (lists of points) made in one call: each covers what
    ``Polygon(clean_ring(outline))`` covers (repeated vertices are kept, which changes no area or predicate): the
    editor checks an edit against all the scene's obstacles on the window's thread. An outline of fewer than 3
    points makes them one at a time, as before (and fails as before)."""
    rings = [np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in outlines]
    if not rings:
        return []
    try:
        ids = np.repeat(np.arange(len(rings)), [len(r) for r in rings])
        return list(shapely.polygons(shapely.linearrings(np.concatenate(rings), indices=ids)))
    except (shapely.errors.GEOSException, ValueError):
        return [Polygon(clean_ring(r)) for r in rings]


def signed_area(ring: np.ndarray) -> float:
    """Shoelace area, positive for counter-clockwise rings."""
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def is_convex(points) -> bool:
    """Whether a simple ring is convex: every turn has the same sign (collinear vertices allowed)."""
    ring = clean_ring(points)
    d = np.roll(ring, -1, axis=0) - ring
    cross = d[:, 0] * np.roll(d[:, 1], -1) - d[:, 1] * np.roll(d[:, 0], -1)
    scale = np.abs(d).max() ** 2 if len(d) else 0.0
    tol = 1e-12 * scale
    return bool(np.all(cross >= -tol) or np.all(cross <= tol))


def ring_problem(points) -> str | None:
    """Why a ring cannot bound a polygon (too few vertices, zero area, self-intersection), or None."""
    ring = clean_ring(points)
    if len(np.unique(ring, axis=0)) < 3:
        return f"a polygon needs at least 3 distinct vertices, got {len(np.unique(ring, axis=0))}"
    centred = ring - ring.mean(axis=0)
    sv = np.linalg.svd(centred, compute_uv=False)
    # Collinear up to the rounding of the coordinates themselves (a long thin wall is not collinear; whether it
    # is too thin for the scene's size is placement.check_placement's question).
    if sv[1] <= 64.0 * np.finfo(np.float64).eps * max(1.0, float(np.abs(ring).max())) * np.sqrt(len(ring)):
        return "polygon has zero area (its vertices are collinear)"
    reason = shapely.is_valid_reason(Polygon(ring))
    if reason != "Valid Geometry":
        return describe_reason(reason)
    return None


def thickness(points) -> float:
    """About how thick a ring is: twice its area over its perimeter (the width of a long thin rectangle)."""
    ring = clean_ring(points)
    closed = np.vstack([ring, ring[:1]])
    perimeter = float(np.sum(np.hypot(*np.diff(closed, axis=0).T)))
    return 2.0 * abs(signed_area(ring)) / perimeter if perimeter > 0 else 0.0


def polygon_problem(shell, holes=()) -> tuple[str, str] | None:
    """Why a polygon with holes is invalid as ``(which ring, message)``, or None. ``which`` is '', 'holes[i]' or
    'holes' (see hole_problems); the first problem only."""
    msg = ring_problem(shell)
    if msg:
        return "", msg
    for i, h in enumerate(holes):
        msg = ring_problem(h)
        if msg:
            return f"holes[{i}]", msg
    problems = hole_problems(shell, holes) if len(holes) else []
    return problems[0] if problems else None


def hole_problems(shell, holes) -> list[tuple[str, str]]:
    """What is wrong with the holes of a polygon whose rings are each simple, as ``(which, message)`` pairs.

    ``which`` is ``holes[i]`` for a hole outside or across the shell or overlapping an earlier hole, or ``holes``
    for what only the whole polygon shows (holes that cut the interior apart). Empty when the polygon is valid.
    """
    outer = Polygon(clean_ring(shell))
    hp = [Polygon(clean_ring(h)) for h in holes]
    out: list[tuple[str, str]] = []
    for i, h in enumerate(hp):
        if not outer.covers(h):
            if not outer.intersects(h) or outer.intersection(h).area == 0.0:
                out.append((f"holes[{i}]", f"lies outside its polygon (near {fmt_point(h.exterior.coords[0])})"))
            else:
                at = shapely.intersection(h.exterior, outer.exterior)
                first = shapely.get_coordinates(at)[0] if not at.is_empty else h.exterior.coords[0]
                where = fmt_point(first)
                out.append((f"holes[{i}]", f"crosses the boundary of its polygon at {where}"))
            continue
        for j in range(i):
            inter = shapely.intersection(h, hp[j])
            if inter.area > 0.0:
                at = fmt_point(inter.representative_point().coords[0])
                out.append((f"holes[{i}]", f"overlaps holes[{j}] at {at}"))
                break
    if not out:
        reason = shapely.is_valid_reason(Polygon(outer.exterior.coords, [p.exterior.coords for p in hp]))
        if reason != "Valid Geometry":
            out.append(("holes", describe_reason(reason)))
    return out


def describe_reason(reason: str) -> str:
    """GEOS's validity reason as a plain sentence with the location as (x, y)."""
    m = _REASON.match(reason)
    if not m:
        return f"invalid polygon: {reason}"
    what = m.group("what").strip().lower()
    at = fmt_point((float(m.group("x")), float(m.group("y"))))
    if "self-intersection" in what:
        return f"self-intersecting at {at}"
    if "hole lies outside shell" in what:
        return f"a hole lies outside its polygon at {at}"
    if "nested holes" in what:
        return f"holes are nested at {at}"
    if "interior is disconnected" in what:
        return f"holes cut the polygon's interior apart at {at}"
    return f"invalid polygon ({what}) at {at}"
