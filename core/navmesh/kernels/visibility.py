"""Visible intervals of a route window (MIRAN 2013, section 3.2, Figure 3): V_i = P_i cap pi_ind(r_i, sigma_i).

For each route segment A-B of the window, the part visible from x is found by *triangular expansion* of the
visibility polygon restricted to the cone x-A-B: starting from the free triangles around x, the expansion crosses
free-to-free edges only, narrowing the cone to each crossed edge's angular span, and clips A-B against every
reached triangle intersected with its cone. Which triangles are reached and how cones narrow are exact orientation
signs; the interval ends are floating-point clippings. When x lies on the line A-B, straight walks decide instead.

Tolerance: on output, gaps shorter than ``MERGE_TOL`` times the scene size (bounds width + height) are closed
and visible pieces shorter than it are dropped (single grazing points), unless the window itself is that short.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .predicates import orient
from .segments import segment_first_block, segment_visible
from .walk import _ahead, locate_any, prefer_free

MERGE_TOL = 1e-9


@njit(cache=True, nogil=True, inline="always")
def _in_cone(x, y, rx, ry, lx, ly, px, py) -> bool:
    """Is direction x->p in the closed cone from ray x->r counter-clockwise to ray x->l (less than 180 degrees)?"""
    return orient(x, y, rx, ry, px, py) >= 0 and orient(x, y, px, py, lx, ly) >= 0


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True, inline="always")
def _clip(u0, u1, fa, fb):
    """Keep u in [u0, u1] where the linear function f(u) = fa + u (fb - fa) is >= 0."""
    if fa >= 0.0 and fb >= 0.0:
        return u0, u1
    if fa < 0.0 and fb < 0.0:
        return 1.0, 0.0
    r = fa / (fa - fb)
    if fa < 0.0:
        return max(u0, r), u1
    return u0, min(u1, r)


@njit(cache=True, nogil=True, inline="always")
def _hp(ax, ay, bx, by, px, py) -> float:
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


@njit(cache=True, nogil=True)
def _target_part(V, T, t, x, y, rx, ry, lx, ly, ax, ay, bx, by):
    """The u-range of A + u (B - A) inside triangle t and inside the cone (r, l) at x."""
    u0, u1 = 0.0, 1.0
    for k in range(3):
        p = T[t, k]
        q = T[t, (k + 1) % 3]
        u0, u1 = _clip(u0, u1, _hp(V[p, 0], V[p, 1], V[q, 0], V[q, 1], ax, ay),
                       _hp(V[p, 0], V[p, 1], V[q, 0], V[q, 1], bx, by))
        if u0 > u1:
            return u0, u1
    u0, u1 = _clip(u0, u1, _hp(x, y, rx, ry, ax, ay), _hp(x, y, rx, ry, bx, by))
    if u0 > u1:
        return u0, u1
    return _clip(u0, u1, _hp(lx, ly, x, y, ax, ay), _hp(lx, ly, x, y, bx, by))


@njit(cache=True, nogil=True)
def _grow_stack(st, sc):
    n = st.shape[0]
    st2 = np.empty(2 * n, dtype=st.dtype)
    sc2 = np.empty((2 * n, 4), dtype=sc.dtype)
    st2[:n] = st
    sc2[:n] = sc
    return st2, sc2


@njit(cache=True, nogil=True)
def _grow_rows(a):
    b = np.empty((2 * a.shape[0], a.shape[1]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def segment_visible_parts(V, T, N, TT, B, G, S, x, y, tri, ax, ay, bx, by, parts, starts, st, sc):
    """Visible parts of segment A-B from x (x in the closed free space, in triangle ``tri`` of the complete
    triangulation), as u-intervals of A + u (B - A) in ``parts`` (k, 2), unsorted, possibly overlapping.

    ``starts`` (>= 64,) int64, ``st`` (m,) int64 and ``sc`` (m, 4) float64 are work arrays. Returns
    (count, parts, st, sc); ``parts`` and the stack arrays are reallocated when they fill up."""
    n = 0
    o = orient(x, y, ax, ay, bx, by)
    if o == 0:
        k, parts = _collinear_parts(V, T, N, TT, B, G, S, x, y, ax, ay, bx, by, parts)
        return k, parts, st, sc
    if o > 0:
        rx, ry, lx, ly = ax, ay, bx, by
    else:
        rx, ry, lx, ly = bx, by, ax, ay
    ns = _start_triangles(V, T, N, TT, tri, x, y, starts)
    top = 0
    for i in range(ns):
        if top >= st.shape[0]:
            st, sc = _grow_stack(st, sc)
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
        u0, u1 = _target_part(V, T, t, x, y, crx, cry, clx, cly, ax, ay, bx, by)
        if u0 <= u1:
            if n >= parts.shape[0]:
                parts = _grow_rows(parts)
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
                st, sc = _grow_stack(st, sc)
            st[top] = nb
            sc[top, 0] = nrx
            sc[top, 1] = nry
            sc[top, 2] = nlx
            sc[top, 3] = nly
            top += 1
    return n, parts, st, sc


@njit(cache=True, nogil=True)
def _dist(ax, ay, bx, by) -> float:
    return np.hypot(bx - ax, by - ay)


@njit(cache=True, nogil=True)
def _collinear_parts(V, T, N, TT, B, G, S, x, y, ax, ay, bx, by, parts):
    """x on the line A-B: walk from x along the line each way and keep what is reached before an obstacle."""
    dx = bx - ax
    dy = by - ay
    lab = _dist(ax, ay, bx, by)
    if parts.shape[0] < 2:
        parts = _grow_rows(parts)
    x_after_a = not _ahead(x, y, ax, ay, dx, dy)  # A is not ahead of x
    x_before_b = not _ahead(bx, by, x, y, dx, dy)  # x is not ahead of B
    if x_after_a and x_before_b:
        # x on the segment: [A, x] and [x, B], each visible up to the first obstacle met from x.
        ux = _dist(ax, ay, x, y) / lab
        ta = segment_first_block(V, T, N, TT, B, G, S, x, y, ax, ay)
        tb = segment_first_block(V, T, N, TT, B, G, S, x, y, bx, by)
        parts[0, 0] = ux * (1.0 - min(ta, 1.0))
        parts[0, 1] = ux
        parts[1, 0] = ux
        parts[1, 1] = ux + min(tb, 1.0) * (1.0 - ux)
        return 2, parts
    if not x_after_a:
        # x before A: what is reached walking towards B, beyond A.
        near = _dist(x, y, ax, ay)
        reach = min(segment_first_block(V, T, N, TT, B, G, S, x, y, bx, by), 1.0) * _dist(x, y, bx, by)
        if reach > near:
            parts[0, 0] = 0.0
            parts[0, 1] = min((reach - near) / lab, 1.0)
            return 1, parts
        return 0, parts
    # x after B: walking towards A.
    near = _dist(x, y, bx, by)
    reach = min(segment_first_block(V, T, N, TT, B, G, S, x, y, ax, ay), 1.0) * _dist(x, y, ax, ay)
    if reach > near:
        parts[0, 0] = max(1.0 - (reach - near) / lab, 0.0)
        parts[0, 1] = 1.0
        return 1, parts
    return 0, parts


@njit(cache=True, nogil=True)
def _sort_rows(a, n) -> None:
    """Insertion sort of rows a[:n] by their first column (n is small)."""
    for i in range(1, n):
        r0 = a[i, 0]
        r1 = a[i, 1]
        j = i - 1
        while j >= 0 and a[j, 0] > r0:
            a[j + 1, 0] = a[j, 0]
            a[j + 1, 1] = a[j, 1]
            j -= 1
        a[j + 1, 0] = r0
        a[j + 1, 1] = r1


@njit(cache=True, nogil=True)
def visible_intervals(V, T, N, TT, B, G, S, x, y, rp, rs, lo, hi, s0, s1, out) -> int:
    """Arc-length intervals of the route window [s0, s1] visible from (x, y), written to out (k, 2).

    The route is rp[lo:hi] (points, (m, 2) float64) with cumulative arc lengths rs[lo:hi]; the window is clamped
    to the route. Returns the number of intervals (sorted, disjoint), or -1 when ``out`` is too small (call again
    with a larger one). Nothing is visible from a point outside the closed free space."""
    if hi - lo < 1:
        return 0
    s0 = max(s0, rs[lo])
    s1 = min(s1, rs[hi - 1])
    if not (s1 >= s0):
        return 0
    tri = locate_any(V, T, N, TT, B, G, S, x, y)
    if tri < 0:
        return 0
    tri = prefer_free(V, T, N, TT, tri, x, y)
    if TT[tri] < 0:
        return 0
    tol = MERGE_TOL * ((B[2] - B[0]) + (B[3] - B[1]))
    if s1 == s0:
        # A zero-length window: visible when its single point is.
        j = lo
        while j < hi - 2 and rs[j + 1] < s0:
            j += 1
        f = 0.0 if hi - lo < 2 or rs[j + 1] == rs[j] else (s0 - rs[j]) / (rs[j + 1] - rs[j])
        px = rp[j, 0] if f == 0.0 else rp[j, 0] + f * (rp[j + 1, 0] - rp[j, 0])
        py = rp[j, 1] if f == 0.0 else rp[j, 1] + f * (rp[j + 1, 1] - rp[j, 1])
        if not segment_visible(V, T, N, TT, B, G, S, x, y, px, py):
            return 0
        if out.shape[0] < 1:
            return -1
        out[0, 0] = s0
        out[0, 1] = s1
        return 1
    parts = np.empty((16, 2), dtype=np.float64)
    starts = np.empty(64, dtype=np.int64)
    st = np.empty(64, dtype=np.int64)
    sc = np.empty((64, 4), dtype=np.float64)
    n = 0
    # First segment i with rs[i + 1] >= s0 (binary search).
    a = lo
    b = hi - 1
    while b - a > 1:
        mid = (a + b) // 2
        if rs[mid] < s0:
            a = mid
        else:
            b = mid
    i = a
    while i < hi - 1 and rs[i] <= s1:
        sa = max(rs[i], s0)
        sb = min(rs[i + 1], s1)
        seg = rs[i + 1] - rs[i]
        if sb > sa and seg > 0.0:
            fa = (sa - rs[i]) / seg
            fb = (sb - rs[i]) / seg
            ax = rp[i, 0] + fa * (rp[i + 1, 0] - rp[i, 0])
            ay = rp[i, 1] + fa * (rp[i + 1, 1] - rp[i, 1])
            bx = rp[i, 0] + fb * (rp[i + 1, 0] - rp[i, 0])
            by = rp[i, 1] + fb * (rp[i + 1, 1] - rp[i, 1])
            if fa == 0.0:
                ax, ay = rp[i, 0], rp[i, 1]
            if fb == 1.0:
                bx, by = rp[i + 1, 0], rp[i + 1, 1]
            k, parts, st, sc = segment_visible_parts(V, T, N, TT, B, G, S, x, y, tri, ax, ay, bx, by, parts,
                                                     starts, st, sc)
            _sort_rows(parts, k)
            for j in range(k):
                u0 = sa + parts[j, 0] * (sb - sa)
                u1 = sa + parts[j, 1] * (sb - sa)
                if n > 0 and u0 <= out[n - 1, 1] + tol:
                    if u1 > out[n - 1, 1]:
                        out[n - 1, 1] = u1
                    continue
                if n > 0 and out[n - 1, 1] - out[n - 1, 0] <= tol and s1 - s0 > tol:
                    n -= 1  # drop a lone grazing point before starting a new interval
                if n >= out.shape[0]:
                    return -1
                out[n, 0] = u0
                out[n, 1] = u1
                n += 1
        i += 1
    if n > 0 and out[n - 1, 1] - out[n - 1, 0] <= tol and s1 - s0 > tol:
        n -= 1
    return n


@njit(cache=True, nogil=True)
def visible_intervals_batch(V, T, N, TT, B, G, S, xs, rp, rs, offsets, route, s0, s1, out, counts) -> None:
    """Visible intervals for many queries on packed routes: query i looks from xs[i] (n, 2) at route
    ``route[i]`` (points rp[offsets[r]:offsets[r+1]], arc lengths rs likewise) in the window [s0[i], s1[i]].

    Writes up to K = out.shape[1] intervals per query into out (n, K, 2) and their number into counts (n,)
    int64; counts[i] = -1 when more than K intervals were visible (out[i] then holds the first K)."""
    K = out.shape[1]
    buf = np.empty((K + 1, 2))
    for i in range(xs.shape[0]):
        r = route[i]
        k = visible_intervals(V, T, N, TT, B, G, S, xs[i, 0], xs[i, 1], rp, rs, offsets[r], offsets[r + 1],
                              s0[i], s1[i], buf)
        if k < 0 or k > K:
            counts[i] = -1
            k = K
        else:
            counts[i] = k
        for j in range(k):
            out[i, j, 0] = buf[j, 0]
            out[i, j, 1] = buf[j, 1]
