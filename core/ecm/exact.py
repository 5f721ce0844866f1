"""The ECM from an exact segment Voronoi diagram on the CPU (Boost.Polygon's sweep, through pyvoronoi).

The exact backend needs no OpenGL. Every ring edge of ``Sites`` is one input segment; Boost.Polygon builds the
Voronoi diagram of the segments and of their end points (Karavelas 2004; integer input, exact predicates), so its
*primary* edges are the bisectors between two distinct features, and its *secondary* edges (a segment against its
own end point) lie on the normal half-lines of the obstacle vertices. The ECM is read off it directly:

- medial axis: the primary edges in the free space (right of the ring edges, ECM section II-A);
- ECM vertices: diagram vertices where one or three and more of those edges meet (degree 1: a concave corner of the
  free space, clearance 0); chains of degree-2 vertices between them are the ECM edges;
- event points (ECM section II-B): the degree-2 vertices, where a secondary edge meets the chain, i.e. where the
  closest feature of one side changes; the closest points follow from the features in closed form, and each
  piece's clearance minimum is inserted as the GPU path does (``annotate``).

Coordinates are shifted to the bounds' corner and scaled so that the largest fits in 2**30 before Boost rounds them
to integers: vertices are exact to a few 1e-9 of the scene's size (1e-6 m on the 500 m city).
"""

from __future__ import annotations

import time

import numpy as np

from core.jitcache import jit
from core.scene.problems import InputError, Problem

from .annotate import NODE_TOUCH, NODE_VERTEX, interval_length
from .sites import Sites

#: Largest input coordinate after scaling (Boost.Polygon's input is 32-bit integers).
INPUT_RANGE = 2.0 ** 30


class ExactUnavailableError(InputError):
    """pyvoronoi (Boost.Polygon's Voronoi diagram) is not installed."""

    def __init__(self) -> None:
        super().__init__([Problem("backend", "the exact ECM backend needs pyvoronoi (`pip install pyvoronoi`)")])


def _diagram(sites: Sites):
    """Boost.Polygon's Voronoi diagram of the ring edges: (vertex xy (n, 2), edge arrays, cell feature codes)."""
    try:
        import pyvoronoi
    except ImportError:
        raise ExactUnavailableError() from None
    xy = sites.ring_xy
    nv = len(xy)
    ox, oy = float(sites.bounds[0]), float(sites.bounds[1])
    ext = max(float(sites.bounds[2]) - ox, float(sites.bounds[3]) - oy)
    pv = pyvoronoi.Pyvoronoi(INPUT_RANGE / ext)
    a = (xy - (ox, oy)).tolist()
    b = (xy[sites.ring_next] - (ox, oy)).tolist()
    for i in range(nv):
        pv.AddSegment([a[i], b[i]])
    pv.Construct()
    vx = np.array([(v.X, v.Y) for v in pv.GetVertices()], dtype=np.float64).reshape(-1, 2) + (ox, oy)
    edges = np.array([(e.start, e.end, e.cell, e.twin, e.is_primary) for e in pv.GetEdges()],
                     dtype=np.int64).reshape(-1, 5)
    cells = np.array([(c.site, c.source_category, c.contains_segment) for c in pv.GetCells()],
                     dtype=np.int64).reshape(-1, 3)
    # Feature of each cell: a ring vertex (segment start 1, end 2) or ring edge nv + i (Boost's source categories).
    feat = np.where(cells[:, 2] != 0, nv + cells[:, 0],
                    np.where(cells[:, 1] == 2, sites.ring_next[cells[:, 0]], cells[:, 0]))
    return vx, edges, feat


def _free_side(sites: Sites, feat: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Whether points m (k, 2), each closest to feature feat[k], lie in the free space (right of the ring edges)."""
    xy = sites.ring_xy
    nv = len(xy)
    is_edge = feat >= nv
    e = np.where(is_edge, feat - nv, feat)
    a = xy[e]
    b = xy[sites.ring_next[e]]
    right_of_next = (b[:, 0] - a[:, 0]) * (m[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (m[:, 0] - a[:, 0]) < 0.0
    p = xy[sites.ring_prev[e]]
    right_of_prev = (a[:, 0] - p[:, 0]) * (m[:, 1] - p[:, 1]) - (a[:, 1] - p[:, 1]) * (m[:, 0] - p[:, 0]) < 0.0
    # An edge's cell: its own side; a vertex's: right of either incident edge (its free normal cone, or outside
    # the obstacle's concave corner).
    return np.where(is_edge, right_of_next, right_of_next | right_of_prev)


def _closest(sites: Sites, feat: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Closest points (k, 2) of points p on features feat (vertices, or whole ring edges)."""
    xy = sites.ring_xy
    nv = len(xy)
    is_edge = feat >= nv
    e = np.where(is_edge, feat - nv, feat)
    a = xy[e]
    d = xy[sites.ring_next[e]] - a
    t = np.einsum("ij,ij->i", p - a, d) / np.maximum(np.einsum("ij,ij->i", d, d), 1e-300)
    q = np.where((t <= 0.0)[:, None], a, np.where((t >= 1.0)[:, None], a + d, a + t[:, None] * d))
    q = np.where((t >= 1.0)[:, None], xy[sites.ring_next[e]], q)
    return np.where(is_edge[:, None], q, a)


def _chains(n_vert: int, start: np.ndarray, end: np.ndarray) -> tuple[list[list[int]], np.ndarray]:
    """Walk the free edges (k undirected, ``start[k] -> end[k]``) into chains between vertices of degree != 2.

    Returns the chains as lists of signed edge steps (k walked forward as k, backward as ~k) and the degrees.
    """
    deg = np.bincount(np.concatenate([start, end]), minlength=n_vert)
    out: list[list[int]] = [[] for _ in range(n_vert)]
    for k, (a, b) in enumerate(zip(start.tolist(), end.tolist())):
        out[a].append(k)
        out[b].append(~k)
    done = np.zeros(len(start), dtype=bool)
    chains: list[list[int]] = []

    def walk(step: int) -> list[int]:
        steps = [step]
        while True:
            k = step if step >= 0 else ~step
            done[k] = True
            v = end[k] if step >= 0 else start[k]
            if deg[v] != 2:
                return steps
            nxt = [s for s in out[v] if not done[s if s >= 0 else ~s]]
            if not nxt:
                return steps
            step = nxt[0]
            steps.append(step)

    for v in np.flatnonzero((deg != 2) & (deg > 0)).tolist():
        for step in out[v]:
            if not done[step if step >= 0 else ~step]:
                chains.append(walk(step))
    for k in np.flatnonzero(~done).tolist():
        if not done[k]:
            chains.append(walk(k))
    return chains, deg


@jit
def _arc_lengths(ev, ev_f, ev_ptr, xy, ring_next, normal):
    """Fill ev[:, 7] with the arc length from each chain's first event (``annotate.interval_length`` per piece)."""
    for c in range(ev_ptr.shape[0] - 1):
        a = ev_ptr[c]
        ev[a, 7] = 0.0
        for q in range(a + 1, ev_ptr[c + 1]):
            ev[q, 7] = ev[q - 1, 7] + interval_length(ev_f[q - 1, 0], ev_f[q - 1, 1], ev[q - 1, 0], ev[q - 1, 1],
                                                      ev[q, 0], ev[q, 1], ev[q - 1, 3], ev[q - 1, 4], ev[q, 3],
                                                      ev[q, 4], ev[q - 1, 5], ev[q - 1, 6], ev[q, 5], ev[q, 6], xy,
                                                      ring_next, normal)


def _minimum(sites: Sites, fl: int, fr: int, e0: np.ndarray, e1: np.ndarray, tol: float):
    """The clearance minimum strictly inside the piece between event rows e0 and e1 (features fl, fr), or None.

    Two vertices: the midpoint between them; a vertex and an edge: the parabola's apex (half the vertex's height
    over the edge's line), where its foot lies inside the piece; two edges: the minimum is at an end.
    """
    xy = sites.ring_xy
    nv = len(xy)
    if fl < nv and fr < nv:
        m = 0.5 * (xy[fl] + xy[fr])
        d = e1[0:2] - e0[0:2]
        dd = float(np.hypot(*d))
        if dd <= 0.0:
            return None
        u = float(np.dot(m - e0[0:2], d)) / dd
        if not tol < u < dd - tol:
            return None
        return [m[0], m[1], 0.5 * float(np.hypot(*(xy[fl] - xy[fr]))), *xy[fl], *xy[fr]]
    if (fl < nv) == (fr < nv):
        return None
    v, e, side = (fl, fr - nv, 1) if fl < nv else (fr, fl - nv, 0)
    n = sites.edge_normal[e]
    hgt = float(np.dot(n, xy[v] - xy[e]))
    if hgt <= 0.0:
        return None
    d = xy[sites.ring_next[e]] - xy[e]
    elen2 = float(np.dot(d, d))
    foot = xy[v] - hgt * n

    def par(p):
        return float(np.dot(p - xy[e], d)) / elen2

    col = 5 if side == 1 else 3
    ua, ub = par(e0[col:col + 2]), par(e1[col:col + 2])
    uf = par(foot)
    elen = np.sqrt(elen2)
    if not min(ua, ub) + tol / elen < uf < max(ua, ub) - tol / elen:
        return None
    mx, my = xy[v] - 0.5 * hgt * n
    return [mx, my, 0.5 * hgt, *(xy[v] if fl < nv else foot), *(foot if fl < nv else xy[v])]


def exact_chains(sites: Sites):
    """The annotated chains of the exact diagram, in ``graph.assemble``'s input form.

    Returns ``(chain_ptr, chain_nodes, node_xy, node_R, node_kind, ev_ptr, ev, ev_f, ok, stats)``; ``chain_ptr``
    counts the diagram edges of each chain (the GPU path counts pixel cracks there).
    """
    t0 = time.perf_counter()
    vx, E, feat = _diagram(sites)
    t_diagram = time.perf_counter() - t0
    start, end, cell, twin, prim = E.T
    keep = (prim != 0) & (start >= 0) & (end >= 0) & (np.arange(len(E)) < twin)
    h = np.flatnonzero(keep)
    fl = feat[cell[h]]
    fr = feat[cell[twin[h]]]
    m = 0.5 * (vx[start[h]] + vx[end[h]])
    # Classify by a side that is an edge where there is one: its test is a single line.
    test = np.where(fr >= len(sites.ring_xy), fr, fl)
    free = _free_side(sites, test, m)
    h = h[free]
    fl = fl[free]
    fr = fr[free]
    used, inv = np.unique(np.concatenate([start[h], end[h]]), return_inverse=True)
    node_xy = np.ascontiguousarray(vx[used])
    s_loc = inv[: len(h)]
    e_loc = inv[len(h):]
    chains, deg = _chains(len(used), s_loc, e_loc)
    tol = 1e-9 * sites.scale
    rows: list[list[float]] = []
    rows_f: list[tuple[int, int]] = []
    ev_ptr = [0]
    chain_nodes = []
    node_R = np.zeros(len(used))
    for steps in chains:
        k = np.array([s if s >= 0 else ~s for s in steps])
        fwd = np.array([s >= 0 for s in steps])
        verts = np.concatenate([[s_loc[k[0]] if fwd[0] else e_loc[k[0]]], np.where(fwd, e_loc[k], s_loc[k])])
        lf = np.where(fwd, fl[k], fr[k])
        rf = np.where(fwd, fr[k], fl[k])
        lf_at = np.concatenate([lf, lf[-1:]])
        rf_at = np.concatenate([rf, rf[-1:]])
        B = node_xy[verts]
        L = _closest(sites, lf_at, B)
        R = _closest(sites, rf_at, B)
        clear = np.hypot(*(B - L).T)
        node_R[verts[0]] = clear[0]
        node_R[verts[-1]] = clear[-1]
        loc = np.column_stack([B, clear, L, R, np.zeros(len(B)), np.zeros(len(B))])
        loc_f = np.column_stack([lf_at, rf_at])
        loc_f[-1] = -1
        first = len(rows)
        for q in range(len(loc)):
            if q > 0 and q < len(loc) - 1 and np.hypot(*(loc[q, :2] - rows[-1][:2])) <= tol:
                rows_f[-1] = (int(loc_f[q, 0]), int(loc_f[q, 1]))
                continue
            rows.append(loc[q].tolist())
            rows_f.append((int(loc_f[q, 0]), int(loc_f[q, 1])))
            if q == len(loc) - 1:
                break
            mn = _minimum(sites, int(loc_f[q, 0]), int(loc_f[q, 1]), loc[q], loc[q + 1], tol)
            if mn is not None:
                rows.append([*mn, 0.0, 0.0])
                rows_f.append((int(loc_f[q, 0]), int(loc_f[q, 1])))
        if len(rows) - first < 2:
            del rows[first:]
            del rows_f[first:]
            continue
        ev_ptr.append(len(rows))
        chain_nodes.append((int(verts[0]), int(verts[-1])))
    ev = np.array(rows, dtype=np.float64).reshape(-1, 9)
    ev_f = np.array(rows_f, dtype=np.int32).reshape(-1, 2)
    ev_ptr_a = np.array(ev_ptr, dtype=np.int64)
    _arc_lengths(ev, ev_f, ev_ptr_a, sites.ring_xy, sites.ring_next, sites.edge_normal)
    nc = len(chain_nodes)
    node_kind = np.where((deg == 1) & (node_R <= tol), NODE_TOUCH, NODE_VERTEX).astype(np.int32)
    # graph.assemble drops short chains only at NODE_OPEN ends, which this backend never has.
    chain_ptr = np.cumsum(np.concatenate([[0], np.diff(ev_ptr_a) + 1])).astype(np.int64)
    stats = {"diagram_vertices": int(len(vx)), "diagram_edges": int(len(E) // 2), "free_edges": int(len(h)),
             "voronoi_seconds": t_diagram}
    return (chain_ptr, np.array(chain_nodes, dtype=np.int32).reshape(-1, 2), node_xy, node_R, node_kind,
            ev_ptr_a, ev, ev_f, np.ones(nc, dtype=bool), stats)
