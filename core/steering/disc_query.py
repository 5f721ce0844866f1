"""Named structures of disc MIRAN's kernels (``disc_miran``): the agent's route span (the navmesh kernels'
``RouteSpan``), its query this step, the scratch arrays of its candidate choice, and many agents' queries in flat
arrays (``ChoiceBatch``, for the bench and the tests). Built by the simulation's attraction phase; read by field
name."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.jitcache import jit
from core.navmesh.kernels.arrays import RouteSpan
from core.navmesh.kernels.disc_work import DISC_WORK_TRIANGLES, DiscWork, disc_work

__all__ = ["ChoiceBatch", "DiscChoiceWork", "DiscQuery", "RouteSpan", "disc_choice_work"]


class DiscQuery(NamedTuple):
    """A disc character's attraction-point query this step (Kremyzas 2014, 4.1-4.2)."""

    x: np.ndarray  # (2,) float64: its position
    radius: float  # R, the disc's radius
    need: float  # the clearance every sweep must keep: R, or less where the disc already stands closer
    weights: np.ndarray  # (n_terrain_types,) float64: its profile's terrain weights
    s_r: float  # arc length of the reference point r_i (MIRAN 3.1)
    s1: float  # arc length of the window's end sigma_i
    r_pt: np.ndarray  # (2,) float64: the reference point
    scale: float  # the scene's size, for relative tolerances


class DiscChoiceWork(NamedTuple):
    """Scratch of ``disc_miran.pick_disc_candidate``, allocated once per simulation step."""

    q: np.ndarray  # (2,) float64: a route point
    bound: np.ndarray  # (m,) float64: each candidate's lower bound on omega
    order: np.ndarray  # (m,) int64: candidates by increasing bound
    disc: DiscWork  # the disc traversal cost's scratch
    ends: np.ndarray  # (m, 4) float64: adjusted intervals [a', b', point cost x -> pi(a'), x -> pi(b')] (NaN: none)
    memo: np.ndarray  # (4,) float64: [rows of ends valid (-1: none), x, y, x's triangle] from adjust_intervals


@jit
def disc_choice_work(m: int) -> DiscChoiceWork:
    """A DiscChoiceWork for up to m candidates (the capacity of the attraction phase's candidate buffer)."""
    return DiscChoiceWork(np.empty(2), np.empty(m), np.empty(m, dtype=np.int64), disc_work(DISC_WORK_TRIANGLES),
                          np.empty((m, 4)), np.full(4, -1.0))


class ChoiceBatch(NamedTuple):
    """n agents' candidate choices in flat arrays: agent i's route is rows [lo[i], hi[i]) of the packed rp, rs, its
    (disc-adjusted) intervals intervals[i, :n_int[i]], and the other fields are DiscQuery's, one row per agent."""

    rp: np.ndarray  # (N, 2) float64
    rs: np.ndarray  # (N,) float64
    lo: np.ndarray  # (n,) int64
    hi: np.ndarray  # (n,) int64
    x: np.ndarray  # (n, 2) float64
    radius: np.ndarray  # (n,) float64
    need: np.ndarray  # (n,) float64
    weights: np.ndarray  # (n, n_terrain_types) float64
    s_r: np.ndarray  # (n,) float64
    s1: np.ndarray  # (n,) float64
    r_pt: np.ndarray  # (n, 2) float64
    intervals: np.ndarray  # (n, m, 2) float64
    n_int: np.ndarray  # (n,) int64
    d: np.ndarray  # (n,) float64
    skip_first: np.ndarray  # (n,) bool
    scale: float
