"""Which kept random agents' routes an edit of the scene has blocked: the random agents of a run are kept over a
Reset with the routes planned for them, and a route drawn over since (its goal now inside an obstacle, or a piece
crossing one) is no route the engine can walk (it stopped the run's preview with a division by zero)."""

from __future__ import annotations

import numpy as np

from core.navmesh.queries import locate, segment_visible


def blocked_routes(mesh, routes) -> dict[int, str]:
    """{index: why} of the routes whose goal lies outside the free space of ``mesh`` or whose pieces leave it; a
    route whose start is covered is left to the engine, which names that."""
    out: dict[int, str] = {}
    for k, r in enumerate(routes):
        pts = np.asarray(r.points, dtype=np.float64)
        if locate(mesh, pts[:1])[0] < 0:
            continue
        if locate(mesh, pts[-1:])[0] < 0:
            out[k] = f"its goal ({pts[-1, 0]:.6g}, {pts[-1, 1]:.6g}) is not in the free space any more"
        elif not bool(segment_visible(mesh, pts[:-1], pts[1:]).all()):
            out[k] = "its route crosses an obstacle drawn since it was planned"
    return out
