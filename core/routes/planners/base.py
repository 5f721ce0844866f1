"""What every planner shares: the leg it returns and the joining of a query point to an eroded free space."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..freespace import FreeSpace


@dataclass(frozen=True)
class Leg:
    """A planner's answer at one clearance level: (k, 2) float64 route points, the planner's cost of them, and
    the optimum its search found (None: the same as ``cost``)."""

    points: np.ndarray
    cost: float
    search_cost: float | None = None


def join_point(ctx, free_c: FreeSpace, p: np.ndarray) -> np.ndarray | None:
    """Where the query point p enters the eroded free space ``free_c``: p itself when inside, else the nearest
    point of ``free_c`` if the straight segment to it stays in the scene's free space; None otherwise."""
    if free_c.clearance == 0.0 or free_c.contains(p)[0]:
        return np.asarray(p, dtype=np.float64)
    q = free_c.nearest_inside(p)
    if q is None or not ctx.visible(p, q)[0]:
        return None
    return q
