"""Visible intervals of a route window by the shadows of the obstacle edges (MIRAN 2013, section 3.2).

A route piece A-B is visible from x where no obstacle edge lies strictly between them: the visible part of A-B is
[0, 1] minus the union of the *shadows* that the edges inside the open triangle x-A-B cast on it from x. Only the
obstacle outlines matter here, never the terrain boundaries, so the cost does not grow with the terrain detail the
triangle expansion of ``visibility`` has to cross: the edges come from the clearance grid (``E, EG, ES, EI``, see
``clearance``) over the triangle's bounding box.

With barycentric coordinates p = x + alpha (A - x) + beta (B - x), the open triangle is alpha, beta >= 0 and
alpha + beta < 1, and a point casts its shadow at u = beta / (alpha + beta) on A + u (B - A); an edge's coordinates
are linear along it, so its shadow is the u-range of its piece clipped to the triangle (Liang-Barsky on three
half-planes). The closed free space is what counts (a line of sight may graze a corner or run along a wall): an
edge seen edge-on or touching A-B casts an empty shadow, and shadows that meet at a point join.

Where the floating-point geometry would be ill-conditioned (x on or within ``NEAR_RTOL`` of the line A-B or of an
obstacle edge, or more than ``MAX_SHADOWS`` shadows) the piece is left to the exact triangle expansion
(``visibility.segment_visible_parts``); ``visible_intervals_by_shadows`` does so itself. Tolerance: as in
``visibility``, shadows and visible pieces shorter than ``MERGE_TOL`` times the scene size are dropped.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from .arrays import EdgeGrid, MeshArrays, RouteSpan, ShadowWork
from .kept_edges import cell_span, collect_kept, edge_misses_box, gather_cells
from .predicates import orient
from .visibility import (
    MERGE_TOL,
    append_interval,
    clip_nonnegative,
    drop_last_grazing,
    segment_visible_parts,
    sort_rows,
    visible_intervals,
    visible_start,
    window_piece,
)

# Relative distance (to the triangle's size) under which x counts as lying on a line: the exact expansion decides.
NEAR_RTOL = 1e-9
# Shadows one piece may collect before the exact expansion takes over (a cluttered triangle).
MAX_SHADOWS = 256
# Result of ``segment_shadow_parts`` when the exact expansion must decide.
DEFER = -1
# Result of ``shadow_intervals`` when a piece needs the exact expansion.
NEEDS_EXPANSION = -2


@jit(noalloc=True)
def collect_edges(C: EdgeGrid, xmin, ymin, xmax, ymax, cand, stamp) -> int:
    """The edges of a gridded edge set (``E`` (ne, 4) with the CSR grid ``EG, ES, EI``, see ``clearance``) whose
    bounding boxes meet the box [xmin, xmax] x [ymin, ymax], into ``cand`` (>= ne,) int64; returns how many.
    ``stamp`` (ne + 1,) int64 marks the edges seen by this query (``stamp[ne]`` is the counter), so that an edge
    listed in several grid cells is taken once."""
    E, EG, ES, EI = C
    box = (xmin, ymin, xmax, ymax)
    k, _ = gather_cells(E, ES, EI, int(EG[4]), cell_span(EG, xmin, ymin, xmax, ymax), box, box, cand, stamp, cand, 0)
    return k


@jit(inline=True, noalloc=True)
def first_meeting(E, cand, nc, xmin, ymin, xmax, ymax) -> int:
    """Index in ``cand[:nc]`` of the first edge of E whose bounding box meets the box [xmin, xmax] x [ymin, ymax];
    -1 when none does."""
    for c in range(nc):
        if not edge_misses_box(E, cand[c], xmin, ymin, xmax, ymax):
            return c
    return -1


@jit(inline=True, noalloc=True)
def box_meets_any(E, cand, nc, xmin, ymin, xmax, ymax) -> bool:
    """Does the bounding box of any edge E[cand[:nc]] meet the box [xmin, xmax] x [ymin, ymax]?"""
    return first_meeting(E, cand, nc, xmin, ymin, xmax, ymax) >= 0


@jit(noalloc=True)
def window_edges(C: EdgeGrid, x, y, xmin, ymin, xmax, ymax, cand, stamp) -> int:
    """The obstacle edges meeting the box (``collect_edges``) into ``cand``; returns their number, or DEFER when
    one passes through or next to x (see the module docstring)."""
    E = C.E
    k = collect_edges(C, xmin, ymin, xmax, ymax, cand, stamp)
    return edges_or_defer(E, cand, k, x, y, xmin, ymin, xmax, ymax)


@jit(noalloc=True)
def kept_window_edges(grid, x, y, xmin, ymin, xmax, ymax, cand, stamp, K, i) -> int:
    """``window_edges`` of the obstacle edges ``grid`` (E, EG, ES, EI) from agent i's kept list
    (``kept_edges.collect_kept``): the same edges in the same order, or DEFER."""
    k = collect_kept(grid, xmin, ymin, xmax, ymax, cand, stamp, K, i)
    return edges_or_defer(grid[0], cand, k, x, y, xmin, ymin, xmax, ymax)


@jit(inline=True, noalloc=True)
def edges_or_defer(E, cand, k, x, y, xmin, ymin, xmax, ymax) -> int:
    """k, the number of the window's edges ``cand[:k]``, or DEFER when one of them passes through or next to x."""
    near = NEAR_RTOL * max(xmax - xmin, ymax - ymin)
    for c in range(k):
        e = cand[c]
        px, py = E[e, 0], E[e, 1]
        ex = E[e, 2] - px
        ey = E[e, 3] - py
        # The test below needs x within near + NEAR_RTOL |e| of the edge: twice that, plus the coordinates'
        # rounding, around the edge's box rejects the other edges without the square root.
        reach = 2.0 * (near + NEAR_RTOL * (abs(ex) + abs(ey))) + 1e-12 * (abs(x) + abs(y) + abs(px) + abs(py)
                                                                         + abs(ex) + abs(ey))
        if (x < min(px, E[e, 2]) - reach or x > max(px, E[e, 2]) + reach or y < min(py, E[e, 3]) - reach
                or y > max(py, E[e, 3]) + reach):
            continue
        el = math.sqrt(ex * ex + ey * ey)
        # An edge through or next to x: x may stand on an outline with the obstacle right beside the sight lines
        # (no edge crosses them then), and the shadows' ends are ill-conditioned there.
        if el > 0.0 and abs(ex * (y - py) - ey * (x - px)) <= near * el:
            w = ((x - px) * ex + (y - py) * ey) / (el * el)
            if -NEAR_RTOL <= w <= 1.0 + NEAR_RTOL:
                return DEFER
    return k


@jit(noalloc=True)
def segment_shadow_parts(E, cand, nc, x, y, ax, ay, bx, by, tol_u, sh, parts) -> int:
    """Visible parts of A-B from x as sorted, disjoint u-intervals [u0, u1] of A + u (B - A) in ``parts`` (k, 2);
    returns k, or DEFER when the exact expansion must decide (see the module docstring).

    ``cand[:nc]`` are the obstacle edges that may lie in the triangle x-A-B (``window_edges``, none of them
    through x); ``sh`` (MAX_SHADOWS, 2) float64 is work space. Shadows and visible pieces shorter than ``tol_u``
    (in u) are dropped."""
    ux = ax - x
    uy = ay - y
    vx = bx - x
    vy = by - y
    D = ux * vy - uy * vx
    la = math.sqrt(ux * ux + uy * uy)
    lb = math.sqrt(vx * vx + vy * vy)
    if not (abs(D) > NEAR_RTOL * la * lb) or la == 0.0 or lb == 0.0 or tol_u >= 0.5:
        return DEFER  # x (nearly) on the line A-B, or a piece about as short as the tolerance
    xmin = min(x, ax, bx)
    xmax = max(x, ax, bx)
    ymin = min(y, ay, by)
    ymax = max(y, ay, by)
    inv = 1.0 / D
    sab = orient(ax, ay, bx, by, x, y)  # the side of A-B that x is on
    k = 0
    for c in range(nc):
        e = cand[c]
        if edge_misses_box(E, e, xmin, ymin, xmax, ymax):
            continue
        px, py, qx, qy = E[e, 0], E[e, 1], E[e, 2], E[e, 3]
        # Barycentric coordinates of the edge's ends: alpha along x->A, beta along x->B.
        pxr = px - x
        pyr = py - y
        qxr = qx - x
        qyr = qy - y
        a0 = (pxr * vy - pyr * vx) * inv
        a1 = (qxr * vy - qyr * vx) * inv
        t0, t1 = clip_nonnegative(0.0, 1.0, a0, a1)
        if t0 >= t1:
            continue  # behind x: beta is not needed
        b0 = (ux * pyr - uy * pxr) * inv
        b1 = (ux * qyr - uy * qxr) * inv
        t0, t1 = clip_nonnegative(t0, t1, b0, b1)
        if t0 >= t1:
            continue
        t0, t1 = clip_nonnegative(t0, t1, 1.0 - a0 - b0, 1.0 - a1 - b1)
        if t0 >= t1:
            continue
        # The clipped piece's ends, l = alpha + beta their depth towards A-B (0 at x, 1 on A-B).
        ea0 = a0 + t0 * (a1 - a0)
        eb0 = b0 + t0 * (b1 - b0)
        ea1 = a0 + t1 * (a1 - a0)
        eb1 = b0 + t1 * (b1 - b0)
        l0 = ea0 + eb0
        l1 = ea1 + eb1
        if l0 <= 0.0 or l1 <= 0.0:
            return DEFER
        # An edge on the line A-B touches the sight lines without blocking them; the exact signs decide what the
        # rounding leaves on it. (An edge along a side of the cone casts a shadow of no width, dropped below.)
        if (l0 > 1.0 - NEAR_RTOL and l1 > 1.0 - NEAR_RTOL and orient(ax, ay, bx, by, px, py) * sab <= 0
                and orient(ax, ay, bx, by, qx, qy) * sab <= 0):
            continue
        s0 = eb0 / l0
        s1 = eb1 / l1
        if s1 < s0:
            s0, s1 = s1, s0
        s0 = max(s0, 0.0)
        s1 = min(s1, 1.0)
        if s1 <= s0:
            continue  # seen edge-on
        if k >= sh.shape[0]:
            return DEFER
        sh[k, 0] = s0
        sh[k, 1] = s1
        k += 1
    sort_rows(sh, k)
    # [0, 1] minus the union of the shadows; union pieces shorter than tol_u are gaps closed.
    n = 0
    cur = 0.0
    i = 0
    while i < k:
        g0 = sh[i, 0]
        g1 = sh[i, 1]
        i += 1
        while i < k and sh[i, 0] <= g1:
            if sh[i, 1] > g1:
                g1 = sh[i, 1]
            i += 1
        if g1 - g0 <= tol_u:
            continue
        if g0 - cur > tol_u:
            if n >= parts.shape[0]:
                return DEFER
            parts[n, 0] = cur
            parts[n, 1] = g0
            n += 1
        cur = g1
    if 1.0 - cur > tol_u:
        if n >= parts.shape[0]:
            return DEFER
        parts[n, 0] = cur
        parts[n, 1] = 1.0
        n += 1
    return n


@jit
def shadow_work(n_edges: int) -> ShadowWork:
    """Work arrays of ``visible_intervals_by_shadows``: shadows (MAX_SHADOWS, 2), parts (64, 2), the window's
    edges (n_edges,) int64 and the edge stamp (n_edges + 1,) int64. One set per thread: every query writes them."""
    return ShadowWork(np.empty((MAX_SHADOWS, 2), dtype=np.float64), np.empty((64, 2), dtype=np.float64),
                      np.empty(max(n_edges, 1), dtype=np.int64), np.zeros(n_edges + 1, dtype=np.int64))


@jit(inline=True, noalloc=True)
def _window_bounds(M: MeshArrays, x, y, R: RouteSpan, s0, s1, out, tri) -> tuple:
    """What both window queries do first: (tri, a, code, tol, s0, s1, box) with x's free triangle tri, the window's
    first piece a, the window clamped to the route and the bounding box (xmin, ymin, xmax, ymax) of x and the
    pieces as the window cuts them (a long last segment counts only up to s1). tri < 0 when ``code`` already
    answers the query (an empty route, or ``visible_start``)."""
    rp, rs, lo, hi = R
    B = M.walk.B
    if hi - lo < 1:
        return -1, 0, 0, 0.0, s0, s1, (x, y, x, y)
    tri, a, code = visible_start(M, x, y, R, s0, s1, out, tri)
    s0 = max(s0, rs[lo])
    s1 = min(s1, rs[hi - 1])
    if tri < 0:
        return -1, a, code, 0.0, s0, s1, (x, y, x, y)
    tol = MERGE_TOL * ((B[2] - B[0]) + (B[3] - B[1]))
    # One pass over the grid collects every edge any piece may need: those meeting this box.
    xmin = xmax = x
    ymin = ymax = y
    i = a
    while i < hi - 1 and rs[i] <= s1:
        sa, sb, ax, ay, bx, by = window_piece(rp, rs, i, s0, s1)
        if sb > sa:
            xmin = min(xmin, ax, bx)
            xmax = max(xmax, ax, bx)
            ymin = min(ymin, ay, by)
            ymax = max(ymax, ay, by)
        i += 1
    return tri, a, 0, tol, s0, s1, (xmin, ymin, xmax, ymax)


@jit(inline=True, noalloc=True)
def _window_open(tri, a, nc, tol, s0, s1, out) -> tuple:
    """``_window_start``'s answer once the window's nc obstacle edges are known: the whole window visible when
    there are none (x is free and no outline meets the box: every sight line to the window stays in it)."""
    if nc == 0:
        if out.shape[0] < 1:
            return -1, a, 0, tol, -1, s0, s1
        out[0, 0] = s0
        out[0, 1] = s1
        return -1, a, 0, tol, 1, s0, s1
    return tri, a, nc, tol, 0, s0, s1


@jit(inline=True, noalloc=True)
def _window_start(M: MeshArrays, x, y, R: RouteSpan, s0, s1, out, work: ShadowWork, tri) -> tuple:
    """(tri, a, nc, tol, result, s0, s1): ``_window_bounds`` and the nc obstacle edges of its box (into
    ``work.cand``; DEFER when one runs through x). tri < 0 when ``result`` already answers the query (an empty
    route, ``visible_start``, or a box that meets no edge: the whole window is visible)."""
    tri, a, code, tol, s0, s1, box = _window_bounds(M, x, y, R, s0, s1, out, tri)
    if tri < 0:
        return -1, a, 0, tol, code, s0, s1
    xmin, ymin, xmax, ymax = box
    nc = window_edges(M.edges, x, y, xmin, ymin, xmax, ymax, work.cand, work.stamp)
    return _window_open(tri, a, nc, tol, s0, s1, out)


@jit(inline=True, noalloc=True)
def _window_start_kept(M: MeshArrays, x, y, R: RouteSpan, s0, s1, out, work: ShadowWork, tri, K, i) -> tuple:
    """``_window_start`` with the obstacle edges from agent i's kept list ``K`` (``kept_window_edges``)."""
    tri, a, code, tol, s0, s1, box = _window_bounds(M, x, y, R, s0, s1, out, tri)
    if tri < 0:
        return -1, a, 0, tol, code, s0, s1
    xmin, ymin, xmax, ymax = box
    nc = kept_window_edges(M.edges, x, y, xmin, ymin, xmax, ymax, work.cand, work.stamp, K, i)
    return _window_open(tri, a, nc, tol, s0, s1, out)


@jit(inline=True, noalloc=True)
def _shadow_pieces(E, work: ShadowWork, nc, x, y, R: RouteSpan, i, s0, s1, tol, out, n) -> tuple:
    """Append the visible parts of the window's pieces from piece i on, as far as the shadows decide them, with the
    obstacle edges ``E`` (``M.edges.E``): (count, piece, done). ``done`` false: piece ``piece`` needs the exact triangle
    expansion; count -1: ``out`` is full."""
    rp, rs, hi = R.rp, R.rs, R.hi
    sh, parts, cand = work.sh, work.parts, work.cand
    while i < hi - 1 and rs[i] <= s1:
        sa, sb, ax, ay, bx, by = window_piece(rp, rs, i, s0, s1)
        if sb > sa:
            k = DEFER
            c0 = -1
            if nc != DEFER:
                c0 = first_meeting(E, cand, nc, min(x, ax, bx), min(y, ay, by), max(x, ax, bx), max(y, ay, by))
            if nc != DEFER and c0 < 0:
                k = 1  # no outline near the triangle x-A-B: the whole piece is visible
                parts[0, 0] = 0.0
                parts[0, 1] = 1.0
            elif nc != DEFER:
                # The edges before c0 miss the triangle's box, which segment_shadow_parts would test again.
                k = segment_shadow_parts(E, cand[c0:], nc - c0, x, y, ax, ay, bx, by, tol / (sb - sa), sh, parts)
            if k == DEFER:
                return n, i, False
            for j in range(k):
                n = append_interval(out, n, sa + parts[j, 0] * (sb - sa), sa + parts[j, 1] * (sb - sa), tol,
                                    s1 - s0)
                if n < 0:
                    return -1, i, True
        i += 1
    return n, i, True


@jit(inline=True, noalloc=True)
def shadow_intervals(M: MeshArrays, x, y, R: RouteSpan, s0, s1, out, work: ShadowWork, tri) -> int:
    """``visible_intervals_by_shadows`` where the shadows decide every piece, else NEEDS_EXPANSION (the caller then
    runs ``visible_intervals_by_shadows``). Allocates nothing, so that the simulation's per-step kernel can run
    without numba's reference counting. It and its helpers (``_window_start``, ``_shadow_pieces``,
    ``visibility.visible_start``) are inlined into their callers: numba passes every field of every array of the
    mesh, the route and the work arrays as arguments, and those copies cost more than the helpers' own work on a
    walker's usual window (measured: about 40 ns per call)."""
    start = _window_start(M, x, y, R, s0, s1, out, work, tri)
    return _intervals_from(M.edges.E, work, start, x, y, R, out)


@jit(inline=True, noalloc=True)
def shadow_intervals_kept(M: MeshArrays, x, y, R: RouteSpan, s0, s1, out, work: ShadowWork, tri, K, i) -> int:
    """``shadow_intervals`` for agent i of a crowd, its window's obstacle edges from its kept list ``K`` (a
    ``kept_edges.KeptEdges``): the same result, the edges gathered from the grid only when the window leaves the
    kept box."""
    start = _window_start_kept(M, x, y, R, s0, s1, out, work, tri, K, i)
    return _intervals_from(M.edges.E, work, start, x, y, R, out)


@jit(inline=True, noalloc=True)
def _intervals_from(E, work: ShadowWork, start, x, y, R: RouteSpan, out) -> int:
    """``shadow_intervals``'s rest after its window's start ``start`` (``_window_start``'s tuple)."""
    tri, a, nc, tol, code, s0, s1 = start
    if tri < 0:
        return code
    n, _, done = _shadow_pieces(E, work, nc, x, y, R, a, s0, s1, tol, out, 0)
    if n < 0:
        return -1
    if not done:
        return NEEDS_EXPANSION
    return drop_last_grazing(out, n, tol, s1 - s0)


@jit(noalloc=True)
def visible_intervals_by_shadows(M: MeshArrays, x, y, R: RouteSpan, s0, s1, out, work: ShadowWork, tri) -> int:
    """``visibility.visible_intervals`` with each route piece decided by ``segment_shadow_parts``, or by the exact
    triangle expansion where that defers: the same contract (intervals sorted, disjoint, written to ``out``
    (k, 2); -1 when ``out`` is too small). ``work`` is ``shadow_work(M.edges.E.shape[0])``; ``tri`` a triangle
    containing x (-1 when unknown)."""
    tri, a, nc, tol, code, s0, s1 = _window_start(M, x, y, R, s0, s1, out, work, tri)
    if tri < 0:
        return code
    n = 0
    i = a
    while True:
        n, i, done = _shadow_pieces(M.edges.E, work, nc, x, y, R, i, s0, s1, tol, out, n)
        if n < 0:
            return -1
        if done:
            break
        n = _append_expansion(M, x, y, tri, window_piece(R.rp, R.rs, i, s0, s1), tol, s1 - s0, out, n)
        if n < 0:
            return -1
        i += 1
    return drop_last_grazing(out, n, tol, s1 - s0)


@jit(shared=True)
def _append_expansion(M: MeshArrays, x, y, tri, piece, tol, span, out, n) -> int:
    """Append the visible parts of the window piece (sa, sb, ax, ay, bx, by) (``window_piece``: A-B at arc lengths
    [sa, sb]) found by the exact triangle expansion; returns the new count, or -1 when ``out`` is full. Shared: it
    allocates, and ``visible_intervals_by_shadows``, which calls it only where the shadows defer, does not."""
    sa, sb, ax, ay, bx, by = piece
    parts = np.empty((16, 2), dtype=np.float64)
    starts = np.empty(64, dtype=np.int64)
    st = np.empty(64, dtype=np.int64)
    sc = np.empty((64, 4), dtype=np.float64)
    k, parts, st, sc = segment_visible_parts(M, x, y, tri, ax, ay, bx, by, parts, starts, st, sc)
    sort_rows(parts, k)
    for j in range(k):
        n = append_interval(out, n, sa + parts[j, 0] * (sb - sa), sa + parts[j, 1] * (sb - sa), tol, span)
        if n < 0:
            return -1
    return n


@jit
def visible_intervals_batch(M: MeshArrays, xs, rp, rs, offsets, route, s0, s1, out, counts, exact_only) -> None:
    """Visible intervals for many queries on packed routes: query i looks from xs[i] (n, 2) at route
    ``route[i]`` (points rp[offsets[r]:offsets[r+1]], arc lengths rs likewise) in the window [s0[i], s1[i]], by
    shadows (``visible_intervals_by_shadows``) or, with ``exact_only``, by the triangle expansion alone
    (``visibility.visible_intervals``).

    Writes up to K = out.shape[1] intervals per query into out (n, K, 2) and their number into counts (n,)
    int64; counts[i] = -1 when more than K intervals were visible (out[i] then holds the first K)."""
    K = out.shape[1]
    buf = np.empty((K + 1, 2))
    work = shadow_work(M.edges.E.shape[0])
    for i in range(xs.shape[0]):
        r = route[i]
        R = RouteSpan(rp, rs, offsets[r], offsets[r + 1])
        if exact_only:
            k = visible_intervals(M, xs[i, 0], xs[i, 1], R, s0[i], s1[i], buf)
        else:
            k = visible_intervals_by_shadows(M, xs[i, 0], xs[i, 1], R, s0[i], s1[i], buf, work, -1)
        if k < 0 or k > K:
            counts[i] = -1
            k = K
        else:
            counts[i] = k
        for j in range(k):
            out[i, j, 0] = buf[j, 0]
            out[i, j, 1] = buf[j, 1]
