"""Segment queries by triangle walks: visibility and terrain lengths (MIRAN 2013, section 3.3: l^T per terrain T).

The segment kernels take the triangulation ``W`` (``arrays.WalkArrays``, see ``walk``) first, the candidate fans
the whole ``arrays.MeshArrays``; points as scalars or (n, 2) float64 arrays. They write into caller-provided
outputs, so that steering kernels can call them without allocating.
"""

from __future__ import annotations


from core.jitcache import jit

from .arrays import MeshArrays, WalkArrays
from .predicates import norm2d
from .walk import DONE, clip_to_bounds, in_bounds, locate_any, prefer_free, walk_start, walk_step


@jit(noalloc=True)
def segment_visible(W: WalkArrays, px, py, qx, qy) -> bool:
    """Does the closed segment p -> q lie in the closed free space? (False if it leaves the bounds.)"""
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    if not (in_bounds(B, px, py) and in_bounds(B, qx, qy)):
        return False
    tri = locate_any(W, px, py)
    if tri < 0:
        return False
    return walk_visible(V, T, N, TT, tri, px, py, qx, qy)


@jit(noalloc=True)
def _point_free(V, T, N, TT, tri, x, y) -> bool:
    """Is (x, y), lying in triangle ``tri``, in the closed free space?"""
    t = prefer_free(V, T, N, TT, tri, x, y)
    return t >= 0 and TT[t] >= 0


@jit(noalloc=True)
def segment_terrain_lengths(W: WalkArrays, px, py, qx, qy, out) -> float:
    """Add the length of p -> q on each terrain type to ``out`` (n_types,); returns the length inside obstacles.

    Parts outside the bounds count for nothing (the segment is clipped to the bounds first). Exact up to the
    floating-point crossing parameters: the lengths sum to the clipped segment's length."""
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    ok, c0, c1 = clip_to_bounds(B, px, py, qx, qy)
    if not ok:
        return 0.0
    dx = qx - px
    dy = qy - py
    ax = px + c0 * dx if c0 > 0.0 else px
    ay = py + c0 * dy if c0 > 0.0 else py
    bx = px + c1 * dx if c1 < 1.0 else qx
    by = py + c1 * dy if c1 < 1.0 else qy
    ax = min(max(ax, B[0]), B[2])
    ay = min(max(ay, B[1]), B[3])
    bx = min(max(bx, B[0]), B[2])
    by = min(max(by, B[1]), B[3])
    tri = locate_any(W, ax, ay)
    if tri < 0:
        return 0.0
    return walk_terrain_lengths(V, T, N, TT, tri, ax, ay, bx, by, out)


@jit(noalloc=True)
def walk_terrain_lengths(V, T, N, TT, tri, ax, ay, bx, by, out) -> float:
    """``segment_terrain_lengths`` for a -> b inside the bounds, walked from a triangle ``tri`` containing a."""
    length = norm2d(bx - ax, by - ay)
    blocked = 0.0
    if length == 0.0:
        return 0.0
    state, tri, k, t, pt, t0, t1 = walk_start(V, T, N, TT, tri, ax, ay, bx, by)
    for _ in range(1 << 24):
        if pt >= 0 and t1 > t0:
            ty = TT[pt]
            if ty >= 0:
                out[ty] += (t1 - t0) * length
            else:
                blocked += (t1 - t0) * length
        if state == DONE:
            break
        state, tri, k, t, pt, t0, t1 = walk_step(V, T, N, TT, state, tri, k, t, ax, ay, bx, by)
    return blocked


@jit(noalloc=True)
def walk_cost_visible(V, T, N, TT, tri, ax, ay, bx, by, weights):
    """(weighted length, visible) of a -> b, both in the closed bounds, walked once from a triangle ``tri``
    containing a: the cost counts the free parts only, visible is False if any part crosses an obstacle."""
    if ax == bx and ay == by:
        return 0.0, _point_free(V, T, N, TT, tri, ax, ay)
    length = norm2d(bx - ax, by - ay)
    cost = 0.0
    vis = True
    state, tri, k, t, pt, t0, t1 = walk_start(V, T, N, TT, tri, ax, ay, bx, by)
    for _ in range(1 << 24):
        if pt >= 0:
            if TT[pt] >= 0:
                if t1 > t0:
                    cost += weights[TT[pt]] * (t1 - t0)
            else:
                vis = False
        if state == DONE:
            break
        state, tri, k, t, pt, t0, t1 = walk_step(V, T, N, TT, state, tri, k, t, ax, ay, bx, by)
    return cost * length, vis


@jit(noalloc=True)
def walk_cost(V, T, N, TT, tri, ax, ay, bx, by, weights) -> float:
    """Weighted length of a -> b, both in the closed bounds, starting from a triangle ``tri`` containing a."""
    c, v = walk_cost_visible(V, T, N, TT, tri, ax, ay, bx, by, weights)
    return c


@jit(noalloc=True)
def segment_cost(W: WalkArrays, px, py, qx, qy, weights) -> float:
    """Weighted length sum_T w(T) l^T of p -> q (MIRAN 2013, section 3.3) without allocating; obstacles add 0."""
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    ok, c0, c1 = clip_to_bounds(B, px, py, qx, qy)
    if not ok:
        return 0.0
    dx = qx - px
    dy = qy - py
    ax = min(max(px + c0 * dx if c0 > 0.0 else px, B[0]), B[2])
    ay = min(max(py + c0 * dy if c0 > 0.0 else py, B[1]), B[3])
    bx = min(max(px + c1 * dx if c1 < 1.0 else qx, B[0]), B[2])
    by = min(max(py + c1 * dy if c1 < 1.0 else qy, B[1]), B[3])
    tri = locate_any(W, ax, ay)
    if tri < 0:
        return 0.0
    return walk_cost(V, T, N, TT, tri, ax, ay, bx, by, weights)


@jit(noalloc=True)
def walk_visible(V, T, N, TT, tri, px, py, qx, qy) -> bool:
    """Does p -> q (q in the closed bounds) stay in the closed free space? ``tri`` contains p."""
    if px == qx and py == qy:
        return _point_free(V, T, N, TT, tri, px, py)
    state, tri, k, t, pt, t0, t1 = walk_start(V, T, N, TT, tri, px, py, qx, qy)
    if pt >= 0 and TT[pt] < 0:
        return False
    for _ in range(1 << 24):
        if state == DONE:
            break
        state, tri, k, t, pt, t0, t1 = walk_step(V, T, N, TT, state, tri, k, t, px, py, qx, qy)
        if pt >= 0 and TT[pt] < 0:
            return False
    return True


@jit(noalloc=True)
def walk_terrain_run(V, T, N, TT, tri, px, py, qx, qy, stop_on_change) -> int:
    """The one terrain type p -> q lies on (q in the closed bounds, ``tri`` containing p): -1 when it leaves the
    closed free space (as ``walk_visible`` decides), -2 when it stays free but crosses into another terrain type
    over a positive length. With ``stop_on_change`` the walk ends at the first such crossing with -2, whether or not
    an obstacle lies beyond it."""
    if px == qx and py == qy:
        return TT[tri] if _point_free(V, T, N, TT, tri, px, py) else -1
    ty = -3
    mixed = False
    state, tri, k, t, pt, t0, t1 = walk_start(V, T, N, TT, tri, px, py, qx, qy)
    for _ in range(1 << 24):
        if pt >= 0:
            if TT[pt] < 0:
                return -1
            if t1 > t0:
                if ty == -3:
                    ty = TT[pt]
                elif TT[pt] != ty:
                    if stop_on_change:
                        return -2
                    mixed = True
        if state == DONE:
            break
        state, tri, k, t, pt, t0, t1 = walk_step(V, T, N, TT, state, tri, k, t, px, py, qx, qy)
    return -2 if mixed else ty


@jit(noalloc=True)
def fan_costs(M: MeshArrays, x, y, cands, weights, visible, cost) -> None:
    """From one point x to many candidates cands (k, 2) (MIRAN's candidate attraction points): visible (k,) bool
    and weighted length cost (k,) float64 of each segment x -> cands[j]; x is located once for all of them."""
    W = M.walk
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    start = locate_any(W, x, y)
    for j in range(cands.shape[0]):
        cx = cands[j, 0]
        cy = cands[j, 1]
        if start >= 0 and in_bounds(B, cx, cy):
            cost[j], visible[j] = walk_cost_visible(V, T, N, TT, start, x, y, cx, cy, weights)
        else:
            visible[j] = segment_visible(W, x, y, cx, cy)
            cost[j] = segment_cost(W, x, y, cx, cy, weights)


@jit(noalloc=True)
def segment_first_block(W: WalkArrays, px, py, qx, qy) -> float:
    """Parameter t in [0, 1] where p -> q first enters an obstacle or leaves the bounds; 2.0 if it never does.

    For p outside the closed free space the answer is 0."""
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    ok, c0, c1 = clip_to_bounds(B, px, py, qx, qy)
    if not ok or c0 > 0.0:
        return 0.0
    tri = locate_any(W, px, py)
    if tri < 0:
        return 0.0
    if px == qx and py == qy:
        return 2.0 if _point_free(V, T, N, TT, tri, px, py) else 0.0
    state, tri, k, t, pt, t0, t1 = walk_start(V, T, N, TT, tri, px, py, qx, qy)
    for _ in range(1 << 24):
        if pt >= 0 and TT[pt] < 0:
            return min(t0, c1)
        if state == DONE:
            break
        state, tri, k, t, pt, t0, t1 = walk_step(V, T, N, TT, state, tri, k, t, px, py, qx, qy)
    return 2.0 if c1 >= 1.0 else c1


@jit(noalloc=True)
def visible_batch(W: WalkArrays, p, q, out) -> None:
    """``out[i] = segment_visible(p[i], q[i])`` for p, q (n, 2) float64, out (n,) bool."""
    for i in range(p.shape[0]):
        out[i] = segment_visible(W, p[i, 0], p[i, 1], q[i, 0], q[i, 1])


@jit(noalloc=True)
def terrain_lengths_batch(W: WalkArrays, p, q, out) -> None:
    """``out[i, :] = terrain lengths of p[i] -> q[i]`` for p, q (n, 2) float64, out (n, n_types) float64."""
    for i in range(p.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = 0.0
        segment_terrain_lengths(W, p[i, 0], p[i, 1], q[i, 0], q[i, 1], out[i])


@jit(noalloc=True)
def cost_batch(W: WalkArrays, p, q, weights, out) -> None:
    """``out[i] = segment_cost(p[i], q[i], weights)`` for p, q (n, 2) float64, out (n,) float64."""
    for i in range(p.shape[0]):
        out[i] = segment_cost(W, p[i, 0], p[i, 1], q[i, 0], q[i, 1], weights)


@jit(noalloc=True)
def polyline_terrain_lengths(W: WalkArrays, pts, out) -> float:
    """Add the terrain lengths of the polyline pts (m, 2) to ``out`` (n_types,); returns its length in obstacles."""
    blocked = 0.0
    for i in range(pts.shape[0] - 1):
        blocked += segment_terrain_lengths(W, pts[i, 0], pts[i, 1], pts[i + 1, 0],
                                           pts[i + 1, 1], out)
    return blocked


@jit(noalloc=True)
def polyline_visible(W: WalkArrays, pts) -> bool:
    """Does the polyline pts (m, 2) stay in the closed free space?"""
    if pts.shape[0] == 1:
        return segment_visible(W, pts[0, 0], pts[0, 1], pts[0, 0], pts[0, 1])
    for i in range(pts.shape[0] - 1):
        if not segment_visible(W, pts[i, 0], pts[i, 1], pts[i + 1, 0], pts[i + 1, 1]):
            return False
    return True


@jit(noalloc=True)
def fan_costs_batch(M: MeshArrays, xs, cands, weights, visible, cost) -> None:
    """``fan_costs`` for many agents: xs (n, 2), cands (n, k, 2); visible (n, k) bool, cost (n, k) float64."""
    for i in range(xs.shape[0]):
        fan_costs(M, xs[i, 0], xs[i, 1], cands[i], weights, visible[i], cost[i])
