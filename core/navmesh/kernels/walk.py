"""The straight-line triangle walk and point location over the complete triangulation of the bounds.

The walk runs on the *complete* triangulation (free triangles first, then the triangles inside obstacles), which
covers the convex bounds rectangle, so a straight walk never gets stuck at a hole. Every combinatorial decision is
an exact orientation sign (``predicates.orient``): the side of each vertex with respect to the query line, whether
the end point lies in a triangle, the order of collinear points along the line. Only the crossing parameters ``t``
(used for lengths) are floating-point constructions, clamped to be non-decreasing.

The location kernels take the triangulation as one ``arrays.WalkArrays`` ``W`` (``NavMesh.arrays.walk``); the
walk's own steps take the arrays they use:

- ``V`` (nv, 2) float64: vertex coordinates (scene units).
- ``T`` (nx, 3) int32: all triangles, counter-clockwise; rows ``[0, nt)`` are free space, ``[nt, nx)`` obstacles.
- ``N`` (nx, 3) int32: ``N[t, k]`` is the triangle across edge ``k = (T[t, k], T[t, (k+1) % 3])``, -1 on the bounds.
- ``TT`` (nx,) int32: terrain type index of each triangle, -1 for obstacle triangles.
- ``B`` (4,) float64: bounds ``[xmin, ymin, xmax, ymax]``.
- ``G`` (6,) float64: the location grid ``[x0, y0, cell_w, cell_h, ncols, nrows]``.
- ``S`` (nrows * ncols,) int32: a triangle containing each cell's centre (the walk's seed).

A walk from p to q yields *pieces* ``(triangle, t0, t1)``: the sub-segment ``p + t (q - p)``, ``t in [t0, t1]``,
lies in that closed triangle. A piece running along an edge is given to the free triangle beside it when there is
one, else to the triangle on its left; so a segment along an obstacle's outline is in the (closed) free space.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from .arrays import WalkArrays
from .predicates import orient

# Walk states.
IN_TRIANGLE = 0  # the rest of the segment enters the triangle's interior (or starts inside it)
AT_VERTEX = 1  # the segment passes through vertex T[tri, k] at parameter t
DONE = 2


@jit(inline=True, noalloc=True)
def _side(V, v, px, py, qx, qy) -> int:
    return orient(px, py, qx, qy, V[v, 0], V[v, 1])


@jit(inline=True, noalloc=True)
def _param(V, v, px, py, qx, qy) -> float:
    """Parameter t of the projection of vertex v on the line p + t (q - p)."""
    dx = qx - px
    dy = qy - py
    return ((V[v, 0] - px) * dx + (V[v, 1] - py) * dy) / (dx * dx + dy * dy)


@jit(inline=True, noalloc=True)
def _cross_param(V, u, w, px, py, qx, qy) -> float:
    """Parameter t where the line p + t (q - p) crosses the line through vertices u, w."""
    ex = V[w, 0] - V[u, 0]
    ey = V[w, 1] - V[u, 1]
    dx = qx - px
    dy = qy - py
    den = dx * ey - dy * ex
    if den == 0.0:
        return 0.0
    return ((V[u, 0] - px) * ey - (V[u, 1] - py) * ex) / den


@jit(inline=True, noalloc=True)
def _ahead(ax, ay, bx, by, dx, dy) -> bool:
    """For points a, b on a line with direction d: is b strictly ahead of a? (exact: compares one coordinate)."""
    if abs(dx) >= abs(dy):
        return (bx > ax) if dx > 0.0 else (bx < ax)
    return (by > ay) if dy > 0.0 else (by < ay)


@jit(inline=True, noalloc=True)
def _local(T, t, v) -> int:
    """Local index of vertex v in triangle t (-1 if absent)."""
    if T[t, 0] == v:
        return 0
    if T[t, 1] == v:
        return 1
    if T[t, 2] == v:
        return 2
    return -1


@jit(inline=True, noalloc=True)
def _edge_owner(TT, left, right) -> int:
    """The triangle a piece along the edge between ``left`` and ``right`` belongs to: a free one if possible."""
    if TT[left] >= 0:
        return left
    if right >= 0 and TT[right] >= 0:
        return right
    return left


@jit(noalloc=True)
def _edge_run(V, T, N, TT, left, k_from, px, py, qx, qy, t0):
    """The segment p -> q runs along edge ``k_from`` of triangle ``left`` from parameter t0 towards the edge's end
    vertex ``T[left, (k_from+1) % 3]``. Returns (state, tri, k, t, piece_tri, piece_t0, piece_t1)."""
    w = T[left, (k_from + 1) % 3]
    right = N[left, k_from]
    owner = _edge_owner(TT, left, right)
    dx = qx - px
    dy = qy - py
    if not _ahead(V[w, 0], V[w, 1], qx, qy, dx, dy):
        # q lies on this edge (at w at the latest): the walk ends here.
        return DONE, owner, 0, 1.0, owner, t0, 1.0
    tw = max(_param(V, w, px, py, qx, qy), t0)
    return AT_VERTEX, left, (k_from + 1) % 3, tw, owner, t0, tw


@jit(noalloc=True)
def walk_start(V, T, N, TT, tri, px, py, qx, qy):
    """Initial walk state for a segment p -> q whose start p lies in the closed triangle ``tri``.

    Returns (state, tri, k, t, piece_tri, piece_t0, piece_t1); piece_tri is -1 when no piece is produced yet."""
    if px == qx and py == qy:
        return DONE, tri, 0, 0.0, -1, 0.0, 0.0
    o0 = orient(V[T[tri, 0], 0], V[T[tri, 0], 1], V[T[tri, 1], 0], V[T[tri, 1], 1], px, py)
    o1 = orient(V[T[tri, 1], 0], V[T[tri, 1], 1], V[T[tri, 2], 0], V[T[tri, 2], 1], px, py)
    o2 = orient(V[T[tri, 2], 0], V[T[tri, 2], 1], V[T[tri, 0], 0], V[T[tri, 0], 1], px, py)
    if o0 > 0 and o1 > 0 and o2 > 0:
        return IN_TRIANGLE, tri, 0, 0.0, -1, 0.0, 0.0
    # On a vertex: two edges through p.
    if o0 == 0 and o2 == 0:
        return AT_VERTEX, tri, 0, 0.0, -1, 0.0, 0.0
    if o0 == 0 and o1 == 0:
        return AT_VERTEX, tri, 1, 0.0, -1, 0.0, 0.0
    if o1 == 0 and o2 == 0:
        return AT_VERTEX, tri, 2, 0.0, -1, 0.0, 0.0
    # Inside an edge k.
    k = 0 if o0 == 0 else (1 if o1 == 0 else 2)
    u = T[tri, k]
    w = T[tri, (k + 1) % 3]
    sq = orient(V[u, 0], V[u, 1], V[w, 0], V[w, 1], qx, qy)
    if sq > 0:
        return IN_TRIANGLE, tri, 0, 0.0, -1, 0.0, 0.0
    nb = N[tri, k]
    if sq < 0:
        if nb < 0:
            return DONE, tri, 0, 0.0, -1, 0.0, 0.0
        return IN_TRIANGLE, nb, 0, 0.0, -1, 0.0, 0.0
    # q on the edge's line: run along the edge towards u or w.
    if _ahead(px, py, V[w, 0], V[w, 1], qx - px, qy - py):
        return _edge_run(V, T, N, TT, tri, k, px, py, qx, qy, 0.0)
    if nb < 0:
        return _edge_run_reverse_bounds(V, T, TT, tri, k, px, py, qx, qy)
    kk = _local(T, nb, w)  # in the neighbour the edge runs w -> u, so edge kk goes towards u
    return _edge_run(V, T, N, TT, nb, kk, px, py, qx, qy, 0.0)


@jit(noalloc=True)
def _edge_run_reverse_bounds(V, T, TT, tri, k, px, py, qx, qy):
    """Run along a bounds edge against its direction (only ``tri`` is beside it)."""
    u = T[tri, k]
    if not _ahead(V[u, 0], V[u, 1], qx, qy, qx - px, qy - py):
        return DONE, tri, 0, 1.0, tri, 0.0, 1.0
    tu = max(_param(V, u, px, py, qx, qy), 0.0)
    return AT_VERTEX, tri, k, tu, tri, 0.0, tu


@jit(noalloc=True)
def walk_step(V, T, N, TT, state, tri, k, t, px, py, qx, qy):
    """Advance the walk by one state change; returns (state, tri, k, t, piece_tri, piece_t0, piece_t1)."""
    if state == IN_TRIANGLE:
        a = T[tri, 0]
        b = T[tri, 1]
        c = T[tri, 2]
        if (orient(V[a, 0], V[a, 1], V[b, 0], V[b, 1], qx, qy) >= 0
                and orient(V[b, 0], V[b, 1], V[c, 0], V[c, 1], qx, qy) >= 0
                and orient(V[c, 0], V[c, 1], V[a, 0], V[a, 1], qx, qy) >= 0):
            return DONE, tri, 0, 1.0, tri, t, 1.0
        s0 = _side(V, a, px, py, qx, qy)
        s1 = _side(V, b, px, py, qx, qy)
        s2 = _side(V, c, px, py, qx, qy)
        # Exit through the edge going from the right of the line to its left (counter-clockwise order).
        ke = -1
        if s0 < 0 and s1 > 0:
            ke = 0
        elif s1 < 0 and s2 > 0:
            ke = 1
        elif s2 < 0 and s0 > 0:
            ke = 2
        if ke >= 0:
            u = T[tri, ke]
            w = T[tri, (ke + 1) % 3]
            te = min(max(_cross_param(V, u, w, px, py, qx, qy), t), 1.0)
            nb = N[tri, ke]
            if nb < 0:
                return DONE, tri, 0, te, tri, t, te
            return IN_TRIANGLE, nb, 0, te, tri, t, te
        # Exit through the vertex on the line whose predecessor is right and successor left of it.
        kv = -1
        if s0 == 0 and s2 < 0 and s1 > 0:
            kv = 0
        elif s1 == 0 and s0 < 0 and s2 > 0:
            kv = 1
        elif s2 == 0 and s1 < 0 and s0 > 0:
            kv = 2
        if kv < 0:
            # Unreachable with exact predicates and a valid state; end the walk rather than loop.
            return DONE, tri, 0, 1.0, tri, t, 1.0
        v = T[tri, kv]
        tv = min(max(_param(V, v, px, py, qx, qy), t), 1.0)
        return AT_VERTEX, tri, kv, tv, tri, t, tv
    if state == AT_VERTEX:
        v = T[tri, k]
        dx = qx - px
        dy = qy - py
        vx = V[v, 0]
        vy = V[v, 1]
        # Rotate counter-clockwise around v, then clockwise if the bounds stop us, to find the triangle whose
        # wedge at v contains the direction of travel (or whose edge runs along it).
        for direction in range(2):
            cur = tri
            kc = k
            for _ in range(1 << 16):
                a = T[cur, (kc + 1) % 3]
                b = T[cur, (kc + 2) % 3]
                sa = _side(V, a, px, py, qx, qy)
                sb = _side(V, b, px, py, qx, qy)
                if sa < 0 and sb > 0:
                    return IN_TRIANGLE, cur, 0, t, -1, t, t
                if sa == 0 and _ahead(vx, vy, V[a, 0], V[a, 1], dx, dy):
                    return _edge_run(V, T, N, TT, cur, kc, px, py, qx, qy, t)
                if sb == 0 and _ahead(vx, vy, V[b, 0], V[b, 1], dx, dy):
                    # Edge (b, v) of cur runs backwards; the triangle on the left of v -> b is the neighbour.
                    nb = N[cur, (kc + 2) % 3]
                    if nb < 0:
                        return _run_to_vertex_bounds(V, T, cur, (kc + 2) % 3, px, py, qx, qy, t)
                    return _edge_run(V, T, N, TT, nb, _local(T, nb, v), px, py, qx, qy, t)
                nxt = N[cur, (kc + 2) % 3] if direction == 0 else N[cur, kc]
                if nxt < 0:
                    break
                cur = nxt
                kc = _local(T, cur, v)
                if cur == tri:
                    break
        return DONE, tri, 0, t, -1, t, t
    return DONE, tri, 0, t, -1, t, t


@jit(noalloc=True)
def _run_to_vertex_bounds(V, T, cur, kb, px, py, qx, qy, t):
    """Run along bounds edge kb = (b, v) of ``cur`` from v towards b (only ``cur`` is beside it)."""
    b = T[cur, kb]
    if not _ahead(V[b, 0], V[b, 1], qx, qy, qx - px, qy - py):
        return DONE, cur, 0, 1.0, cur, t, 1.0
    tb = max(_param(V, b, px, py, qx, qy), t)
    return AT_VERTEX, cur, kb, tb, cur, t, tb


@jit(noalloc=True)
def in_bounds(B, x: float, y: float) -> bool:
    """Is (x, y) in the closed bounds rectangle?"""
    return B[0] <= x <= B[2] and B[1] <= y <= B[3]


@jit(noalloc=True)
def locate_any(W: WalkArrays, x: float, y: float) -> int:
    """A triangle of the complete triangulation containing (x, y) (closed); -1 outside the bounds.

    Walks straight from the seed of (x, y)'s grid cell. On a shared edge or vertex any incident triangle may be
    returned; ``locate_free`` prefers a free one."""
    V, T, N, TT, B, G, S = W
    if not in_bounds(B, x, y):
        return -1
    ncols = int(G[4])
    nrows = int(G[5])
    ci = min(max(int((x - G[0]) / G[2]), 0), ncols - 1)
    cj = min(max(int((y - G[1]) / G[3]), 0), nrows - 1)
    seed = S[cj * ncols + ci]
    sx = G[0] + (ci + 0.5) * G[2]
    sy = G[1] + (cj + 0.5) * G[3]
    state, tri, k, t, pt, t0, t1 = walk_start(V, T, N, TT, seed, sx, sy, x, y)
    for _ in range(1 << 24):
        if state == DONE:
            break
        state, tri, k, t, pt, t0, t1 = walk_step(V, T, N, TT, state, tri, k, t, sx, sy, x, y)
    # The final step's piece ends at (x, y); without one (x is the seed point) the seed contains it.
    return pt if pt >= 0 else tri


@jit(noalloc=True)
def _contains(V, T, t, x, y) -> bool:
    """Does triangle t (counter-clockwise) contain (x, y), boundary included? Exact signs."""
    a, b, c = T[t, 0], T[t, 1], T[t, 2]
    return (orient(V[a, 0], V[a, 1], V[b, 0], V[b, 1], x, y) >= 0
            and orient(V[b, 0], V[b, 1], V[c, 0], V[c, 1], x, y) >= 0
            and orient(V[c, 0], V[c, 1], V[a, 0], V[a, 1], x, y) >= 0)


@jit(noalloc=True)
def locate_near(W: WalkArrays, hint: int, x: float, y: float) -> int:
    """``locate_any`` for a point that moved a little since it was located in triangle ``hint`` (-1: unknown):
    the hint or one of its neighbours when they contain (x, y), else a full location."""
    V, T, N, B = W.V, W.T, W.N, W.B
    if hint >= 0 and in_bounds(B, x, y):
        if _contains(V, T, hint, x, y):
            return hint
        for k in range(3):
            nb = N[hint, k]
            if nb >= 0 and _contains(V, T, nb, x, y):
                return nb
    return locate_any(W, x, y)


@jit(noalloc=True)
def _edge_side(V, T, tri, k, x, y) -> int:
    """Orientation of (x, y) against edge k of triangle tri (+1 inside, 0 on it)."""
    u = T[tri, k]
    w = T[tri, (k + 1) % 3]
    return orient(V[u, 0], V[u, 1], V[w, 0], V[w, 1], x, y)


@jit(noalloc=True)
def prefer_free(V, T, N, TT, tri: int, x: float, y: float) -> int:
    """Given a triangle containing (x, y), a free triangle containing it if one exists, else ``tri``."""
    if tri < 0 or TT[tri] >= 0:
        return tri
    o = (_edge_side(V, T, tri, 0, x, y), _edge_side(V, T, tri, 1, x, y), _edge_side(V, T, tri, 2, x, y))
    for k in range(3):
        if o[k] == 0 and o[(k + 1) % 3] != 0 and o[(k + 2) % 3] != 0:
            nb = N[tri, k]
            if nb >= 0 and TT[nb] >= 0:
                return nb
            return tri
    for k in range(3):
        if o[k] == 0 and o[(k + 2) % 3] == 0:
            # (x, y) is vertex k: look around it both ways.
            v = T[tri, k]
            for direction in range(2):
                cur = tri
                for _ in range(1 << 16):
                    kc = _local(T, cur, v)
                    nxt = N[cur, (kc + 2) % 3] if direction == 0 else N[cur, kc]
                    if nxt < 0 or nxt == tri:
                        break
                    if TT[nxt] >= 0:
                        return nxt
                    cur = nxt
            return tri
    return tri


@jit(noalloc=True)
def locate_free(W: WalkArrays, x: float, y: float) -> int:
    """The free triangle containing (x, y) (closed free space), or -1 inside an obstacle or outside the bounds."""
    V, T, N, TT = W.V, W.T, W.N, W.TT
    tri = locate_any(W, x, y)
    if tri < 0:
        return -1
    tri = prefer_free(V, T, N, TT, tri, x, y)
    return tri if TT[tri] >= 0 else -1


OUTSIDE = -2  # locate_status: outside the bounds (or not a finite point)
IN_OBSTACLE = -1  # locate_status: strictly inside an obstacle


@jit(noalloc=True)
def locate_status(W: WalkArrays, x: float, y: float) -> int:
    """The free triangle containing (x, y); IN_OBSTACLE (-1) inside an obstacle, OUTSIDE (-2) outside the bounds."""
    V, T, N, TT = W.V, W.T, W.N, W.TT
    tri = locate_any(W, x, y)
    if tri < 0:
        return OUTSIDE
    tri = prefer_free(V, T, N, TT, tri, x, y)
    return tri if TT[tri] >= 0 else IN_OBSTACLE


@jit(noalloc=True)
def locate_batch(W: WalkArrays, pts, out) -> None:
    """``out[i] = locate_status(pts[i])`` for pts (n, 2) float64, out (n,) int32 (-1 obstacle, -2 outside)."""
    for i in range(pts.shape[0]):
        out[i] = locate_status(W, pts[i, 0], pts[i, 1])


@jit(noalloc=True)
def clip_to_bounds(B, px, py, qx, qy):
    """Clip segment p -> q to the bounds (Liang-Barsky); returns (ok, t0, t1) with the kept parameter range.

    Not ok for an empty clip or a non-finite coordinate."""
    if not (np.isfinite(px) and np.isfinite(py) and np.isfinite(qx) and np.isfinite(qy)):
        return False, 0.0, 0.0
    t0 = 0.0
    t1 = 1.0
    dx = qx - px
    dy = qy - py
    for i in range(4):
        if i == 0:
            pp, qq = -dx, px - B[0]
        elif i == 1:
            pp, qq = dx, B[2] - px
        elif i == 2:
            pp, qq = -dy, py - B[1]
        else:
            pp, qq = dy, B[3] - py
        if pp == 0.0:
            if qq < 0.0:
                return False, 0.0, 0.0
        else:
            r = qq / pp
            if pp < 0.0:
                if r > t1:
                    return False, 0.0, 0.0
                if r > t0:
                    t0 = r
            else:
                if r < t0:
                    return False, 0.0, 0.0
                if r < t1:
                    t1 = r
    return True, t0, t1
