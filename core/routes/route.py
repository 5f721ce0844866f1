"""The Route type: a polyline with cumulative arc length, shared by sketched and planned indicative routes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.float64)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Route:
    """An indicative route (MIRAN section 2, IRM section 2): a polyline from start to goal.

    - ``points``: (n, 2) float64 vertices in scene units, n >= 2, consecutive vertices at positive distance.
    - ``s``: (n,) float64 cumulative arc length of each vertex, ``s[0] == 0`` and ``s[-1] == length``.

    Both arrays are read-only. Build one with ``Route.from_points``; scene routes come from ``Route.from_scene``.
    """

    points: np.ndarray
    s: np.ndarray

    def __post_init__(self) -> None:
        pts = _readonly(self.points)
        s = _readonly(self.s)
        if pts.ndim != 2 or pts.shape[1] != 2 or pts.shape[0] < 2:
            raise ValueError(f"a route needs an (n, 2) array of n >= 2 points, got shape {pts.shape}")
        if s.shape != (pts.shape[0],):
            raise ValueError(f"arc lengths of shape {s.shape} do not match {pts.shape[0]} points")
        object.__setattr__(self, "points", pts)
        object.__setattr__(self, "s", s)

    @classmethod
    def from_points(cls, pts) -> "Route":
        """A route through ``pts`` ((n, 2) array-like); consecutive duplicates are dropped.

        Raises ValueError when fewer than two distinct points remain or a coordinate is not finite.
        """
        # Always a writable C array: a read-only one (another Route's points) made numba compile clean_polyline a
        # second time, for the read-only array type.
        p = np.require(np.asarray(pts, dtype=np.float64).reshape(-1, 2), requirements=["C", "W"])
        p, s, finite = kernels.clean_polyline(p)
        if not finite:
            raise ValueError("route points must be finite numbers")
        if len(p) < 2:
            raise ValueError("a route needs at least 2 distinct points")
        return cls(p, s)

    @classmethod
    def from_scene(cls, scene, route_id: str) -> "Route":
        """The sketched route ``route_id`` of a scene as a Route."""
        return cls.from_points(scene.route(route_id).points)

    @property
    def length(self) -> float:
        """Total arc length in scene units."""
        return float(self.s[-1])

    @property
    def start(self) -> np.ndarray:
        """(2,) first point."""
        return self.points[0]

    @property
    def goal(self) -> np.ndarray:
        """(2,) last point."""
        return self.points[-1]

    def __len__(self) -> int:
        return len(self.points)

    def point_at(self, t):
        """The point at arc length ``t`` (clamped to [0, length]): (2,) for a scalar, (k, 2) for a (k,) array."""
        ta = np.asarray(t, dtype=np.float64)
        flat = np.clip(ta.reshape(-1), 0.0, self.length)
        j = np.clip(np.searchsorted(self.s, flat, side="right") - 1, 0, len(self.s) - 2)
        seg = self.s[j + 1] - self.s[j]
        u = np.where(seg > 0, (flat - self.s[j]) / np.where(seg > 0, seg, 1.0), 0.0)
        out = self.points[j] + u[:, None] * (self.points[j + 1] - self.points[j])
        return out[0] if ta.ndim == 0 else out.reshape(ta.shape + (2,))

    def closest_point(self, x, s0: float = 0.0, s1: float | None = None) -> float:
        """Arc length of the FIRST closest point of the route to ``x`` within [s0, s1] (MIRAN section 3.1)."""
        xa = np.asarray(x, dtype=np.float64).reshape(2)
        hi = self.length if s1 is None else float(s1)
        return float(kernels.closest_point(self.points, self.s, 0, len(self.s), xa, float(s0), hi))

    def sub(self, s0: float, s1: float) -> "Route":
        """The part of the route between arc lengths s0 < s1 (clamped to the route), as a new Route."""
        a = max(0.0, float(s0))
        b = min(self.length, float(s1))
        if not b > a:
            raise ValueError(f"empty sub-route [{s0}, {s1}] of a route of length {self.length}")
        inner = self.points[(self.s > a) & (self.s < b)]
        return Route.from_points(np.vstack([self.point_at(a)[None], inner, self.point_at(b)[None]]))

    def segments(self) -> np.ndarray:
        """(n - 1, 4) float64 segments [x0, y0, x1, y1]."""
        return np.hstack([self.points[:-1], self.points[1:]])

    def to_list(self) -> list[list[float]]:
        """Points as a JSON-ready list of [x, y]."""
        return self.points.tolist()

    def __repr__(self) -> str:
        return f"Route({len(self.points)} points, length {self.length:.6g})"
