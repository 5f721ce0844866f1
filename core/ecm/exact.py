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

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from core.jitcache import jit
from core.scene.problems import InputError, Problem

from .annotate import NODE_TOUCH, NODE_VERTEX, interval_length
from .distance import feature_closest, ray_bisector
from .sites import Sites

#: Largest input coordinate after scaling (Boost.Polygon's input is 32-bit integers).
INPUT_RANGE = 2.0 ** 30


class ExactUnavailableError(InputError):
    """pyvoronoi (Boost.Polygon's Voronoi diagram) is not installed."""

    def __init__(self) -> None:
        super().__init__([Problem("backend", "the exact ECM backend needs pyvoronoi (`pip install pyvoronoi`)")])


def exact_available() -> bool:
    """Whether pyvoronoi (Boost.Polygon's diagram, which the exact backend and the local update read) imports."""
    try:
        import pyvoronoi  # noqa: F401
    except ImportError:
        return False
    return True


def _input_segments(sites: Sites) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The diagram's input segments: (start vertex, end vertex, ring edge) per segment.

    Every ring edge is one segment, except that a wall is cut at the obstacle vertices lying on it (an obstacle
    touching the bounds) and loses the pieces an obstacle's edge covers (an obstacle clipped by the bounds):
    Boost.Polygon's segments may meet only at their end points.
    """
    xy = sites.ring_xy
    nv = len(xy)
    w0 = int(sites.ring_ptr[-2])
    nxt = sites.ring_next
    seg_a: list[int] = []
    seg_b: list[int] = []
    seg_edge: list[int] = []
    tol = 1e-9 * sites.scale
    obst = xy[:w0]

    def along(u: int, v: int) -> bool:
        """Whether an obstacle edge runs from the point of vertex u to that of v."""
        at = np.flatnonzero((obst[:, 0] == xy[u, 0]) & (obst[:, 1] == xy[u, 1]))
        return bool(np.any((xy[nxt[at], 0] == xy[v, 0]) & (xy[nxt[at], 1] == xy[v, 1])))

    for e in range(w0, nv):
        f = int(nxt[e])
        d = xy[f] - xy[e]
        ll = float(np.dot(d, d))
        t = (obst - xy[e]) @ d / ll
        off = np.abs((obst[:, 0] - xy[e, 0]) * d[1] - (obst[:, 1] - xy[e, 1]) * d[0]) / np.sqrt(ll)
        on = np.flatnonzero((off <= tol) & (t > tol) & (t < 1.0 - tol))
        cut = [e, *on[np.argsort(t[on])].tolist(), f]
        for u, v in zip(cut[:-1], cut[1:]):
            # A piece along an obstacle clipped by the bounds is that obstacle's edge too: Boost.Polygon's
            # segments may not overlap, and the obstacle's edge bounds the free space there.
            if along(u, v) or along(v, u):
                continue
            seg_a.append(u)
            seg_b.append(v)
            seg_edge.append(e)
    return (np.concatenate([np.arange(w0), seg_a]).astype(np.int64),
            np.concatenate([nxt[:w0], seg_b]).astype(np.int64),
            np.concatenate([np.arange(w0), seg_edge]).astype(np.int64))


def _diagram(sites: Sites, box: np.ndarray | None = None):
    """Boost.Polygon's Voronoi diagram of the ring edges (those meeting ``box`` [x0, y0, x1, y1] only, where given):
    (vertex xy (n, 2), edge arrays, cell feature codes)."""
    try:
        import pyvoronoi
    except ImportError:
        raise ExactUnavailableError() from None
    xy = sites.ring_xy
    nv = len(xy)
    ox, oy = float(sites.bounds[0]), float(sites.bounds[1])
    ext = max(float(sites.bounds[2]) - ox, float(sites.bounds[3]) - oy)
    seg_a, seg_b, seg_edge = _input_segments(sites)
    if box is not None:
        pa, pb = xy[seg_a], xy[seg_b]
        near = ((np.minimum(pa[:, 0], pb[:, 0]) <= box[2]) & (np.maximum(pa[:, 0], pb[:, 0]) >= box[0])
                & (np.minimum(pa[:, 1], pb[:, 1]) <= box[3]) & (np.maximum(pa[:, 1], pb[:, 1]) >= box[1]))
        seg_a, seg_b, seg_edge = seg_a[near], seg_b[near], seg_edge[near]
    pv = pyvoronoi.Pyvoronoi(INPUT_RANGE / ext)
    a = (xy[seg_a] - (ox, oy)).tolist()
    b = (xy[seg_b] - (ox, oy)).tolist()
    for i in range(len(a)):
        pv.AddSegment([a[i], b[i]])
    pv.Construct()
    vx = np.array([(v.X, v.Y) for v in pv.GetVertices()], dtype=np.float64).reshape(-1, 2) + (ox, oy)
    edges = np.array([(e.start, e.end, e.cell, e.twin, e.is_primary) for e in pv.GetEdges()],
                     dtype=np.int64).reshape(-1, 5)
    cells = np.array([(c.site, c.source_category, c.contains_segment) for c in pv.GetCells()],
                     dtype=np.int64).reshape(-1, 3)
    # Feature of each cell: a ring vertex (segment start 1, end 2) or ring edge nv + i (Boost's source categories).
    site = cells[:, 0]
    feat = np.where(cells[:, 2] != 0, nv + seg_edge[site], np.where(cells[:, 1] == 2, seg_b[site], seg_a[site]))
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
    # An edge's cell: its own side. A vertex's: only a convex vertex (a left turn, the obstacle being on the left)
    # owns free space, its normal cone, right of either incident edge; a concave one's cell lies in the obstacle.
    convex = (a[:, 0] - p[:, 0]) * (b[:, 1] - a[:, 1]) - (a[:, 1] - p[:, 1]) * (b[:, 0] - a[:, 0]) > 0.0
    return np.where(is_edge, right_of_next, convex & (right_of_next | right_of_prev))


def _closest(sites: Sites, feat: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Closest points (k, 2) of points p on features feat (vertices, or whole ring edges)."""
    xy = sites.ring_xy
    nv = len(xy)
    is_edge = feat >= nv
    e = np.where(is_edge, feat - nv, feat)
    a = xy[e]
    d = xy[sites.ring_next[e]] - a
    t = np.einsum("ij,ij->i", p - a, d) / np.maximum(np.einsum("ij,ij->i", d, d), 1e-300)
    # The ends exactly (not a + 1.0 * d), as distance.segment_closest.
    q = np.where((t <= 0.0)[:, None], a, np.where((t >= 1.0)[:, None], xy[sites.ring_next[e]], a + t[:, None] * d))
    return np.where(is_edge[:, None], q, a)


def _chains(n_vert: int, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Walk the free edges (k undirected, ``start[k] -> end[k]``) into chains between vertices of degree != 2.

    Returns the chains' signed edge steps one after the other (k walked forward as k, backward as ~k), each chain's
    number of steps, and the degrees. A vertex's edges are tried in the order of k (forward before backward).
    """
    deg = np.bincount(np.concatenate([start, end]), minlength=n_vert)
    k = np.arange(len(start), dtype=np.int64)
    ent_v = np.column_stack([start, end]).ravel()
    order = np.argsort(ent_v, kind="stable")
    adj = np.column_stack([k, ~k]).ravel()[order]
    ptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    steps, lengths = _walk_chains(np.ascontiguousarray(start, dtype=np.int64),
                                  np.ascontiguousarray(end, dtype=np.int64), deg.astype(np.int64), ptr, adj)
    return steps, lengths, deg


@jit
def _walk_chains(start, end, deg, ptr, adj):
    """The chains of ``_chains``: first from every vertex of degree 1 or >= 3 in turn (its edges in ``adj[ptr[v]:
    ptr[v + 1]]`` order), then the closed loops from their lowest edge; (steps, steps per chain)."""
    m = start.shape[0]
    done = np.zeros(m, dtype=np.bool_)
    steps = np.empty(m, dtype=np.int64)
    lengths = np.empty(m + 1, dtype=np.int64)
    ns = 0
    nc = 0
    for v0 in range(deg.shape[0] + m):
        if v0 < deg.shape[0]:
            if deg[v0] == 2 or deg[v0] == 0:
                continue
            a = ptr[v0]
            b = ptr[v0 + 1]
        else:
            a = -1
            b = 0
        for z in range(a, b):
            step = adj[z] if z >= 0 else v0 - deg.shape[0]
            if done[step if step >= 0 else ~step]:
                continue
            first = ns
            while True:
                e = step if step >= 0 else ~step
                done[e] = True
                steps[ns] = step
                ns += 1
                v = end[e] if step >= 0 else start[e]
                if deg[v] != 2:
                    break
                found = False
                for y in range(ptr[v], ptr[v + 1]):
                    if not done[adj[y] if adj[y] >= 0 else ~adj[y]]:
                        step = adj[y]
                        found = True
                        break
                if not found:
                    break
            lengths[nc] = ns - first
            nc += 1
    return steps[:ns], lengths[:nc]


@jit
def _minimum(xy, ring_next, normal, fl, fr, e0, e1, tol, out):
    """Write into ``out`` (7) the clearance minimum strictly inside the piece between event rows e0 and e1 with
    features fl, fr, and return whether there is one (as ``annotate`` inserts it on the GPU path).

    Two vertices: the midpoint between them; a vertex and an edge: the parabola's apex (half the vertex's height
    over the edge's line), where its foot lies inside the piece; two edges: the minimum is at an end.
    """
    nv = xy.shape[0]
    if fl < 0 or fr < 0:
        return False
    if fl < nv and fr < nv:
        mx = 0.5 * (xy[fl, 0] + xy[fr, 0])
        my = 0.5 * (xy[fl, 1] + xy[fr, 1])
        dx = e1[0] - e0[0]
        dy = e1[1] - e0[1]
        dd = np.hypot(dx, dy)
        if dd <= 0.0:
            return False
        u = ((mx - e0[0]) * dx + (my - e0[1]) * dy) / dd
        if not (u > tol and u < dd - tol):
            return False
        out[0] = mx
        out[1] = my
        out[2] = 0.5 * np.hypot(xy[fl, 0] - xy[fr, 0], xy[fl, 1] - xy[fr, 1])
        out[3] = xy[fl, 0]
        out[4] = xy[fl, 1]
        out[5] = xy[fr, 0]
        out[6] = xy[fr, 1]
        return True
    if (fl < nv) == (fr < nv):
        return False
    if fl < nv:
        v = fl
        e = fr - nv
        col = 5
    else:
        v = fr
        e = fl - nv
        col = 3
    nx = normal[e, 0]
    ny = normal[e, 1]
    hgt = nx * (xy[v, 0] - xy[e, 0]) + ny * (xy[v, 1] - xy[e, 1])
    if hgt <= 0.0:
        return False
    f = ring_next[e]
    dx = xy[f, 0] - xy[e, 0]
    dy = xy[f, 1] - xy[e, 1]
    elen2 = dx * dx + dy * dy
    fx = xy[v, 0] - hgt * nx
    fy = xy[v, 1] - hgt * ny
    ua = ((e0[col] - xy[e, 0]) * dx + (e0[col + 1] - xy[e, 1]) * dy) / elen2
    ub = ((e1[col] - xy[e, 0]) * dx + (e1[col + 1] - xy[e, 1]) * dy) / elen2
    uf = ((fx - xy[e, 0]) * dx + (fy - xy[e, 1]) * dy) / elen2
    elen = np.sqrt(elen2)
    if not (uf > min(ua, ub) + tol / elen and uf < max(ua, ub) - tol / elen):
        return False
    out[0] = xy[v, 0] - 0.5 * hgt * nx
    out[1] = xy[v, 1] - 0.5 * hgt * ny
    out[2] = 0.5 * hgt
    if fl < nv:
        out[3] = xy[v, 0]
        out[4] = xy[v, 1]
        out[5] = fx
        out[6] = fy
    else:
        out[3] = fx
        out[4] = fy
        out[5] = xy[v, 0]
        out[6] = xy[v, 1]
    return True


@jit
def _on_normal(xy, ring_next, normal, f0, f1):
    """The (vertex, edge) of a change of closest feature f0 -> f1 between a ring vertex and an edge ending there,
    or (-1, -1): the event then lies on the edge's normal line through the vertex (ECM section II-B)."""
    nv = xy.shape[0]
    if f0 < 0 or f1 < 0 or (f0 < nv) == (f1 < nv):
        return -1, -1
    v = f0 if f0 < nv else f1
    e = (f1 if f0 < nv else f0) - nv
    if e != v and ring_next[e] != v:
        return -1, -1
    return v, e


@jit
def _refine_events(loc, loc_f, cptr, xy, ring_next, normal):
    """Move the inner rows where one side's feature changes onto that vertex's normal line, at the distance where
    the other side's feature is as far (``distance.ray_bisector``, closed form): exact to rounding, instead of
    Boost's vertices from the integer input. Closest points and clearance follow."""
    for c in range(cptr.shape[0] - 1):
        for q in range(cptr[c] + 1, cptr[c + 1] - 1):
            for side in range(2):
                v, e = _on_normal(xy, ring_next, normal, loc_f[q - 1, side], loc_f[q, side])
                other = loc_f[q, 1 - side]
                if v < 0 or other != loc_f[q - 1, 1 - side]:
                    continue
                t = ray_bisector(xy, ring_next, normal, other, xy[v, 0], xy[v, 1], normal[e, 0], normal[e, 1])
                if not np.isfinite(t) or t < 0.0:
                    continue
                bx = xy[v, 0] + t * normal[e, 0]
                by = xy[v, 1] + t * normal[e, 1]
                d, ox, oy = feature_closest(xy, ring_next, other, bx, by)
                loc[q, 0] = bx
                loc[q, 1] = by
                loc[q, 2] = t
                loc[q, 3 + 2 * side] = xy[v, 0]
                loc[q, 4 + 2 * side] = xy[v, 1]
                loc[q, 5 - 2 * side] = ox
                loc[q, 6 - 2 * side] = oy
                break


@jit
def _events(loc, loc_f, cptr, xy, ring_next, normal, tol):
    """Event rows of every chain from its diagram vertices ``loc[cptr[c]:cptr[c+1]]`` (9 columns, features in
    ``loc_f``): coincident inner rows merged, each piece's clearance minimum inserted, arc lengths filled in.

    Returns ``(ev_ptr (nc+1,), ev (n, 9), ev_f (n, 2) int32, ok (nc,) bool)`` as ``annotate.annotate_chains``.
    """
    nc = cptr.shape[0] - 1
    n = loc.shape[0]
    ev = np.zeros((2 * n, 9), dtype=np.float64)
    ev_f = np.empty((2 * n, 2), dtype=np.int32)
    ev_ptr = np.zeros(nc + 1, dtype=np.int64)
    ok = np.zeros(nc, dtype=np.bool_)
    mn = np.empty(7, dtype=np.float64)
    m = 0
    for c in range(nc):
        first = m
        a = cptr[c]
        b = cptr[c + 1]
        for q in range(a, b):
            if q > a and q < b - 1 and np.hypot(loc[q, 0] - ev[m - 1, 0], loc[q, 1] - ev[m - 1, 1]) <= tol:
                ev_f[m - 1, 0] = loc_f[q, 0]
                ev_f[m - 1, 1] = loc_f[q, 1]
                continue
            for z in range(7):
                ev[m, z] = loc[q, z]
            ev_f[m, 0] = loc_f[q, 0]
            ev_f[m, 1] = loc_f[q, 1]
            m += 1
            if q == b - 1:
                break
            if _minimum(xy, ring_next, normal, loc_f[q, 0], loc_f[q, 1], loc[q], loc[q + 1], tol, mn):
                for z in range(7):
                    ev[m, z] = mn[z]
                ev_f[m, 0] = loc_f[q, 0]
                ev_f[m, 1] = loc_f[q, 1]
                m += 1
        if m - first < 2:
            m = first
        else:
            ok[c] = True
            ev[first, 7] = 0.0
            for q in range(first + 1, m):
                ev[q, 7] = ev[q - 1, 7] + interval_length(
                    ev_f[q - 1, 0], ev_f[q - 1, 1], (ev[q - 1, 0], ev[q - 1, 1]), (ev[q, 0], ev[q, 1]),
                    (ev[q - 1, 3], ev[q - 1, 4]), (ev[q, 3], ev[q, 4]), (ev[q - 1, 5], ev[q - 1, 6]),
                    (ev[q, 5], ev[q, 6]), xy, ring_next, normal)
        ev_ptr[c + 1] = m
    return ev_ptr, ev[:m].copy(), ev_f[:m].copy(), ok


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (restored on exit, as it was).

    pyvoronoi hands the diagram back as one Python object per vertex, edge and cell (some 14,000 on the city, none in
    a reference cycle); their allocation alone triggers generation-2 collections that scan the whole process heap,
    which measured 40 % of the ``voronoi`` phase on the city (more in a process holding a large heap).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def exact_chains(sites: Sites, box: np.ndarray | None = None) -> tuple:
    """The annotated chains of the exact diagram, in ``graph.assemble``'s input form; with ``box`` [x0, y0, x1, y1],
    the diagram of the ring edges that meet the box only (``core.ecm.update``: exact where the empty disk of a
    point lies inside the box).

    Returns ``(chain_ptr, chain_nodes, node_xy, node_R, node_kind, ev_ptr, ev, ev_f, ok, stats)``; ``chain_ptr``
    counts the diagram edges of each chain (the GPU path counts pixel cracks there).
    """
    with _collector_paused():
        return _exact_chains(sites, box)


def _exact_chains(sites: Sites, box: np.ndarray | None) -> tuple:
    """``exact_chains`` with the collector paused."""
    t0 = time.perf_counter()
    vx, E, feat = _diagram(sites, box)
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
    steps, m_c, deg = _chains(len(used), s_loc, e_loc)
    nc = len(m_c)
    # One row per diagram vertex along each chain: the chain's start, then the end of every step.
    sptr = np.concatenate([[0], np.cumsum(m_c)])
    cptr = sptr + np.arange(nc + 1)
    k = np.where(steps >= 0, steps, ~steps)
    fwd = steps >= 0
    rows = len(steps) + nc
    chain_of_row = np.repeat(np.arange(nc), m_c + 1)
    pos = np.arange(rows) - cptr[chain_of_row]
    step_of_row = sptr[chain_of_row] + np.minimum(pos, m_c[chain_of_row] - 1)
    verts = np.where(pos == 0, np.where(fwd, s_loc[k], e_loc[k])[step_of_row],
                     np.where(fwd, e_loc[k], s_loc[k])[sptr[chain_of_row] + np.maximum(pos - 1, 0)])
    lf = np.where(fwd, fl[k], fr[k])[step_of_row]
    rf = np.where(fwd, fr[k], fl[k])[step_of_row]
    B = node_xy[verts]
    L = _closest(sites, lf, B)
    R = _closest(sites, rf, B)
    clear = np.hypot(B[:, 0] - L[:, 0], B[:, 1] - L[:, 1])
    loc = np.column_stack([B, clear, L, R, np.zeros(rows), np.zeros(rows)])
    loc_f = np.column_stack([lf, rf]).astype(np.int32)
    last = cptr[1:] - 1
    loc_f[last] = -1
    node_R = np.zeros(len(used))
    node_R[verts[cptr[:-1]]] = clear[cptr[:-1]]
    node_R[verts[last]] = clear[last]
    tol = 1e-9 * sites.scale
    _refine_events(loc, loc_f, cptr, sites.ring_xy, sites.ring_next, sites.edge_normal)
    ev_ptr, ev, ev_f, ok = _events(loc, loc_f, cptr, sites.ring_xy, sites.ring_next, sites.edge_normal, tol)
    chain_nodes = np.column_stack([verts[cptr[:-1]], verts[last]]).astype(np.int32).reshape(-1, 2)
    node_kind = np.where((deg == 1) & (node_R <= tol), NODE_TOUCH, NODE_VERTEX).astype(np.int32)
    # graph.assemble drops short chains only at NODE_OPEN ends, which this backend never has.
    chain_ptr = cptr.astype(np.int64)
    stats: dict = {"diagram_vertices": int(len(vx)), "diagram_edges": int(len(E) // 2), "free_edges": int(len(h)),
             "voronoi_seconds": t_diagram}
    if box is not None:
        # A vertex with an unbounded edge of the partial diagram may lack an edge of the whole one there.
        ends = np.concatenate([start[(prim != 0) & (end < 0)], end[(prim != 0) & (start < 0)]])
        unbounded = np.zeros(len(vx), dtype=bool)
        unbounded[ends[ends >= 0]] = True
        stats["open_chain"] = np.logical_or.reduceat(unbounded[used[verts]], cptr[:-1]) if nc else np.zeros(0, bool)
    return chain_ptr, chain_nodes, node_xy, node_R, node_kind, ev_ptr, ev, ev_f, ok, stats
