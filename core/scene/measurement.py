"""The scene's optional measurement area and line: their rules, shared by the file reader and the editor.

The area is a polygon (the ring rules of obstacles: at least 3 distinct vertices, non-zero area, no
self-intersection) lying within the bounds; the line has two distinct points within the bounds. Both may cross
obstacles: PedPy measures in the walkable part of the area, and counts crossings wherever the agents cross.
"""

from __future__ import annotations

from .model import Measurement, Point
from .polygons import ring_problem
from .problems import fmt_point

Bounds = tuple[float, float, float, float]


def _outside(p: Point, bounds: Bounds) -> bool:
    x0, y0, x1, y1 = bounds
    return not (x0 <= p[0] <= x1 and y0 <= p[1] <= y1)


def _bounds_text(bounds: Bounds) -> str:
    return f"[{bounds[0]:g}, {bounds[1]:g}, {bounds[2]:g}, {bounds[3]:g}]"


def area_problem(ring: list[Point], bounds: Bounds | None) -> str | None:
    """Why ``ring`` cannot be the measurement area (it breaks the ring rules or a vertex is outside the bounds), or
    None. The bounds are convex, so a ring whose vertices are within them lies within them."""
    msg = ring_problem(ring)
    if msg:
        return msg
    if bounds is not None:
        for k, p in enumerate(ring):
            if _outside(p, bounds):
                return f"vertex {k} {fmt_point(p)} is outside the bounds {_bounds_text(bounds)}"
    return None


def line_problem(line: list[Point], bounds: Bounds | None) -> str | None:
    """Why ``line`` cannot be the measurement line (not two distinct points, or one outside the bounds), or
    None."""
    if len(line) != 2:
        return f"expected 2 points (the line's ends), got {len(line)}"
    if line[0] == line[1]:
        return f"the two ends are the same point {fmt_point(line[0])}"
    if bounds is not None:
        for k, p in enumerate(line):
            if _outside(p, bounds):
                return f"end {k} {fmt_point(p)} is outside the bounds {_bounds_text(bounds)}"
    return None


def measurement_problems(m: Measurement, bounds: Bounds | None) -> list[tuple[str, str]]:
    """(field, why) for each part of ``m`` that breaks its rules: ``area`` or ``line``."""
    out = []
    if m.area is not None and (msg := area_problem(m.area, bounds)):
        out.append(("area", msg))
    if m.line is not None and (msg := line_problem(m.line, bounds)):
        out.append(("line", msg))
    return out
