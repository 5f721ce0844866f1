"""Random agents for "Add N agents": start and goal drawn uniformly in the free space, routes planned by core.

The sampling only picks points; the free-space test and the route planning are the engine's
(``PlannerContext.contains`` and ``core.routes.plan_route``). Pairs closer than a tenth of the scene's size are
drawn again, so every agent has somewhere to walk.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from core.navmesh import BuildCancelled
from core.routes import PlannerContext, Route, plan_route
from core.scene.model import DEFAULT_PLANNER, Scene
from core.scene.problems import InputError, Problem


def random_routes(ctx: PlannerContext, scene: Scene, n: int, seed: int, profile: str | None = None,
                  progress: Callable[[float, str], bool] | None = None,
                  planner: str = DEFAULT_PLANNER) -> tuple[list[Route], list[str]]:
    """n routes between random free points and the profile of each agent (``profile``, or the scene's profiles
    in turn); deterministic for a seed. InputError when the scene has no profile or no room."""
    if not scene.profiles:
        raise InputError([Problem("profiles", "the scene has no profile for new agents")])
    if profile is not None and profile not in {p.id for p in scene.profiles}:
        raise InputError([Problem("profile", f"unknown profile {profile!r}")])
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = scene.bounds
    min_gap = 0.1 * float(np.hypot(x1 - x0, y1 - y0))
    routes: list[Route] = []
    tries = 0
    while len(routes) < n and tries < 20 * n + 100:
        tries += 1
        p = rng.uniform([x0, y0], [x1, y1], size=(64, 2))
        p = p[ctx.contains(p)]
        for s, g in zip(p[0::2], p[1::2]):
            if len(routes) == n:
                break
            if np.hypot(*(g - s)) < min_gap:
                continue
            try:
                routes.append(plan_route(scene, s, g, planner, context=ctx).route)
            except InputError:
                continue  # start and goal in different pieces of the free space
            if progress is not None and progress(len(routes) / n, f"{len(routes)} of {n}") is False:
                raise BuildCancelled("agents")
    if len(routes) < n:
        raise InputError([Problem("agents", f"could only place {len(routes)} of {n} agents in the free space")])
    ids = [p.id for p in scene.profiles]
    profiles = [profile] * n if profile is not None else [ids[k % len(ids)] for k in range(n)]
    return routes, profiles
