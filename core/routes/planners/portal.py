"""``portal``: Niederberger et al. (2004) A* over a convex decomposition with nodes that move on the portals.

A search state is a portal crossed in one direction; its position on the portal is fixed when the state is reached
(section 6.3): moving towards the goal, the greedy strategy puts it where the straight line to the goal crosses the
portal (more precisely, at the point of the portal minimising |x - p| + |p - goal|, which is that crossing when
there is one); moving away from the goal, the lazy strategy puts it at the point of the portal closest to the
current position. g is the length of the polyline through the positions, h the straight distance to the goal.
The portal sequence found is then straightened by the cone-of-sight algorithm (section 7.1, ``core.routes.funnel``).

``centre_route`` is the static baseline of section 8: A* over fixed nodes on the portals, with the same
post-processing; ``centre_graph`` puts one node at each portal's centre ("Center"), ``width_graph`` one at the
centre of each piece of a portal cut to a maximal width ("Width 1/3", "Width 1/10").
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from ..convex import ConvexDecomposition, decompose
from ..funnel import funnel
from ..graph import DualGraph
from ..search_arrays import PortalCells, PortalStates
from core.kernels.heap import heap_pop, heap_push
from core.kernels.paths import path_to
from .base import Leg, join_point


@jit
def place(x, ax, ay, bx, by, goal):
    """Position of a node on portal [a, b] reached from x: greedy towards the goal, lazy away from it."""
    ex = bx - ax
    ey = by - ay
    L2 = ex * ex + ey * ey
    gx = goal[0]
    gy = goal[1]
    sx = ex * (x[1] - ay) - ey * (x[0] - ax)
    sg = ex * (gy - ay) - ey * (gx - ax)
    if sx * sg > 0.0 and L2 > 0.0:
        # Same side: mirror the goal in the portal's line (min |x-p| + |p-g| over the line).
        t = ((gx - ax) * ex + (gy - ay) * ey) / L2
        fx = ax + t * ex
        fy = ay + t * ey
        gx = 2.0 * fx - gx
        gy = 2.0 * fy - gy
    dx = gx - x[0]
    dy = gy - x[1]
    den = ex * dy - ey * dx
    if den != 0.0:
        # x + u d = a + t e  =>  t = cross(x - a, d) / cross(e, d).
        t = ((x[0] - ax) * dy - (x[1] - ay) * dx) / den
    else:
        # Line to the goal parallel to the portal: take the nearer end to the goal.
        da = (ax - goal[0]) ** 2 + (ay - goal[1]) ** 2
        db = (bx - goal[0]) ** 2 + (by - goal[1]) ** 2
        t = 0.0 if da <= db else 1.0
    if t < 0.0:
        t = 0.0
    elif t > 1.0:
        t = 1.0
    px = ax + t * ex
    py = ay + t * ey
    dgx = px - goal[0]
    dgy = py - goal[1]
    dxg = x[0] - goal[0]
    dyg = x[1] - goal[1]
    if dgx * dgx + dgy * dgy < dxg * dxg + dyg * dyg or L2 == 0.0:
        return px, py
    # Moving away from the goal: the lazy strategy, the portal's point closest to x.
    t = ((x[0] - ax) * ex + (x[1] - ay) * ey) / L2
    if t < 0.0:
        t = 0.0
    elif t > 1.0:
        t = 1.0
    return ax + t * ex, ay + t * ey


@jit
def _expand(P: PortalCells, poly, came, x, gx0, parent_state, goal, st: PortalStates, size):
    """Relax every portal of cell ``poly`` (except ``came``) from position x with cost-so-far gx0; returns the
    heap's new size."""
    vertices, portals, portal_polys, pp_ptr, pp_idx = P
    g, pos, parent, closed, hk, hv = st
    for e in range(pp_ptr[poly], pp_ptr[poly + 1]):
        q = pp_idx[e]
        if q == came:
            continue
        d = 0 if portal_polys[q, 0] == poly else 1
        s = 2 * q + d
        if closed[s]:
            continue
        a = portals[q, 0]
        b = portals[q, 1]
        px, py = place(x, vertices[a, 0], vertices[a, 1], vertices[b, 0], vertices[b, 1], goal)
        ng = gx0 + np.sqrt((px - x[0]) ** 2 + (py - x[1]) ** 2)
        if ng < g[s]:
            g[s] = ng
            pos[s, 0] = px
            pos[s, 1] = py
            parent[s] = parent_state
            h = np.sqrt((px - goal[0]) ** 2 + (py - goal[1]) ** 2)
            size = heap_push(hk, hv, size, ng + h, s)
    return size


@jit
def portal_astar(vertices, portals, portal_polys, pp_ptr, pp_idx, start, goal, ps, pg):
    """Niederberger's modified A* from cell ps to cell pg; returns (states (k,) int64, cost), empty/inf if none.

    State 2k + d is portal k crossed from ``portal_polys[k, d]`` into ``portal_polys[k, 1 - d]``.
    """
    K = portals.shape[0]
    S = 2 * K
    g = np.full(S, np.inf)
    pos = np.zeros((S, 2))
    parent = np.full(S, -1, dtype=np.int64)
    closed = np.zeros(S, dtype=np.bool_)
    cap = 2 * pp_idx.shape[0] + S + 8
    hk = np.empty(cap)
    hv = np.empty(cap, dtype=np.int64)
    P = PortalCells(vertices, portals, portal_polys, pp_ptr, pp_idx)
    st = PortalStates(g, pos, parent, closed, hk, hv)
    size = _expand(P, ps, -1, start, 0.0, -1, goal, st, 0)
    best = np.inf
    best_s = -1
    x = np.empty(2)
    while size > 0:
        u = hv[0]
        size = heap_pop(hk, hv, size)
        if u == S:
            break
        if closed[u]:
            continue
        closed[u] = True
        k = u >> 1
        d = u & 1
        into = portal_polys[k, 1 - d]
        x[0] = pos[u, 0]
        x[1] = pos[u, 1]
        if into == pg:
            c = g[u] + np.sqrt((x[0] - goal[0]) ** 2 + (x[1] - goal[1]) ** 2)
            if c < best:
                best = c
                best_s = u
                size = heap_push(hk, hv, size, c, S)
        if size + (pp_ptr[into + 1] - pp_ptr[into]) >= cap:
            continue
        size = _expand(P, into, k, x, g[u], u, goal, st, size)
    if best_s < 0:
        return np.zeros(0, dtype=np.int64), np.inf
    return path_to(parent, best_s), best


def channel(dec: ConvexDecomposition, start: np.ndarray, goal: np.ndarray, states: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """Left and right end points (n + 2, 2) of the crossed portals, framed by the start and the goal."""
    return channel_kernel(dec.vertices, dec.portals, np.asarray(states, dtype=np.int64),
                          np.asarray(start, dtype=np.float64), np.asarray(goal, dtype=np.float64))


@jit
def channel_kernel(vertices, portals, states, start, goal):
    """``channel`` in one kernel call (a route's errand pays no NumPy call per step): state 2k + d crosses portal
    k = (a, b); a -> b runs counter-clockwise in portal_polys[k, 0], so leaving that cell (d = 0) b is on the
    left."""
    n = states.shape[0]
    left = np.empty((n + 2, 2))
    right = np.empty((n + 2, 2))
    left[0, 0] = right[0, 0] = start[0]
    left[0, 1] = right[0, 1] = start[1]
    left[n + 1, 0] = right[n + 1, 0] = goal[0]
    left[n + 1, 1] = right[n + 1, 1] = goal[1]
    for i in range(n):
        k = states[i] >> 1
        a = portals[k, 0]
        b = portals[k, 1]
        lv, rv = (b, a) if (states[i] & 1) == 0 else (a, b)
        left[i + 1, 0] = vertices[lv, 0]
        left[i + 1, 1] = vertices[lv, 1]
        right[i + 1, 0] = vertices[rv, 0]
        right[i + 1, 1] = vertices[rv, 1]
    return left, right


def portal_path(dec: ConvexDecomposition, start: np.ndarray, goal: np.ndarray, ps: int, pg: int
                ) -> np.ndarray | None:
    """Waypoints (k, 2) from start (in cell ps) to goal (in cell pg), or None when pg cannot be reached."""
    if ps == pg:
        return np.array([start, goal], dtype=np.float64)
    states, cost = portal_astar(dec.vertices, dec.portals, dec.portal_polys, dec.pp_ptr, dec.pp_idx,
                                np.asarray(start, dtype=np.float64), np.asarray(goal, dtype=np.float64), ps, pg)
    if len(states) == 0:
        return None
    left, right = channel(dec, start, goal, states)
    return funnel(left, right)


def width_graph(dec: ConvexDecomposition, max_width: float) -> tuple[DualGraph, np.ndarray]:
    """The static graphs of Niederberger section 8: every portal cut into ceil(length / max_width) equal pieces
    (one piece when ``max_width`` is infinite) with a node at each piece's centre, and every two nodes on the
    portals of one cell joined by an edge costing their distance (the "maximal fanout"). Returns the graph and
    ``node_portal`` (n,) int64, the portal of each node (nodes of one portal are consecutive)."""
    a = dec.vertices[dec.portals[:, 0]]
    b = dec.vertices[dec.portals[:, 1]]
    pieces = np.ones(len(a), dtype=np.int64)
    if np.isfinite(max_width):
        pieces = np.maximum(1, np.ceil(np.hypot(*(b - a).T) / max_width)).astype(np.int64)
    node_portal = np.repeat(np.arange(len(a), dtype=np.int64), pieces)
    first = np.concatenate([[0], np.cumsum(pieces)])
    t = (np.arange(len(node_portal)) - first[node_portal] + 0.5) / pieces[node_portal]
    xy = a[node_portal] + t[:, None] * (b - a)[node_portal]
    a_list, b_list = [], []
    for p in range(dec.n_polygons):
        ids = _portal_nodes(first, dec.pp_idx[dec.pp_ptr[p]:dec.pp_ptr[p + 1]])
        if len(ids) > 1:
            aa, bb = np.meshgrid(ids, ids)
            m = aa != bb
            a_list.append(aa[m])
            b_list.append(bb[m])
    u = np.concatenate(a_list) if a_list else np.zeros(0, np.int64)
    v = np.concatenate(b_list) if b_list else np.zeros(0, np.int64)
    half = 0.5 * np.hypot(*(xy[u] - xy[v]).T)
    return DualGraph.from_edges(xy, np.zeros(len(xy), np.int32), u, v, half, half), node_portal


def _portal_nodes(first: np.ndarray, portals: np.ndarray) -> np.ndarray:
    """The nodes on the given portals, ``first`` (K + 1,) being each portal's first node."""
    if len(portals) == 0:
        return np.zeros(0, np.int64)
    return np.concatenate([np.arange(first[k], first[k + 1]) for k in portals])


def centre_graph(dec: ConvexDecomposition) -> DualGraph:
    """The static portal-centre graph of Niederberger section 6.2 / 8 ("Center"): a node per portal at its
    midpoint, an edge between two portals of the same cell costing the distance between their midpoints."""
    return width_graph(dec, np.inf)[0]


def centre_route(dec: ConvexDecomposition, graph: DualGraph, start: np.ndarray, goal: np.ndarray, ps: int,
                 pg: int, node_portal: np.ndarray | None = None) -> np.ndarray | None:
    """The baseline: A* over a static graph's nodes (``centre_graph``'s by default; ``width_graph``'s with its
    ``node_portal``), then the same cone-of-sight post-processing."""
    if ps == pg:
        return np.array([start, goal], dtype=np.float64)
    if node_portal is None:
        node_portal = np.arange(len(dec.portals), dtype=np.int64)
    first = np.searchsorted(node_portal, np.arange(len(dec.portals) + 1))
    src = _portal_nodes(first, dec.pp_idx[dec.pp_ptr[ps]:dec.pp_ptr[ps + 1]])
    dst = _portal_nodes(first, dec.pp_idx[dec.pp_ptr[pg]:dec.pp_ptr[pg + 1]])
    nodes, _ = graph.search(np.ones(1), src, np.hypot(*(graph.xy[src] - start).T), dst,
                            np.hypot(*(graph.xy[dst] - goal).T), goal)
    if len(nodes) == 0:
        return None
    # Consecutive nodes share a cell. A node on the portal just crossed crosses it back (two nodes of one portal);
    # a node on no portal of the current cell means the path only touched the last portal without crossing it,
    # so that crossing is taken back.
    stack: list[tuple[int, int]] = []  # (state, cell before crossing)
    cell = ps
    for k in (int(node_portal[v]) for v in nodes):
        if stack and stack[-1][0] >> 1 == k:
            _, cell = stack.pop()
            continue
        if dec.portal_polys[k, 0] != cell and dec.portal_polys[k, 1] != cell:
            if not stack:
                return None
            _, cell = stack.pop()
        if dec.portal_polys[k, 0] == cell:
            stack.append((2 * k, cell))
            cell = int(dec.portal_polys[k, 1])
        elif dec.portal_polys[k, 1] == cell:
            stack.append((2 * k + 1, cell))
            cell = int(dec.portal_polys[k, 0])
        else:
            return None
    while stack and cell != pg:
        _, cell = stack.pop()
    if cell != pg:
        return None
    states = np.array([st for st, _ in stack], dtype=np.int64)
    if len(states) == 0:
        return np.array([start, goal], dtype=np.float64)
    left, right = channel(dec, start, goal, states)
    return funnel(left, right)


class PortalPlanner:
    """Niederberger's planner on the convex decomposition of the free space at each clearance level (trapezoids
    merged after Hertel-Mehlhorn by default; ``PlannerContext(portal_pieces="triangles")`` merges triangles)."""

    name = "portal"
    unreachable_hint = "the goal cannot be reached"

    def __init__(self, ctx):
        self.ctx = ctx
        self._dec: dict[float, ConvexDecomposition] = {}

    def decomposition(self, clearance: float = 0.0) -> ConvexDecomposition:
        """The convex decomposition of the free space eroded by ``clearance`` (cached)."""
        key = float(clearance)
        with self.ctx.lock:
            if key not in self._dec:
                self._dec[key] = decompose(self.ctx.free(key).free, self.ctx.portal_pieces)
            return self._dec[key]

    def plan(self, start: np.ndarray, goal: np.ndarray, weights: np.ndarray, clearance: float) -> Leg | None:
        """A route from start to goal in the free space eroded by ``clearance``; None when there is none."""
        free_c = self.ctx.free(clearance)
        s1 = join_point(self.ctx, free_c, start)
        g1 = join_point(self.ctx, free_c, goal)
        if s1 is None or g1 is None:
            return None
        dec = self.decomposition(clearance)
        ps, pg = dec.locate(np.vstack([s1, g1]))
        if ps < 0 or pg < 0:
            return None
        pts = portal_path(dec, s1, g1, int(ps), int(pg))
        if pts is None:
            return None
        pts = np.vstack([start[None], pts, goal[None]])
        return Leg(pts, float(np.sum(np.hypot(*np.diff(pts, axis=0).T))))
