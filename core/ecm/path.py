"""Shortest minimum-clearance paths on the ECM: retraction, A*, explicit corridor, shrinking, funnel (one kernel).

``shortest_path(ecm, start, goal, clearance)`` is the query of ECM section VI ("querying the map, computing the
Explicit Corridor, shrinking the corridor, building a triangulation and computing the shortest path"), run as a
single numba call. ``corridor(ecm, start, goal, clearance)`` returns the intermediate structures for display.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from core.jitcache import jit

from .astar import astar
from .corridor import explicit_corridor
from .retract import edge_of_event, partial_length, retract
from .search import corridor_search
from .funnel import ARC_STEP, corridor_path, portals
from .graph import ECM

# Why a query failed (``status``).
OK = 0
START_BLOCKED = 1   # the start is not in the free space, or closer than the clearance to an obstacle
GOAL_BLOCKED = 2
NO_CORRIDOR = 3     # no corridor with that clearance connects them


@jit
def _plan(vert_xy, vert_R, edge_uv, edge_len, edge_minR, edge_ptr, ev_B, ev_R, ev_l, ev_r, ev_s, ev_fl, ev_fr,
          adj_ptr, adj_edge, adj_other, feat_ptr, feat_cell, xy, ring_next, ring_prev, normal, gx0, gy0, gsize, gnx,
          gny, gptr, gidx, bounds, sx, sy, tx, ty, clearance, medial):
    """Retract both ends and search: (status, ks, is_, ss, S(3), kg, ig, sg, G(3), nodes, edges). ``medial``
    selects the paper's A* on medial-axis length instead of the funnel-guided search."""
    scale = np.hypot(bounds[2] - bounds[0], bounds[3] - bounds[1])
    empty = np.zeros(0, dtype=np.int64)
    i_s, Sx, Sy, Rs, ds = retract(sx, sy, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, feat_ptr, feat_cell, xy, ring_next,
                                  ring_prev, normal, gx0, gy0, gsize, gnx, gny, gptr, gidx, scale)
    if i_s < 0 or ds < clearance:
        return START_BLOCKED, 0, 0, 0.0, Sx, Sy, Rs, 0, 0, 0.0, 0.0, 0.0, 0.0, empty, empty
    i_g, Gx, Gy, Rg, dg = retract(tx, ty, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, feat_ptr, feat_cell, xy, ring_next,
                                  ring_prev, normal, gx0, gy0, gsize, gnx, gny, gptr, gidx, scale)
    if i_g < 0 or dg < clearance:
        return GOAL_BLOCKED, 0, 0, 0.0, Sx, Sy, Rs, 0, 0, 0.0, Gx, Gy, Rg, empty, empty
    ks = edge_of_event(edge_ptr, i_s)
    kg = edge_of_event(edge_ptr, i_g)
    ss = partial_length(i_s, Sx, Sy, ev_B, ev_l, ev_r, ev_s, ev_fl, ev_fr, xy, ring_next, normal)
    sg = partial_length(i_g, Gx, Gy, ev_B, ev_l, ev_r, ev_s, ev_fl, ev_fr, xy, ring_next, normal)
    if medial:
        nodes, edges, found = astar(vert_xy, edge_uv, edge_len, edge_minR, edge_ptr, ev_R, ev_s, adj_ptr, adj_edge,
                                    adj_other, ks, i_s, ss, Rs, kg, i_g, sg, Rg, Sx, Sy, Gx, Gy, clearance)
    else:
        nodes, edges, found = corridor_search(vert_xy, vert_R, edge_uv, edge_len, edge_minR, edge_ptr, ev_B, ev_R,
                                              ev_l, ev_r, ev_fl, ev_fr, adj_ptr, adj_edge, adj_other, xy, ring_next,
                                              ks, i_s, Sx, Sy, Rs, ss, kg, i_g, Gx, Gy, Rg, sg, sx, sy, tx, ty,
                                              clearance, 1e-9 * scale)
    if not found:
        return NO_CORRIDOR, ks, i_s, ss, Sx, Sy, Rs, kg, i_g, sg, Gx, Gy, Rg, empty, empty
    return OK, ks, i_s, ss, Sx, Sy, Rs, kg, i_g, sg, Gx, Gy, Rg, nodes, edges


@jit
def path_kernel(vert_xy, vert_R, edge_uv, edge_len, edge_minR, edge_ptr, ev_B, ev_R, ev_l, ev_r, ev_s, ev_fl, ev_fr,
                adj_ptr, adj_edge, adj_other, feat_ptr, feat_cell, xy, ring_next, ring_prev, normal, gx0, gy0, gsize,
                gnx, gny, gptr, gidx, bounds, sx, sy, tx, ty, clearance, step, medial):
    """The whole query: (points (p, 2), length, status)."""
    (status, ks, i_s, ss, Sx, Sy, Rs, kg, i_g, sg, Gx, Gy, Rg, nodes,
     edges) = _plan(vert_xy, vert_R, edge_uv, edge_len, edge_minR, edge_ptr, ev_B, ev_R, ev_l, ev_r, ev_s, ev_fl,
                    ev_fr, adj_ptr, adj_edge, adj_other, feat_ptr, feat_cell, xy, ring_next, ring_prev, normal, gx0,
                    gy0, gsize, gnx, gny, gptr, gidx, bounds, sx, sy, tx, ty, clearance, medial)
    if status != OK:
        return np.zeros((0, 2)), 0.0, status
    cB, cR, cl, cr, cf = explicit_corridor(nodes, edges, edge_uv, edge_ptr, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, xy,
                                           ring_next, ks, i_s, ss, Sx, Sy, Rs, kg, i_g, sg, Gx, Gy, Rg)
    P = portals(cB, cR, cl, cr, cf, clearance, xy, ring_next, normal, step)
    scale = np.hypot(bounds[2] - bounds[0], bounds[3] - bounds[1])
    pts, length = corridor_path(P, sx, sy, tx, ty, 1e-9 * scale)
    return pts, length, OK


@jit
def paths_kernel(vert_xy, vert_R, edge_uv, edge_len, edge_minR, edge_ptr, ev_B, ev_R, ev_l, ev_r, ev_s, ev_fl, ev_fr,
                 adj_ptr, adj_edge, adj_other, feat_ptr, feat_cell, xy, ring_next, ring_prev, normal, gx0, gy0,
                 gsize, gnx, gny, gptr, gidx, bounds, starts, goals, clearance, step, medial):
    """Many queries in one call: (points (P, 2), offsets (n + 1,), lengths (n,), status (n,))."""
    n = starts.shape[0]
    offs = np.zeros(n + 1, dtype=np.int64)
    lengths = np.zeros(n)
    status = np.zeros(n, dtype=np.int64)
    buf = np.empty((64 * n + 16, 2))
    for q in range(n):
        pts, length, st = path_kernel(vert_xy, vert_R, edge_uv, edge_len, edge_minR, edge_ptr, ev_B, ev_R, ev_l, ev_r,
                                      ev_s, ev_fl, ev_fr, adj_ptr, adj_edge, adj_other, feat_ptr, feat_cell, xy,
                                      ring_next, ring_prev, normal, gx0, gy0, gsize, gnx, gny, gptr, gidx, bounds,
                                      starts[q, 0], starts[q, 1], goals[q, 0], goals[q, 1], clearance, step, medial)
        while offs[q] + pts.shape[0] > buf.shape[0]:
            nb = np.empty((2 * buf.shape[0], 2))
            nb[: offs[q]] = buf[: offs[q]]
            buf = nb
        buf[offs[q]:offs[q] + pts.shape[0]] = pts
        offs[q + 1] = offs[q] + pts.shape[0]
        lengths[q] = length
        status[q] = st
    return buf[: offs[n]].copy(), offs, lengths, status


SEARCHES = ("funnel", "medial")


def _medial(search: str) -> bool:
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {', '.join(SEARCHES)}, got {search!r}")
    return search == "medial"


def shortest_path(ecm: ECM, start, goal, clearance: float = 0.0,
                  search: str = "funnel") -> tuple[np.ndarray, float, bool]:
    """The shortest path from start to goal keeping ``clearance`` from every obstacle and wall, inside the corridor
    that the graph search picks on the ECM: (points (n, 2) float64, length, ok). ``ok`` is False (and points
    empty) when the start or goal lies in an obstacle or closer than ``clearance`` to one, or no corridor of that
    clearance joins them. ``search``: ``funnel`` (default, ``search.corridor_search``) or ``medial`` (the paper's
    A* on medial-axis length)."""
    pts, length, status = shortest_path_status(ecm, start, goal, clearance, search)
    return pts, length, status == OK


def shortest_path_status(ecm: ECM, start, goal, clearance: float = 0.0,
                         search: str = "funnel") -> tuple[np.ndarray, float, int]:
    """Like ``shortest_path`` but with the status code (``OK``, ``START_BLOCKED``, ``GOAL_BLOCKED``,
    ``NO_CORRIDOR``)."""
    pts, length, status = path_kernel(*ecm.kernel_args(), float(start[0]), float(start[1]), float(goal[0]),
                                      float(goal[1]), float(clearance), ARC_STEP, _medial(search))
    return pts, float(length), int(status)


def shortest_paths(ecm: ECM, starts, goals, clearance: float = 0.0, search: str = "funnel"):
    """Many queries in one kernel call: (points (P, 2), offsets (n + 1,), lengths (n,), ok (n,) bool); path q is
    ``points[offsets[q]:offsets[q+1]]``."""
    s = np.ascontiguousarray(np.asarray(starts, dtype=np.float64).reshape(-1, 2))
    g = np.ascontiguousarray(np.asarray(goals, dtype=np.float64).reshape(-1, 2))
    pts, offs, lengths, status = paths_kernel(*ecm.kernel_args(), s, g, float(clearance), ARC_STEP,
                                              _medial(search))
    return pts, offs, lengths, status == OK


@dataclass(frozen=True, eq=False)
class Corridor:
    """An Explicit Corridor and what the query built from it (for display and inspection).

    - ``B`` (n, 2), ``R`` (n,), ``l`` (n, 2), ``r`` (n, 2): the disks and their left/right closest points, from the
      start's retraction to the goal's (ECM Definition 2); ``features`` (n, 2) int64 the obstacle features of the
      piece after each disk (-1 where the corridor turns at a Voronoi vertex).
    - ``left`` (m, 2), ``right`` (m, 2): the shrunk corridor's portals (boundary points); the left boundary is
      ``left`` in order, the right one ``right``.
    - ``path`` (p, 2), ``length``: the shortest path through the portals; ``vertices``: the ECM vertices passed.
    - ``status``: ``OK``, ``START_BLOCKED``, ``GOAL_BLOCKED`` or ``NO_CORRIDOR``.
    """

    B: np.ndarray
    R: np.ndarray
    l: np.ndarray
    r: np.ndarray
    features: np.ndarray
    left: np.ndarray
    right: np.ndarray
    path: np.ndarray
    length: float
    vertices: np.ndarray
    clearance: float
    status: int

    @property
    def ok(self) -> bool:
        return self.status == OK


def corridor(ecm: ECM, start, goal, clearance: float = 0.0, search: str = "funnel") -> Corridor:
    """The explicit corridor between start and goal, shrunk by ``clearance``, its portals and shortest path."""
    args = ecm.kernel_args()
    sx, sy, tx, ty = float(start[0]), float(start[1]), float(goal[0]), float(goal[1])
    (status, ks, i_s, ss, Sx, Sy, Rs, kg, i_g, sg, Gx, Gy, Rg, nodes,
     edges) = _plan(*args, sx, sy, tx, ty, float(clearance), _medial(search))
    e2 = np.zeros((0, 2))
    if status != OK:
        return Corridor(e2, np.zeros(0), e2, e2, np.zeros((0, 2), dtype=np.int64), e2, e2, e2, 0.0,
                        np.zeros(0, dtype=np.int64), float(clearance), int(status))
    s = ecm.sites
    cB, cR, cl, cr, cf = explicit_corridor(nodes, edges, ecm.edge_uv, ecm.edge_ptr, ecm.ev_B, ecm.ev_R, ecm.ev_l,
                                           ecm.ev_r, ecm.ev_fl, ecm.ev_fr, s.ring_xy, s.ring_next, ks, i_s, ss, Sx,
                                           Sy, Rs, kg, i_g, sg, Gx, Gy, Rg)
    P = portals(cB, cR, cl, cr, cf, float(clearance), s.ring_xy, s.ring_next, s.edge_normal, ARC_STEP)
    pts, length = corridor_path(P, sx, sy, tx, ty, 1e-9 * s.scale)
    inner = nodes[1:-1]
    return Corridor(cB, cR, cl, cr, cf, np.ascontiguousarray(P[:, 0:2]), np.ascontiguousarray(P[:, 2:4]), pts,
                    float(length), inner, float(clearance), OK)


def retract_point(ecm: ECM, p) -> tuple[np.ndarray, float, int]:
    """Retraction of p onto the medial axis (IRM section 3.2): (S (2,), clearance of S, ECM edge); edge -1 when p is
    not in the free space."""
    s = ecm.sites
    i, sx, sy, R, d = retract(float(p[0]), float(p[1]), ecm.ev_B, ecm.ev_R, ecm.ev_l, ecm.ev_r, ecm.ev_fl, ecm.ev_fr,
                              ecm.feat_ptr, ecm.feat_cell, s.ring_xy, s.ring_next, s.ring_prev, s.edge_normal,
                              float(ecm.grid_origin[0]), float(ecm.grid_origin[1]), ecm.grid_size,
                              int(ecm.grid_shape[0]), int(ecm.grid_shape[1]), ecm.grid_ptr, ecm.grid_idx, s.scale)
    if i < 0:
        return np.array([float(p[0]), float(p[1])]), 0.0, -1
    return np.array([sx, sy]), float(R), int(edge_of_event(ecm.edge_ptr, i))
