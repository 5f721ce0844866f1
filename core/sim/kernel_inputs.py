"""The named structures the step kernel receives besides the agent state and the work buffers: the packed routes,
the parameters, the crowd and IRM extras and the plan of one ``advance`` call. Each is built once by its owner
(core.sim.simulation, core.sim.params) and passed whole; numba types them as named tuples."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.navmesh.kernels.kept_edges import KeptEdges, kept_edges


class RouteArrays(NamedTuple):
    """The packed routes (core.sim.routebook): ``points`` (m, 2) float64 and ``s`` (m,) float64 their arc lengths;
    agent i's route is rows [route_lo[i], route_hi[i])."""

    points: np.ndarray
    s: np.ndarray


class Params(NamedTuple):
    """The live parameters (core.sim.params): ``glob`` (1,) the global record (``P.glob[0].dt``, fields
    GLOBAL_NAMES), ``prof`` (P,) the profile records (``P.prof[p].max_speed``, fields PROFILE_FIELDS), ``weights``
    (P, T) the terrain weights, ``wstat`` (P, 2) per profile the smallest weight and whether all are equal, and
    ``scale`` the scene's size (the tolerances' unit)."""

    glob: np.ndarray
    prof: np.ndarray
    weights: np.ndarray
    wstat: np.ndarray
    scale: float


class KeptWindows(NamedTuple):
    """Per agent, the obstacle edges of its route window's box and the terrain boundary edges of its candidates'
    box, kept between steps (core.navmesh.kernels.kept_edges: the attraction phase reads the same edges in the
    same order as from the grid, and visits the grid only when a window leaves its kept box)."""

    obstacles: KeptEdges
    terrain: KeptEdges


def kept_windows(n: int) -> KeptWindows:
    """Empty kept edge lists for n agents."""
    return KeptWindows(kept_edges(n), kept_edges(n))


class CrowdArrays(NamedTuple):
    """The crowd phase's and IRM's extras (core.sim.crowd): the height field ``hf_geo`` (3,) and ``heights``
    (ny, nx), the Perlin table ``perm`` (512,), per agent ``noise_phase`` (n,); the corridor arrays ``cB, cR, cL,
    cQ, cS`` (core.sim.corridors); per agent ``corr_lo``, ``corr_hi``, ``corr_k`` (n,) int64 (its corridor rows and
    current disc), ``corr_ds`` (n,) float64 (its safe distance, IRM eq. 2), ``corr_ak`` (n,) int64 (the disc its
    attraction point was taken on); ``terrain`` the mesh's terrain boundaries (``NavMesh.terrain_args()``); and
    ``keep`` each MIRAN agent's window edges kept between steps (``KeptWindows``)."""

    hf_geo: np.ndarray
    heights: np.ndarray
    perm: np.ndarray
    noise_phase: np.ndarray
    cB: np.ndarray
    cR: np.ndarray
    cL: np.ndarray
    cQ: np.ndarray
    cS: np.ndarray
    corr_lo: np.ndarray
    corr_hi: np.ndarray
    corr_k: np.ndarray
    corr_ds: np.ndarray
    corr_ak: np.ndarray
    terrain: tuple
    keep: KeptWindows


class StepPlan(NamedTuple):
    """What one ``advance`` call does: up to ``n_steps`` steps, the STOP_* ``stop_flags``, a full log every
    ``record`` steps (0: none), and the agents split into ``blocks`` ranges stepped in parallel (one per thread)."""

    n_steps: int
    stop_flags: int
    record: int
    blocks: int
