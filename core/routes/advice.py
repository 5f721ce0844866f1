"""What ``miran validate`` says about a valid scene's routes and agents beyond the file format's rules.

- Warnings: a sketched route that crosses an obstacle, or passes closer than the radius of a character that follows
  it, is allowed by the format, but the character cannot walk that piece as drawn: it walks a detour there
  (``core.routes.repair``). Each such piece is named with its end points.
- Errors: where the scene's method moves discs (disc MIRAN, IRM), a disc must fit where its agent starts and where
  it ends: a start closer than the radius to an obstacle or the bounds would overlap it, and a goal that close
  cannot be reached. ``core.sim.Simulation`` refuses the same agents before a run.
"""

from __future__ import annotations

import numpy as np

from core.scene.model import Scene
from core.scene.problems import Problem, fmt_point

from .plan import PlannerContext
from .repair import route_problems

# Steering methods whose characters are discs.
DISC_METHODS = ("disc-miran", "irm")


def route_warnings(scene: Scene, ctx: PlannerContext | None = None) -> list[Problem]:
    """One warning per piece of a sketched route that crosses an obstacle, or passes closer than the largest
    radius of the characters that follow it (routes nobody follows: only crossings)."""
    ctx = ctx if ctx is not None else PlannerContext(scene)
    followers: dict[str, list[str]] = {}
    for a in scene.agents:
        if a.route is not None:
            followers.setdefault(a.route, []).append(a.id)
    radius = {p.id: p.radius for p in scene.profiles}
    by_id = {a.id: a for a in scene.agents}
    out = []
    for j, r in enumerate(scene.routes):
        who = followers.get(r.id, [])
        c = max((radius.get(by_id[aid].profile, 0.0) for aid in who), default=0.0)
        for piece in route_problems(ctx, r.points, c):
            by = f" (followed by {', '.join(who)})" if who else ""
            out.append(Problem(f"routes[{j}].points", f"the route {piece.describe(c)}{by}: a character walks a "
                                                      f"detour there"))
    return out


def disc_fit_errors(scene: Scene, ctx: PlannerContext | None = None, method: str | None = None) -> list[Problem]:
    """Where ``method`` (default: the scene's) moves discs: one error per agent end a disc of its profile's
    radius does not fit at."""
    if (method or scene.simulation.method) not in DISC_METHODS or not scene.agents:
        return []
    ctx = ctx if ctx is not None else PlannerContext(scene)
    radius = {p.id: p.radius for p in scene.profiles}
    ends, names, radii = [], [], []
    for k, a in enumerate(scene.agents):
        pairs: tuple[tuple[str, tuple[float, float] | None], ...]
        if a.route is not None:
            pts = scene.route(a.route).points
            pairs = ((f"agents[{k}] (route {a.route!r} start)", pts[0]), (f"agents[{k}] (route {a.route!r} goal)",
                                                                          pts[-1]))
        else:
            pairs = ((f"agents[{k}].start", a.start), (f"agents[{k}].goal", a.goal))
        for name, p in pairs:
            ends.append(p)
            names.append(name)
            radii.append(radius.get(a.profile, 0.0))
    dist = ctx.free(0.0).point_clearance(np.asarray(ends, dtype=np.float64))
    out = []
    for name, p, d, r in zip(names, ends, dist, radii):
        if r > 0 and d < r * (1.0 - 1e-9):
            what = "would overlap an obstacle or the bounds" if "start" in name else "cannot reach it"
            out.append(Problem(name, f"{fmt_point(p)} is {d:.3g} from an obstacle or the bounds: a disc of radius "
                                     f"{r:g} {what}"))
    return out
