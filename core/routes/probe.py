"""Route probes, as RecastDemo's test tool: plan one route for a start, a goal and a profile exactly as the
simulation plans a scene agent's route (``plan_route`` keeping the profile's radius as clearance), and report its
cost and narrowest clearance, or why there is none; and the free space shrunk by a radius, as rings to draw.

```python
ctx = PlannerContext(scene)
probe = probe_route(ctx, (4, 100), (155, 6), "cdt", "pedestrian")
probe.points, probe.cost, probe.narrowest, probe.error
rings = shrunk_free_space(ctx, 0.3)        # list of (m, 2) closed rings (exteriors and holes)
```
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.scene import InputError

from .freespace import polygon_parts
from .plan import PlannerContext, plan_route


@dataclass(frozen=True, eq=False)
class RouteProbe:
    """One probed route: ``points`` (m, 2) (empty when none), the planner's ``cost`` (plan.PlanResult), its
    ``length``, ``narrowest`` distance to an obstacle or the bounds at ``narrowest_at``, the ``clearance`` asked
    for (the profile's radius) and whether the route keeps it; ``error``: why no route was found, else None."""

    start: tuple[float, float]
    goal: tuple[float, float]
    planner: str
    profile: str | None
    clearance: float
    points: np.ndarray
    cost: float = float("nan")
    length: float = float("nan")
    narrowest: float = float("nan")
    narrowest_at: tuple[float, float] | None = None
    clearance_ok: bool = False
    error: str | None = None


def probe_route(ctx: PlannerContext, start, goal, planner: str, profile: str | None) -> RouteProbe:
    """Plan start -> goal with ``planner`` for ``profile`` keeping its radius, as the simulation plans a scene
    agent (``Simulation.add_scene_agents``); a refused query becomes a probe with its ``error`` text instead of an
    exception, so a live preview can show why."""
    s = (float(start[0]), float(start[1]))
    g = (float(goal[0]), float(goal[1]))
    scene = ctx.scene
    radius = scene.profile(profile).radius if profile in {p.id for p in scene.profiles} else 0.0
    empty = np.zeros((0, 2))
    try:
        res = plan_route(scene, s, g, planner, profile=profile, clearance=radius, context=ctx)
    except InputError as e:
        text = "; ".join(str(p) for p in e.problems[:2])
        return RouteProbe(s, g, planner, profile, radius, empty, error=text or "no route")
    return RouteProbe(s, g, planner, res.profile, radius, np.array(res.route.points, dtype=np.float64),
                      res.cost, float(res.route.length), res.narrowest, res.narrowest_at, res.clearance_ok)


def shrunk_free_space(ctx: PlannerContext, radius: float) -> list[np.ndarray]:
    """The closed rings (exteriors and holes, each (m, 2) float64) of the free space eroded by ``radius``: where
    the centre of a disc of that radius may stand (the same eroded space ``plan_route`` plans in)."""
    free = ctx.free(max(0.0, float(radius))).free
    rings = []
    for poly in polygon_parts(free):
        for ring in (poly.exterior, *poly.interiors):
            c = np.asarray(ring.coords, dtype=np.float64)
            if len(c) >= 4:
                rings.append(c)
    return rings
