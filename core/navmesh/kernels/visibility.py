"""Visible intervals of a route window (MIRAN 2013, section 3.2, Figure 3): V_i = P_i cap pi_ind(r_i, sigma_i).

One *triangular expansion* of the visibility polygon serves a window of many route segments: starting from the
free triangles around x, the expansion crosses free-to-free edges only, narrowing its cone to each crossed edge's
angular span, and each reached triangle clips every route segment A-B still reachable in it (a bit mask per stack
entry: the cone x-A-B meets the current cone, and A-B is not wholly behind the crossed edge) against itself
intersected with the cone. Which triangles are reached and how cones narrow are exact orientation signs; the
interval ends are floating-point clippings. When x lies on the line A-B, straight walks decide instead. Windows of
fewer than ``SHARED_MIN_SEGMENTS`` segments (MIRAN's usual 1-3) run the same expansion once per segment, its cone
starting as x-A-B: the same triangles and cones per segment, without the mask's bookkeeping.

Tolerance: on output, gaps shorter than ``MERGE_TOL`` times the scene size (bounds width + height) are closed
and visible pieces shorter than it are dropped (single grazing points), unless the window itself is that short.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit
from core.kernels.buffers import doubled

from .arrays import MeshArrays, RouteSpan
from .predicates import orient
from .segments import segment_first_block, segment_visible
from .walk import _ahead, locate_any, prefer_free

MERGE_TOL = 1e-9
# Route segments served by one expansion: their membership in a cone is a bit mask of one int64.
WINDOW_CHUNK = 62
# Windows of fewer route segments take one expansion per segment: measured faster there (the shared expansion's
# bit-mask bookkeeping costs more than it saves on the 1-3 segments of a typical MIRAN window).
SHARED_MIN_SEGMENTS = 16


@jit(inline=True)
def _in_cone(x, y, rx, ry, lx, ly, px, py) -> bool:
    """Is direction x->p in the closed cone from ray x->r counter-clockwise to ray x->l (less than 180 degrees)?"""
    return orient(x, y, rx, ry, px, py) >= 0 and orient(x, y, px, py, lx, ly) >= 0


@jit
def _cone_meet(x, y, r1x, r1y, l1x, l1y, r2x, r2y, l2x, l2y):
    """Intersection of two cones at x (each under 180 degrees): (ok, rx, ry, lx, ly); ok False when it has no
    interior."""
    if _in_cone(x, y, r1x, r1y, l1x, l1y, r2x, r2y):
        rx, ry = r2x, r2y
    elif _in_cone(x, y, r2x, r2y, l2x, l2y, r1x, r1y):
        rx, ry = r1x, r1y
    else:
        return False, 0.0, 0.0, 0.0, 0.0
    if _in_cone(x, y, r1x, r1y, l1x, l1y, l2x, l2y):
        lx, ly = l2x, l2y
    elif _in_cone(x, y, r2x, r2y, l2x, l2y, l1x, l1y):
        lx, ly = l1x, l1y
    else:
        return False, 0.0, 0.0, 0.0, 0.0
    if orient(x, y, rx, ry, lx, ly) <= 0:
        return False, 0.0, 0.0, 0.0, 0.0
    return True, rx, ry, lx, ly


@jit(inline=True)
def clip_nonnegative(u0, u1, fa, fb):
    """Keep u in [u0, u1] where the linear function f(u) = fa + u (fb - fa) is >= 0."""
    if fa >= 0.0 and fb >= 0.0:
        return u0, u1
    if fa < 0.0 and fb < 0.0:
        return 1.0, 0.0
    r = fa / (fa - fb)
    if fa < 0.0:
        return max(u0, r), u1
    return u0, min(u1, r)


@jit(inline=True)
def _hp(ax, ay, bx, by, px, py) -> float:
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


@jit
def _target_part(V, T, t, x, y, cone, ax, ay, bx, by):
    """The u-range of A + u (B - A) inside triangle t and inside the cone (rx, ry, lx, ly) at x."""
    rx, ry, lx, ly = cone
    u0, u1 = 0.0, 1.0
    for k in range(3):
        p = T[t, k]
        q = T[t, (k + 1) % 3]
        u0, u1 = clip_nonnegative(u0, u1, _hp(V[p, 0], V[p, 1], V[q, 0], V[q, 1], ax, ay),
                       _hp(V[p, 0], V[p, 1], V[q, 0], V[q, 1], bx, by))
        if u0 > u1:
            return u0, u1
    u0, u1 = clip_nonnegative(u0, u1, _hp(x, y, rx, ry, ax, ay), _hp(x, y, rx, ry, bx, by))
    if u0 > u1:
        return u0, u1
    return clip_nonnegative(u0, u1, _hp(lx, ly, x, y, ax, ay), _hp(lx, ly, x, y, bx, by))


@jit
def _start_triangles(V, T, N, TT, tri, x, y, out) -> int:
    """The free triangles containing x (one, two on an edge, a fan around a vertex); returns how many."""
    a, b, c = T[tri, 0], T[tri, 1], T[tri, 2]
    o = (orient(V[a, 0], V[a, 1], V[b, 0], V[b, 1], x, y), orient(V[b, 0], V[b, 1], V[c, 0], V[c, 1], x, y),
         orient(V[c, 0], V[c, 1], V[a, 0], V[a, 1], x, y))
    n = 0
    if o[0] > 0 and o[1] > 0 and o[2] > 0:
        out[0] = tri
        return 1
    for k in range(3):
        if o[k] == 0 and o[(k + 2) % 3] == 0:
            v = T[tri, k]
            # Fan around vertex v, both ways from tri.
            out[n] = tri
            n += 1
            for direction in range(2):
                cur = tri
                for _ in range(1 << 16):
                    kc = 0 if T[cur, 0] == v else (1 if T[cur, 1] == v else 2)
                    nxt = N[cur, (kc + 2) % 3] if direction == 0 else N[cur, kc]
                    if nxt < 0 or nxt == tri:
                        break
                    if n >= out.shape[0]:
                        return n
                    dup = False
                    for i in range(n):
                        if out[i] == nxt:
                            dup = True
                    if dup:
                        break
                    out[n] = nxt
                    n += 1
                    cur = nxt
            m = 0
            for i in range(n):
                if TT[out[i]] >= 0:
                    out[m] = out[i]
                    m += 1
            return m
    for k in range(3):
        if o[k] == 0:
            if TT[tri] >= 0:
                out[n] = tri
                n += 1
            nb = N[tri, k]
            if nb >= 0 and TT[nb] >= 0:
                out[n] = nb
                n += 1
            return n
    return 0


@jit
def segment_visible_parts(M: MeshArrays, x, y, tri, ax, ay, bx, by, parts, starts, st, sc):
    """Visible parts of segment A-B from x (x in the closed free space, in triangle ``tri`` of the complete
    triangulation), as u-intervals of A + u (B - A) in ``parts`` (k, 2), unsorted, possibly overlapping.

    ``starts`` (>= 64,) int64, ``st`` (m,) int64 and ``sc`` (m, 4) float64 are work arrays. Returns
    (count, parts, st, sc); ``parts`` and the stack arrays are reallocated when they fill up."""
    W = M.walk
    V, T, N, TT = W.V, W.T, W.N, W.TT
    n = 0
    o = orient(x, y, ax, ay, bx, by)
    if o == 0:
        k, parts = _collinear_parts(M, x, y, ax, ay, bx, by, parts)
        return k, parts, st, sc
    if o > 0:
        rx, ry, lx, ly = ax, ay, bx, by
    else:
        rx, ry, lx, ly = bx, by, ax, ay
    ns = _start_triangles(V, T, N, TT, tri, x, y, starts)
    top = 0
    for i in range(ns):
        if top >= st.shape[0]:
            st, sc = doubled(st, st.shape[0]), doubled(sc, sc.shape[0])
        st[top] = starts[i]
        sc[top, 0] = rx
        sc[top, 1] = ry
        sc[top, 2] = lx
        sc[top, 3] = ly
        top += 1
    # Side of x with respect to the target line; edges wholly beyond the line are not crossed.
    sx = orient(ax, ay, bx, by, x, y)
    for _ in range(1 << 24):
        if top == 0:
            break
        top -= 1
        t = st[top]
        crx, cry, clx, cly = sc[top, 0], sc[top, 1], sc[top, 2], sc[top, 3]
        u0, u1 = _target_part(V, T, t, x, y, (crx, cry, clx, cly), ax, ay, bx, by)
        if u0 <= u1:
            if n >= parts.shape[0]:
                parts = doubled(parts, parts.shape[0])
            parts[n, 0] = u0
            parts[n, 1] = u1
            n += 1
        for k in range(3):
            nb = N[t, k]
            if nb < 0 or TT[nb] < 0:
                continue
            p = T[t, k]
            q = T[t, (k + 1) % 3]
            px, py, qx, qy = V[p, 0], V[p, 1], V[q, 0], V[q, 1]
            if orient(px, py, qx, qy, x, y) <= 0:
                continue  # x is not strictly inside this edge's half-plane: the entry edge or seen edge-on
            if orient(ax, ay, bx, by, px, py) * sx < 0 and orient(ax, ay, bx, by, qx, qy) * sx < 0:
                continue
            ok, nrx, nry, nlx, nly = _cone_meet(x, y, crx, cry, clx, cly, px, py, qx, qy)
            if not ok:
                continue
            if top >= st.shape[0]:
                st, sc = doubled(st, st.shape[0]), doubled(sc, sc.shape[0])
            st[top] = nb
            sc[top, 0] = nrx
            sc[top, 1] = nry
            sc[top, 2] = nlx
            sc[top, 3] = nly
            top += 1
    return n, parts, st, sc


@jit
def _push(st, sc, sm, top, t, rx, ry, lx, ly, mask):
    """Push (triangle, cone, segment mask) on the expansion stack; returns (top, st, sc, sm), grown when full."""
    if top >= st.shape[0]:
        st, sc = doubled(st, st.shape[0]), doubled(sc, sc.shape[0])
        sm2 = np.empty(st.shape[0], dtype=np.int64)
        sm2[: sm.shape[0]] = sm
        sm = sm2
    st[top] = t
    sc[top, 0] = rx
    sc[top, 1] = ry
    sc[top, 2] = lx
    sc[top, 3] = ly
    sm[top] = mask
    return top + 1, st, sc, sm


@jit
def _add_part(parts, n, j, u0, u1):
    if n >= parts.shape[0]:
        parts = doubled(parts, parts.shape[0])
    parts[n, 0] = j
    parts[n, 1] = u0
    parts[n, 2] = u1
    return n + 1, parts


@jit
def _cross_mask(x, y, segs, cones, sxs, mask, m, edge, cone) -> int:
    """The segments of ``mask`` still reachable through edge p-q = (px, py, qx, qy) with the narrowed cone
    (rx, ry, lx, ly): those with a point not wholly behind their line seen from x, whose own cone x-A-B meets the
    narrowed cone with an interior."""
    px, py, qx, qy = edge
    rx, ry, lx, ly = cone
    out = 0
    for j in range(m):
        if not (mask >> j) & 1:
            continue
        ax, ay, bx, by = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
        sx = sxs[j]
        if orient(ax, ay, bx, by, px, py) * sx < 0 and orient(ax, ay, bx, by, qx, qy) * sx < 0:
            continue
        ok, _, _, _, _ = _cone_meet(x, y, rx, ry, lx, ly, cones[j, 0], cones[j, 1], cones[j, 2], cones[j, 3])
        if ok:
            out |= np.int64(1) << j
    return out


@jit
def window_visible_parts(M: MeshArrays, x, y, tri, segs, m, parts, starts, st, sc, sm):
    """Visible parts of the segments A_j-B_j = segs[j] (m, 4) [ax, ay, bx, by], m <= WINDOW_CHUNK, seen from x (x in
    the closed free space, in triangle ``tri`` of the complete triangulation), by ONE triangular expansion.

    Each stack entry carries its triangle, the cone (r, l) through which it was reached and the bit mask of the
    segments still reachable in it (those whose cone x-A_j-B_j meets (r, l) with an interior and that are not wholly
    behind the crossed edge): every reached triangle clips each of its segments against itself and the cone, the
    per-segment expansion of MIRAN 3.2's exact visibility shared by the whole window. Rows of ``parts`` (k, 3) are
    [j, u0, u1] (u along A_j + u (B_j - A_j)), unsorted, possibly overlapping. ``starts`` (>= 64,) int64 and
    ``st`` (c,) int64, ``sc`` (c, 4) float64, ``sm`` (c,) int64 are work arrays. Returns (count, parts, st, sc,
    sm); ``parts`` and the stack arrays are reallocated when they fill up."""
    W = M.walk
    V, T, N, TT = W.V, W.T, W.N, W.TT
    n = 0
    cones = np.empty((m, 4), dtype=np.float64)
    sxs = np.empty(m, dtype=np.int64)
    full = np.int64(0)
    for j in range(m):
        ax, ay, bx, by = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
        o = orient(x, y, ax, ay, bx, by)
        sxs[j] = o  # side of x w.r.t. the line A-B (orient is cyclic): edges wholly beyond it are not crossed
        if o == 0:
            k, cp = _collinear_parts(M, x, y, ax, ay, bx, by, np.empty((2, 2), dtype=np.float64))
            for i in range(k):
                n, parts = _add_part(parts, n, j, cp[i, 0], cp[i, 1])
            continue
        if o > 0:
            cones[j, 0], cones[j, 1], cones[j, 2], cones[j, 3] = ax, ay, bx, by
        else:
            cones[j, 0], cones[j, 1], cones[j, 2], cones[j, 3] = bx, by, ax, ay
        full |= np.int64(1) << j
    if full == 0:
        return n, parts, st, sc, sm
    ns = _start_triangles(V, T, N, TT, tri, x, y, starts)
    top = 0
    # x lies in each start triangle: its segments' parts inside it are visible, cones are those of its edges.
    for i in range(ns):
        t = starts[i]
        for j in range(m):
            if (full >> j) & 1:
                u0, u1 = _target_part(V, T, t, x, y, (cones[j, 0], cones[j, 1], cones[j, 2], cones[j, 3]),
                                      segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3])
                if u0 <= u1:
                    n, parts = _add_part(parts, n, j, u0, u1)
        for k in range(3):
            nb = N[t, k]
            if nb < 0 or TT[nb] < 0:
                continue
            p = T[t, k]
            q = T[t, (k + 1) % 3]
            px, py, qx, qy = V[p, 0], V[p, 1], V[q, 0], V[q, 1]
            if orient(px, py, qx, qy, x, y) <= 0:
                continue
            mask = _cross_mask(x, y, segs, cones, sxs, full, m, (px, py, qx, qy), (px, py, qx, qy))
            if mask != 0:
                top, st, sc, sm = _push(st, sc, sm, top, nb, px, py, qx, qy, mask)
    for _ in range(1 << 24):
        if top == 0:
            break
        top -= 1
        t = st[top]
        crx, cry, clx, cly = sc[top, 0], sc[top, 1], sc[top, 2], sc[top, 3]
        mask = sm[top]
        for j in range(m):
            if (mask >> j) & 1:
                u0, u1 = _target_part(V, T, t, x, y, (crx, cry, clx, cly), segs[j, 0], segs[j, 1], segs[j, 2],
                                      segs[j, 3])
                if u0 <= u1:
                    n, parts = _add_part(parts, n, j, u0, u1)
        for k in range(3):
            nb = N[t, k]
            if nb < 0 or TT[nb] < 0:
                continue
            p = T[t, k]
            q = T[t, (k + 1) % 3]
            px, py, qx, qy = V[p, 0], V[p, 1], V[q, 0], V[q, 1]
            if orient(px, py, qx, qy, x, y) <= 0:
                continue  # x is not strictly inside this edge's half-plane: the entry edge or seen edge-on
            ok, nrx, nry, nlx, nly = _cone_meet(x, y, crx, cry, clx, cly, px, py, qx, qy)
            if not ok:
                continue
            nmask = _cross_mask(x, y, segs, cones, sxs, mask, m, (px, py, qx, qy), (nrx, nry, nlx, nly))
            if nmask != 0:
                top, st, sc, sm = _push(st, sc, sm, top, nb, nrx, nry, nlx, nly, nmask)
    return n, parts, st, sc, sm


@jit
def _dist(ax, ay, bx, by) -> float:
    return np.hypot(bx - ax, by - ay)


@jit
def _collinear_parts(M: MeshArrays, x, y, ax, ay, bx, by, parts):
    """x on the line A-B: walk from x along the line each way and keep what is reached before an obstacle."""
    W = M.walk
    dx = bx - ax
    dy = by - ay
    lab = _dist(ax, ay, bx, by)
    if parts.shape[0] < 2:
        parts = doubled(parts, parts.shape[0])
    x_after_a = not _ahead(x, y, ax, ay, dx, dy)  # A is not ahead of x
    x_before_b = not _ahead(bx, by, x, y, dx, dy)  # x is not ahead of B
    if x_after_a and x_before_b:
        # x on the segment: [A, x] and [x, B], each visible up to the first obstacle met from x.
        ux = _dist(ax, ay, x, y) / lab
        ta = segment_first_block(W, x, y, ax, ay)
        tb = segment_first_block(W, x, y, bx, by)
        parts[0, 0] = ux * (1.0 - min(ta, 1.0))
        parts[0, 1] = ux
        parts[1, 0] = ux
        parts[1, 1] = ux + min(tb, 1.0) * (1.0 - ux)
        return 2, parts
    if not x_after_a:
        # x before A: what is reached walking towards B, beyond A.
        near = _dist(x, y, ax, ay)
        reach = min(segment_first_block(W, x, y, bx, by), 1.0) * _dist(x, y, bx, by)
        if reach > near:
            parts[0, 0] = 0.0
            parts[0, 1] = min((reach - near) / lab, 1.0)
            return 1, parts
        return 0, parts
    # x after B: walking towards A.
    near = _dist(x, y, bx, by)
    reach = min(segment_first_block(W, x, y, ax, ay), 1.0) * _dist(x, y, ax, ay)
    if reach > near:
        parts[0, 0] = max(1.0 - (reach - near) / lab, 0.0)
        parts[0, 1] = 1.0
        return 1, parts
    return 0, parts


@jit(inline=True)
def window_piece(rp, rs, i, s0, s1):
    """The part of route segment i inside the window [s0, s1]: (sa, sb, ax, ay, bx, by), its arc lengths and end
    points (the segment's own vertices where it is not cut); empty (sb <= sa) when the window misses it."""
    sa = max(rs[i], s0)
    sb = min(rs[i + 1], s1)
    seg = rs[i + 1] - rs[i]
    if not (sb > sa and seg > 0.0):
        return sa, sa, 0.0, 0.0, 0.0, 0.0
    fa = (sa - rs[i]) / seg
    fb = (sb - rs[i]) / seg
    ax = rp[i, 0] + fa * (rp[i + 1, 0] - rp[i, 0]) if fa != 0.0 else rp[i, 0]
    ay = rp[i, 1] + fa * (rp[i + 1, 1] - rp[i, 1]) if fa != 0.0 else rp[i, 1]
    bx = rp[i, 0] + fb * (rp[i + 1, 0] - rp[i, 0]) if fb != 1.0 else rp[i + 1, 0]
    by = rp[i, 1] + fb * (rp[i + 1, 1] - rp[i, 1]) if fb != 1.0 else rp[i + 1, 1]
    return sa, sb, ax, ay, bx, by


@jit(noalloc=True)
def sort_rows(a, n) -> None:
    """Stable insertion sort of the rows a[:n] (every column) by their first column, in place and without scratch
    space (n is small: the pieces of one route segment, the crossings of one segment)."""
    for i in range(1, n):
        j = i
        while j > 0 and a[j - 1, 0] > a[j, 0]:
            for c in range(a.shape[1]):
                a[j - 1, c], a[j, c] = a[j, c], a[j - 1, c]
            j -= 1


@jit
def _per_segment(M: MeshArrays, x, y, tri, R: RouteSpan, a, s0, s1, tol, out) -> int:
    """The window's intervals from one cone expansion per route segment, from segment ``a`` on (short windows)."""
    rp, rs, hi = R.rp, R.rs, R.hi
    parts = np.empty((16, 2), dtype=np.float64)
    starts = np.empty(64, dtype=np.int64)
    st = np.empty(64, dtype=np.int64)
    sc = np.empty((64, 4), dtype=np.float64)
    n = 0
    i = a
    while i < hi - 1 and rs[i] <= s1:
        sa, sb, ax, ay, bx, by = window_piece(rp, rs, i, s0, s1)
        if sb > sa:
            k, parts, st, sc = segment_visible_parts(M, x, y, tri, ax, ay, bx, by, parts, starts, st, sc)
            sort_rows(parts, k)
            for j in range(k):
                n = append_interval(out, n, sa + parts[j, 0] * (sb - sa), sa + parts[j, 1] * (sb - sa), tol, s1 - s0)
                if n < 0:
                    return -1
        i += 1
    return drop_last_grazing(out, n, tol, s1 - s0)


@jit
def _shared(M: MeshArrays, x, y, tri, R: RouteSpan, a, s0, s1, tol, out) -> int:
    """The window's intervals from one expansion per WINDOW_CHUNK route segments, from segment ``a`` on."""
    rp, rs, hi = R.rp, R.rs, R.hi
    parts = np.empty((16, 3), dtype=np.float64)
    starts = np.empty(64, dtype=np.int64)
    st = np.empty(64, dtype=np.int64)
    sc = np.empty((64, 4), dtype=np.float64)
    sm = np.empty(64, dtype=np.int64)
    segs = np.empty((WINDOW_CHUNK, 4), dtype=np.float64)
    sab = np.empty((WINDOW_CHUNK, 2), dtype=np.float64)
    n = 0
    m = 0
    i = a
    while True:
        last = not (i < hi - 1 and rs[i] <= s1)
        if not last:
            sa, sb, ax, ay, bx, by = window_piece(rp, rs, i, s0, s1)
            if sb > sa:
                segs[m, 0], segs[m, 1], segs[m, 2], segs[m, 3] = ax, ay, bx, by
                sab[m, 0], sab[m, 1] = sa, sb
                m += 1
            i += 1
        if m == 0 or (m < WINDOW_CHUNK and not last):
            if last:
                break
            continue
        # One expansion for the collected segments, then their parts in route order into ``out``.
        k, parts, st, sc, sm = window_visible_parts(M, x, y, tri, segs, m, parts, starts, st, sc, sm)
        key = np.empty(k, dtype=np.float64)
        for j in range(k):
            key[j] = 4.0 * parts[j, 0] + parts[j, 1]  # segment index first, then u0 in [0, 1]
        order = np.argsort(key)
        for jj in range(k):
            r = order[jj]
            g = int(parts[r, 0])
            sa, sb = sab[g, 0], sab[g, 1]
            n = append_interval(out, n, sa + parts[r, 1] * (sb - sa), sa + parts[r, 2] * (sb - sa), tol, s1 - s0)
            if n < 0:
                return -1
        m = 0
        if last:
            break
    return drop_last_grazing(out, n, tol, s1 - s0)


@jit(noalloc=True)
def append_interval(out, n, u0, u1, tol, span) -> int:
    """Append the arc-length piece [u0, u1] (pieces come in route order) to the n intervals in ``out``: joined to
    the last one across a gap of at most ``tol``, else after it, dropping a last one that is a lone grazing point
    (unless the window ``span`` itself is that short). Returns the new count, or -1 when ``out`` is full."""
    if n > 0 and u0 <= out[n - 1, 1] + tol:
        if u1 > out[n - 1, 1]:
            out[n - 1, 1] = u1
        return n
    if n > 0 and out[n - 1, 1] - out[n - 1, 0] <= tol and span > tol:
        n -= 1
    if n >= out.shape[0]:
        return -1
    out[n, 0] = u0
    out[n, 1] = u1
    return n + 1


@jit(noalloc=True)
def drop_last_grazing(out, n, tol, span) -> int:
    """The final count once a last interval that is a lone grazing point is dropped (see ``append_interval``)."""
    if n > 0 and out[n - 1, 1] - out[n - 1, 0] <= tol and span > tol:
        return n - 1
    return n


@jit(inline=True, noalloc=True)
def visible_start(M: MeshArrays, x, y, R: RouteSpan, s0, s1, out, tri):
    """What every window query does first: (free triangle of x, first route segment a of the clamped window, 0),
    or (-1, 0, result) when the answer is already known (x not in the free space, an empty window, a zero-length
    window, whose single point is written to ``out``: result 1, 0, or -1 when ``out`` is too small). ``tri`` is a
    triangle containing x when the caller knows one, else -1."""
    W = M.walk
    V, T, N, TT = W.V, W.T, W.N, W.TT
    rp, rs, lo, hi = R
    s0 = max(s0, rs[lo])
    s1 = min(s1, rs[hi - 1])
    if not (s1 >= s0):
        return -1, 0, 0
    if tri < 0:
        tri = locate_any(W, x, y)
    if tri < 0:
        return -1, 0, 0
    tri = prefer_free(V, T, N, TT, tri, x, y)
    if TT[tri] < 0:
        return -1, 0, 0
    if s1 == s0:
        # A zero-length window: visible when its single point is.
        j = lo
        while j < hi - 2 and rs[j + 1] < s0:
            j += 1
        f = 0.0 if hi - lo < 2 or rs[j + 1] == rs[j] else (s0 - rs[j]) / (rs[j + 1] - rs[j])
        px = rp[j, 0] if f == 0.0 else rp[j, 0] + f * (rp[j + 1, 0] - rp[j, 0])
        py = rp[j, 1] if f == 0.0 else rp[j, 1] + f * (rp[j + 1, 1] - rp[j, 1])
        if not segment_visible(W, x, y, px, py):
            return -1, 0, 0
        if out.shape[0] < 1:
            return -1, 0, -1
        out[0, 0] = s0
        out[0, 1] = s1
        return -1, 0, 1
    # First segment a with rs[a + 1] >= s0 (binary search).
    a = lo
    b = hi - 1
    while b - a > 1:
        mid = (a + b) // 2
        if rs[mid] < s0:
            a = mid
        else:
            b = mid
    return tri, a, 0


@jit
def visible_intervals(M: MeshArrays, x, y, R: RouteSpan, s0, s1, out) -> int:
    """Arc-length intervals of the route window [s0, s1] visible from (x, y), written to out (k, 2).

    The route is R.rp[lo:hi] (points, (m, 2) float64) with cumulative arc lengths R.rs[lo:hi]; the window is
    clamped to the route. Returns the number of intervals (sorted, disjoint), or -1 when ``out`` is too small (call
    again with a larger one). Nothing is visible from a point outside the closed free space."""
    rp, rs, lo, hi = R
    B = M.walk.B
    if hi - lo < 1:
        return 0
    tri, a, code = visible_start(M, x, y, R, s0, s1, out, -1)
    if tri < 0:
        return code
    s0 = max(s0, rs[lo])
    s1 = min(s1, rs[hi - 1])
    tol = MERGE_TOL * ((B[2] - B[0]) + (B[3] - B[1]))
    # The last segment starting at or before s1 (binary search).
    e = a
    b = hi - 1
    while b - e > 1:
        mid = (e + b) // 2
        if rs[mid] <= s1:
            e = mid
        else:
            b = mid
    if e - a + 1 < SHARED_MIN_SEGMENTS:
        return _per_segment(M, x, y, tri, R, a, s0, s1, tol, out)
    return _shared(M, x, y, tri, R, a, s0, s1, tol, out)
