"""Indicative routes: the Route type, packed routes for the steering kernels, and the five planners.

```python
from core.routes import Route, PackedRoutes, plan_route, PlanResult, PlannerContext
ctx = PlannerContext(scene)                       # builds each planner's structure once, on first use
res = plan_route(scene, (4, 100), (155, 6), "cdt", profile="pedestrian", clearance=0.5, context=ctx)
res.route.points, res.cost, res.clearance_ok, res.narrowest
```

- ``Route`` (route.py): a polyline with cumulative arc length; ``point_at``, the first closest point in an arc-length
  window (MIRAN 3.1), ``sub``; sketched scene routes (``Route.from_scene``) and planned ones are the same type.
- ``PackedRoutes`` (packed.py) and kernels.py: many routes as points + offsets + arc lengths, read by numba code.
- Planners (planners/): ``grid`` (A* on a weighted 8-connected grid, MIRAN 4), ``cdt`` (A* on the weighted dual
  graph of a quality constrained triangulation, MIRAN 4 / Figure 6), ``ecm`` (core.ecm's shortest
  minimum-clearance path, Geraerts 2010), ``portal`` (Niederberger et al. 2004: moving nodes on the portals of
  trapezoids merged after Hertel-Mehlhorn, lazy/greedy placement, cone of sight) and ``network`` (an indicative
  network, IRM 5). ``grid``, ``cdt`` and ``network`` weigh terrain with the profile; ``portal`` and ``ecm`` do not.
- Clearance (plan.py): a planner plans in the free space eroded by C; where no route keeps C the query fails naming
  the narrowest spot, unless ``min_clearance`` accepts less (then C/2 and 0 are tried down to it);
  ``clearance_ok``, ``narrowest`` and ``narrowest_at`` (exact, on the returned polyline) say what the route keeps.
  Obstacles and the bounds both count.
- repair.py: ``repair_route`` replaces the pieces of a sketched route that cross an obstacle or pass closer than
  a clearance with planned detours (MIRAN 3.5's replanning, done before the character walks);
  ``route_problems`` lists those pieces (the validator's warnings).
- Unreachable goals, points outside the free space, unknown planners or profiles raise
  ``core.scene.problems.InputError`` with a message naming the problem.
- io.py: the ``miran-route`` file written by ``miran route --out``; reference.py: the exact shortest path
  (visibility graph) the tests and ``miran bench`` compare with.
"""

from .packed import PackedRoutes
from .plan import PlannerContext, PlanResult, clearance_levels, plan_route
from .repair import Piece, repair_route, route_problems
from .route import Route

__all__ = ["PackedRoutes", "Piece", "PlanResult", "PlannerContext", "Route", "clearance_levels", "plan_route",
           "repair_route", "route_problems"]
