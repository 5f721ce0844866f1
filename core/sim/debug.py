"""Plain arrays for drawing a step's trace (MIRAN 3.1-3.3 made visible); the app draws them, nothing here draws.

```python
tr = sim.step(trace=[i])[0]
lines = route_pieces(sim.route_of(i), tr.intervals)     # the visible parts of the route window
```
"""

from __future__ import annotations

import numpy as np

from core.routes.route import Route


def route_pieces(route: Route, intervals: np.ndarray) -> np.ndarray:
    """The parts of ``route`` between arc lengths ``intervals`` ((k, 2) float64 rows [a, b], scene units) as
    polylines in one (m, 2) float64 array, a NaN row after each piece (``connect="finite"``).

    A degenerate interval (a == b, a single visible route point) gives that point twice, so it stays visible.

    >>> r = Route.from_points([[0, 0], [10, 0], [10, 10]])
    >>> route_pieces(r, np.array([[5.0, 15.0]])).tolist()[:3]
    [[5.0, 0.0], [10.0, 0.0], [10.0, 5.0]]
    >>> route_pieces(r, np.zeros((0, 2))).shape
    (0, 2)
    """
    iv = np.asarray(intervals, dtype=np.float64).reshape(-1, 2)
    parts = []
    for a, b in iv.tolist():
        lo, hi = max(0.0, min(a, b)), min(route.length, max(a, b))
        if hi > lo:
            parts.append(route.sub(lo, hi).points)
        else:
            parts.append(np.repeat(route.point_at(lo)[None], 2, axis=0))
        parts.append(np.full((1, 2), np.nan))
    return np.vstack(parts) if parts else np.zeros((0, 2), dtype=np.float64)


__all__ = ["route_pieces"]
