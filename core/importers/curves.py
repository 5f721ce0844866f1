"""Curves flattened to a tolerance, with the number of chords known before any point is computed.

A curve c(t) whose second derivative is at most M in length, cut into n chords of equal parameter step h = span / n,
stays within M h^2 / 8 of its chords; so n = ceil(span sqrt(M / (8 tol))) chords keep it within ``tol``. For a
circle M is its radius (t the angle), for an ellipse the larger semi-axis, for a Bezier curve (t in [0, 1]) a
bound from its control points. The count is what the import's budget (``budget.Budget``) charges before the
points are made.
"""

from __future__ import annotations

import math

import numpy as np

from core.scene.problems import InputError, Problem


def chords(m: float, span: float, tol: float, least: int = 1) -> int:
    """How many chords of equal parameter step keep a curve (|c''| <= ``m``, parameter span ``span``) within
    ``tol`` of them; at least ``least``. Not-finite inputs count as an unbounded number (refused by the budget)."""
    if not (math.isfinite(m) and math.isfinite(span) and tol > 0):
        return 2**62
    n = abs(span) * math.sqrt(max(m, 0.0) / (8.0 * tol))
    if n > 2**62:
        return 2**62
    return max(int(least), int(math.ceil(n)))


def bezier_bound(ctrl: np.ndarray) -> float:
    """A bound on |B''(t)| over [0, 1] of a Bezier curve of degree >= 2 with control points ``ctrl`` (k, 2)."""
    d = len(ctrl) - 1
    if d < 2:
        return 0.0
    second = ctrl[2:] - 2.0 * ctrl[1:-1] + ctrl[:-2]
    with np.errstate(over="ignore", invalid="ignore"):
        return float(d * (d - 1) * np.max(np.hypot(second[:, 0], second[:, 1])))


def bezier_points(ctrl: np.ndarray, n: int) -> np.ndarray:
    """``n + 1`` points of a Bezier curve (de Casteljau on all parameters at once), the start included."""
    t = np.linspace(0.0, 1.0, n + 1)[:, None]
    pts = np.repeat(ctrl[None, :, :], len(t), axis=0)
    for k in range(len(ctrl) - 1, 0, -1):
        pts = pts[:, :k] * (1 - t[:, :, None]) + pts[:, 1:k + 1] * t[:, :, None]
    return pts[:, 0]


def ellipse_points(center: tuple[float, float], a: float, b: float, rotation: float, t0: float, t1: float,
                   n: int) -> np.ndarray:
    """``n + 1`` points of the elliptic arc of semi-axes ``a``, ``b`` turned by ``rotation`` (radians), parameter
    from ``t0`` to ``t1``."""
    t = np.linspace(t0, t1, n + 1)
    c, s = math.cos(rotation), math.sin(rotation)
    x, y = a * np.cos(t), b * np.sin(t)
    return np.column_stack([center[0] + c * x - s * y, center[1] + s * x + c * y])


def finite_or_refuse(pts: np.ndarray, where: str) -> np.ndarray:
    """``pts`` when every coordinate is finite; InputError naming ``where`` otherwise."""
    if not np.isfinite(pts).all():
        raise InputError([Problem(where, "coordinates are not finite numbers")])
    return pts


__all__ = ["bezier_bound", "bezier_points", "chords", "ellipse_points", "finite_or_refuse"]
