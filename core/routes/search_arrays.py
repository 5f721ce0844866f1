"""Named structures of the route searches' kernels (issue 19: kernels take a handful of named structures):
the A* workspace and heuristic of ``search.astar_ws`` and the cells, portals and per-state arrays of
``planners.portal``."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class SearchWork(NamedTuple):
    """Per-node and heap arrays of ``search.astar_ws``, reused across queries: cost-so-far ``g`` (n,), ``parent``
    (n,) int64, the stamps ``seen`` and ``closed`` (n,) int64, heap keys ``hk`` and values ``hv`` (cap,)."""

    g: np.ndarray
    parent: np.ndarray
    seen: np.ndarray
    closed: np.ndarray
    hk: np.ndarray
    hv: np.ndarray


class Heuristic(NamedTuple):
    """A*'s lower bound on the cost from node v to the goal: ``hscale * |xy[v] - goal|`` (``xy`` (n, 2), ``goal``
    (2,)), raised to the landmark bound max_k |lm[v, k] - lm_goal[k]| (ALT: Goldberg and Harrelson 2005) where
    landmarks are given: ``lm`` (n, L) each node's cost to L landmark nodes, ``lm_goal`` (L,) the single target
    node's (L = 0: none), ``lm_tail`` the target's cost to the goal, added to the landmark bound."""

    xy: np.ndarray
    hscale: float
    goal: np.ndarray
    lm: np.ndarray
    lm_goal: np.ndarray
    lm_tail: float


class PortalCells(NamedTuple):
    """A convex decomposition as ``planners.portal`` searches it: ``vertices`` (nv, 2), ``portals`` (k, 2) vertex
    pairs, ``portal_polys`` (k, 2) the cells on each side, and each cell's portals in CSR (``pp_ptr``, ``pp_idx``)."""

    vertices: np.ndarray
    portals: np.ndarray
    portal_polys: np.ndarray
    pp_ptr: np.ndarray
    pp_idx: np.ndarray


class PortalStates(NamedTuple):
    """Per-state arrays of the portal A* (state 2k + d: portal k crossed in direction d): cost ``g``, position
    ``pos`` (s, 2), ``parent``, ``closed`` bool, and the heap's keys ``hk`` and values ``hv``."""

    g: np.ndarray
    pos: np.ndarray
    parent: np.ndarray
    closed: np.ndarray
    hk: np.ndarray
    hv: np.ndarray
