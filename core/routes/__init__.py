"""Indicative routes: the Route type, packed routes for the steering kernels, and the five planners.

```python
from core.routes import Route, PackedRoutes, plan_route, PlanResult, PlannerContext
```
"""

from .packed import PackedRoutes
from .plan import PlannerContext, PlanResult, clearance_levels, plan_route
from .route import Route

__all__ = ["PackedRoutes", "PlanResult", "PlannerContext", "Route", "clearance_levels", "plan_route"]
