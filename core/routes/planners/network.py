"""``network``: routes on an indicative network (IRM section 5), a graph of routes drawn by a designer.

The scene's networks (``Network(id, nodes, edges)``, every edge a straight segment between two nodes) form one
graph; an edge costs its terrain-weighted length for the profile (exact terrain lengths). The start is joined to
the closest point of the network that it sees, and so is the goal; A* on the network joins the two. Every edge
must stay in the free space: one that crosses an obstacle is reported with its JSON path. The network's own routes
are the designer's, so the clearance asked for is measured and reported, not enforced, on them.
"""

from __future__ import annotations

import numpy as np

from core.scene.problems import InputError, Problem, fmt_point

from ..search import astar, csr_from_edges
from .base import Leg


def _area2(p, q, r):
    """Twice the signed area of triangles (p, q, r); any argument may be an (n, 2) array."""
    p, q, r = np.asarray(p), np.asarray(q), np.asarray(r)
    return (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1]) - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])


def _on(a: np.ndarray, b: np.ndarray, t: np.ndarray | float) -> np.ndarray:
    return a + np.asarray(t)[..., None] * (b - a)


class NetworkPlanner:
    """A* on the scene's indicative networks, with the start and goal joined to their closest visible points.

    - ``nodes`` (n, 2) float64, ``edges`` (E, 2) int64 (undirected, in file order over all networks),
      ``edge_path`` (E,) JSON path of each edge, ``terrain`` (E, n_types) float64 length of each edge per terrain.
    - ``indptr``, ``indices`` CSR of both directions, ``slot_edge`` (2E,) the undirected edge of each CSR slot.
    """

    name = "network"
    native_clearance = True
    unreachable_hint = "the network does not connect the points where start and goal join it"

    def __init__(self, ctx):
        self.ctx = ctx
        network = ctx.network
        scene = ctx.scene
        nets = [(i, n) for i, n in enumerate(scene.networks) if network is None or n.id == network]
        if not nets:
            msg = "the scene has no indicative network" if network is None else f"no network {network!r}"
            raise InputError([Problem("networks", f"{msg}: the network planner needs one (IRM section 5)")])
        nodes, edges, paths = [], [], []
        for i, net in nets:
            base = len(nodes)
            nodes.extend(net.nodes)
            for j, (a, b) in enumerate(net.edges):
                edges.append((base + a, base + b))
                paths.append(f"networks[{i}].edges[{j}]")
        self.nodes = np.asarray(nodes, dtype=np.float64).reshape(-1, 2)
        self.edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        self.edge_path = paths
        if len(self.edges) == 0:
            raise InputError([Problem("networks", "the indicative network has no edges")])
        free0 = ctx.free(0.0)
        a, b = self.nodes[self.edges[:, 0]], self.nodes[self.edges[:, 1]]
        ok = ctx.visible(a, b)
        if not np.all(ok):
            raise InputError([Problem(paths[k], f"the edge from {fmt_point(a[k])} to {fmt_point(b[k])} crosses an "
                                                "obstacle or leaves the bounds") for k in np.flatnonzero(~ok)])
        self.terrain = ctx.terrain_lengths(a, b)
        src = np.concatenate([self.edges[:, 0], self.edges[:, 1]])
        dst = np.concatenate([self.edges[:, 1], self.edges[:, 0]])
        self.indptr, self.indices, order = csr_from_edges(len(self.nodes), src, dst)
        self.slot_edge = np.concatenate([np.arange(len(self.edges))] * 2)[order]
        self._costs: dict[tuple, np.ndarray] = {}
        # Free-space boundary vertices: where visibility along an edge can change (see ``attach``).
        self._corners = np.unique(free0.segments[:, :2], axis=0) if len(free0.segments) else np.zeros((0, 2))

    def edge_costs(self, weights: np.ndarray) -> np.ndarray:
        """(E,) float64 weighted length of each edge (cached per weight vector)."""
        key = tuple(float(w) for w in weights)
        if key not in self._costs:
            self._costs = {key: self.terrain @ np.asarray(weights, dtype=np.float64)}
        return self._costs[key]

    def attach(self, x: np.ndarray) -> tuple[int, float, np.ndarray] | None:
        """The closest network point visible from x: (edge, parameter t in [0, 1] along it, point) or None.

        Along an edge AB the visible part from x is a union of intervals whose ends are A, B or the projections
        from x of free-space corners inside the triangle (x, A, B); the closest visible point is the foot of x on
        AB or one of those ends (distance to x is convex along AB), so those candidates are tried nearest first.
        """
        A, B = self.nodes[self.edges[:, 0]], self.nodes[self.edges[:, 1]]
        d = B - A
        L2 = np.einsum("ij,ij->i", d, d)
        t0 = np.clip(np.einsum("ij,ij->i", x - A, d) / np.where(L2 > 0, L2, 1.0), 0.0, 1.0)
        lower = np.hypot(*(_on(A, B, t0) - x).T)
        best: tuple[float, int, float] | None = None
        scale = max(1.0, float(np.max(np.abs(self.nodes))))
        for e in np.argsort(lower, kind="stable"):
            if best is not None and lower[e] >= best[0]:
                break
            ts = [t0[e], 0.0, 1.0]
            c = self._corners
            if len(c):
                # Corners in the closed triangle (x, A, B), projected from x onto the line AB.
                a, b = A[e], B[e]
                D = _area2(x, a, b)
                if D != 0.0:
                    lx = _area2(c, a, b) / D
                    la = _area2(x, c, b) / D
                    lb = _area2(x, a, c) / D
                    inside = (lx >= 0) & (la >= 0) & (lb >= 0)
                    for v in c[inside]:
                        r = v - x
                        den2 = r[0] * d[e, 1] - r[1] * d[e, 0]
                        if den2 != 0.0:
                            t = ((a[0] - x[0]) * r[1] - (a[1] - x[1]) * r[0]) / den2
                            dt = 1e-9 * scale / max(np.sqrt(L2[e]), 1e-300)
                            ts.extend([t - dt, t + dt])
            tt = np.clip(np.asarray(ts), 0.0, 1.0)
            pts = _on(A[e], B[e], tt)
            dist = np.hypot(*(pts - x).T)
            order = np.argsort(dist, kind="stable")
            if best is not None:
                order = order[dist[order] < best[0]]
            if len(order) == 0:
                continue
            vis = self.ctx.visible(np.repeat(x[None], len(order), axis=0), pts[order])
            if np.any(vis):
                k = order[int(np.argmax(vis))]
                best = (float(dist[k]), int(e), float(tt[k]))
        if best is None:
            return None
        e, t = best[1], best[2]
        return e, t, _on(A[e], B[e], t)

    def plan(self, start: np.ndarray, goal: np.ndarray, weights: np.ndarray, clearance: float) -> Leg | None:
        """A route start -> network -> goal; None when the network does not connect the two."""
        js, jg = self.attach(start), self.attach(goal)
        if js is None or jg is None:
            who = "start" if js is None else "goal"
            pt = start if js is None else goal
            raise InputError([Problem(who, f"no point of the indicative network is visible from {fmt_point(pt)}")])
        (es, _, ps), (eg, _, pg) = js, jg
        w = np.asarray(weights, dtype=np.float64)
        ecost = self.edge_costs(w)
        na, nb = self.edges[es]
        ga, gb = self.edges[eg]
        # Pieces: start->ps, ps->A_s, ps->B_s, A_g->pg, B_g->pg, pg->goal, and ps->pg along a shared edge.
        P = np.array([start, ps, ps, self.nodes[ga], self.nodes[gb], pg, ps])
        Q = np.array([ps, self.nodes[na], self.nodes[nb], pg, pg, goal, pg])
        c = self.ctx.terrain_lengths(P, Q) @ w
        src = np.array([na, nb])
        src_cost = np.array([c[0] + c[1], c[0] + c[2]])
        dst = np.array([ga, gb])
        dst_cost = np.array([c[3] + c[5], c[4] + c[5]])
        nodes, cost = astar(self.indptr, self.indices, np.ascontiguousarray(ecost[self.slot_edge]), self.nodes,
                            float(np.min(w)), src, src_cost, dst, dst_cost, np.asarray(goal, dtype=np.float64))
        direct = c[0] + c[6] + c[5] if es == eg else np.inf
        # Both infinite: the start's and the goal's edges lie in parts of the network that do not meet.
        if np.isfinite(direct) and direct <= cost:
            return Leg(np.array([start, ps, pg, goal]), float(direct))
        if len(nodes) == 0 or not np.isfinite(cost):
            return None
        return Leg(np.vstack([start[None], ps[None], self.nodes[nodes], pg[None], goal[None]]), float(cost))
