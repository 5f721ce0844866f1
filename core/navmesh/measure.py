"""Exact measures of a walked polyline: length per terrain type, weighted lengths, collision and clearance."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .kernels import clearance as kc
from .kernels import disc as kd
from .kernels import segments as ks
from .mesh import NavMesh


@dataclass(frozen=True)
class PolylineMeasure:
    """What ``miran measure`` reports for one polyline (scene units).

    - ``length``: Euclidean length; ``terrain_lengths`` (n_types,) float64: length on each terrain type (MIRAN
      3.3, l^T; parts in obstacles or outside the bounds count for none); ``blocked_length``: length inside
      obstacles.
    - ``weighted_length`` = terrain_lengths @ weights; ``disc_weighted_length``: sum of the segments' disc
      traversal costs for radius > 0 (Kremyzas ch. 3), None for radius 0 or when a point is outside the bounds.
    - ``collision_free``: the polyline stays in the closed free space and (radius > 0) keeps at least radius from
      every obstacle edge; ``min_clearance``: smallest distance to an obstacle edge (outlines and bounds) minus
      the radius; the distance counts as 0 where the polyline leaves the free space.
    """

    length: float
    terrain_lengths: np.ndarray
    blocked_length: float
    weighted_length: float
    disc_weighted_length: float | None
    collision_free: bool
    min_clearance: float


def measure_polyline(mesh: NavMesh, pts, weights, radius: float = 0.0) -> PolylineMeasure:
    """Measure the polyline pts (m, 2) (m >= 1) for a profile's weights (n_types,) and a disc radius >= 0."""
    p = np.ascontiguousarray(np.asarray(pts, dtype=np.float64).reshape(-1, 2))
    w = np.ascontiguousarray(weights, dtype=np.float64)
    walk = mesh.arrays.walk
    lengths = np.zeros(mesh.n_terrain_types, dtype=np.float64)
    blocked = float(ks.polyline_terrain_lengths(walk, p, lengths))
    length = float(np.hypot(*np.diff(p, axis=0).T).sum()) if len(p) > 1 else 0.0
    visible = bool(ks.polyline_visible(walk, p))
    dist = float(kc.polyline_clearance(mesh.arrays.edges, p)) if visible else 0.0
    disc = None
    if radius > 0:
        total = float(kd.polyline_disc_cost(walk, p, float(radius), w))
        disc = total if math.isfinite(total) else None
    return PolylineMeasure(
        length=length, terrain_lengths=lengths, blocked_length=blocked, weighted_length=float(lengths @ w),
        disc_weighted_length=disc, collision_free=visible and dist >= radius, min_clearance=dist - radius,
    )
