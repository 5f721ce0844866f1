"""Four-site nodes: where two Voronoi vertices lie within a pixel, split the traced node into both (Python, run
once per build on the few nodes whose exact solve did not converge)."""

from __future__ import annotations

import numpy as np

from ..sites import Sites
from .arrays import SiteEdges
from .kinds import NODE_INEXACT, NODE_VERTEX
from .sides import closest
from .vertices import solve_vertex


def split_four_way(node_ij, node_deg, node_xy, node_R, node_kind, labels, chain_ptr, pts, lab, chain_nodes,
                   sites: Sites, h: float) -> tuple[np.ndarray, ...]:
    """Split the four-site nodes whose sites have no common equidistant point into two Voronoi vertices.

    Where two vertices lie within a pixel of each other the pixels show one corner with four sites A, B, C, D
    (counter-clockwise from the north-east pixel). Either A and C touch along a short edge (vertices (A, B, C) and
    (C, D, A)) or B and D do; the right choice is the one whose vertices have the fourth site no nearer. The short
    edge becomes a chain of one (zero-length) crack whose ends the chain annotation solves exactly.
    Returns the grown arrays (node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab, chain_nodes).
    """
    H, W = labels.shape
    todo = np.flatnonzero((node_kind == NODE_INEXACT) & (node_deg == 4))
    if len(todo) == 0:
        return node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab, chain_nodes
    edges = SiteEdges(sites.real_ptr, sites.real_edge, sites.ring_xy, sites.ring_next)
    # Crack direction at each chain end: 0 N, 1 E, 2 S, 3 W (seen from the node).
    first = pts[chain_ptr[:-1] + 1] - pts[chain_ptr[:-1]]
    last = pts[chain_ptr[1:] - 2] - pts[chain_ptr[1:] - 1]

    def direction(d):
        return np.where(d[:, 0] > 0, 0, np.where(d[:, 1] > 0, 1, np.where(d[:, 0] < 0, 2, 3)))

    dir_first = direction(first)
    dir_last = direction(last)
    # The second vertices and their short edges, appended after the loop.
    new_nodes_ij: list[tuple[int, int]] = []
    new_xy: list[tuple[float, float]] = []
    new_R: list[float] = []
    new_pts: list[list[tuple[int, int]]] = []
    new_lab: list[list[tuple[int, int]]] = []
    new_cn: list[tuple[int, int]] = []
    node_xy = node_xy.copy()
    node_R = node_R.copy()
    node_kind = node_kind.copy()
    chain_nodes = chain_nodes.copy()
    nn = len(node_ij)
    for k in todo:
        ci, cj = int(node_ij[k, 0]), int(node_ij[k, 1])
        if not (1 <= ci < H and 1 <= cj < W):
            continue
        A, B, C, D = labels[ci, cj], labels[ci, cj - 1], labels[ci - 1, cj - 1], labels[ci - 1, cj]
        if min(A, B, C, D) < 0 or len({A, B, C, D}) < 4:
            continue
        x, y = float(node_xy[k, 0]), float(node_xy[k, 1])
        best = None
        for first_tri, second_tri, far1, far2, cracks2, touch in (((A, B, C), (C, D, A), D, B, (1, 2), (A, C)),
                                                                 ((B, C, D), (D, A, B), A, C, (0, 1), (B, D))):
            sol = []
            for tri, far in ((first_tri, far1), (second_tri, far2)):
                sides = np.array([[tri[0], 0, 0, 0], [tri[1], 0, 0, 0], [tri[2], 0, 0, 0], [0, 0, 0, 0]],
                                 dtype=np.int32)
                counts = np.array([1, 1, 1, 0], dtype=np.int32)
                vx, vy, R, ok = solve_vertex(sides, counts, 3, edges, x, y, h, sites.scale)
                dfar = closest(edges, np.array([far], dtype=np.int32), 1, vx, vy)[0]
                sol.append((vx, vy, R, ok and dfar >= R - 1e-9 * sites.scale))
            if sol[0][3] and sol[1][3]:
                best = (sol, cracks2, touch)
                break
        if best is None:
            continue
        sol, cracks2, touch = best
        node_xy[k] = sol[0][:2]
        node_R[k] = sol[0][2]
        node_kind[k] = NODE_VERTEX
        k2 = nn + len(new_nodes_ij)
        new_nodes_ij.append((ci, cj))
        new_xy.append(sol[1][:2])
        new_R.append(sol[1][2])
        # Chains leaving through the second vertex's cracks move to it (cracks E and S, or N and E).
        # Crack codes here: 0 N, 1 E, 2 S, 3 W; option 1 moves S and E, option 2 moves E and N.
        moved = (2, 1) if cracks2 == (1, 2) else (1, 0)
        for c in np.flatnonzero(chain_nodes[:, 0] == k):
            if dir_first[c] in moved:
                chain_nodes[c, 0] = k2
        for c in np.flatnonzero(chain_nodes[:, 1] == k):
            if dir_last[c] in moved:
                chain_nodes[c, 1] = k2
        # The short edge: left/right by where its two sites' closest points lie seen from vertex 1 to vertex 2.
        dx, dy = sol[1][0] - sol[0][0], sol[1][1] - sol[0][1]
        cp = closest(edges, np.array([touch[0]], dtype=np.int32), 1, sol[0][0], sol[0][1])
        left_first = dx * (cp[2] - sol[0][1]) - dy * (cp[1] - sol[0][0]) > 0
        new_pts.append([(ci, cj), (ci, cj)])
        new_lab.append([(touch[0], touch[1]) if left_first else (touch[1], touch[0]), (-1, -1)])
        new_cn.append((int(k), k2))
    if not new_nodes_ij:
        return node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab, chain_nodes
    m = len(new_nodes_ij)
    node_ij = np.vstack([node_ij, np.array(new_nodes_ij, dtype=np.int32)])
    node_deg = np.concatenate([node_deg, np.full(m, 3, dtype=np.int32)])
    node_deg[todo] = np.where(node_kind[todo] == NODE_VERTEX, 3, node_deg[todo])
    node_xy = np.vstack([node_xy, np.array(new_xy)])
    node_R = np.concatenate([node_R, np.array(new_R)])
    node_kind = np.concatenate([node_kind, np.full(m, NODE_VERTEX, dtype=np.int32)])
    pts = np.vstack([pts, np.array(new_pts, dtype=np.int32).reshape(-1, 2)])
    lab = np.vstack([lab, np.array(new_lab, dtype=np.int32).reshape(-1, 2)])
    chain_ptr = np.concatenate([chain_ptr, chain_ptr[-1] + 2 * np.arange(1, m + 1)])
    chain_nodes = np.vstack([chain_nodes, np.array(new_cn, dtype=np.int32)])
    return node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab, chain_nodes
