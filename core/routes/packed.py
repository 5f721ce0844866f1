"""All routes of a simulation in one set of flat arrays, the form the numba steering kernels read."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .route import Route


@dataclass(frozen=True, eq=False)
class PackedRoutes:
    """Many routes as coordinates plus offsets (the shapely ragged-array layout).

    - ``points``: (N, 2) float64, every route's vertices one after the other (scene units).
    - ``s``: (N,) float64 cumulative arc length within each route (0 at each route's first vertex).
    - ``offsets``: (R + 1,) int64; route r is ``points[offsets[r]:offsets[r + 1]]``.
    - ``lengths``: (R,) float64 total length of each route.
    """

    points: np.ndarray
    s: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray

    @classmethod
    def pack(cls, routes: list[Route]) -> "PackedRoutes":
        """Pack a list of routes (may be empty) into flat arrays."""
        counts = np.array([len(r.points) for r in routes], dtype=np.int64)
        offsets = np.zeros(len(routes) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        if routes:
            points = np.ascontiguousarray(np.vstack([r.points for r in routes]), dtype=np.float64)
            s = np.ascontiguousarray(np.concatenate([r.s for r in routes]), dtype=np.float64)
        else:
            points = np.zeros((0, 2), dtype=np.float64)
            s = np.zeros(0, dtype=np.float64)
        lengths = np.array([r.length for r in routes], dtype=np.float64)
        return cls(points, s, offsets, lengths)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def route(self, r: int) -> Route:
        """Route r unpacked as a Route (arrays are copies)."""
        a, b = int(self.offsets[r]), int(self.offsets[r + 1])
        return Route(self.points[a:b].copy(), self.s[a:b].copy())

    def unpack(self) -> list[Route]:
        """Every route, in order."""
        return [self.route(r) for r in range(len(self))]
