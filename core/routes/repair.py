"""Sketched routes made walkable: detours around the pieces that cross an obstacle or pass closer than a clearance.

The scene format lets a designer sketch a route straight through a building, or along a wall closer than a
character's radius. A character cannot walk such a piece, and MIRAN's route window never sees past it (MIRAN 3.5:
the character would be lost there). ``repair_route`` does MIRAN 3.5's replanning once, before the character
walks: every such piece is replaced by a route planned from where the sketch enters it to where it leaves it, with
the same planner's clearance, so the character follows the sketch up to the piece, goes round, and rejoins the
sketch after it. ``route_problems`` finds the same pieces for the validator's warnings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

from core.scene.problems import InputError, Problem, fmt_point

from .plan import PlannerContext, plan_route
from .route import Route

# Pieces shorter than this fraction of the scene's size are round-off at a tangent, not a crossing.
PIECE_RTOL = 1e-9


@dataclass(frozen=True)
class Piece:
    """A stretch [s0, s1] (arc lengths) of a route that enters an obstacle (``blocked``) or passes closer than
    the clearance to one, its end points ``p0`` and ``p1``, and its smallest distance to an obstacle or the
    bounds (``narrowest``, 0 when blocked)."""

    s0: float
    s1: float
    p0: tuple[float, float]
    p1: tuple[float, float]
    narrowest: float
    blocked: bool

    def describe(self, clearance: float) -> str:
        """One line for a message: where the piece is and what is wrong with it."""
        where = f"between {fmt_point(self.p0)} and {fmt_point(self.p1)}"
        if self.blocked:
            return f"crosses an obstacle {where}"
        return f"passes {self.narrowest:.3g} from an obstacle {where}, closer than the clearance {clearance:g}"


def route_problems(ctx: PlannerContext, points, clearance: float) -> list[Piece]:
    """The pieces of the polyline ``points`` (m, 2) that leave the free space eroded by ``clearance`` (or, for
    clearance 0, the free space itself), in route order, each measured exactly."""
    route = Route.from_points(np.asarray(points, dtype=np.float64))
    p = route.points
    c = float(clearance)
    free = ctx.free(c)
    inside = ctx.visible(p[:-1], p[1:]) if c == 0.0 else free.visible(p[:-1], p[1:])
    if np.all(inside):
        return []
    scale = max(1.0, float(np.max(np.abs(p))))
    tol = PIECE_RTOL * scale
    intervals: list[list[float]] = []
    for k in np.nonzero(~inside)[0].tolist():
        a, b = p[k], p[k + 1]
        seg = shapely.LineString([a, b])
        length = float(route.s[k + 1] - route.s[k])
        if length <= 0.0:
            continue
        outside = shapely.difference(seg, free.free) if not free.empty else seg
        for part in _line_parts(outside):
            ends = np.asarray(part.coords, dtype=np.float64)
            t = np.clip((ends - a) @ (b - a) / (length * length), 0.0, 1.0)
            lo, hi = float(route.s[k] + t.min() * length), float(route.s[k] + t.max() * length)
            if intervals and lo <= intervals[-1][1] + tol:
                intervals[-1][1] = max(intervals[-1][1], hi)
            else:
                intervals.append([lo, hi])
    pieces = []
    for lo, hi in intervals:
        sub = _sub_polyline(route, lo, hi)
        narrow = ctx.narrowest(sub)
        if narrow >= c - tol and (c > 0.0 or bool(np.all(ctx.visible(sub[:-1], sub[1:])))):
            continue  # round-off of the eroded outline: the piece keeps the clearance
        blocked = not bool(np.all(ctx.visible(sub[:-1], sub[1:])))
        pieces.append(Piece(lo, hi, (float(sub[0, 0]), float(sub[0, 1])), (float(sub[-1, 0]), float(sub[-1, 1])),
                            0.0 if blocked else float(narrow), blocked))
    return pieces


def repair_route(ctx: PlannerContext, route: Route, clearance: float, planner: str = "cdt",
                 profile: str | None = None) -> tuple[Route, list[Piece]]:
    """``route`` with every piece of ``route_problems`` replaced by a detour planned with ``planner`` and
    ``clearance`` (the profile's terrain weights); returns the new route and the pieces it replaced. InputError
    names a piece that no detour can replace."""
    pieces = route_problems(ctx, route.points, clearance)
    if not pieces:
        return route, []
    out: list[np.ndarray] = []
    done = 0.0
    for piece in pieces:
        out.append(_sub_polyline(route, done, piece.s0))
        p0, p1 = np.array(piece.p0), np.array(piece.p1)
        if np.hypot(*(p1 - p0)) > PIECE_RTOL * max(1.0, float(np.max(np.abs(route.points)))):
            try:
                detour = plan_route(ctx.scene, p0, p1, planner, profile=profile, clearance=clearance, context=ctx)
            except InputError as e:
                why = "; ".join(pr.message for pr in e.problems)
                raise InputError([Problem("points", f"the route {piece.describe(clearance)}, and no detour "
                                                    f"around it keeps a clearance of {clearance:g}: {why}")]) from None
            out.append(detour.route.points)
        done = piece.s1
    out.append(_sub_polyline(route, done, route.length))
    pts = np.vstack(out)
    keep = np.ones(len(pts), dtype=bool)
    keep[1:] = np.any(pts[1:] != pts[:-1], axis=1)
    return Route.from_points(pts[keep]), pieces


def _line_parts(g) -> list:
    """The LineStrings of a (multi)line or mixed geometry."""
    if g.is_empty:
        return []
    if isinstance(g, shapely.LineString):
        return [g]
    return [q for sub in getattr(g, "geoms", []) for q in _line_parts(sub)]


def _sub_polyline(route: Route, s0: float, s1: float) -> np.ndarray:
    """(m, 2) the route's points from arc length s0 to s1, both ends included."""
    inner = route.points[(route.s > s0) & (route.s < s1)]
    return np.vstack([route.point_at(s0), inner, route.point_at(s1)])
